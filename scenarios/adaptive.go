package scenarios

import (
	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/model/adaptive"
	"github.com/budgetsim/budgetsim/model/system"
)

// adaptiveConcurrency reads a tool's adaptive_concurrency. Absent keys take
// concurrency-limits' defaults (adaptive.DefaultAIMD, DefaultGradient),
// except that min and max widen to take an initial outside [20, 200].
func (l *loader) adaptiveConcurrency(n *yaml.Node, path string) *system.AdaptiveConcurrency {
	d := l.d
	f := d.keys(n, path, "adaptive_concurrency")
	if f == nil {
		return nil
	}
	ac := &system.AdaptiveConcurrency{}
	switch w, _ := f.word("algorithm"); w {
	case "aimd":
		ac.Algorithm = system.AIMD
	case "gradient":
		ac.Algorithm = system.Gradient
	}
	before := len(d.errs)
	// concurrency-limits' defaults (20, 20, 200), moved as little as
	// needed to fit the bounds the scenario gives.
	defaults := adaptive.DefaultAIMD()
	var initial, lo, hi int
	iv, lv, hv := f.get("initial"), f.get("min"), f.get("max")
	if iv != nil {
		initial = int(d.integerKey(f.key("initial"), iv, f.field("initial")))
	}
	if lv != nil {
		lo = int(d.integerKey(f.key("min"), lv, f.field("min")))
	}
	if hv != nil {
		hi = int(d.integerKey(f.key("max"), hv, f.field("max")))
	}
	if len(d.errs) == before {
		if lv == nil {
			lo = defaults.Min
			if iv != nil {
				lo = min(lo, initial)
			}
			if hv != nil {
				lo = min(lo, hi)
			}
		}
		if hv == nil {
			hi = max(defaults.Max, lo)
			if iv != nil {
				hi = max(hi, initial)
			}
		}
		if iv == nil {
			initial = min(max(defaults.Initial, lo), hi)
		}
		switch {
		case hi < lo:
			d.errorf(hv, f.field("max"), "must be ≥ min (%d), got %d", lo, hi)
		case initial < lo:
			d.errorf(iv, f.field("initial"), "must be ≥ min (%d), got %d", lo, initial)
		case initial > hi:
			d.errorf(iv, f.field("initial"), "must be ≤ max (%d), got %d", hi, initial)
		}
	}
	if w, ok := f.word("on_limit"); ok {
		ac.Reject = w == "reject"
	}
	if v, ok := f.duration("max_wait"); ok {
		ac.MaxWait = v
		if ac.Reject && ac.MaxWait > 0 {
			d.errorf(f.get("max_wait"), f.field("max_wait"), "applies to on_limit: wait only; on_limit: reject never waits")
		}
	}
	switch ac.Algorithm {
	case system.AIMD:
		c := adaptive.DefaultAIMD()
		c.Initial, c.Min, c.Max = initial, lo, hi
		if v, ok := f.number("backoff_ratio"); ok {
			c.BackoffRatio = v
		}
		if v, ok := f.duration("timeout"); ok {
			c.Timeout = v
		}
		ac.AIMD = c
	case system.Gradient:
		c := adaptive.DefaultGradient()
		c.Initial, c.Min, c.Max = initial, lo, hi
		if v, ok := f.number("smoothing"); ok {
			c.Smoothing = v
		}
		if v, ok := f.integer("queue_size"); ok {
			c.QueueSize = int(v)
		}
		if v, ok := f.integer("long_window"); ok {
			c.LongWindow = int(v)
		}
		if v, ok := f.number("rtt_tolerance"); ok {
			c.RTTTolerance = v
		}
		ac.Gradient = c
	}
	f.finish()
	if len(d.errs) == before && ac.Algorithm != 0 {
		if err := ac.Validate(); err != nil {
			// Every bound is checked above, key by key; this is a guard.
			d.errorf(n, path, "%v", err)
		}
	}
	return ac
}
