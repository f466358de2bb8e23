package scenarios_test

import "testing"

// The table tests below assert the loader's exact messages for every key
// of the scenario format: wrong type, wrong unit, out of range, unknown
// key. Each names t.yaml:line, the field path, and the allowed values where
// there is a choice.

// The keys allowed in each mapping, and the arrival processes, as the
// loader lists them in its messages. Adding a key to the format changes
// these (and the goldens: go test -run ErrorsGolden -update).
const (
	topKeys   = "arrivals, classes, cost, deadline, description, floor, guards, horizon, min_lease, name, queue, retry, runs, scheduling, seed, steps, tenants, tools, warmup, workers"
	toolKeys  = "adaptive_concurrency, cache, capabilities, circuit_breaker, concurrency, contention, cost, deadline_aware, description, drop_floor, errors, hang, latency, outages, per_input_token, per_output_token, prompt_cache, queue, rate_limit, result_tokens, retry_after, script, stream, tokens, ttft"
	stepKeys  = "allow_unsafe, attempts, backoff, budget, calls, choose, fallback, first_token_timeout, hedge, idempotency_key, idempotent, loop, name, parallel, requires, retry_after, retry_after_jitter, timeout, tokens, tool, wait"
	processes = "poisson, constant, batch, schedule, diurnal, trace, closed, renewal, mmpp"
)

func TestParseTopLevel(t *testing.T) {
	runRows(t, []row{
		{name: "valid", top: "seed: 7", want: ""},
		{name: "description/mapping", top: "description: {a: 1}", want: "t.yaml:4: description: must be a single value, got a mapping"},
		{name: "seed/negative", top: "seed: -1", want: "t.yaml:4: seed: must be ≥ 0, got -1"},
		{name: "seed/word", top: "seed: lucky", want: "t.yaml:4: seed: must be a whole number, got \"lucky\""},
		{name: "seed/fraction", top: "seed: 1.5", want: "t.yaml:4: seed: must be a whole number, got \"1.5\""},
		{name: "runs/zero", top: "runs: 0", want: "t.yaml:4: runs: must be in [1, 10000000000], got 0"},
		{name: "runs/1e12", top: "runs: 1e12", want: "t.yaml:4: runs: must be in [1, 10000000000], got 1e12"},
		{name: "runs/overflow", top: "runs: 99999999999999999999", want: "t.yaml:4: runs: must be in [1, 10000000000], got 99999999999999999999"},
		{name: "runs/inf", top: "runs: 1e400", want: "t.yaml:4: runs: must be in [1, 10000000000], got 1e400"},
		{name: "runs/nan", top: "runs: .nan", want: "t.yaml:4: runs: must be a whole number, got \".nan\""},
		{name: "runs/duration", top: "runs: 10s", want: "t.yaml:4: runs: must be a whole number, got \"10s\""},
		{name: "horizon/no-unit", top: "horizon: 60", want: "t.yaml:4: horizon: \"60\" has no unit: write e.g. 60ms or 60s"},
		{name: "horizon/zero", top: "horizon: 0s", want: "t.yaml:4: horizon: must be > 0, got 0s"},
		{name: "horizon/too-long", top: "horizon: 1000000h", want: "t.yaml:4: horizon: must be ≤ 876000h, got 1000000h"},
		{name: "horizon/way-too-long", top: "horizon: 9999999999h", want: "t.yaml:4: horizon: \"9999999999h\" is too long: at most 2562047h47m16.854775807s (about 292 years)"},
		{name: "horizon/runaway", arrivals: "{rate: 1e9/s}", top: "horizon: 1000h", want: "t.yaml:4: horizon: 1000h at 1e+09/s would make about 3.6e+15 runs, more than 10000000000: shorten the horizon"},
		{name: "warmup/negative", top: "warmup: -5", want: "t.yaml:4: warmup: must be in [0, 10000000000], got -5"},
		{name: "warmup/duration", top: "warmup: 10s", want: ""},
		{name: "warmup/duration-no-unit", top: "warmup: 1.5", want: "t.yaml:4: warmup: must be a whole number, got \"1.5\""},
		{name: "warmup/bad-unit", top: "warmup: 10 sec", want: "t.yaml:4: warmup: \"10 sec\" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)"},
		{name: "warmup/all-runs", top: "runs: 10\nwarmup: 10", want: "t.yaml:5: warmup: must be < runs (10), got 10: no run would be measured"},
		{name: "warmup/whole-horizon", top: "horizon: 60s\nwarmup: 60s", want: "t.yaml:5: warmup: must be < horizon (1m), got 60s: no run would be measured"},
		{name: "warmup/within-horizon", top: "horizon: 60s\nwarmup: 59s", want: ""},
		{name: "warmup/before-horizon", top: "warmup: 90s\nhorizon: 60s", want: "t.yaml:4: warmup: must be < horizon (1m), got 90s: no run would be measured"},
		{name: "workers/zero", workers: "0", want: "t.yaml:3: workers: must be in [1, 100000000], got 0"},
		{name: "workers/negative", workers: "-4", want: "t.yaml:3: workers: must be in [1, 100000000], got -4"},
		{name: "workers/1e9", workers: "1e9", want: "t.yaml:3: workers: must be in [1, 100000000], got 1e9"},
		{name: "workers/fraction", workers: "2.5", want: "t.yaml:3: workers: must be a whole number, got \"2.5\""},
		{name: "workers/word", workers: "many", want: "t.yaml:3: workers: must be a whole number, got \"many\""},
		{name: "workers/null", workers: "~", want: "t.yaml:3: workers: must be a single value, got nothing"},
		{name: "workers/list", workers: "[2]", want: "t.yaml:3: workers: must be a single value, got a list"},
		{name: "queue/scalar", top: "queue: 5", want: "t.yaml:4: queue: must be a mapping (key: value lines), got \"5\""},
		{name: "queue/negative", top: "queue: {capacity: -1}", want: "t.yaml:4: queue.capacity: must be in [0, 100000000], got -1"},
		{name: "queue/1e9", top: "queue: {capacity: 1e9}", want: "t.yaml:4: queue.capacity: must be in [0, 100000000], got 1e9"},
		{name: "queue/typo", top: "queue: {capcity: 5}", want: "t.yaml:4: queue.capcity: unknown key (did you mean \"capacity\"?); allowed here: capacity"},
		{name: "deadline/no-unit", top: "deadline: 2", want: "t.yaml:4: deadline: \"2\" has no unit: write e.g. 2ms or 2s"},
		{name: "deadline/negative", top: "deadline: -1s", want: "t.yaml:4: deadline: must be ≥ 0, got -1s"},
		{name: "deadline/word", top: "deadline: soon", want: "t.yaml:4: deadline: \"soon\" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)"},
		{name: "floor/no-unit", top: "floor: 20", want: "t.yaml:4: floor: \"20\" has no unit: write e.g. 20ms or 20s"},
		{name: "min_lease/bad-unit", top: "min_lease: 5 ms", want: "t.yaml:4: min_lease: \"5 ms\" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)"},
		{name: "guards/zero", top: "guards: {max_events: 0, max_in_system: 0, max_tool_queue: 0}", want: "t.yaml:4: guards.max_events: must be ≥ 1, got 0\nt.yaml:4: guards.max_in_system: must be in [1, 4000000], got 0\nt.yaml:4: guards.max_tool_queue: must be in [1, 8000000], got 0"},
		{name: "guards/units", top: "guards: {max_time: 10, max_wall: 1e3s}", want: "t.yaml:4: guards.max_time: \"10\" has no unit: write e.g. 10ms or 10s\nt.yaml:4: guards.max_wall: \"1e3s\" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)"},
		{name: "guards/typo", top: "guards: {max_evnts: 10}", want: "t.yaml:4: guards.max_evnts: unknown key (did you mean \"max_events\"?); allowed here: max_events, max_in_system, max_time, max_tool_queue, max_wall"},
		{name: "unknown/wokers", top: "wokers: 3", want: "t.yaml:4: wokers: unknown key (did you mean \"workers\"?); allowed here: " + topKeys},
		{name: "unknown/far", top: "colour: blue", want: "t.yaml:4: colour: unknown key; allowed here: " + topKeys},
		{name: "unknown/latncy", top: "latncy: 1s", want: "t.yaml:4: latncy: unknown key; allowed here: " + topKeys},
		{name: "duplicate-key", top: "workers: 3", want: "t.yaml:4: workers: duplicate key"},
		{name: "non-scalar-key", top: "? [a, b]\n: 1", want: "t.yaml:4: keys must be single words, got a list"},
	})
}

func TestParseArrivals(t *testing.T) {
	runRows(t, []row{
		{name: "rate/no-unit", arrivals: "{rate: 9}", want: "t.yaml:2: arrivals.rate: \"9\" has no unit: write e.g. 9/s, 9/m or 9/h"},
		{name: "rate/bad-unit", arrivals: "{rate: 9/x}", want: "t.yaml:2: arrivals.rate: \"9/x\": unknown rate unit \"x\" (use /s, /m or /h)"},
		{name: "rate/ms", arrivals: "{rate: 9/ms}", want: "t.yaml:2: arrivals.rate: \"9/ms\": unknown rate unit \"ms\" (use /s, /m or /h)"},
		{name: "rate/negative", arrivals: "{rate: -9/s}", want: "t.yaml:2: arrivals.rate: must be ≥ 0, got -9/s"},
		{name: "rate/zero", arrivals: "{rate: 0/s}", want: "t.yaml:2: arrivals.rate: must be > 0, got 0/s"},
		{name: "rate/word", arrivals: "{rate: lots/s}", want: "t.yaml:2: arrivals.rate: \"lots/s\" is not a rate: the part before / must be a number"},
		{name: "rate/missing", arrivals: "{}", want: "t.yaml:2: arrivals.rate: required for poisson arrivals (e.g. rate: 9/s)"},
		{name: "rate/typo", arrivals: "{rat: 9/s}", want: "t.yaml:2: arrivals.rate: required for poisson arrivals (e.g. rate: 9/s)\nt.yaml:2: arrivals.rat: unknown key (did you mean \"rate\"?); allowed here: process, rate"},
		{name: "scalar", arrivals: "9/s", want: "t.yaml:2: arrivals: must be a mapping (key: value lines), got \"9/s\""},
		{name: "process/unknown", arrivals: "{process: poison, rate: 9/s}", want: "t.yaml:2: arrivals.process: must be one of " + processes + ", got \"poison\" (did you mean \"poisson\"?)"},
		{name: "process/constant", arrivals: "{process: constant, rate: 9/m}", want: ""},
		{name: "batch/no-count", arrivals: "{process: batch}", want: "t.yaml:2: arrivals.count: required for a batch: how many runs arrive at once"},
		{name: "batch/zero", arrivals: "{process: batch, count: 0}", want: "t.yaml:2: arrivals.count: must be in [1, 100000000], got 0"},
		{name: "batch/rate", arrivals: "{process: batch, count: 5, rate: 1/s}", want: "t.yaml:2: arrivals.rate: unknown key; allowed here: count, process"},
		{name: "batch/runs", arrivals: "{process: batch, count: 5}", top: "runs: 5", want: "t.yaml:4: runs: a batch sets the number of runs itself (arrivals.count); remove runs"},
		{name: "batch/horizon", arrivals: "{process: batch, count: 5}", top: "horizon: 1h", want: "t.yaml:4: horizon: a batch sets the number of runs itself (arrivals.count) and ends when they have; remove horizon"},
		{name: "diurnal/period-zero", arrivals: "{process: diurnal, rate: 9/s, period: 0s}", want: "t.yaml:2: arrivals.period: must be > 0, got 0s"},
		{name: "trace/empty-file", arrivals: "{process: trace, file: ''}", want: "t.yaml:2: arrivals.file: must not be empty"},
		{name: "schedule/after-other-error", workers: "0", arrivals: "{process: schedule, rates: [{at: 1h, rate: 2/s}]}", want: "t.yaml:2: arrivals.rates[0].at: must be 0, got 1h0m0s\nt.yaml:3: workers: must be in [1, 100000000], got 0"},
		{name: "runs-and-horizon", top: "runs: 5\nhorizon: 1h", want: "t.yaml:5: horizon: give runs or horizon, not both"},
	})
}

func TestParseRetry(t *testing.T) {
	runRows(t, []row{
		{name: "retry-valid", top: "retry: {attempts: 3, backoff: {base: 10ms, multiplier: 1.5, cap: 1s, jitter: equal, spread: 0.2}, retry_after: ignore, idempotent: false, idempotency_key: true, allow_unsafe: no}", want: ""},
		{name: "scalar", top: "retry: 3", want: "t.yaml:4: retry: must be a mapping (key: value lines), got \"3\""},
		{name: "attempts/zero", top: "retry: {attempts: 0}", want: "t.yaml:4: retry.attempts: must be in [1, 10000], got 0"},
		{name: "attempts/1e6", top: "retry: {attempts: 1000000}", want: "t.yaml:4: retry.attempts: must be in [1, 10000], got 1000000"},
		{name: "attempts/word", top: "retry: {attempts: lots}", want: "t.yaml:4: retry.attempts: must be a whole number, got \"lots\""},
		{name: "attempts/step", step: "attempts: 10001", want: "t.yaml:6: steps.a.attempts: must be in [1, 10000], got 10001"},
		{name: "backoff/scalar", top: "retry: {backoff: 10ms}", want: "t.yaml:4: retry.backoff: must be a mapping (key: value lines), got \"10ms\""},
		{name: "backoff/base-no-unit", top: "retry: {backoff: {base: 10}}", want: "t.yaml:4: retry.backoff.base: \"10\" has no unit: write e.g. 10ms or 10s"},
		{name: "backoff/multiplier-low", top: "retry: {backoff: {multiplier: 0.5}}", want: "t.yaml:4: retry.backoff.multiplier: must be in [1, 1000], got 0.5"},
		{name: "backoff/multiplier-high", top: "retry: {backoff: {multiplier: 1e6}}", want: "t.yaml:4: retry.backoff.multiplier: must be in [1, 1000], got 1e6"},
		{name: "backoff/multiplier-word", top: "retry: {backoff: {multiplier: double}}", want: "t.yaml:4: retry.backoff.multiplier: must be a number, got \"double\""},
		{name: "backoff/cap-below-base", top: "retry: {backoff: {base: 2s, cap: 1s}}", want: "t.yaml:4: retry.backoff.cap: must be ≥ base (2s), got 1s"},
		{name: "backoff/jitter-typo", top: "retry: {backoff: {jitter: ful}}", want: "t.yaml:4: retry.backoff.jitter: must be one of none, full, equal, decorrelated, proportional, got \"ful\" (did you mean \"full\"?)"},
		{name: "backoff/jitter-unknown", top: "retry: {backoff: {jitter: random}}", want: "t.yaml:4: retry.backoff.jitter: must be one of none, full, equal, decorrelated, proportional, got \"random\""},
		{name: "backoff/spread", top: "retry: {backoff: {spread: 1.5}}", want: "t.yaml:4: retry.backoff.spread: must be in [0, 1], got 1.5"},
		{name: "backoff/typo", top: "retry: {backoff: {bas: 1s}}", want: "t.yaml:4: retry.backoff.bas: unknown key (did you mean \"base\"?); allowed here: base, cap, jitter, multiplier, spread"},
		{name: "backoff/step", step: "backoff: {cap: -1s}", want: "t.yaml:6: steps.a.backoff.cap: must be ≥ 0, got -1s"},
		{name: "retry_after/word", top: "retry: {retry_after: obey}", want: "t.yaml:4: retry.retry_after: must be one of honor, ignore, got \"obey\""},
		{name: "retry_after/typo", step: "retry_after: honour", want: "t.yaml:6: steps.a.retry_after: must be one of honor, ignore, got \"honour\" (did you mean \"honor\"?)"},
		{name: "idempotent/word", top: "retry: {idempotent: maybe}", want: "t.yaml:4: retry.idempotent: must be true or false, got \"maybe\""},
		{name: "idempotent/True", top: "retry: {idempotent: True}", want: ""},
		{name: "idempotency_key/number", step: "idempotency_key: 1", want: "t.yaml:6: steps.a.idempotency_key: must be true or false, got \"1\""},
		{name: "allow_unsafe/list", step: "allow_unsafe: [yes]", want: "t.yaml:6: steps.a.allow_unsafe: must be a single value, got a list"},
		{name: "retry-typo", top: "retry: {atempts: 3}", want: "t.yaml:4: retry.atempts: unknown key (did you mean \"attempts\"?); allowed here: allow_unsafe, attempts, backoff, budget, idempotency_key, idempotent, retry_after, retry_after_jitter"},
		{name: "typo/step-level", step: "retires: 3", want: "t.yaml:6: steps.a.retires: unknown key (did you mean \"requires\"?); allowed here: " + stepKeys},
		{name: "budget/scalar", step: "budget: token_bucket", want: "t.yaml:6: steps.a.budget: must be a mapping (key: value lines), got \"token_bucket\""},
		{name: "budget/no-kind", step: "budget: {capacity: 5}", want: "t.yaml:6: steps.a.budget.kind: required: token_bucket (AWS SDK standard mode), throttle (gRPC) or ratio (Finagle/Envoy)"},
		{name: "budget/kind-typo", step: "budget: {kind: tokenbucket}", want: "t.yaml:6: steps.a.budget.kind: must be one of token_bucket, throttle, ratio, got \"tokenbucket\" (did you mean \"token_bucket\"?)"},
		{name: "budget/token_bucket", step: "budget: {kind: token_bucket, capacity: 0, retry_cost: -1, timeout_cost: 1.5, success_increment: x}", want: "t.yaml:6: steps.a.budget.capacity: must be in [1, 1000000000], got 0\nt.yaml:6: steps.a.budget.retry_cost: must be in [1, 1000000000], got -1\nt.yaml:6: steps.a.budget.timeout_cost: must be a whole number, got \"1.5\"\nt.yaml:6: steps.a.budget.success_increment: must be a whole number, got \"x\""},
		{name: "budget/throttle", step: "budget: {kind: throttle, max_tokens: 0, token_ratio: 0}", want: "t.yaml:6: steps.a.budget.max_tokens: must be in [1, 1000000000], got 0\nt.yaml:6: steps.a.budget.token_ratio: must be in [0.001, 1000], got 0"},
		{name: "budget/ratio", step: "budget: {kind: ratio, ratio: -1, min_per_second: 1e10, ttl: 0s}", want: "t.yaml:6: steps.a.budget.ratio: must be in [0, 1000], got -1\nt.yaml:6: steps.a.budget.min_per_second: must be in [0, 1e+09], got 1e10\nt.yaml:6: steps.a.budget.ttl: must be > 0, got 0s"},
		{name: "budget/ttl-no-unit", step: "budget: {kind: ratio, ttl: 10}", want: "t.yaml:6: steps.a.budget.ttl: \"10\" has no unit: write e.g. 10ms or 10s"},
		{name: "budget/wrong-kind-key", step: "budget: {kind: throttle, capacity: 5}", want: "t.yaml:6: steps.a.budget.capacity: unknown key; allowed here: kind, max_tokens, token_ratio"},
		{name: "budget/top", top: "retry: {budget: {kind: ratio, ratio: 0.1}}", want: ""},
	})
}

func TestParseSteps(t *testing.T) {
	runRows(t, []row{
		{name: "timeout/no-unit", step: "timeout: 300", want: "t.yaml:6: steps.a.timeout: \"300\" has no unit: write e.g. 300ms or 300s"},
		{name: "timeout/negative", step: "timeout: -1s", want: "t.yaml:6: steps.a.timeout: must be ≥ 0, got -1s"},
		{name: "timeout/list", step: "timeout: [1s]", want: "t.yaml:6: steps.a.timeout: must be a single value, got a list"},
		{name: "tool/undefined", stepAll: "name: a, tool: tt", want: "t.yaml:6: steps.a.tool: tool \"tt\" is not defined under tools (did you mean \"t\"?) (defined: t)"},
		{name: "tool/far", stepAll: "name: a, tool: database", want: "t.yaml:6: steps.a.tool: tool \"database\" is not defined under tools (defined: t)"},
		{name: "tool/empty", stepAll: "name: a, tool: ''", want: "t.yaml:6: steps.a.tool: tool \"\" is not defined under tools (defined: t)"},
		{name: "tool/mapping", stepAll: "name: a, tool: {name: t}", want: "t.yaml:6: steps.a.tool: must be a single value, got a mapping"},
		{name: "name/empty", stepAll: "name: '', tool: t", want: "t.yaml:6: steps[0].name: must not be empty"},
		{name: "name/missing", stepAll: "tool: t", want: "t.yaml:6: steps[0].name: required"},
		{name: "tool/missing", stepAll: "name: a", want: "t.yaml:6: steps.a.tool: required: which tool the step calls (or choose: tools by weight)"},
		{name: "name/duplicate", stepAll: "name: a, tool: t}\n  - {name: a, tool: t", want: "t.yaml:7: steps[1].name: duplicate step name \"a\" (first at line 6)"},
		{name: "step-typo", step: "tmeout: 1s", want: "t.yaml:6: steps.a.tmeout: unknown key (did you mean \"timeout\"?); allowed here: " + stepKeys},
		{name: "fallback/undefined", step: "fallback: [u]", want: "t.yaml:6: steps.a.fallback: tool \"u\" is not defined under tools (defined: t)"},
		{name: "fallback/self", step: "fallback: t", want: "t.yaml:6: steps.a.fallback: tool \"t\" is the step's own tool"},
		{name: "fallback/mapping", step: "fallback: {t: 1}", want: "t.yaml:6: steps.a.fallback: must be a list, got a mapping"},
		{name: "requires/mapping", step: "requires: {a: 1}", want: "t.yaml:6: steps.a.requires: must be a list, got a mapping"},
	})
}

func TestParseTools(t *testing.T) {
	runRows(t, []row{
		{name: "tool-valid", tool: "description: the API, errors: {transient: 0.1, rate_limited: 0.05, permanent: 0.01}, hang: 0.01, retry_after: {dist: constant, value: 1s}, contention: false", step: "timeout: 1s", want: ""},
		{name: "latency/scalar", lat: "1s", want: "t.yaml:8: tools.t.latency: must be a mapping (key: value lines), got \"1s\""},
		{name: "latency/missing", lat: "~", want: "t.yaml:8: tools.t.latency: must be a mapping (key: value lines), got nothing"},
		{name: "latncy", tool: "latncy: {dist: constant, value: 1ms}", want: "t.yaml:8: tools.t.latncy: unknown key (did you mean \"latency\"?); allowed here: " + toolKeys},
		{name: "tool-typo/far", tool: "flakiness: 0.1", want: "t.yaml:8: tools.t.flakiness: unknown key; allowed here: " + toolKeys},
		{name: "description/list", tool: "description: [a]", want: "t.yaml:8: tools.t.description: must be a single value, got a list"},
		{name: "errors/scalar", tool: "errors: 0.1", want: "t.yaml:8: tools.t.errors: must be a mapping (key: value lines), got \"0.1\""},
		{name: "errors/range", tool: "errors: {transient: 1.5, rate_limited: -0.1, permanent: x}", want: "t.yaml:8: tools.t.errors.transient: must be in [0, 1], got 1.5\nt.yaml:8: tools.t.errors.rate_limited: must be in [0, 1], got -0.1\nt.yaml:8: tools.t.errors.permanent: must be a number, got \"x\""},
		{name: "errors/percent", tool: "errors: {transient: 10%}", want: "t.yaml:8: tools.t.errors.transient: must be a number, got \"10%\""},
		{name: "errors/typo", tool: "errors: {transeint: 0.1}", want: "t.yaml:8: tools.t.errors.transeint: unknown key (did you mean \"transient\"?); allowed here: overloaded, permanent, rate_limited, transient"},
		{name: "errors/sum", tool: "errors: {transient: 0.6, permanent: 0.5}", want: "t.yaml:8: tools.t.errors: transient + rate_limited + permanent + overloaded + hang must be ≤ 1, got 1.1"},
		{name: "hang/range", tool: "hang: 2", want: "t.yaml:8: tools.t.hang: must be in [0, 1], got 2"},
		{name: "hang/no-timeout", tool: "hang: 0.1", want: "t.yaml:6: steps.a.timeout: tool \"t\" can hang but the step has no timeout and the scenario no deadline: its runs would never end; set a timeout or a deadline"},
		{name: "hang/step-timeout", tool: "hang: 0.1", step: "timeout: 1s", want: ""},
		{name: "hang/deadline", tool: "hang: 0.1", top: "deadline: 5s", want: ""},
		{name: "retry_after/no-unit", tool: "retry_after: {dist: constant, value: 1}", want: "t.yaml:8: tools.t.retry_after.value: \"1\" has no unit: write e.g. 1ms or 1s"},
		{name: "outages/scalar", tool: "outages: 10s", want: "t.yaml:8: tools.t.outages: must be a list, got \"10s\""},
		{name: "outages/order", tool: "outages: [{start: 2s, end: 1s, mode: transient}]", want: "t.yaml:8: tools.t.outages[0].end: must be after start (2s), got 1s"},
		{name: "outages/mode", tool: "outages: [{start: 1s, end: 2s, mode: down}]", want: "t.yaml:8: tools.t.outages[0].mode: must be one of hang, transient, rate_limited, stall, slow, got \"down\""},
		{name: "outages/missing", tool: "outages: [{}]", want: "t.yaml:8: tools.t.outages[0].start: required\nt.yaml:8: tools.t.outages[0].end: required\nt.yaml:8: tools.t.outages[0].mode: required: hang, transient, rate_limited, stall or slow"},
		{name: "outages/hang-no-timeout", tool: "outages: [{start: 1s, end: 2s, mode: hang}]", want: "t.yaml:6: steps.a.timeout: tool \"t\" can hang but the step has no timeout and the scenario no deadline: its runs would never end; set a timeout or a deadline"},
		{name: "outages/stall", tool: "outages: [{start: 1s, end: 2s, mode: stall}]", want: "t.yaml:8: tools.t.outages: mode stall needs concurrency: a tool without a queue has nothing to stall"},
		{name: "script/scalar", tool: "script: hang", want: "t.yaml:8: tools.t.script: must be a list, got \"hang\""},
		{name: "script/bad", tool: "script: [{run: -2, attempt: 0, outcome: timeout, latency: 5}]", want: "t.yaml:8: tools.t.script[0].run: must be in [0, 10000000000], got -2\nt.yaml:8: tools.t.script[0].attempt: must be in [1, 10000], got 0\nt.yaml:8: tools.t.script[0].outcome: must be one of ok, hang, transient, rate_limited, permanent, got \"timeout\"\nt.yaml:8: tools.t.script[0].latency: \"5\" has no unit: write e.g. 5ms or 5s"},
		{name: "script/missing", tool: "script: [{run: 0}]", want: "t.yaml:8: tools.t.script[0].attempt: required\nt.yaml:8: tools.t.script[0].outcome: required: one of ok, hang, transient, rate_limited, permanent"},
		{name: "script/attempts", tool: "script: [{attempt: 10001, outcome: ok}]", want: "t.yaml:8: tools.t.script[0].attempt: must be in [1, 10000], got 10001"},
		{name: "contention/word", tool: "contention: sometimes", want: "t.yaml:8: tools.t.contention: must be true or false, got \"sometimes\""},
		{name: "concurrency/zero", tool: "concurrency: 0", want: "t.yaml:8: tools.t.concurrency: must be in [1, 100000000], got 0"},
		{name: "concurrency/1e9", tool: "concurrency: 1e9", want: "t.yaml:8: tools.t.concurrency: must be in [1, 100000000], got 1e9"},
		{name: "queue/no-concurrency", tool: "queue: {capacity: 5}", want: "t.yaml:8: tools.t.queue: a tool queue needs concurrency (the number of requests served at once)"},
		{name: "queue/negative", tool: "concurrency: 2, queue: {capacity: -5}", want: "t.yaml:8: tools.t.queue.capacity: must be in [0, 100000000], got -5"},
		{name: "queue/typo", tool: "concurrency: 2, queue: {size: 5}", want: "t.yaml:8: tools.t.queue.size: unknown key; allowed here: capacity, discipline"},
		{name: "deadline_aware/no-concurrency", tool: "deadline_aware: true", want: "t.yaml:8: tools.t.deadline_aware: needs concurrency: only a tool with a queue can drop work at dequeue"},
		{name: "deadline_aware/word", tool: "concurrency: 1, deadline_aware: sure", want: "t.yaml:8: tools.t.deadline_aware: must be true or false, got \"sure\""},
		{name: "drop_floor/no-unit", tool: "drop_floor: 5", want: "t.yaml:8: tools.t.drop_floor: \"5\" has no unit: write e.g. 5ms or 5s"},
		{name: "rate_limit/scalar", tool: "rate_limit: 5/s", want: "t.yaml:8: tools.t.rate_limit: must be a mapping (key: value lines), got \"5/s\""},
		{name: "rate_limit/no-rate", tool: "rate_limit: {burst: 5}", want: "t.yaml:8: tools.t.rate_limit.rate: required (e.g. rate: 2/s), or per-minute limits (rpm, tpm, itpm, otpm)"},
		{name: "rate_limit/bad", tool: "rate_limit: {rate: 5, burst: 0, enforce: both}", want: "t.yaml:8: tools.t.rate_limit.rate: \"5\" has no unit: write e.g. 5/s, 5/m or 5/h\nt.yaml:8: tools.t.rate_limit.burst: must be in [1, 1000000000], got 0\nt.yaml:8: tools.t.rate_limit.enforce: must be one of server, client, got \"both\""},
		{name: "cache/missing", tool: "cache: {}", want: "t.yaml:8: tools.t.cache.hit_ratio: required: the share of calls the cache answers, in [0, 1]\nt.yaml:8: tools.t.cache.latency: required (e.g. latency: {dist: constant, value: 2ms})"},
		{name: "cache/bad", tool: "cache: {hit_ratio: 2, latency: {dist: constant, value: 1}}", want: "t.yaml:8: tools.t.cache.hit_ratio: must be in [0, 1], got 2\nt.yaml:8: tools.t.cache.latency.value: \"1\" has no unit: write e.g. 1ms or 1s"},
		{name: "cost/scalar", tool: "cost: 5", want: "t.yaml:8: tools.t.cost: must be a mapping (key: value lines), got \"5\""},
		{name: "cost/no-reserve", tool: "cost: {usage: {dist: constant, value: 1}}", want: "t.yaml:8: tools.t.cost.reserve: required: the call's declared maximum, reserved before dialing"},
		{name: "cost/no-usage", tool: "cost: {reserve: 5}", want: "t.yaml:8: tools.t.cost.usage: required: usage (a distribution of units per call) or dims"},
		{name: "cost/bad-amount", tool: "cost: {reserve: 1e3, usage: {dist: constant, value: 1}, billed: always}", want: "t.yaml:8: tools.t.cost.reserve: cost: amount \"1e3\": unexpected 'e': invalid amount syntax\nt.yaml:8: tools.t.cost.billed: must be one of request, success, got \"always\""},
		{name: "cost/negative", tool: "cost: {reserve: -5, usage: {dist: constant, value: 1}}", want: "t.yaml:8: tools.t.cost.reserve: must be ≥ 0, got -5"},
		{name: "cost/dims", tool: "cost: {reserve: 5, dims: {input: {dist: constant, value: 1}, output: 3}}", want: "t.yaml:8: tools.t.cost.dims.input.price: required: cost units per unit of usage\nt.yaml:8: tools.t.cost.dims.output: must be a mapping {price, dist, …}, got \"3\""},
		{name: "capabilities/mapping", tool: "capabilities: {a: 1}", want: "t.yaml:8: tools.t.capabilities: must be a list, got a mapping"},
		{name: "requires/missing-capability", tool: "capabilities: [text]", step: "requires: [images]", want: "t.yaml:6: steps.a.requires: tool \"t\" declares capabilities [text], not all of [images]"},
		{name: "scenario-cost", top: "cost: {run_budget: 1.0000001, scenario_budget: -1, per_hour: 5}", want: "t.yaml:4: cost.run_budget: cost: amount \"1.0000001\": more than 6 decimal places: invalid amount syntax\nt.yaml:4: cost.scenario_budget: must be ≥ 0, got -1\nt.yaml:4: cost.per_hour: unknown key; allowed here: currency, run_budget, scenario_budget"},
	})
}

func TestParseDistributions(t *testing.T) {
	runRows(t, []row{
		{name: "every-family", lat: "{dist: mixture, of: [" +
			"{weight: 1, dist: constant, value: 1ms}, {weight: 1, dist: exponential, mean: 1ms}, " +
			"{weight: 1, dist: gamma, mean: 1ms, cv: 2}, {weight: 1, dist: lognormal, median: 1ms, sigma: 1}, " +
			"{weight: 1, dist: lognormal, median: 1ms, p99: 10ms}, {weight: 1, dist: pareto, min: 1ms, alpha: 2}, " +
			"{weight: 1, dist: uniform, min: 1ms, max: 2ms}, {weight: 1, dist: weibull, scale: 1ms, shape: 2}, " +
			"{weight: 1, dist: empirical, file: lat.txt}]}", want: ""},
		{name: "dist/missing", lat: "{mean: 1s}", want: "t.yaml:8: tools.t.latency.dist: required: which distribution (constant, empirical, exponential, gamma, lognormal, mixture, pareto, uniform, weibull)"},
		{name: "dist/typo", lat: "{dist: exponentail, mean: 1s}", want: "t.yaml:8: tools.t.latency.dist: must be one of constant, empirical, exponential, gamma, lognormal, mixture, pareto, uniform, weibull, got \"exponentail\" (did you mean \"exponential\"?)"},
		{name: "dist/unknown", lat: "{dist: normal, mean: 1s}", want: "t.yaml:8: tools.t.latency.dist: must be one of constant, empirical, exponential, gamma, lognormal, mixture, pareto, uniform, weibull, got \"normal\""},
		{name: "dist/list", lat: "{dist: [constant], value: 1s}", want: "t.yaml:8: tools.t.latency.dist: must be a single value, got a list"},
		{name: "param/missing", lat: "{dist: uniform, min: 1s}", want: "t.yaml:8: tools.t.latency.max: required"},
		{name: "param/unknown", lat: "{dist: exponential, mean: 1s, sigma: 2}", want: "t.yaml:8: tools.t.latency.sigma: unknown key; allowed here: dist, mean"},
		{name: "param/typo", lat: "{dist: exponential, maen: 1s}", want: "t.yaml:8: tools.t.latency.mean: required\nt.yaml:8: tools.t.latency.maen: unknown key (did you mean \"mean\"?); allowed here: dist, mean"},
		{name: "param/no-unit", lat: "{dist: exponential, mean: 1}", want: "t.yaml:8: tools.t.latency.mean: \"1\" has no unit: write e.g. 1ms or 1s"},
		{name: "param/not-number", lat: "{dist: lognormal, median: 1s, sigma: wide}", want: "t.yaml:8: tools.t.latency.sigma: must be a number, got \"wide\""},
		{name: "param/invalid", lat: "{dist: pareto, min: 1s, alpha: 0}", want: "t.yaml:8: tools.t.latency.alpha: must be > 0, got 0"},
		{name: "param/uniform-order", lat: "{dist: uniform, min: 2s, max: 1s}", want: "t.yaml:8: tools.t.latency.max: must be >= min (2), got 1"},
		{name: "param/gamma-cv", lat: "{dist: gamma, mean: 1s, cv: -1}", want: "t.yaml:8: tools.t.latency.cv: must be > 0, got -1"},
		{name: "param/weibull-shape", lat: "{dist: weibull, scale: 1s, shape: .inf}", want: "t.yaml:8: tools.t.latency.shape: must be a number, got \".inf\""},
		{name: "param/after-other-error", workers: "0", lat: "{dist: pareto, min: 1s, alpha: 0}",
			want: "t.yaml:3: workers: must be in [1, 100000000], got 0\nt.yaml:8: tools.t.latency.alpha: must be > 0, got 0"},
		{name: "lognormal/both", lat: "{dist: lognormal, median: 40ms, sigma: 0.5, p99: 300ms}", want: "t.yaml:8: tools.t.latency.p99: conflicts with sigma; give exactly one of sigma, p99"},
		{name: "lognormal/neither", lat: "{dist: lognormal, median: 40ms}", want: "t.yaml:8: tools.t.latency.sigma: required (exactly one of sigma, p99)"},
		{name: "lognormal/p99-below-median", lat: "{dist: lognormal, median: 40ms, p99: 30ms}", want: "t.yaml:8: tools.t.latency.p99: must be > median (0.04), got 0.03"},
		{name: "mixture/no-of", lat: "{dist: mixture}", want: "t.yaml:8: tools.t.latency.of: required: a list of {weight, dist, …}"},
		{name: "mixture/empty", lat: "{dist: mixture, of: []}", want: "t.yaml:8: tools.t.latency.of: needs at least one component"},
		{name: "mixture/no-weights", lat: "{dist: mixture, of: [{dist: constant, value: 1ms}, {dist: constant, value: 2ms}]}", want: "t.yaml:8: tools.t.latency.of[0].weight: required\nt.yaml:8: tools.t.latency.of[1].weight: required"},
		{name: "mixture/zero-weight", lat: "{dist: mixture, of: [{weight: 0, dist: constant, value: 1ms}]}", want: "t.yaml:8: tools.t.latency.of[0].weight: must be > 0, got 0"},
		{name: "mixture/negative-weight", lat: "{dist: mixture, of: [{weight: -1, dist: constant, value: 1ms}]}", want: "t.yaml:8: tools.t.latency.of[0].weight: must be > 0, got -1"},
		{name: "mixture/scalar-item", lat: "{dist: mixture, of: [1ms]}", want: "t.yaml:8: tools.t.latency.of[0]: must be a mapping {weight, dist, …}, got \"1ms\""},
		{name: "mixture/bad-component", lat: "{dist: mixture, of: [{weight: 1, dist: constant}]}", want: "t.yaml:8: tools.t.latency.of[0].value: required"},
		{name: "mixture/nested", lat: "{dist: mixture, of: [{weight: 1, dist: mixture, of: [{weight: 1, dist: constant, value: 1}]}]}", want: "t.yaml:8: tools.t.latency.of[0].of[0].value: \"1\" has no unit: write e.g. 1ms or 1s"},
		{name: "mixture/extra-key", lat: "{dist: mixture, of: [{weight: 1, dist: constant, value: 1ms}], mean: 1s}", want: "t.yaml:8: tools.t.latency.mean: unknown key; allowed here: dist, of"},
		{name: "empirical/valid", lat: "{dist: empirical, file: lat.txt}", want: ""},
		{name: "empirical/no-file", lat: "{dist: empirical}", want: "t.yaml:8: tools.t.latency.file: required: a file of durations, one per line"},
		{name: "empirical/missing", lat: "{dist: empirical, file: nope.txt}", want: "t.yaml:8: tools.t.latency.file: cannot read \"nope.txt\": file does not exist"},
		{name: "empirical/bad-line", lat: "{dist: empirical, file: bad.txt}", want: "t.yaml:8: tools.t.latency.file: bad.txt:5: not a number or duration \"fast\""},
		{name: "empirical/negative", lat: "{dist: empirical, file: neg.txt}", want: "t.yaml:8: tools.t.latency.file: neg.txt:2: negative duration \"-1ms\""},
		{name: "empirical/no-samples", lat: "{dist: empirical, file: nil.txt}", want: "t.yaml:8: tools.t.latency.file: nil.txt: no samples (1 lines read)"},
		{name: "empirical/parent", lat: "{dist: empirical, file: ../shared/lat.txt}", want: "t.yaml:8: tools.t.latency.file: \"../shared/lat.txt\" is outside the scenario's directory: give a path relative to it, without \"..\""},
		{name: "empirical/absolute", lat: "{dist: empirical, file: /etc/passwd}", want: "t.yaml:8: tools.t.latency.file: \"/etc/passwd\" is outside the scenario's directory: give a path relative to it, without \"..\""},
		{name: "empirical/extra-key", lat: "{dist: empirical, file: lat.txt, unit: ms}", want: "t.yaml:8: tools.t.latency.unit: unknown key; allowed here: dist, file, max_samples"},
	})
}

func TestParseGroups(t *testing.T) {
	par := "name: g, parallel: [{name: p1, tool: t}, {name: p2, tool: t}]"
	runRows(t, []row{
		{name: "parallel/valid", stepAll: par + ", wait: {first: 1}", want: ""},
		{name: "parallel/any", stepAll: par + ", wait: any", want: ""},
		{name: "parallel/tool", stepAll: par + ", tool: t", want: "t.yaml:6: steps.g.tool: a parallel step has none: each member has its own (under parallel)"},
		{name: "parallel/hedge", stepAll: par + ", hedge: {delay: 1s}", want: "t.yaml:6: steps.g.hedge: a parallel step has none: each member has its own (under parallel)"},
		{name: "parallel/empty", stepAll: "name: g, parallel: []", want: "t.yaml:6: steps.g.parallel: needs at least one member"},
		{name: "parallel/member-tool", stepAll: "name: g, parallel: [{name: p1}]", want: "t.yaml:6: steps.g.parallel.p1.tool: required: which tool the member calls (or choose: tools by weight)"},
		{name: "parallel/member-typo", stepAll: "name: g, parallel: [{name: p1, tool: t, tmeout: 1s}]", want: "t.yaml:6: steps.g.parallel.p1.tmeout: unknown key (did you mean \"timeout\"?); allowed here: allow_unsafe, attempts, backoff, budget, choose, fallback, first_token_timeout, idempotency_key, idempotent, name, requires, retry_after, retry_after_jitter, timeout, tool"},
		{name: "parallel/duplicate", stepAll: "name: g, parallel: [{name: g, tool: t}]", want: "t.yaml:6: steps.g.parallel[0].name: duplicate step name \"g\" (first at line 6)"},
		{name: "wait/too-many", stepAll: par + ", wait: {first: 3}", want: "t.yaml:6: steps.g.wait.first: must be at most the number of members (2), got 3"},
		{name: "wait/zero", stepAll: par + ", wait: {first: 0}", want: "t.yaml:6: steps.g.wait.first: must be ≥ 1, got 0"},
		{name: "wait/word", stepAll: par + ", wait: most", want: "t.yaml:6: steps.g.wait: must be one of all, any, got \"most\""},
		{name: "wait/not-parallel", step: "wait: any", want: "t.yaml:6: steps.a.wait: only a parallel step waits for its members"},
		{name: "hedge/valid", step: "idempotent: true, hedge: {delay: p95, max_attempts: 3}", want: ""},
		{name: "hedge/not-idempotent", step: "hedge: {delay: 100ms}", want: "t.yaml:6: steps.a.hedge: only an idempotent step hedges: running the call twice must be safe (set idempotent: true on the step, or in retry)"},
		{name: "hedge/percentile", step: "idempotent: true, hedge: {delay: p100}", want: "t.yaml:6: steps.a.hedge.delay: a percentile is p followed by a number in (0, 100), e.g. p95; got \"p100\""},
		{name: "hedge/no-delay", step: "idempotent: true, hedge: {max_attempts: 2}", want: "t.yaml:6: steps.a.hedge.delay: required: a duration, or a percentile of observed latency such as p95"},
		{name: "hedge/min-samples-fixed", step: "idempotent: true, hedge: {delay: 1s, min_samples: 5}", want: "t.yaml:6: steps.a.hedge.min_samples: only a percentile delay (e.g. delay: p95) has one"},
		{name: "hedge/attempts", step: "idempotent: true, hedge: {delay: 1s, max_attempts: 12}", want: "t.yaml:6: steps.a.hedge.max_attempts: must be in [1, 11], got 12"},
	})
}

func TestParseGroupsInClasses(t *testing.T) {
	runRows(t, []row{
		{name: "class/parallel", top: "classes: [{name: k, steps: [{name: g, parallel: [{name: p1, tool: t}]}]}]",
			want: "t.yaml:4: classes.k.steps.g.parallel: only the top-level steps have parallel steps, hedges and loops"},
		{name: "class/hedge", top: "classes: [{name: k, steps: [{name: h, tool: t, idempotent: true, hedge: {delay: 1s}}]}]",
			want: "t.yaml:4: classes.k.steps.h.hedge: only the top-level steps have parallel steps, hedges and loops"},
	})
}
