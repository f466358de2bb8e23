package scenarios

import (
	"reflect"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/breaker"
)

// TestCircuitBreakerKeys: the keys not given take resilience4j's defaults,
// or Polly's with defaults: polly; shares become model/breaker's
// percentages exactly (0.07 is 7, not 7.000000000000001); enabled: false
// leaves the tool without a breaker.
func TestCircuitBreakerKeys(t *testing.T) {
	parse := func(cb string) *breaker.Config {
		t.Helper()
		src := "name: t\narrivals: {rate: 1/s}\nworkers: 1\nsteps: [{name: a, tool: t}]\ntools:\n  t:\n    latency: {dist: constant, value: 1ms}\n    circuit_breaker: " + cb + "\n"
		sc, err := Parse("t.yaml", []byte(src), nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", cb, err)
		}
		return sc.Config.Tools[0].CircuitBreaker
	}
	r4j := breaker.Resilience4jDefaults()
	if got := parse("{}"); !reflect.DeepEqual(*got, r4j) {
		t.Errorf("{} = %+v, want resilience4j's defaults %+v", *got, r4j)
	}
	polly := breaker.PollyDefaults()
	polly.WaitInOpen = 30 * time.Second
	if got := parse("{defaults: polly, open_for: 30s}"); !reflect.DeepEqual(*got, polly) {
		t.Errorf("polly = %+v, want %+v", *got, polly)
	}
	want := r4j
	want.Window, want.WindowSize, want.BucketWidth = breaker.TimeBased, 20, 500*time.Millisecond
	want.MinimumCalls, want.FailureRateThreshold, want.SlowCallRateThreshold = 5, 7, 30
	want.SlowCallDuration, want.PermittedInHalfOpen = 2*time.Second, 3
	got := parse("{window: {type: time, size: 20, bucket: 500ms}, minimum_calls: 5, failure_rate: 0.07, slow_call_rate: 0.3, slow_call_duration: 2s, half_open_probes: 3}")
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("every key = %+v, want %+v", *got, want)
	}
	if got := parse("{enabled: false, failure_rate: 0.2}"); got != nil {
		t.Errorf("enabled: false = %+v, want no breaker", *got)
	}
}
