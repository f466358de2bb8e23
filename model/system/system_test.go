package system_test

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/internal/scenariotest"
	"github.com/budgetsim/budgetsim/model/dist"
	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// recorder keeps every trace record.
type recorder struct {
	attempts []system.AttemptRecord
	runs     []system.RunRecord
}

func (r *recorder) Attempt(a *system.AttemptRecord) { r.attempts = append(r.attempts, *a) }
func (r *recorder) Run(rec system.RunRecord)        { r.runs = append(r.runs, rec) }

func load(t *testing.T, name string, sets ...string) *system.Config {
	t.Helper()
	return scenariotest.Config(t, name, sets...)
}

func traceOf(t *testing.T, cfg *system.Config) (*recorder, *system.Result) {
	t.Helper()
	rec := &recorder{}
	res := system.New(cfg, system.Options{Tracer: rec, TraceRuns: 1 << 40}).Run()
	return rec, res
}

// TestSeedPlan reproduces the deadline-budget seed: search#1, fetch#1 (timed
// out), fetch#2, extract#1, no grant above 250 ms, and the run ends inside
// its deadline.
func TestSeedPlan(t *testing.T) {
	rec, res := traceOf(t, load(t, "seed-plan"))
	type key struct {
		step    string
		attempt int
		outcome retry.Outcome
	}
	var got []key
	for _, a := range rec.attempts {
		got = append(got, key{a.Step, a.Attempt, a.Outcome})
		if a.Granted > 250*time.Millisecond {
			t.Errorf("%s#%d granted %v, want ≤ 250ms", a.Step, a.Attempt, a.Granted)
		}
		if a.Granted > a.Remaining-20*time.Millisecond {
			t.Errorf("%s#%d granted %v with %v remaining: lease must be ≤ remaining − floor", a.Step, a.Attempt, a.Granted, a.Remaining)
		}
	}
	want := []key{{"search", 1, retry.OK}, {"fetch", 1, retry.Timeout}, {"fetch", 2, retry.OK}, {"extract", 1, retry.OK}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("attempts = %v, want %v", got, want)
	}
	if res.Runs.Completed != 1 {
		t.Fatalf("completed = %d, want 1", res.Runs.Completed)
	}
	end := rec.runs[0].Ended
	if end >= time.Second {
		t.Fatalf("run ended at %v, want inside its 1s deadline", end)
	}
	// The timed-out fetch was cut by its 100 ms ceiling, and the backoff
	// slept a full-jitter draw in [0, 50ms).
	if f := rec.attempts[1]; f.Latency != 100*time.Millisecond || f.Backoff < 0 || f.Backoff >= 50*time.Millisecond {
		t.Fatalf("fetch#1 latency %v backoff %v, want 100ms and a sleep in [0, 50ms)", f.Latency, f.Backoff)
	}
}

// TestSeedPlanRefusedBeforeDialing: a 10 ms budget with a 20 ms floor is
// refused before the first call is dialed (seed 000's second run).
func TestSeedPlanRefusedBeforeDialing(t *testing.T) {
	rec, res := traceOf(t, load(t, "seed-plan", "deadline=10ms"))
	if res.Runs.Refused != 1 || res.Attempts.Attempts != 0 {
		t.Fatalf("refused = %d, attempts dialed = %d; want 1 and 0", res.Runs.Refused, res.Attempts.Attempts)
	}
	if len(rec.attempts) != 1 || rec.attempts[0].Outcome != retry.Refused || rec.attempts[0].Step != "search" {
		t.Fatalf("trace = %+v, want one refusal of search", rec.attempts)
	}
}

// TestSeedQueue reproduces the second seed: 1.2 s of a 2 s budget spent
// queued, the call leased 0.8 s (not 2 s), and a 1 s Retry-After ends the
// run at once.
func TestSeedQueue(t *testing.T) {
	rec, res := traceOf(t, load(t, "seed-queue"))
	var run1 []system.AttemptRecord
	for _, a := range rec.attempts {
		if a.Run == 1 {
			run1 = append(run1, a)
		}
	}
	if len(run1) != 1 {
		t.Fatalf("run 1 made %d attempts, want 1", len(run1))
	}
	a := run1[0]
	if a.Start != 1200*time.Millisecond || a.Granted != 800*time.Millisecond {
		t.Fatalf("run 1 dialed at %v with lease %v, want 1.2s and 800ms", a.Start, a.Granted)
	}
	if a.Decision != retry.RetryAfterOutlastsDeadline.String() || res.Runs.DeadlineExceeded != 1 {
		t.Fatalf("decision %q, deadline_exceeded %d; want %q and 1", a.Decision, res.Runs.DeadlineExceeded, retry.RetryAfterOutlastsDeadline)
	}
}

// TestSeedQueueExercise: 3 s budget, 1 s queued, Retry-After 1.5 s. A 0.6 s
// minimum call window means no retry; with 0.4 s the retry's lease is 0.5 s.
func TestSeedQueueExercise(t *testing.T) {
	_, res := traceOf(t, load(t, "seed-queue-exercise"))
	if res.Runs.DeadlineExceeded != 1 || res.Attempts.Retries != 0 {
		t.Fatalf("min lease 0.6s: deadline_exceeded %d retries %d, want 1 and 0", res.Runs.DeadlineExceeded, res.Attempts.Retries)
	}
	rec, res := traceOf(t, load(t, "seed-queue-exercise", "min_lease=400ms"))
	last := rec.attempts[len(rec.attempts)-1]
	if res.Runs.Completed != 2 || last.Run != 1 || last.Attempt != 2 || last.Granted != 500*time.Millisecond {
		t.Fatalf("min lease 0.4s: completed %d, last attempt %+v; want 2 completed and run 1's retry leased 500ms", res.Runs.Completed, last)
	}
}

// TestQueueFullRejectsAndExpiredDropsAtDequeue: one worker busy for 2 s, a
// waiting room of one: the third arrival is rejected at once, and the queued
// run, whose 1 s deadline passes while it waits, is dropped at dequeue as
// expired.
func TestQueueFullRejectsAndExpiredDropsAtDequeue(t *testing.T) {
	cfg := &system.Config{
		Name: "t", Seed: 1, Arrivals: system.Arrivals{Process: system.Batch, Count: 3}, Runs: 3,
		Workers: 1, QueueCapacity: 1, Deadline: time.Second,
		Steps: []system.Step{{Name: "s", Tool: 0, Timeout: 5 * time.Second, Retry: retry.Policy{Attempts: 1, Idempotent: true}}},
		Tools: []system.Tool{{Name: "slow", Latency: mustConst(t, 2)}},
	}
	rec, res := traceOf(t, cfg)
	want := system.Counts{Arrived: 3, Rejected: 1, Expired: 1, DeadlineExceeded: 1}
	if res.Runs != want {
		t.Fatalf("counts = %+v, want %+v", res.Runs, want)
	}
	for _, r := range rec.runs {
		if r.Outcome == system.Expired && r.Ended != time.Second {
			// The worker frees at 1 s: run 0's lease is min(5s, 1s) and it
			// ends deadline_exceeded; the queued run is then dropped.
			t.Fatalf("expired run ended at %v, want 1s (dropped when the worker freed)", r.Ended)
		}
	}
}

func mustConst(t *testing.T, v float64) dist.Dist {
	t.Helper()
	d, err := dist.Constant(v)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// randomConfig builds a random small scenario exercising every outcome.
func randomConfig(r *rand.Rand) *system.Config {
	lat, _ := dist.Exponential(0.05 + r.Float64()*0.5)
	ra, _ := dist.Constant(r.Float64() * 0.3)
	errs := system.Errors{Transient: r.Float64() * 0.2, RateLimited: r.Float64() * 0.1, Permanent: r.Float64() * 0.05, Hang: r.Float64() * 0.05}
	cfg := &system.Config{
		Name: "random", Seed: r.Uint64(), Runs: int64(500 + r.IntN(2000)), WarmupRuns: int64(r.IntN(100)),
		Arrivals: system.Arrivals{Process: system.Poisson, Rate: 1 + r.Float64()*30},
		Workers:  1 + r.IntN(8), QueueCapacity: r.IntN(20) - 1,
		Deadline: time.Duration(200+r.IntN(3000)) * time.Millisecond,
		Floor:    time.Duration(r.IntN(50)) * time.Millisecond,
		Tools:    []system.Tool{{Name: "a", Latency: lat, Errors: errs, RetryAfter: ra}, {Name: "b", Latency: lat}},
	}
	for i := range 1 + r.IntN(3) {
		p := retry.Policy{Attempts: 1 + r.IntN(4), Idempotent: r.IntN(2) == 0, IdempotencyKey: r.IntN(3) == 0, AllowUnsafe: r.IntN(3) == 0, HonorRetryAfter: r.IntN(2) == 0}
		p.Backoff.Base = time.Duration(1+r.IntN(50)) * time.Millisecond
		p.Backoff.Multiplier = 2
		p.Backoff.Cap = time.Second
		p.Backoff.Jitter = 1
		cfg.Steps = append(cfg.Steps, system.Step{Name: string(rune('a' + i)), Tool: r.IntN(2), Timeout: time.Duration(r.IntN(800)) * time.Millisecond, Retry: p})
	}
	return cfg
}

// TestConservationOnRandomScenarios checks the outcome conservation law and
// Little's law (as an identity once every run has ended) on random models.
func TestConservationOnRandomScenarios(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		cfg := randomConfig(r)
		res := system.New(cfg, system.Options{}).Run()
		if err := res.Runs.Check(); err != nil {
			t.Fatalf("scenario %d: %v (%+v)", i, err, res.Runs)
		}
		if res.Runs.InFlight != 0 {
			t.Fatalf("scenario %d: %d runs in flight after draining", i, res.Runs.InFlight)
		}
		if res.Runs.Arrived != cfg.Runs-cfg.WarmupRuns {
			t.Fatalf("scenario %d: arrived %d, want %d", i, res.Runs.Arrived, cfg.Runs-cfg.WarmupRuns)
		}
		if w := res.Window.Seconds(); w > 0 {
			lw := float64(res.Runs.Arrived) / w * res.SojournSum / float64(res.Runs.Ended())
			if d := lw - res.TimeAvgInSystem; d > 1e-9*res.TimeAvgInSystem+1e-12 || -d > 1e-9*res.TimeAvgInSystem+1e-12 {
				t.Fatalf("scenario %d: λW = %v, time-average L = %v: Little's identity broken", i, lw, res.TimeAvgInSystem)
			}
		}
	}
}

// TestDeterminism: same scenario and seed give byte-identical summaries,
// whatever the number of goroutines running the replications.
func TestDeterminism(t *testing.T) {
	cfg := load(t, "mmc", "runs=30000", "warmup=1000")
	var outs [][]byte
	for _, par := range []int{1, 2, 3} {
		sum := summary.Summarize(cfg, replicate.All(cfg, 4, par, system.Options{}), 0.95)
		b, err := json.Marshal(sum)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b)
	}
	for i := 1; i < len(outs); i++ {
		if string(outs[i]) != string(outs[0]) {
			t.Fatalf("summary with parallel=%d differs from parallel=1", i+1)
		}
	}
	other := summary.Summarize(cfg, replicate.All(load(t, "mmc", "runs=30000", "warmup=1000", "seed=2"), 4, 1, system.Options{}), 0.95)
	if b, _ := json.Marshal(other); string(b) == string(outs[0]) {
		t.Fatal("a different seed gave the same summary")
	}
}

// TestCommonRandomNumbers: changing the retry policy must not change the
// arrival sequence, nor the latency the first attempt of each run draws.
func TestCommonRandomNumbers(t *testing.T) {
	base := load(t, "mmc", "runs=2000", "warmup=0")
	a, _ := traceOf(t, base)
	other := load(t, "mmc", "runs=2000", "warmup=0", "workers=3", "queue.capacity=2")
	b, _ := traceOf(t, other)
	arrivals := func(r *recorder) map[int64]time.Duration {
		m := map[int64]time.Duration{}
		for _, run := range r.runs {
			m[run.Run] = run.Arrived
		}
		return m
	}
	if !reflect.DeepEqual(arrivals(a), arrivals(b)) {
		t.Fatal("changing workers and the queue changed the arrival times")
	}
	lat := map[int64]time.Duration{}
	for _, at := range a.attempts {
		lat[at.Run] = at.Latency
	}
	for _, at := range b.attempts {
		if lat[at.Run] != at.Latency {
			t.Fatalf("run %d: latency %v vs %v under another capacity", at.Run, lat[at.Run], at.Latency)
		}
	}
}

// TestBatchMemoryDoesNotGrowWithItsSize: a batch arrives all at once, but
// the model feeds it through the engine one arrival at a time, so a batch
// of a million with a small waiting room allocates no more than one of ten
// thousand (scheduled up front, a batch's arrivals would take memory in
// proportion to its size).
func TestBatchMemoryDoesNotGrowWithItsSize(t *testing.T) {
	allocs := func(count int64) (float64, uint64) {
		cfg := load(t, "seed-queue", "queue={capacity: 100}")
		cfg.Arrivals.Count, cfg.Runs = count, count
		var peak uint64
		a := testing.AllocsPerRun(2, func() {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res := system.New(cfg, system.Options{}).Run()
			runtime.ReadMemStats(&after)
			peak = after.TotalAlloc - before.TotalAlloc
			if res.Runs.Arrived != count-cfg.WarmupRuns {
				t.Fatalf("batch of %d: %d measured arrivals", count, res.Runs.Arrived)
			}
		})
		return a, peak
	}
	smallN, smallB := allocs(10_000)
	bigN, bigB := allocs(1_000_000)
	if bigN > smallN+20 || bigB > 2*smallB {
		t.Fatalf("batch of 10k: %v allocations, %d bytes; of 1M: %v, %d bytes: memory grows with the batch", smallN, smallB, bigN, bigB)
	}
}

// TestAllocationsDoNotGrowWithRuns: the engine and model allocate per
// simulation (tables, sketches), not per event: ten times the runs must not
// cost ten times the allocations.
func TestAllocationsDoNotGrowWithRuns(t *testing.T) {
	allocs := func(runs string) float64 {
		cfg := load(t, "mmc", "runs="+runs, "warmup=0")
		return testing.AllocsPerRun(2, func() { system.New(cfg, system.Options{}).Run() })
	}
	small, big := allocs("20000"), allocs("200000")
	if big > small+20 {
		t.Fatalf("allocations: %v for 20k runs, %v for 200k runs: something allocates per event", small, big)
	}
}

// TestWarmupRunOutlivesMeasuredRuns: a warm-up run keeps its worker for 10 s
// after the last measured run ended at 1 s. The measured window is [0, 1 s]
// and its figures must cover exactly that (this panicked: the workers'
// time average was read at 1 s after it had moved on to 10 s).
func TestWarmupRunOutlivesMeasuredRuns(t *testing.T) {
	cfg := &system.Config{
		Name: "t", Seed: 1, Arrivals: system.Arrivals{Process: system.Batch, Count: 3}, Runs: 3, WarmupRuns: 1,
		Workers: 2, QueueCapacity: 0,
		Steps: []system.Step{{Name: "s", Tool: 0, Timeout: time.Minute, Retry: retry.Policy{Attempts: 1, Idempotent: true}}},
		Tools: []system.Tool{{Name: "t", Latency: mustConst(t, 0.5), Script: []system.ScriptEntry{
			{Run: 0, Attempt: 1, Outcome: retry.OK, Latency: 10 * time.Second},
			{Run: 1, Attempt: 1, Outcome: retry.OK, Latency: time.Second},
		}}},
	}
	res := system.New(cfg, system.Options{}).Run()
	// Run 0 is the warm-up; run 1 completes at 1 s; run 2 finds both
	// workers busy and no waiting room.
	if want := (system.Counts{Arrived: 2, Completed: 1, Rejected: 1}); res.Runs != want {
		t.Fatalf("counts = %+v, want %+v", res.Runs, want)
	}
	if res.End != 10*time.Second || res.Window != time.Second {
		t.Fatalf("end %v, window %v; want 10s and 1s", res.End, res.Window)
	}
	// Over [0, 1 s] both workers were busy, and one measured run was in
	// the system.
	if res.WorkerUtilisation != 1 || res.TimeAvgInSystem != 1 {
		t.Fatalf("worker utilisation %v, time-average in system %v; want 1 and 1", res.WorkerUtilisation, res.TimeAvgInSystem)
	}
}

// TestToolQueueGuard: callers time out after 1 ms and retry at once against
// a tool that serves one request per 10 s; their abandoned requests pile
// up in its queue while the runs in the system stay few. The guard stops
// the simulation with a partial result naming the tool, instead of
// growing memory without bound.
func TestToolQueueGuard(t *testing.T) {
	cfg := load(t, "mmc", "runs=1000", "warmup=0", "workers=1000", "arrivals={rate: 100/s}",
		"retry={attempts: 10000, idempotent: true, backoff: {base: 1ms, multiplier: 1, cap: 1ms, jitter: none}}",
		"steps.serve.timeout=1ms", "tools.server={concurrency: 1, latency: {dist: constant, value: 10s}}",
		"guards={max_tool_queue: 500}")
	res := system.New(cfg, system.Options{}).Run()
	if !strings.Contains(res.Stopped, "max_tool_queue") || !strings.Contains(res.Stopped, "tool server") {
		t.Fatalf("Stopped = %q, want the max_tool_queue guard naming tool server", res.Stopped)
	}
	if err := res.Runs.Check(); err != nil || res.Runs.InFlight == 0 {
		t.Fatalf("counts %+v (%v): want conservation and runs in flight", res.Runs, err)
	}
	if calls := res.Tools[0].Calls; calls > 600 {
		t.Fatalf("%d calls reached the tool: the guard at 500 waiting did not stop the run soon after", calls)
	}
	// Bounding the tool's queue sheds the abandoned work instead (503 at
	// once), and the guard never trips.
	cfg.Tools[0].QueueCapacity = 10
	cfg.Runs = 20
	if res := system.New(cfg, system.Options{}).Run(); res.Stopped != "" || res.Tools[0].QueueFull == 0 {
		t.Fatalf("with a bounded tool queue: Stopped = %q, %d 503s; want a complete run shedding work", res.Stopped, res.Tools[0].QueueFull)
	}
}

// TestHeldCostDoesNotGrowWithTimeouts: every attempt at a metered tool that
// hangs times out, so its usage is unknown and its reservation stays held
// against the scenario budget. The books keep the amount, not a record per
// call: 10× the runs allocate less than twice the bytes (a record per held
// call would grow with every timeout).
func TestHeldCostDoesNotGrowWithTimeouts(t *testing.T) {
	run := func(runs string) (bytes uint64, unsettled float64) {
		cfg := load(t, "mmc", "runs="+runs, "warmup=0", "cost={scenario_budget: 1000000000}",
			"retry={attempts: 5, idempotent: true, backoff: {base: 1ms, multiplier: 1, cap: 1ms, jitter: none}}", "steps.serve.timeout=1ms",
			"tools.server={latency: {dist: constant, value: 1ms}, hang: 1, cost: {reserve: 0.01, usage: {dist: constant, value: 0.01}}}")
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		unsettled = system.New(cfg, system.Options{}).Run().Cost.Unsettled
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, unsettled
	}
	small, u1 := run("20000")
	big, u2 := run("200000")
	if u1 != 20000*5*0.01 || u2 != 200000*5*0.01 {
		t.Fatalf("reserved-unsettled %v and %v, want every attempt's 0.01 held (%v and %v)", u1, u2, 20000*5*0.01, 200000*5*0.01)
	}
	if big > 2*small {
		t.Fatalf("%d bytes allocated for 20k runs, %d for 200k: held reservations keep a record each", small, big)
	}
}

// TestNoRunMeasuredWarns: when the warm-up outlasts every arrival (100 runs
// at 9/s take ~11 s, the warm-up is 60 s), the summary measures nothing
// and says why instead of printing empty figures silently.
func TestNoRunMeasuredWarns(t *testing.T) {
	cfg := load(t, "mmc", "runs=100", "warmup=60s")
	s := summary.Summarize(cfg, replicate.All(cfg, 1, 1, system.Options{}), 0.95)
	want := "no run was measured: none arrived after the warm-up (the first 1m0s); shorten the warm-up or add runs"
	if s.Runs.Arrived != 0 || len(s.Warnings) == 0 || s.Warnings[0] != want {
		t.Errorf("arrived %d, warnings %q; want 0 and %q first", s.Runs.Arrived, s.Warnings, want)
	}
}
