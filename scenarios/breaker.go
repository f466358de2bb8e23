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
	if v := f.get("enabled"); v != nil {
		enabled = d.boolean(v, f.field("enabled"))
	}
	if v := f.get("defaults"); v != nil {
		if d.oneOf(v, f.field("defaults"), "resilience4j", "polly") == "polly" {
			c = breaker.PollyDefaults()
		}
	}
	if v := f.get("window"); v != nil {
		l.breakerWindow(v, f.field("window"), &c)
	}
	if v := f.get("minimum_calls"); v != nil {
		c.MinimumCalls = int(d.integer(v, f.field("minimum_calls"), 1, breakerMaxWindow))
	}
	rate := func(key string, into *float64) {
		v := f.get(key)
		if v == nil {
			return
		}
		before := len(d.errs)
		x := d.number(v, f.field(key), -math.MaxFloat64, math.MaxFloat64)
		if len(d.errs) == before && !(x > 0 && x <= 1) {
			d.errorf(v, f.field(key), "must be in (0, 1], a share of the calls in the window (resilience4j's 50%% is 0.5), got %s", resolve(v).Value)
		}
		*into = percent(x)
	}
	rate("failure_rate", &c.FailureRateThreshold)
	rate("slow_call_rate", &c.SlowCallRateThreshold)
	if v := f.get("slow_call_duration"); v != nil {
		c.SlowCallDuration = d.duration(v, f.field("slow_call_duration"), MaxDuration)
	}
	if v := f.get("open_for"); v != nil {
		before := len(d.errs)
		c.WaitInOpen = d.duration(v, f.field("open_for"), MaxDuration)
		if c.WaitInOpen <= 0 && len(d.errs) == before {
			d.errorf(v, f.field("open_for"), "must be > 0: how long the breaker refuses calls before it probes")
		}
	}
	if v := f.get("half_open_probes"); v != nil {
		c.PermittedInHalfOpen = int(d.integer(v, f.field("half_open_probes"), 1, breakerMaxWindow))
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
// in floating point, and a window of exactly 7 % failures must reach it.
func percent(share float64) float64 {
	return math.Round(float64(share*100)*1e9) / 1e9
}

// breakerWindow decodes a circuit breaker's window into c.
func (l *loader) breakerWindow(n *yaml.Node, path string, c *breaker.Config) {
	d := l.d
	f := d.keys(n, path, "circuit_breaker_window")
	if f == nil {
		return
	}
	if v := f.get("type"); v != nil {
		switch d.oneOf(v, f.field("type"), "count", "time") {
		case "count":
			c.Window = breaker.CountBased
		case "time":
			c.Window = breaker.TimeBased
		}
	}
	if v := f.get("size"); v != nil {
		c.WindowSize = int(d.integer(v, f.field("size"), 1, breakerMaxWindow))
	}
	if v := f.get("bucket"); v != nil {
		before := len(d.errs)
		c.BucketWidth = d.duration(v, f.field("bucket"), MaxDuration)
		switch {
		case len(d.errs) > before:
		case c.Window != breaker.TimeBased:
			d.errorf(v, f.field("bucket"), "only a time window has buckets (type: time)")
		case c.BucketWidth <= 0:
			d.errorf(v, f.field("bucket"), "must be > 0")
		case c.WindowSize > 0 && c.BucketWidth > time.Duration(math.MaxInt64/int64(c.WindowSize)):
			d.errorf(v, f.field("bucket"), "size × bucket must be at most what a duration holds, about 292 years")
		}
	}
	f.finish()
}
