package system_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// scenarioFile writes a scenario text to a temporary file and loads it with
// sets applied.
func scenarioFile(t *testing.T, text string, sets ...string) *system.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return load(t, path, sets...)
}

// herd is 50 runs arriving together at a tool whose server-side rate limit
// admits one call per 100 ms: every caller it turns away is told the time
// to its next token, the same instant for all of them.
const herd = `name: herd
arrivals: {process: batch, count: 50}
workers: 50
deadline: 10s
retry:
  attempts: 5
  idempotent: true
  backoff: {base: 50ms, multiplier: 2, cap: 1s, jitter: full}
steps:
  - {name: call, tool: api, timeout: 1s}
tools:
  api:
    latency: {dist: constant, value: 10ms}
    rate_limit: {rate: 10/s, burst: 1, enforce: server}
`

// TestRetryAfterJitterSpreadsTheHerd: with retry_after_jitter 0 the callers
// a rate limiter turned away together come back at one instant (the spec's
// synchronised wave); with the default spread each sleeps at least the
// Retry-After and at most a fifth more, at distinct instants.
func TestRetryAfterJitterSpreadsTheHerd(t *testing.T) {
	wave := func(sets ...string) (starts map[int64]int, rec *recorder) {
		rec, _ = traceOf(t, scenarioFile(t, herd, sets...))
		starts = map[int64]int{}
		for _, a := range rec.attempts {
			if a.Attempt == 2 {
				starts[int64(a.Start)]++
			}
		}
		return starts, rec
	}
	exact, _ := wave("retry.retry_after_jitter=0")
	if len(exact) != 1 {
		t.Fatalf("without jitter the second attempts start at %d instants, want 1 (every caller told the same Retry-After)", len(exact))
	}
	spread, rec := wave()
	if len(spread) < 40 {
		t.Fatalf("with the default jitter the %d second attempts start at only %d instants", len(rec.attempts), len(spread))
	}
	for _, a := range rec.attempts {
		if a.Decision != "retrying" || a.Outcome.String() != "rate_limited" {
			continue
		}
		// The limiter's Retry-After is the wait for its next token: 100 ms
		// after the first call, for the second attempts.
		if a.Attempt == 1 && (a.Backoff < 100e6 || a.Backoff >= 120e6) {
			t.Fatalf("run %d slept %v after a 100 ms Retry-After, want in [100ms, 120ms)", a.Run, a.Backoff)
		}
	}
}

// TestRetryAfterJitterMean: over many honoured Retry-Afters of 300 ms the
// total sleep is 300 ms × (1 + 0.2 U) summed: mean 330 ms each, within four
// standard deviations (0.06 s / √12 per sleep) of n × 330 ms.
func TestRetryAfterJitterMean(t *testing.T) {
	cfg := load(t, "mmc", "runs=2000", "warmup=0", "workers=1000", "arrivals.rate=5/s",
		"tools.server.latency={dist: constant, value: 100ms}",
		"tools.server.retry_after={dist: constant, value: 300ms}",
		"tools.server.rate_limit={rate: 1/s, burst: 1, enforce: server}",
		"retry={attempts: 2, idempotent: true}")
	a := system.New(cfg, system.Options{}).Run().Attempts
	n := float64(a.RetryAfterHonored)
	if n < 1000 || a.RetryAfterHonored != a.Retries {
		t.Fatalf("%d retries, %d after a Retry-After: the test needs many, all honoured", a.Retries, a.RetryAfterHonored)
	}
	sd := 0.06 / math.Sqrt(12) * math.Sqrt(n)
	if want := 0.33 * n; math.Abs(a.BackoffSeconds-want) > 4*sd {
		t.Fatalf("slept %v s over %v Retry-Afters, want %v ± %v (4 sd)", a.BackoffSeconds, n, want, 4*sd)
	}
	if a.BackoffSeconds <= 0.3*n || a.BackoffSeconds >= 0.36*n {
		t.Fatalf("slept %v s over %v Retry-Afters of 300 ms: outside [0.3, 0.36) s each", a.BackoffSeconds, n)
	}
}

// fallbackScenario is one step whose tool always hangs (its 100 ms ceiling
// ends every attempt: the call may have run) and a fallback that answers.
const fallbackScenario = `name: fb
arrivals: {process: batch, count: 20}
workers: 20
steps:
  - {name: submit, tool: primary, timeout: 100ms, fallback: [backup]}
tools:
  primary:
    latency: {dist: constant, value: 10ms}
    hang: 1
  backup:
    latency: {dist: constant, value: 10ms}
`

// TestFallbackAfterTimeoutNeedsIdempotence: a fallback repeats the request
// at another provider. After a timeout that is safe only for an idempotent
// step; a key does not travel; allow_unsafe goes ahead and counts each
// fallback as a possible duplicate execution.
func TestFallbackAfterTimeoutNeedsIdempotence(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		sets                       []string
		completed, withheld, dupes int64
	}{
		{"not idempotent", nil, 0, 20, 0},
		{"idempotency key", []string{"steps.submit.idempotency_key=true"}, 0, 20, 0},
		{"idempotent", []string{"steps.submit.idempotent=true"}, 20, 0, 0},
		{"allow_unsafe", []string{"steps.submit.allow_unsafe=true"}, 20, 0, 20},
	} {
		res := system.New(scenarioFile(t, fallbackScenario, tc.sets...), system.Options{}).Run()
		a := res.Attempts
		if res.Runs.Completed != tc.completed || a.UnsafeFallbacks != tc.withheld || a.Duplicates != tc.dupes {
			t.Errorf("%s: completed %d, fallbacks withheld %d, possible duplicates %d; want %d, %d, %d",
				tc.name, res.Runs.Completed, a.UnsafeFallbacks, a.Duplicates, tc.completed, tc.withheld, tc.dupes)
		}
		if tc.withheld > 0 && res.Runs.Failed != 20 {
			t.Errorf("%s: %+v, want every run failed when its fallback is withheld", tc.name, res.Runs)
		}
	}
	// A 503 says the call did not run: a non-idempotent step falls back.
	res := system.New(scenarioFile(t, fallbackScenario, "tools.primary.hang=0", "tools.primary.errors={transient: 1}"), system.Options{}).Run()
	if res.Runs.Completed != 20 || res.Attempts.Fallbacks != 20 || res.Attempts.Duplicates != 0 {
		t.Errorf("after 503s: completed %d, fallbacks %d, duplicates %d; want 20, 20, 0", res.Runs.Completed, res.Attempts.Fallbacks, res.Attempts.Duplicates)
	}
}

// TestTurnedAwayCallsAreNotBilled: under billed: request every answered
// call is billed, but a call the tool's rate limiter (429) or its full
// queue (503) turned away never ran and costs nothing; a 503 the service
// itself answered (an error drawn from its error rates) is billed.
func TestTurnedAwayCallsAreNotBilled(t *testing.T) {
	base := []string{"runs=2000", "warmup=0", "workers=1000", "arrivals.rate=20/s",
		"tools.server.latency={dist: constant, value: 100ms}",
		"tools.server.cost={reserve: 10, usage: {dist: constant, value: 10}, billed: request}"}
	for name, sets := range map[string][]string{
		"rate limiter 429": {"tools.server.rate_limit={rate: 2/s, burst: 1, enforce: server}"},
		"full queue 503":   {"tools.server.concurrency=1", "tools.server.queue={capacity: 1}"},
	} {
		res := system.New(load(t, "mmc", append(base, sets...)...), system.Options{}).Run()
		turnedAway := res.Attempts.RateLimited + res.Attempts.Transient
		if turnedAway == 0 || res.Attempts.OK == 0 {
			t.Fatalf("%s: %+v: the test needs calls both served and turned away", name, res.Attempts)
		}
		if want := 10 * float64(res.Attempts.OK); res.Cost.Spent != want || res.Cost.Wasted != 0 {
			t.Errorf("%s: spent %v, wasted %v with %d served and %d turned away; want 10 per served call (%v), nothing wasted",
				name, res.Cost.Spent, res.Cost.Wasted, res.Attempts.OK, turnedAway, want)
		}
	}
	res := system.New(load(t, "mmc", append(base, "tools.server.errors={transient: 0.5}")...), system.Options{}).Run()
	if want := 10 * float64(res.Attempts.Transient); res.Attempts.Transient == 0 || res.Cost.Wasted != want {
		t.Errorf("service errors: wasted %v with %d 503s answered by the service, want %v", res.Cost.Wasted, res.Attempts.Transient, want)
	}
}

// TestUnsettledCountsMeasuredRunsOnly: reserved_unsettled is a figure of
// the measured runs, like spent: a longer warm-up leaves fewer measured
// timeouts and less held, whether or not a scenario budget keeps books.
func TestUnsettledCountsMeasuredRunsOnly(t *testing.T) {
	for _, budget := range []string{"{run_budget: 1000}", "{scenario_budget: 100000000}"} {
		for _, warmup := range []string{"0", "500"} {
			res := system.New(load(t, "mmc", "runs=1000", "warmup="+warmup, "cost="+budget, "steps.serve.timeout=100ms",
				"tools.server={latency: {dist: constant, value: 10ms}, hang: 0.2, cost: {reserve: 7, usage: {dist: constant, value: 1}}}"),
				system.Options{}).Run()
			if want := 7 * float64(res.Attempts.Timeouts); res.Attempts.Timeouts == 0 || res.Cost.Unsettled != want {
				t.Errorf("cost %s, warm-up %s: unsettled %v with %d measured timeouts, want 7 each = %v", budget, warmup, res.Cost.Unsettled, res.Attempts.Timeouts, want)
			}
		}
	}
}

// TestRefusalReasons: the calls refused before dialing add up over their
// three reasons: the lease below the floor, the token wait and the budget.
func TestRefusalReasons(t *testing.T) {
	for name, sets := range map[string][]string{
		"lease":      {"deadline=15ms", "floor=20ms"},
		"token wait": {"deadline=1s", "tools.server.rate_limit={rate: 1/s, burst: 1, enforce: client}"},
		"budget":     {"cost={run_budget: 5}", "tools.server.cost={reserve: 10, usage: {dist: constant, value: 1}}"},
	} {
		res := system.New(load(t, "mmc", append([]string{"runs=500", "warmup=0"}, sets...)...), system.Options{}).Run()
		a := res.Attempts
		budget := res.Cost.Refused
		if a.Refused == 0 || a.RefusedLease+a.RefusedTokenWait+budget != a.Refused || res.Runs.Refused != a.Refused {
			t.Errorf("%s: refused %d = lease %d + token wait %d + budget %d? runs refused %d", name, a.Refused, a.RefusedLease, a.RefusedTokenWait, budget, res.Runs.Refused)
		}
		want := map[string]int64{"lease": a.RefusedLease, "token wait": a.RefusedTokenWait, "budget": budget}[name]
		if want != a.Refused {
			t.Errorf("%s: %d of %d refusals counted under their reason", name, want, a.Refused)
		}
	}
}

// TestUndeclaredStepIsNotRetried: a step is not idempotent unless it says
// so; its retries are refused as unsafe, and the summary says why.
func TestUndeclaredStepIsNotRetried(t *testing.T) {
	cfg := load(t, "mmc", "runs=500", "warmup=0", "retry={attempts: 3}", "tools.server.errors={transient: 0.5}")
	res := system.New(cfg, system.Options{}).Run()
	if res.Attempts.Retries != 0 || res.Attempts.Transient == 0 {
		t.Fatalf("%d retries after %d 503s, want none: the step is not declared idempotent", res.Attempts.Retries, res.Attempts.Transient)
	}
	s := summary.Summarize(cfg, []*system.Result{res}, 0)
	found := false
	for _, w := range s.Warnings {
		found = found || strings.Contains(w, "step serve: retry.attempts is 3 but the step is not declared idempotent")
	}
	if !found {
		t.Fatalf("warnings %q: want one saying the step is never retried", s.Warnings)
	}
}

// TestHugeDelaysStopAtMaxTime: draws of the largest delay a Duration
// stands for (a lognormal with sigma 10 gives some), a Retry-After or a
// token wait at a rate of one call per 260 years, a proportional backoff
// past a 100-year cap: each carries the clock past the max_time guard
// within a few events, and the guard stops the run there with a partial
// result instead of letting the next delay overflow the clock (each of
// them panicked once).
func TestHugeDelaysStopAtMaxTime(t *testing.T) {
	slow := "{rate: 1.2e-10/s, burst: 1, enforce: %s}"
	for name, sets := range map[string][]string{
		"lognormal sigma 10": {"tools.server.latency={dist: lognormal, median: 1s, sigma: 10}"},
		"pareto alpha 1e-7":  {"tools.server.latency={dist: pareto, min: 1s, alpha: 1e-7}"},
		"server limiter's Retry-After": {"workers=100", "retry={attempts: 3, idempotent: true}",
			"tools.server.latency={dist: constant, value: 1ms}", "tools.server.rate_limit=" + fmt.Sprintf(slow, "server")},
		"client limiter's token wait": {"workers=100", "tools.server.latency={dist: constant, value: 1ms}",
			"tools.server.rate_limit=" + fmt.Sprintf(slow, "client")},
		"proportional backoff past its cap": {"workers=3000", "guards={max_time: 876000h}", "tools.server.errors={transient: 1}",
			"retry={attempts: 100, idempotent: true, backoff: {base: 1s, multiplier: 10, cap: 876000h, jitter: proportional, spread: 1}}"},
	} {
		res := system.New(load(t, "mm1", append([]string{"runs=3000", "warmup=0"}, sets...)...), system.Options{}).Run()
		if !strings.Contains(res.Stopped, "max_time guard") {
			t.Errorf("%s: Stopped = %q, want the max_time guard", name, res.Stopped)
		}
		if err := res.Runs.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestToolInstabilityWarns: the workers are ample, so only a tool can be
// the unstable part: a capacity tool offered twice the work its one slot
// serves with an unbounded queue, or a client-side rate limit below the
// calls the arrivals need. Both are said; a stable tool says nothing.
func TestToolInstabilityWarns(t *testing.T) {
	for _, tc := range []struct {
		name string
		sets []string
		want string
	}{
		{"capacity", []string{"tools.server.concurrency=1"}, "tool server: utilisation 2 ≥ 1 (2 calls/s of 1 s each on 1 slots) with an unbounded queue"},
		{"client rate limit", []string{"tools.server.rate_limit={rate: 1/s, burst: 1, enforce: client}"}, "tool server: the arrivals need 2 calls/s and its client-side rate limit allows 1/s: with no deadline"},
		{"stable", []string{"tools.server.concurrency=3"}, ""},
	} {
		sets := append([]string{"runs=2000", "warmup=0", "workers=100000", "arrivals.rate=2/s"}, tc.sets...)
		cfg := load(t, "mm1", sets...)
		s := summary.Summarize(cfg, []*system.Result{system.New(cfg, system.Options{}).Run()}, 0)
		var found []string
		for _, w := range s.Warnings {
			if strings.HasPrefix(w, "tool ") || strings.HasPrefix(w, "utilisation") {
				found = append(found, w)
			}
		}
		switch {
		case tc.want == "" && len(found) > 0:
			t.Errorf("%s: warnings %q, want none about utilisation", tc.name, found)
		case tc.want != "" && (len(found) != 1 || !strings.HasPrefix(found[0], tc.want)):
			t.Errorf("%s: warnings %q, want one starting %q", tc.name, found, tc.want)
		}
	}
}

// TestPercentileIntervalsCentredOnPooled: a percentile's interval over
// replications is centred on the summary's pooled percentile (sectioning),
// not on the replications' mean percentile, which short replications bias
// low; so the figure printed with "±" is the interval's centre.
func TestPercentileIntervalsCentredOnPooled(t *testing.T) {
	cfg := load(t, "mmc", "runs=20000", "warmup=2000")
	s := summary.Summarize(cfg, replicate.All(cfg, 8, 0, system.Options{}), 0.95)
	c := s.Confidence
	for name, tc := range map[string]struct {
		iv     summary.Interval
		pooled float64
	}{
		"latency p50": {c.Latency.P50, s.Latency.P50}, "latency p99": {c.Latency.P99, s.Latency.P99},
		"latency p99.9": {c.Latency.P999, s.Latency.P999}, "wait p90": {c.Wait.P90, s.Wait.P90},
	} {
		if tc.iv.Lo <= 0 || math.Abs((tc.iv.Lo+tc.iv.Hi)/2-tc.pooled) > 1e-9*tc.pooled || tc.iv.Hi <= tc.iv.Lo {
			t.Errorf("%s: interval [%v, %v], pooled %v: want it centred on the pooled figure", name, tc.iv.Lo, tc.iv.Hi, tc.pooled)
		}
	}
}
