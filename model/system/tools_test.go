package system_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/budgetsim/budgetsim/model/analytic"
	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

func summarize(t *testing.T, cfg *system.Config, reps int) summary.Summary {
	t.Helper()
	return summary.Summarize(cfg, replicate.All(cfg, reps, 0, system.Options{}), 0.95)
}

// TestToolQueueIsErlangC: a tool with concurrency c behind unlimited
// workers is an M/M/c queue; its queueing delay must match Erlang C
// (Wq = C(c, a)/(cμ − λ)) within a 99.9% interval over replications.
func TestToolQueueIsErlangC(t *testing.T) {
	cfg := load(t, "mmc", "workers=100000", "tools.server.concurrency=10", "runs=100000", "warmup=5000")
	res := replicate.All(cfg, 10, 0, system.Options{})
	xs := make([]float64, len(res))
	for i, r := range res {
		xs[i] = r.ToolDelay[0].Mean()
	}
	iv := stats.MeanCI(xs, 0.999)
	want, err := analytic.MMc{Lambda: 9, Mu: 1, C: 10}.MeanWait()
	if err != nil {
		t.Fatal(err)
	}
	if !iv.Contains(want) {
		t.Fatalf("tool queueing delay %v, Erlang C mean wait %.5f outside it", iv, want)
	}
}

// TestRateLimitedToolCapsThroughput: with search limited to 2 calls/s,
// adding workers never raises throughput above 2 runs/s, and the summary
// names search as the bottleneck; raising the limit is what helps.
func TestRateLimitedToolCapsThroughput(t *testing.T) {
	for _, w := range []string{"20", "40", "80"} {
		s := summarize(t, load(t, "tool-bottleneck", "workers="+w, "runs=8000", "warmup=1000"), 1)
		if s.Little.Throughput > 2.0*1.01 {
			t.Errorf("workers=%s: throughput %.3f/s above the tool's 2 calls/s", w, s.Little.Throughput)
		}
		if s.Bottleneck != "search" {
			t.Errorf("workers=%s: bottleneck %q, want search", w, s.Bottleneck)
		}
	}
	s := summarize(t, load(t, "tool-bottleneck", "tools.search.rate_limit.rate=6/s", "runs=8000", "warmup=1000"), 1)
	if s.SuccessRate < 0.99 || s.Little.Throughput < 4.8 {
		t.Fatalf("rate 6/s: success %.3f, throughput %.2f/s; want ≥ 0.99 and ≈ 5/s", s.SuccessRate, s.Little.Throughput)
	}
	c := summarize(t, load(t, "tool-bottleneck", "tools.search.cache.hit_ratio=0.7", "runs=8000", "warmup=1000"), 1)
	if c.SuccessRate < 0.99 || c.Tools[0].CacheHits == 0 {
		t.Fatalf("cache 0.7: success %.3f, cache hits %d; a cache in front of the limit must relieve it", c.SuccessRate, c.Tools[0].CacheHits)
	}
}

// TestServerRateLimitSends429: server enforcement answers over-limit calls
// with 429 and a Retry-After of the time to the next token; the tool never
// admits more than its rate.
func TestServerRateLimitSends429(t *testing.T) {
	s := summarize(t, load(t, "tool-bottleneck", "tools.search.rate_limit.enforce=server", "retry.attempts=4", "runs=4000", "warmup=500"), 1)
	ts := s.Tools[0]
	if ts.RateLimited == 0 || s.Attempts.RateLimited == 0 || s.Attempts.RetryAfterHonored == 0 {
		t.Fatalf("429s sent %d, seen %d, Retry-After honoured %d: want all > 0", ts.RateLimited, s.Attempts.RateLimited, s.Attempts.RetryAfterHonored)
	}
	if ts.RateUtilisation > 1.01 {
		t.Fatalf("the tool admitted %.3f× its rate", ts.RateUtilisation)
	}
}

// TestRetryStorm: naive retries and work that continues after timeouts
// keep goodput collapsed after the outage; one attempt, or a deadline-aware
// tool with a retry budget, recovers; and at a third of capacity (below
// capacity/attempts) the naive system recovers by itself.
func TestRetryStorm(t *testing.T) {
	rec := func(sets ...string) *summary.Recovery {
		s := summarize(t, load(t, "retry-storm", sets...), 1)
		if s.Recovery == nil {
			t.Fatalf("%v: no recovery block", sets)
		}
		return s.Recovery
	}
	if r := rec(); r.Recovered || r.LateGoodput > 0.1 {
		t.Errorf("naive: %+v, want collapsed until the end", r)
	}
	if r := rec("retry.attempts=1", "tools.backend.deadline_aware=true"); !r.Recovered || r.After > 5 {
		t.Errorf("one attempt, deadline-aware: %+v, want recovered within 5 s", r)
	}
	if r := rec("retry.budget={kind: token_bucket}", "tools.backend.deadline_aware=true"); !r.Recovered || r.After > 5 {
		t.Errorf("token-bucket budget, deadline-aware: %+v, want recovered within 5 s", r)
	}
	if r := rec("tools.backend.deadline_aware=true"); r.LateGoodput < 0.4 {
		t.Errorf("deadline-aware alone: late goodput %.2f, want well above the naive 0", r.LateGoodput)
	}
	if r := rec("arrivals.rate=20/s"); !r.Recovered {
		t.Errorf("20/s (below capacity/attempts ≈ 33/s): %+v, want recovered by itself", r)
	}
	if r := rec("arrivals.rate=40/s"); r.Recovered {
		t.Errorf("40/s (above capacity/attempts): %+v, want metastable", r)
	}
}

// TestRunBudgetReserveSettle: two metered steps reserve 70 each against a
// run budget of 100 (the second seed's example); the first call's usage is
// uniform on [10, 70], so the second reservation fits only when the first
// spent ≤ 30: probability 1/3. The rest are refused locally.
func TestRunBudgetReserveSettle(t *testing.T) {
	cfg := load(t, "mmc", "runs=30000", "warmup=0", "workers=1000",
		"cost={run_budget: 100}",
		"tools.server.latency={dist: constant, value: 1ms}",
		"tools.server.cost={reserve: 70, usage: {dist: uniform, min: 10, max: 70}, billed: request}",
		"steps=[{name: a, tool: server}, {name: b, tool: server}]")
	s := summarize(t, cfg, 1)
	p := s.SuccessRate
	n := float64(s.Runs.Arrived)
	if se := math.Sqrt(p * (1 - p) / n); math.Abs(p-1.0/3) > 4.5*se {
		t.Fatalf("success %.4f, want 1/3 ± %.4f (4.5 binomial SE)", p, 4.5*se)
	}
	if s.Runs.Refused+s.Runs.Completed != s.Runs.Arrived {
		t.Fatalf("runs %+v: every run either fits or is refused", s.Runs)
	}
	if s.Cost == nil || s.Cost.Refused != s.Runs.Refused || s.Cost.Unsettled != 0 {
		t.Fatalf("cost %+v: refused calls must equal refused runs and nothing stays unsettled", s.Cost)
	}
	// Mean spend per run: 40 for the first call, plus 40 for the runs
	// that made a second one.
	want := 40*n + 40*float64(s.Runs.Completed)
	if math.Abs(s.Cost.Spent-want)/want > 0.02 {
		t.Fatalf("spent %.0f, want ≈ %.0f", s.Cost.Spent, want)
	}
}

// TestUnknownUsageStaysReserved: a metered call that times out has unknown
// usage; it is held for reconciliation, never settled as zero, and a shared
// scenario budget never overcommits.
func TestUnknownUsageStaysReserved(t *testing.T) {
	cfg := load(t, "mmc", "runs=5000", "warmup=0", "workers=1000",
		"cost={scenario_budget: 10000}",
		"tools.server.hang=0.2", "steps.serve.timeout=2s",
		"tools.server.cost={reserve: 5, usage: {dist: constant, value: 3}}")
	s := summarize(t, cfg, 1)
	c := s.Cost
	if c.Unsettled == 0 {
		t.Fatal("timed-out metered calls left nothing unsettled")
	}
	if math.Mod(c.Unsettled, 5) != 0 {
		t.Fatalf("unsettled %.2f: each timed-out call must hold its full reservation of 5", c.Unsettled)
	}
	if c.Spent+c.Unsettled > 10000 {
		t.Fatalf("spent %.0f + unsettled %.0f exceed the scenario budget 10000", c.Spent, c.Unsettled)
	}
	if c.Refused == 0 {
		t.Fatal("5000 runs × up to 5 units (about 3.4 units each) must exhaust a 10000 budget: some calls must be refused")
	}
}

// TestFallbackNeedsCapability: a step whose primary always fails falls
// back to a tool that declares the capability it requires; an incapable
// fallback is never chosen.
func TestFallbackNeedsCapability(t *testing.T) {
	base := []string{"runs=2000", "warmup=0", "workers=100",
		"tools.server.errors={permanent: 1}",
		"tools.server.capabilities=[text, images]",
		"tools.cheap={latency: {dist: constant, value: 10ms}, capabilities: [text]}",
		"tools.vision={latency: {dist: constant, value: 20ms}, capabilities: [text, images]}",
	}
	s := summarize(t, load(t, "mmc", append(base, "steps.serve.requires=[images]", "steps.serve.fallback=[cheap, vision]")...), 1)
	if s.SuccessRate != 1 || s.Attempts.Fallbacks != s.Runs.Arrived {
		t.Fatalf("capable fallback: success %.3f, fallbacks %d of %d runs", s.SuccessRate, s.Attempts.Fallbacks, s.Runs.Arrived)
	}
	if s.Tools[1].Calls != 0 {
		t.Fatalf("the text-only fallback was called %d times for an images step", s.Tools[1].Calls)
	}
	s = summarize(t, load(t, "mmc", append(base, "steps.serve.requires=[images]", "steps.serve.fallback=[cheap]")...), 1)
	if s.SuccessRate != 0 || s.Attempts.Fallbacks != 0 {
		t.Fatalf("incapable fallback: success %.3f, fallbacks %d; want 0 and 0", s.SuccessRate, s.Attempts.Fallbacks)
	}
}

// TestTailBreakdown: the p99 run's stages add up to its completion time.
func TestTailBreakdown(t *testing.T) {
	s := summarize(t, load(t, "mmc", "runs=50000"), 2)
	var sum float64
	for _, st := range s.Tail.Stages {
		sum += st.Seconds
	}
	if s.Tail.N == 0 || math.Abs(sum-s.Tail.P99)/s.Tail.P99 > 0.02 {
		t.Fatalf("tail stages sum to %.3fs over %d runs, p99 %.3fs: want within the band (≤ 1.6%% wide)", sum, s.Tail.N, s.Tail.P99)
	}
	if s.Tail.Stages[0].Stage != "queue" || s.Tail.Stages[1].Stage != "step:serve" {
		t.Fatalf("stage names %+v", s.Tail.Stages)
	}
}

// TestTailRoundTrip: a tail survives binary encoding (shard files) and
// merges to the same breakdown.
func TestTailRoundTrip(t *testing.T) {
	cfg := load(t, "mmc", "runs=20000")
	res := replicate.All(cfg, 2, 1, system.Options{})
	want := summary.Summarize(cfg, res, 0.95).Tail
	for _, r := range res {
		b, err := r.Tail.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back system.Tail
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		r.Tail = back
	}
	got := summary.Summarize(cfg, res, 0.95).Tail
	if fmt.Sprint(got) != fmt.Sprint(want) || want.N == 0 {
		t.Fatalf("after a round trip: %+v, want %+v", got, want)
	}
	var bad system.Tail
	if err := bad.UnmarshalBinary([]byte{0xff, 0xff}); err == nil {
		t.Fatal("garbage decoded without error")
	}
}

// TestToolBusySeries: the per-bin server time of a capacity tool adds up
// to its total busy time, and no bin holds more than concurrency × width.
func TestToolBusySeries(t *testing.T) {
	cfg := load(t, "retry-storm", "horizon=100s", "warmup=0")
	r := system.New(cfg, system.Options{}).Run()
	var sum float64
	limit := float64(cfg.Tools[0].Concurrency) * r.Series.Width.Seconds() * (1 + 1e-9)
	for i, b := range r.Series.ToolBusy[0] {
		sum += b
		if b > limit {
			t.Fatalf("bin %d holds %.4fs of server time, above %d servers × %v", i, b, cfg.Tools[0].Concurrency, r.Series.Width)
		}
	}
	if want := r.Tools[0].BusySeconds; math.Abs(sum-want) > 1e-6*want {
		t.Fatalf("series busy time %.6fs, tool busy time %.6fs", sum, want)
	}
}

// TestToolCallsSeries: the per-bin calls of a rate-limited tool add up to
// its calls (no warm-up, so both cover the whole run) through the series'
// many halvings and through Merge; no bin of a limit of 2/s with a burst
// of 1 holds more than 2 × width + 1 calls; a tool without a rate limit
// has no call series.
func TestToolCallsSeries(t *testing.T) {
	cfg := load(t, "tool-bottleneck", "warmup=0")
	search, model := -1, -1
	for i, tool := range cfg.Tools {
		switch tool.Name {
		case "search":
			search = i
		case "model":
			model = i
		}
	}
	res := replicate.All(cfg, 2, 1, system.Options{})
	limit := cfg.Tools[search].RateLimit.Rate*res[0].Series.Width.Seconds() + float64(cfg.Tools[search].RateLimit.Burst)
	var want int64
	for _, r := range res {
		var sum int64
		for i, c := range r.Series.ToolCalls[search] {
			sum += c
			if float64(c) > limit {
				t.Errorf("bin %d holds %d calls, above %.1f", i, c, limit)
			}
		}
		if sum != r.Tools[search].Calls || sum == 0 {
			t.Errorf("series calls %d, tool calls %d", sum, r.Tools[search].Calls)
		}
		if r.Series.ToolCalls[model] != nil {
			t.Errorf("the unlimited model tool has a call series of %d bins", len(r.Series.ToolCalls[model]))
		}
		want += sum
	}
	merged := *res[0].Series
	merged.ToolCalls = nil
	for _, c := range res[0].Series.ToolCalls {
		merged.ToolCalls = append(merged.ToolCalls, slices.Clone(c))
	}
	merged.Bins, merged.ToolBusy = slices.Clone(merged.Bins), nil
	merged.Merge(res[1].Series)
	var got int64
	for _, c := range merged.ToolCalls[search] {
		got += c
	}
	if got != want {
		t.Errorf("merged series holds %d calls, the replications %d", got, want)
	}
}

// TestStepHangsSplitTimeouts: a step's timeouts are split into hangs
// (calls that would never answer) and slow calls cut off by the lease,
// the split the timeout recommendation needs (hangs are not slow calls).
func TestStepHangsSplitTimeouts(t *testing.T) {
	// Latency 1 s constant under a 2 s timeout: only hangs time out, and
	// they make up the tool's hang rate of the dialed attempts.
	res := system.New(load(t, "mmc", "workers=1000", "runs=40000", "warmup=0",
		"tools.server.latency={dist: constant, value: 1s}", "tools.server.hang=0.2", "steps.serve.timeout=2s"), system.Options{}).Run()
	dialed := res.Attempts.Attempts
	if res.StepHangs[0] != res.StepTimeouts[0] || res.StepHangs[0] == 0 {
		t.Fatalf("constant 1 s under a 2 s timeout: %d hangs of %d timeouts, want all of them hangs", res.StepHangs[0], res.StepTimeouts[0])
	}
	// Binomial(dialed, 0.2): 4.4 standard deviations is a 1e-5 two-sided miss.
	p := float64(res.StepHangs[0]) / float64(dialed)
	if sd := math.Sqrt(0.2 * 0.8 / float64(dialed)); math.Abs(p-0.2) > 4.4*sd {
		t.Fatalf("hang share %.4f of %d attempts, want 0.2 ± %.4f", p, dialed, 4.4*sd)
	}
	// Exponential latency (mean 1 s) under a 1 s timeout, no hangs: every
	// timeout is a slow call, e^-1 of the dialed attempts.
	res = system.New(load(t, "mmc", "workers=1000", "runs=40000", "warmup=0", "steps.serve.timeout=1s"), system.Options{}).Run()
	dialed = res.Attempts.Attempts
	if res.StepHangs[0] != 0 {
		t.Fatalf("no hang rate: %d hangs, want 0", res.StepHangs[0])
	}
	want := math.Exp(-1)
	p = float64(res.StepTimeouts[0]) / float64(dialed)
	if sd := math.Sqrt(want * (1 - want) / float64(dialed)); math.Abs(p-want) > 4.4*sd {
		t.Fatalf("slow-call share %.4f of %d attempts, want e^-1 = %.4f ± %.4f", p, dialed, want, 4.4*sd)
	}
}

// TestIntervalsStayInRange: a success rate's interval never leaves [0, 1]
// and no figure's interval goes below 0, even when the Student-t interval
// itself would (replications at or next to 100 % success).
func TestIntervalsStayInRange(t *testing.T) {
	cfg := load(t, "mmc", "runs=600", "warmup=0", "tools.server.errors={permanent: 0.002}")
	res := replicate.All(cfg, 4, 0, system.Options{})
	xs := make([]float64, len(res))
	for i, r := range res {
		xs[i] = float64(r.Runs.Completed) / float64(r.Runs.Arrived)
	}
	if raw := stats.MeanCI(xs, 0.95); raw.Hi <= 1 {
		t.Fatalf("precondition: the raw interval %v should reach above 1 for this test to mean anything", raw)
	}
	s := summary.Summarize(cfg, res, 0.95)
	c := s.Confidence
	if c.SuccessRate.Hi > 1 || c.SuccessRate.Lo < 0 || c.SuccessRate.Lo > s.SuccessRate {
		t.Fatalf("success interval %+v around %v: want within [0, 1] and below the mean", c.SuccessRate, s.SuccessRate)
	}
	for name, iv := range map[string]summary.Interval{"wait p50": c.Wait.P50, "latency p50": c.Latency.P50, "throughput": c.Throughput} {
		if iv.Lo < 0 {
			t.Errorf("%s interval %+v below 0", name, iv)
		}
	}
}

// TestTailSharesAddUp: the p99 breakdown's shares are of the band's mean
// completion time, so they add up to 1 even though that mean is not the
// p99 itself.
func TestTailSharesAddUp(t *testing.T) {
	s := summarize(t, load(t, "retry-storm"), 1)
	shares := s.Tail.Shares()
	var sum, secs float64
	for i, x := range shares {
		sum += x
		secs += s.Tail.Stages[i].Seconds
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Fatalf("shares %v add up to %v, want 1", shares, sum)
	}
	if secs == s.Tail.P99 {
		t.Fatalf("the band's mean %v equals the p99: the test needs a case where they differ", secs)
	}
}

// TestHangAtCapacityToolWaitsForTheLease: a hang means no answer, so only
// the caller's timeout ends the attempt, at a tool with capacity as at one
// without: every attempt lasts its whole 2 s lease (not the 100 ms the
// server spent on it), and the server's work is wasted.
func TestHangAtCapacityToolWaitsForTheLease(t *testing.T) {
	for _, conc := range []string{"unlimited", "4"} {
		sets := []string{"runs=200", "warmup=0", "workers=1000",
			"tools.server.latency={dist: constant, value: 100ms}", "tools.server.hang=1", "steps.serve.timeout=2s"}
		if conc != "unlimited" {
			sets = append(sets, "tools.server.concurrency="+conc)
		}
		res := system.New(load(t, "mmc", sets...), system.Options{}).Run()
		a := res.Attempts
		if a.Timeouts != 200 || res.StepHangs[0] != 200 {
			t.Fatalf("concurrency %s: %d timeouts, %d hangs of 200 attempts; want all", conc, a.Timeouts, res.StepHangs[0])
		}
		if math.Abs(a.WastedSeconds-400) > 1e-6 {
			t.Errorf("concurrency %s: attempts took %v s in all, want 200 × the 2 s lease = 400 s", conc, a.WastedSeconds)
		}
		if conc != "unlimited" {
			if ts := res.Tools[0]; math.Abs(ts.WastedSeconds-20) > 1e-6 || ts.Served != 200 {
				t.Errorf("concurrency %s: server wasted %v s on %d served, want 20 s (200 × 100 ms)", conc, ts.WastedSeconds, ts.Served)
			}
		}
	}
}

// TestDroppedCallsReleaseTheirReservation: a deadline-aware tool that drops
// a call at dequeue tells the caller so, and never served it: its
// reservation is released (nothing spent), not held as unknown usage the
// way a timed-out call's is.
func TestDroppedCallsReleaseTheirReservation(t *testing.T) {
	// One server at 120 % load, 1 s per call; callers wait up to 30 s, and
	// the tool drops what cannot start with 10 s of lease left, so every
	// failure is a drop the caller hears about, long before its own
	// timeout.
	cfg := load(t, "mmc", "runs=600", "warmup=0", "workers=1000", "arrivals.rate=1.2/s",
		"tools.server.latency={dist: constant, value: 1s}", "tools.server.concurrency=1",
		"tools.server.deadline_aware=true", "tools.server.drop_floor=10s", "steps.serve.timeout=30s",
		"cost={scenario_budget: 100000}", "tools.server.cost={reserve: 5, usage: {dist: constant, value: 3}}")
	res := system.New(cfg, system.Options{}).Run()
	dropped, timeouts := res.Tools[0].Dropped, res.Attempts.Timeouts
	if dropped == 0 || dropped != timeouts {
		t.Fatalf("%d dropped, %d timeouts: the test needs every timeout to be a drop", dropped, timeouts)
	}
	if res.Cost.Unsettled != 0 {
		t.Errorf("unsettled %v after %d drops: a dropped call's usage is known (none)", res.Cost.Unsettled, dropped)
	}
	if want := 3 * float64(res.Attempts.OK); res.Cost.Spent != want || res.Cost.Wasted != 0 {
		t.Errorf("spent %v (wasted %v), want 3 per served call = %v and nothing wasted on drops", res.Cost.Spent, res.Cost.Wasted, want)
	}
}

// TestRetryAfterOnEvery429And503: a tool that declares a Retry-After sends
// it with every 429 and 503, including those of its rate limiter and of its
// full queue (not only with the errors drawn from its error rates), and a
// caller that honours it sleeps exactly that long.
func TestRetryAfterOnEvery429And503(t *testing.T) {
	for name, sets := range map[string][]string{
		"rate limiter 429": {"tools.server.rate_limit={rate: 1/s, burst: 1, enforce: server}"},
		"full queue 503":   {"tools.server.concurrency=1", "tools.server.queue={capacity: 1}"},
	} {
		sets = append(sets, "runs=2000", "warmup=0", "workers=1000", "arrivals.rate=5/s",
			"tools.server.latency={dist: constant, value: 100ms}",
			"tools.server.retry_after={dist: constant, value: 300ms}",
			"retry={attempts: 2, retry_after: honor, retry_after_jitter: 0}", "steps.serve.idempotent=true")
		res := system.New(load(t, "mmc", sets...), system.Options{}).Run()
		a := res.Attempts
		if a.Retries == 0 || a.RetryAfterHonored != a.Retries {
			t.Errorf("%s: %d retries, %d after an honoured Retry-After; want every retry to honour it", name, a.Retries, a.RetryAfterHonored)
		}
		if want := 0.3 * float64(a.Retries); math.Abs(a.BackoffSeconds-want) > 1e-6 {
			t.Errorf("%s: slept %v s before %d retries, want 300 ms each = %v s", name, a.BackoffSeconds, a.Retries, want)
		}
	}
}

// TestTimeoutCarriesNoRetryAfter: a 503 with a Retry-After that arrives
// after the caller's lease ended is never read, so the retry after that
// timeout uses the local backoff, not the Retry-After.
func TestTimeoutCarriesNoRetryAfter(t *testing.T) {
	for _, conc := range []string{"unlimited", "8"} {
		sets := []string{"runs=500", "warmup=0", "workers=1000", "arrivals.rate=2/s",
			"tools.server.latency={dist: constant, value: 2s}", "tools.server.errors={transient: 1}",
			"tools.server.retry_after={dist: constant, value: 5s}", "steps.serve.timeout=1s",
			"retry={attempts: 2, retry_after: honor, backoff: {base: 10ms, multiplier: 2, cap: 10ms, jitter: none}}",
			"steps.serve.idempotent=true"}
		if conc != "unlimited" {
			sets = append(sets, "tools.server.concurrency="+conc)
		}
		a := system.New(load(t, "mmc", sets...), system.Options{}).Run().Attempts
		if a.Timeouts != a.Attempts || a.Retries != 500 {
			t.Fatalf("concurrency %s: %d timeouts of %d attempts, %d retries; the test needs every attempt to time out and every run to retry once", conc, a.Timeouts, a.Attempts, a.Retries)
		}
		if a.RetryAfterHonored != 0 || math.Abs(a.BackoffSeconds-500*0.010) > 1e-6 {
			t.Errorf("concurrency %s: %d Retry-Afters honoured, %v s of sleep; want none and 500 × the 10 ms backoff", conc, a.RetryAfterHonored, a.BackoffSeconds)
		}
	}
}

// TestStepSummaries: the summary's per-step block pools every
// replication's answered latencies, timeouts and hangs. In the seed plan
// each run's first fetch hangs and is cut by its 100 ms lease; the second
// answers in 10 ms.
func TestStepSummaries(t *testing.T) {
	s := summarize(t, load(t, "seed-plan"), 3)
	if len(s.Steps) != 3 {
		t.Fatalf("%d steps, want 3", len(s.Steps))
	}
	for i, want := range []struct {
		name            string
		answered        uint64
		timeouts, hangs int64
	}{{"search", 3, 0, 0}, {"fetch", 3, 3, 3}, {"extract", 3, 0, 0}} {
		got := s.Steps[i]
		if got.Name != want.name || got.Tool != want.name || got.Latency.N != want.answered || got.Timeouts != want.timeouts || got.Hangs != want.hangs {
			t.Errorf("step %d = %+v, want %s with %d answered, %d timeouts (%d hangs)", i, got, want.name, want.answered, want.timeouts, want.hangs)
		}
		if got.Latency.P50 < 0.0099 || got.Latency.P50 > 0.0101 {
			t.Errorf("step %s: p50 %v, want the tool's constant 10 ms", got.Name, got.Latency.P50)
		}
	}
}

// TestStepSummaryNamesFallbacks: a step's row names its fallback tools,
// whose answered attempts it counts with the primary's.
func TestStepSummaryNamesFallbacks(t *testing.T) {
	s := summarize(t, load(t, "mmc", "runs=4000", "warmup=0",
		"tools.cheap={latency: {dist: constant, value: 10ms}}", "steps.serve.fallback=[cheap]",
		"tools.server.errors={permanent: 0.1}"), 1)
	st := s.Steps[0]
	if st.Tool != "server" || len(st.Fallbacks) != 1 || st.Fallbacks[0] != "cheap" {
		t.Fatalf("step %+v: want tool server with fallback cheap", st)
	}
	// Every run gets an answer from server (ok or permanent) and about 10 %
	// one more from cheap.
	if n := st.Latency.N; n <= 4000 || n != uint64(s.Attempts.Attempts) {
		t.Fatalf("%d answered of %d attempts; want every attempt, fallbacks included (> 4000)", n, s.Attempts.Attempts)
	}
}

// TestToolFiguresCoverTheMeasuredWindow: arrivals at 1/s during a 1000 s
// warm-up, then 8/s for 1000 s, into a tool of 20 servers with 1 s mean
// service. Over the measured window the tool's mean busy servers is
// λ/μ = 8 (Little's law at the tool; the switch's transient lasts ~1/μ
// = 1 s of the 1000), its throughput λ = 8/s, and the workers, each
// holding its run through the call, show the same busy count; a whole-run
// figure would be (1 + 8)/2 = 4.5. The mean busy count over the 10
// replications must hold 8 in its 99.9 % Student-t interval. The pooled
// throughput and utilisation get fixed bands of about 10 standard errors:
// completions in 10 000 s are ~Poisson(80 000), sd 0.028/s; the time
// average of an M/M/∞-like busy count has variance ≈ 2·Var(N)/(μT) =
// 2·8/10 000, sd 0.04 busy servers, 0.002 of utilisation.
func TestToolFiguresCoverTheMeasuredWindow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "warm-tools.yaml")
	if err := os.WriteFile(path, []byte(`name: warm-tools
seed: 5
horizon: 2000s
warmup: 1000s
arrivals:
  process: schedule
  rates:
    - {at: 0s, rate: 1/s}
    - {at: 1000s, rate: 8/s}
workers: 1000
steps:
  - {name: call, tool: backend}
tools:
  backend:
    concurrency: 20
    latency: {dist: exponential, mean: 1s}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := load(t, path)
	res := replicate.All(cfg, 10, 0, system.Options{})
	busy := make([]float64, len(res))
	for i, r := range res {
		busy[i] = r.Tools[0].MeanBusy
		if w := r.ToolWindow.Seconds(); w < 999 || w > 1010 {
			t.Errorf("replication %d: tool window %.1f s, want the 1000 s after the warm-up", i, w)
		}
	}
	if iv := stats.MeanCI(busy, 0.999); !iv.Contains(8) {
		t.Errorf("tool mean busy %v over replications; λ/μ = 8 outside it", iv)
	}
	s := summary.Summarize(cfg, res, 0.95)
	tool := s.Tools[0]
	if math.Abs(tool.Throughput-8) > 0.3 || math.Abs(tool.Utilisation-0.4) > 0.02 {
		t.Errorf("tool throughput %.3f/s, utilisation %.4f; want ≈ 8/s and 0.4", tool.Throughput, tool.Utilisation)
	}
	if got := s.Workers.Utilisation * 1000; math.Abs(got-tool.MeanBusy) > 0.05 {
		t.Errorf("workers busy %.3f, tool busy %.3f: the same runs over the same window should agree", got, tool.MeanBusy)
	}
}
