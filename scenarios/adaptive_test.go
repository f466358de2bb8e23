package scenarios_test

import "testing"

// TestParseAdaptiveConcurrency: adaptive_concurrency's and the slow
// outage's errors name t.yaml:line and the field.
func TestParseAdaptiveConcurrency(t *testing.T) {
	runRows(t, []row{
		{name: "valid/aimd", tool: "adaptive_concurrency: {algorithm: aimd, initial: 4, min: 1, max: 8, backoff_ratio: 0.5, timeout: 2s, max_wait: 1s}", want: ""},
		{name: "valid/gradient", tool: "adaptive_concurrency: {algorithm: gradient, smoothing: 1, queue_size: 0, long_window: 1, rtt_tolerance: 2, on_limit: reject}", want: ""},
		{name: "valid/defaults-fit-max", tool: "adaptive_concurrency: {algorithm: aimd, max: 5}", want: ""},
		{name: "algorithm/missing", tool: "adaptive_concurrency: {initial: 4}", want: "t.yaml:8: tools.t.adaptive_concurrency.algorithm: required: aimd or gradient"},
		{name: "algorithm/bad", tool: "adaptive_concurrency: {algorithm: vegas}", want: "t.yaml:8: tools.t.adaptive_concurrency.algorithm: must be one of aimd, gradient, got \"vegas\""},
		{name: "bounds/min-above-max", tool: "adaptive_concurrency: {algorithm: aimd, min: 9, max: 4}", want: "t.yaml:8: tools.t.adaptive_concurrency.max: must be ≥ min (9), got 4"},
		{name: "bounds/initial-below-min", tool: "adaptive_concurrency: {algorithm: aimd, initial: 2, min: 3}", want: "t.yaml:8: tools.t.adaptive_concurrency.initial: must be ≥ min (3), got 2"},
		{name: "bounds/initial-above-max", tool: "adaptive_concurrency: {algorithm: gradient, initial: 30, max: 10}", want: "t.yaml:8: tools.t.adaptive_concurrency.initial: must be ≤ max (10), got 30"},
		{name: "bounds/zero", tool: "adaptive_concurrency: {algorithm: aimd, initial: 0}", want: "t.yaml:8: tools.t.adaptive_concurrency.initial: must be in [1, 100000000], got 0"},
		{name: "aimd/ranges", tool: "adaptive_concurrency: {algorithm: aimd, backoff_ratio: 1, timeout: 0s}", want: "t.yaml:8: tools.t.adaptive_concurrency.backoff_ratio: must be in [0.5, 0.99], got 1\nt.yaml:8: tools.t.adaptive_concurrency.timeout: must be > 0, got 0s"},
		{name: "gradient/ranges", tool: "adaptive_concurrency: {algorithm: gradient, smoothing: 0, long_window: 0, rtt_tolerance: 0.5}", want: "t.yaml:8: tools.t.adaptive_concurrency.smoothing: must be in (0, 1], got 0\nt.yaml:8: tools.t.adaptive_concurrency.long_window: must be in [1, 1000000000], got 0\nt.yaml:8: tools.t.adaptive_concurrency.rtt_tolerance: must be in [1, 1e+06], got 0.5"},
		{name: "gradient-key-under-aimd", tool: "adaptive_concurrency: {algorithm: aimd, smoothing: 0.2}", want: "t.yaml:8: tools.t.adaptive_concurrency.smoothing: unknown key; allowed here: algorithm, backoff_ratio, initial, max, max_wait, min, on_limit, timeout"},
		{name: "on_limit/bad", tool: "adaptive_concurrency: {algorithm: aimd, on_limit: queue}", want: "t.yaml:8: tools.t.adaptive_concurrency.on_limit: must be one of wait, reject, got \"queue\""},
		{name: "max_wait/reject", tool: "adaptive_concurrency: {algorithm: aimd, on_limit: reject, max_wait: 1s}", want: "t.yaml:8: tools.t.adaptive_concurrency.max_wait: applies to on_limit: wait only; on_limit: reject never waits"},
		{name: "slow/valid", tool: "outages: [{start: 1s, end: 2s, mode: slow, factor: 4}]", want: ""},
		{name: "slow/no-factor", tool: "outages: [{start: 1s, end: 2s, mode: slow}]", want: "t.yaml:8: tools.t.outages[0].factor: required with mode slow: what the calls' latency is multiplied by (e.g. factor: 5)"},
		{name: "slow/factor-below-1", tool: "outages: [{start: 1s, end: 2s, mode: slow, factor: 0.5}]", want: "t.yaml:8: tools.t.outages[0].factor: must be in [1, 1e+06], got 0.5"},
		{name: "factor-without-slow", tool: "outages: [{start: 1s, end: 2s, mode: hang, factor: 4}]", step: "timeout: 1s", want: "t.yaml:8: tools.t.outages[0].factor: unknown key; allowed here: end, mode, start"},
	})
}
