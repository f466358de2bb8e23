package system_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/adaptive"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

func parse(t *testing.T, src string, sets ...string) *system.Config {
	t.Helper()
	sc, err := scenarios.Parse("t.yaml", []byte(src), sets, nil)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return sc.Config
}

// aimdBatch is eight runs at once against a tool that answers in exactly
// 1s, behind an AIMD limit that starts at 2 and halves on a drop; runs 0
// and 1 get a 503.
const aimdBatch = `name: aimd-batch
arrivals: {process: batch, count: 8}
workers: 8
tools:
  api:
    latency: {dist: constant, value: 1s}
    script: [{run: 0, attempt: 1, outcome: transient}, {run: 1, attempt: 1, outcome: transient}]
    adaptive_concurrency: {algorithm: aimd, initial: 2, min: 1, max: 10, backoff_ratio: 0.5}
steps:
  - {name: call, tool: api}
`

// TestAdaptiveAIMDFollowsTheRule: the limit and the calls it lets in follow
// AIMDLimit's rule step by step. At 0s runs 0 and 1 take the two permits
// and the six others queue. At 1s both get a 503: the limit halves twice
// (2 → 1 → 1, the minimum) and run 2 dials alone. Its success at 2s, with
// 1 in flight ≥ half the limit, raises the limit to 2: runs 3 and 4 dial.
// At 3s run 3's success (1 in flight at its start) makes it 3 and lets runs
// 5 and 6 in; run 4's (2 in flight) makes it 4 and lets run 7 in. At 4s
// the last three succeed, with 2, 3 and 3 in flight: 5, 6, 7.
func TestAdaptiveAIMDFollowsTheRule(t *testing.T) {
	rec, res := traceOf(t, parse(t, aimdBatch))
	starts := map[int64]time.Duration{}
	for _, a := range rec.attempts {
		starts[a.Run] = a.Start
	}
	want := []time.Duration{0, 0, 1, 2, 2, 3, 3, 3}
	for run, w := range want {
		if got := starts[int64(run)]; got != w*time.Second {
			t.Errorf("run %d dialed at %v, want %v", run, got, w*time.Second)
		}
	}
	a := res.Tools[0].Adaptive
	if a == nil {
		t.Fatal("no adaptive figures")
	}
	// The limit was 2, 1, 2 and 4 over the four seconds.
	wantStats := system.AdaptiveStats{Algorithm: "aimd", MeanLimit: 9.0 / 4, MinLimit: 1, MaxLimit: 7,
		Waited: 6, WaitSeconds: 1 + 2 + 2 + 3 + 3 + 3, Drops: 2}
	if got := *a; !sameAdaptive(got, wantStats) {
		t.Errorf("figures %+v, want %+v", got, wantStats)
	}
	if res.Runs.Completed != 6 || res.Runs.Failed != 2 {
		t.Errorf("runs %+v, want 6 completed and 2 failed", res.Runs)
	}
	// The series holds the limit's integral: 9 limit-seconds to the end at
	// 4s, then the last limit, 7, over the rest of the end's bin (4s starts
	// a bin of its own).
	var sum float64
	for _, v := range res.Series.ToolLimit[0] {
		sum += v
	}
	if want := 9 + 7*res.Series.Width.Seconds(); math.Abs(sum-want) > 1e-9 {
		t.Errorf("series: limit integral %v, want %v", sum, want)
	}
}

func sameAdaptive(a, b system.AdaptiveStats) bool {
	return a.Algorithm == b.Algorithm && math.Abs(a.MeanLimit-b.MeanLimit) < 1e-12 && a.MinLimit == b.MinLimit &&
		a.MaxLimit == b.MaxLimit && a.Waited == b.Waited && math.Abs(a.WaitSeconds-b.WaitSeconds) < 1e-9 &&
		a.RefusedWait == b.RefusedWait && a.Rejected == b.Rejected && a.Drops == b.Drops
}

// TestAdaptiveGradientReplays: callers of a tool whose latency jumps
// tenfold for a minute; the simulated limit's extremes and time-average are
// those of Gradient2Limit fed the same samples in the same order: each
// call's RTT, and the calls in flight when it was dialed (itself, and the
// calls dialed before it that had not ended).
func TestAdaptiveGradientReplays(t *testing.T) {
	cfg := parse(t, `name: gradient-replay
runs: 2000
arrivals: {rate: 10/s}
workers: 4
tools:
  api:
    latency: {dist: exponential, mean: 100ms}
    outages: [{start: 60s, end: 120s, mode: slow, factor: 10}]
    adaptive_concurrency: {algorithm: gradient, initial: 2, min: 1, max: 6, queue_size: 1, long_window: 20}
steps:
  - {name: call, tool: api}
`)
	rec, res := traceOf(t, cfg)
	g, err := adaptive.NewGradient(adaptive.GradientConfig{Initial: 2, Min: 1, Max: 6, Smoothing: 0.2, QueueSize: 1, LongWindow: 20, RTTTolerance: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	atts := slices.Clone(rec.attempts)
	end := func(a system.AttemptRecord) time.Duration { return a.Start + a.Latency }
	inFlight := make(map[int64]int, len(atts))
	for _, a := range atts {
		n := 1
		for _, b := range atts {
			if b.Start < a.Start && end(b) > a.Start {
				n++
			}
		}
		inFlight[a.Run] = n
	}
	slices.SortStableFunc(atts, func(x, y system.AttemptRecord) int { return int(end(x) - end(y)) })
	start := rec.attempts[0].Start // the first arrival: the window starts there
	for _, a := range rec.attempts {
		start = min(start, a.Start)
	}
	lo, hi, limit := 2, 2, 2
	var integral float64
	cut := false // the limit fell during the slowdown
	at := start
	for _, a := range atts {
		integral += float64(limit) * (end(a) - at).Seconds()
		at = end(a)
		next := g.Update(adaptive.Sample{RTT: a.Latency, InFlight: inFlight[a.Run]})
		if next < limit && a.Start >= 60*time.Second && a.Start < 120*time.Second {
			cut = true
		}
		limit = next
		lo, hi = min(lo, limit), max(hi, limit)
	}
	integral += float64(limit) * (res.End - at).Seconds()
	got := res.Tools[0].Adaptive
	if got.MinLimit != lo || got.MaxLimit != hi {
		t.Errorf("limit in [%d, %d], the replay's in [%d, %d]", got.MinLimit, got.MaxLimit, lo, hi)
	}
	if want := integral / (res.End - start).Seconds(); math.Abs(got.MeanLimit-want) > 1e-9*want {
		t.Errorf("mean limit %v, the replay's %v", got.MeanLimit, want)
	}
	if hi <= 2 || !cut {
		t.Errorf("the limit rose to %d, cut in the slowdown %v: want it to grow, then fall in the slowdown", hi, cut)
	}
}

// TestAdaptiveDoesNotAllocatePerEvent: with either algorithm, drops (a 503
// in five calls), waits in the limiter's queue and refusals by max_wait,
// ten times the runs must not cost ten times the allocations.
func TestAdaptiveDoesNotAllocatePerEvent(t *testing.T) {
	for _, alg := range []string{"aimd", "gradient"} {
		allocs := func(runs string) float64 {
			cfg := load(t, "mmc", "runs="+runs, "warmup=0", "deadline=5s", "tools.server.errors={transient: 0.2}",
				"tools.server.adaptive_concurrency={algorithm: "+alg+", initial: 6, min: 1, max: 12, max_wait: 1s}")
			return testing.AllocsPerRun(2, func() { system.New(cfg, system.Options{}).Run() })
		}
		small, big := allocs("20000"), allocs("200000")
		if big > small+20 {
			t.Errorf("%s: allocations: %v for 20k runs, %v for 200k runs: something allocates per event", alg, small, big)
		}
	}
}
