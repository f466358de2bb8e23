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
	if v := f.get("algorithm"); v != nil {
		switch d.oneOf(v, f.field("algorithm"), "aimd", "gradient") {
		case "aimd":
			ac.Algorithm = system.AIMD
		case "gradient":
			ac.Algorithm = system.Gradient
		}
	} else {
		d.errorf(n, f.field("algorithm"), "required: aimd or gradient")
	}
	before := len(d.errs)
	// concurrency-limits' defaults (20, 20, 200), moved as little as
	// needed to fit the bounds the scenario gives.
	defaults := adaptive.DefaultAIMD()
	var initial, lo, hi int
	iv, lv, hv := f.get("initial"), f.get("min"), f.get("max")
	if iv != nil {
		initial = int(d.integer(iv, f.field("initial"), 1, MaxWorkers))
	}
	if lv != nil {
		lo = int(d.integer(lv, f.field("min"), 1, MaxWorkers))
	}
	if hv != nil {
		hi = int(d.integer(hv, f.field("max"), 1, MaxWorkers))
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
	if v := f.get("on_limit"); v != nil {
		ac.Reject = d.oneOf(v, f.field("on_limit"), "wait", "reject") == "reject"
	}
	if v := f.get("max_wait"); v != nil {
		ac.MaxWait = d.duration(v, f.field("max_wait"), MaxDuration)
		if ac.Reject && ac.MaxWait > 0 {
			d.errorf(v, f.field("max_wait"), "applies to on_limit: wait only; on_limit: reject never waits")
		}
	}
	switch ac.Algorithm {
	case system.AIMD:
		c := adaptive.DefaultAIMD()
		c.Initial, c.Min, c.Max = initial, lo, hi
		if v := f.get("backoff_ratio"); v != nil {
			c.BackoffRatio = d.number(v, f.field("backoff_ratio"), 0.5, 0.99)
		}
		if v := f.get("timeout"); v != nil {
			b := len(d.errs)
			c.Timeout = d.duration(v, f.field("timeout"), MaxDuration)
			if c.Timeout <= 0 && len(d.errs) == b {
				d.errorf(v, f.field("timeout"), "must be > 0")
			}
		}
		ac.AIMD = c
	case system.Gradient:
		c := adaptive.DefaultGradient()
		c.Initial, c.Min, c.Max = initial, lo, hi
		if v := f.get("smoothing"); v != nil {
			b := len(d.errs)
			c.Smoothing = d.number(v, f.field("smoothing"), 0, 1)
			if c.Smoothing == 0 && len(d.errs) == b {
				d.errorf(v, f.field("smoothing"), "must be > 0 (0 would never move the limit)")
			}
		}
		if v := f.get("queue_size"); v != nil {
			c.QueueSize = int(d.integer(v, f.field("queue_size"), 0, MaxWorkers))
		}
		if v := f.get("long_window"); v != nil {
			c.LongWindow = int(d.integer(v, f.field("long_window"), 1, 1_000_000_000))
		}
		if v := f.get("rtt_tolerance"); v != nil {
			c.RTTTolerance = d.number(v, f.field("rtt_tolerance"), 1, 1e6)
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
