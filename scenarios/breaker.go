package scenarios

import (
	"math"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/model/breaker"
)

// breakerMaxWindow bounds a circuit breaker's window, minimum and probes
// (model/breaker's own bound on a window's size).
const breakerMaxWindow = 1 << 20

// circuitBreaker decodes tools.NAME.circuit_breaker.
func (l *loader) circuitBreaker(n *yaml.Node, path string) *breaker.Config {
	d := l.d
	f := d.keys(n, path, "circuit_breaker")
	if f == nil {
		return nil
	}
	c := breaker.Resilience4jDefaults()
	enabled := true
	if v, ok := f.boolean("enabled"); ok {
		enabled = v
	}
	if w, _ := f.word("defaults"); w == "polly" {
		c = breaker.PollyDefaults()
	}
	if v := f.get("window"); v != nil {
		l.breakerWindow(v, f.field("window"), &c)
	}
	if v, ok := f.integer("minimum_calls"); ok {
		c.MinimumCalls = int(v)
	}
	// A rate is a share of the calls in the window (resilience4j's 50 %
	// is 0.5).
	if v, ok := f.number("failure_rate"); ok {
		c.FailureRateThreshold = percent(v)
	}
	if v, ok := f.number("slow_call_rate"); ok {
		c.SlowCallRateThreshold = percent(v)
	}
	if v, ok := f.duration("slow_call_duration"); ok {
		c.SlowCallDuration = v
	}
	if v, ok := f.duration("open_for"); ok {
		c.WaitInOpen = v
	}
	if v, ok := f.integer("half_open_probes"); ok {
		c.PermittedInHalfOpen = int(v)
	}
	f.finish()
	if len(d.errs) == f.clean {
		if err := c.Validate(); err != nil {
			d.errorf(n, path, "%v", err)
		}
	}
	if !enabled {
		return nil
	}
	return &c
}

// percent turns a share in (0, 1] into the percentage model/breaker
// compares rates with, rounded to 1e-9 %: 0.07 × 100 is 7.000000000000001
// in floating point, and a window of exactly 7 % failures must reach it. A
// share too small to round to a nonzero percentage keeps its exact value,
// so that every share the key table allows stays above 0.
func percent(share float64) float64 {
	if p := math.Round(share*100*1e9) / 1e9; p > 0 || share <= 0 {
		return p
	}
	return share * 100
}

// breakerWindow decodes a circuit breaker's window into c.
func (l *loader) breakerWindow(n *yaml.Node, path string, c *breaker.Config) {
	d := l.d
	f := d.keys(n, path, "circuit_breaker_window")
	if f == nil {
		return
	}
	switch w, _ := f.word("type"); w {
	case "count":
		c.Window = breaker.CountBased
	case "time":
		c.Window = breaker.TimeBased
	}
	if v, ok := f.integer("size"); ok {
		c.WindowSize = int(v)
	}
	if v := f.get("bucket"); v != nil {
		before := len(d.errs)
		c.BucketWidth = d.durationKey(f.key("bucket"), v, f.field("bucket"))
		switch {
		case len(d.errs) > before:
		case c.Window != breaker.TimeBased:
			d.errorf(v, f.field("bucket"), "only a time window has buckets (type: time)")
		case c.WindowSize > 0 && c.BucketWidth > time.Duration(math.MaxInt64/int64(c.WindowSize)):
			d.errorf(v, f.field("bucket"), "size × bucket must be at most what a duration holds, about 292 years")
		}
	}
	f.finish()
}
