package system_test

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/budgetsim/budgetsim/model/analytic"
	"github.com/budgetsim/budgetsim/model/system"
)

// zCI is the two-sided normal quantile at level 1 − 10⁻⁶: every check
// below is a confidence interval at that level, so a correct simulator
// fails one of them about once in 10⁵ runs of the whole test.
var zCI = distuv.UnitNormal.Quantile(1 - 0.5e-6)

// groupLatencies runs cfg with every run traced and returns the latency of
// each group that was satisfied, sorted, in seconds.
func groupLatencies(t *testing.T, cfg *system.Config) ([]float64, *system.Result) {
	t.Helper()
	rec, res := traceOf(t, cfg)
	var xs []float64
	for _, a := range rec.attempts {
		if a.Group && a.Decision == "group_satisfied" {
			xs = append(xs, a.Latency.Seconds())
		}
	}
	sort.Float64s(xs)
	return xs, res
}

// checkDist compares the sample xs with a distribution given by its CDF,
// quantile and mean: the empirical CDF at the quantiles of a few
// probabilities p must be within the binomial confidence interval
// z·√(p(1−p)/n) of p, and the sample mean within z·s/√n of the mean.
func checkDist(t *testing.T, what string, xs []float64, quantile func(p float64) float64, mean float64) {
	t.Helper()
	n := float64(len(xs))
	if n < 1000 {
		t.Fatalf("%s: only %d samples", what, len(xs))
	}
	for _, p := range []float64{0.1, 0.5, 0.9, 0.99} {
		q := quantile(p)
		got := float64(sort.SearchFloat64s(xs, q)) / n // P̂(T < q)
		if tol := zCI * math.Sqrt(p*(1-p)/n); math.Abs(got-p) > tol {
			t.Errorf("%s: P(T ≤ %.4gs) = %.4f, want %.4f ± %.4f", what, q, got, p, tol)
		}
	}
	var sum, sq float64
	for _, x := range xs {
		sum += x
	}
	m := sum / n
	for _, x := range xs {
		sq += (x - m) * (x - m)
	}
	if tol := zCI * math.Sqrt(sq/(n-1)/n); math.Abs(m-mean) > tol {
		t.Errorf("%s: mean %.5gs, want %.5gs ± %.3g", what, m, mean, tol)
	}
}

// TestParallelOrderStatistics: members that are independent exponential
// calls to unlimited tools (no queueing) make a group whose latency is an
// order statistic of theirs: any is exponential with the summed rate, all
// is the maximum, first k the k-th order statistic (analytic.ExpGroup).
func TestParallelOrderStatistics(t *testing.T) {
	t.Parallel()
	const src = `name: order
arrivals: {rate: 10/s}
runs: 20000
workers: 2000
steps:
  - name: g
    wait: WAIT
    parallel:
      - {name: m1, tool: t1}
      - {name: m2, tool: t2}
      - {name: m3, tool: t3}
      - {name: m4, tool: t4}
tools:
  t1: {latency: {dist: exponential, mean: 1s}}
  t2: {latency: {dist: exponential, mean: 500ms}}
  t3: {latency: {dist: exponential, mean: 250ms}}
  t4: {latency: {dist: exponential, mean: 250ms}}
`
	g := analytic.ExpGroup{Rates: []float64{1, 2, 4, 4}}
	for _, tc := range []struct {
		wait string
		k    int
	}{{"any", 1}, {"all", 4}, {"{first: 2}", 2}, {"{first: 3}", 3}} {
		t.Run(tc.wait, func(t *testing.T) {
			t.Parallel()
			cfg := parse(t, strings.Replace(src, "WAIT", tc.wait, 1))
			xs, res := groupLatencies(t, cfg)
			if res.Runs.Completed != 20000 || len(xs) != 20000 {
				t.Fatalf("%d completed, %d groups satisfied; want 20000", res.Runs.Completed, len(xs))
			}
			mean, err := g.KthMean(tc.k)
			if err != nil {
				t.Fatal(err)
			}
			checkDist(t, fmt.Sprintf("wait %s", tc.wait), xs, func(p float64) float64 {
				q, err := g.KthQuantile(tc.k, p)
				if err != nil {
					t.Fatal(err)
				}
				return q
			}, mean)
			// Each group leaves 4 − k members to cancel (or, at the same
			// instant, none: ties have probability 0).
			if want := int64(20000 * (4 - tc.k)); res.Attempts.Cancelled != want || res.Groups[0].Cancelled != want {
				t.Errorf("cancelled %d (group %d), want %d", res.Attempts.Cancelled, res.Groups[0].Cancelled, want)
			}
		})
	}
}

// TestHedgedLognormal: a hedged call to an unlimited tool ends at
// min(X₁, d + X₂, …), whose distribution analytic.HedgedLognormal gives.
func TestHedgedLognormal(t *testing.T) {
	t.Parallel()
	const src = `name: hedged
arrivals: {rate: 10/s}
runs: 20000
workers: 2000
retry: {idempotent: true}
steps:
  - {name: call, tool: llm, hedge: {delay: 150ms, max_attempts: MAX}}
tools:
  llm: {latency: {dist: lognormal, median: 100ms, sigma: 0.8}}
`
	for _, attempts := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(attempts), func(t *testing.T) {
			t.Parallel()
			cfg := parse(t, strings.Replace(src, "MAX", fmt.Sprint(attempts), 1))
			xs, res := groupLatencies(t, cfg)
			h := analytic.HedgedLognormal{Mu: math.Log(0.1), Sigma: 0.8, Delay: 0.15, Attempts: attempts}
			mean, err := h.Mean()
			if err != nil {
				t.Fatal(err)
			}
			checkDist(t, fmt.Sprintf("%d attempts", attempts), xs, func(p float64) float64 {
				q, err := h.Quantile(p)
				if err != nil {
					t.Fatal(err)
				}
				return q
			}, mean)
			// A hedge is an attempt: the attempts dialed are the first ones
			// plus the hedges, and every hedge is counted as a retry.
			gr := res.Groups[0]
			if res.Attempts.Attempts != 20000+gr.Hedges || res.Attempts.Retries != gr.Hedges {
				t.Errorf("attempts %d, retries %d, hedges %d: want attempts = 20000 + hedges = 20000 + retries", res.Attempts.Attempts, res.Attempts.Retries, gr.Hedges)
			}
			if attempts == 1 && gr.Hedges != 0 {
				t.Errorf("%d hedges with max_attempts 1", gr.Hedges)
			}
		})
	}
}

// TestHedgingAtSaturation: at a shared tool with a queue, hedging at the
// median raises its load (from about 0.43 to 0.75) and the queueing it
// adds makes the p99 of the runs worse, not better, while at a tool
// without a queue the same hedge cuts it. Each comparison runs the two variants on the same seeds (common
// random numbers) over replications, and requires the difference of the
// p99s to be beyond its Student-t interval at level 1 − 10⁻⁶.
func TestHedgingAtSaturation(t *testing.T) {
	t.Parallel()
	const src = `name: saturated
arrivals: {rate: 4/s}
runs: 21000
warmup: 1000
workers: 1000
retry: {idempotent: true}
steps:
  - {name: call, tool: model, timeout: 30s}
tools:
  model: {latency: {dist: lognormal, median: 400ms, sigma: 0.8}, concurrency: 5}
`
	const reps = 20
	p99s := func(sets ...string) ([]float64, float64) {
		cfg := parse(t, src, sets...)
		var xs []float64
		var load float64
		for i := range reps {
			res := system.New(cfg, system.Options{Replication: i}).Run()
			if res.Runs.Completed != res.Runs.Arrived {
				t.Fatalf("%v: %d of %d runs completed", sets, res.Runs.Completed, res.Runs.Arrived)
			}
			xs = append(xs, res.Latency.Quantile(0.99))
			load += res.Tools[0].MeanBusy / 5 / reps
		}
		return xs, load
	}
	diffCI := func(a, b []float64) (float64, float64) { // mean and half-width of a − b
		d := make([]float64, len(a))
		var m float64
		for i := range a {
			d[i] = a[i] - b[i]
			m += d[i] / float64(len(a))
		}
		var v float64
		for _, x := range d {
			v += (x - m) * (x - m)
		}
		tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(a) - 1)}.Quantile(1 - 0.5e-6)
		return m, tq * math.Sqrt(v/float64(len(a)-1)/float64(len(a)))
	}
	hedge := "steps.call.hedge={delay: 400ms, max_attempts: 2}"
	plain, plainLoad := p99s()
	hedged, hedgedLoad := p99s(hedge)
	if hedgedLoad <= plainLoad {
		t.Errorf("tool load %.3f hedged, %.3f plain: hedging should raise it", hedgedLoad, plainLoad)
	}
	if m, hw := diffCI(hedged, plain); m-hw <= 0 {
		t.Errorf("near saturation (load %.2f plain, %.2f hedged): p99 hedged − plain = %.3gs ± %.3g, want > 0", plainLoad, hedgedLoad, m, hw)
	}
	// The same hedge at an idle tool (concurrency unlimited) cuts the p99.
	idlePlain, _ := p99s("tools.model.concurrency=1000")
	idleHedged, _ := p99s("tools.model.concurrency=1000", hedge)
	if m, hw := diffCI(idlePlain, idleHedged); m-hw <= 0 {
		t.Errorf("idle tool: p99 plain − hedged = %.3gs ± %.3g, want > 0", m, hw)
	}
}

// TestGroupTrace: the members of a parallel step and the attempts of a
// hedged step are traced on lanes of their own, and overlap in time; the
// group's own record spans them on the run's lane.
func TestGroupTrace(t *testing.T) {
	t.Parallel()
	cfg := parse(t, `name: trace
arrivals: {process: batch, count: 1}
workers: 1
retry: {idempotent: true}
steps:
  - name: fetch
    wait: {first: 2}
    parallel:
      - {name: a, tool: slow}
      - {name: b, tool: fast}
      - {name: c, tool: fast}
  - {name: ask, tool: slow, hedge: {delay: 100ms, max_attempts: 3}}
tools:
  slow: {latency: {dist: constant, value: 1s}}
  fast: {latency: {dist: constant, value: 200ms}}
`)
	rec, res := traceOf(t, cfg)
	type key struct {
		step     string
		lane     int
		start    time.Duration
		latency  time.Duration
		decision string
	}
	var got []key
	for _, a := range rec.attempts {
		got = append(got, key{a.Step, a.Lane, a.Start, a.Latency, a.Decision})
	}
	ms := time.Millisecond
	want := []key{
		{"b", 2, 0, 200 * ms, "success"},
		{"c", 3, 0, 200 * ms, "success"},
		{"a", 1, 0, 200 * ms, "cancelled"},
		{"fetch", 0, 0, 200 * ms, "group_satisfied"},
		// The first attempt answers at 1.2s, before the hedges (1.3s,
		// 1.4s): they are cancelled.
		{"ask", 1, 200 * ms, time.Second, "success"},
		{"ask", 2, 300 * ms, 900 * ms, "cancelled"},
		{"ask", 3, 400 * ms, 800 * ms, "cancelled"},
		{"ask", 0, 200 * ms, time.Second, "group_satisfied"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("trace\n got %v\nwant %v", got, want)
	}
	if res.Runs.Completed != 1 || res.Attempts.Cancelled != 3 || res.Groups[1].Hedges != 2 {
		t.Fatalf("runs %+v, cancelled %d, hedges %d", res.Runs, res.Attempts.Cancelled, res.Groups[1].Hedges)
	}
}

// TestGroupAllocationsDoNotGrowWithRuns: members live in the run table and
// groups in a table per run slot, both reused: ten times the runs of a
// parallel or hedged scenario must not cost ten times the allocations.
func TestGroupAllocationsDoNotGrowWithRuns(t *testing.T) {
	for _, name := range []string{"fan-out", "hedging"} {
		allocs := func(runs string) float64 {
			cfg := load(t, name, "runs="+runs, "warmup=0")
			return testing.AllocsPerRun(2, func() { system.New(cfg, system.Options{}).Run() })
		}
		small, big := allocs("10000"), allocs("100000")
		if big > small+40 {
			t.Errorf("%s: %v allocations for 10k runs, %v for 100k: something allocates per event", name, small, big)
		}
	}
}

// wideFanOut is a parallel step of n members, one call each.
func wideFanOut(n int) string {
	var b strings.Builder
	b.WriteString("name: wide\nseed: 3\nruns: 300\narrivals: {rate: 4/s}\nworkers: 1000\nsteps:\n  - name: fetch\n    parallel:\n")
	for i := range n {
		fmt.Fprintf(&b, "      - {name: m%d, tool: web}\n", i)
	}
	b.WriteString("tools:\n  web: {latency: {dist: exponential, mean: 1s}}\n")
	return b.String()
}

// TestGuardCountsMembers: max_in_system counts the calls of parallel
// steps with the runs, since each holds a run's memory: 4 runs/s of 400
// members each, served in a second, keep about 1600 slots in use, past a
// guard of 1000, though fewer than 10 runs are in the system.
func TestGuardCountsMembers(t *testing.T) {
	cfg := scenarioFile(t, wideFanOut(400), "guards.max_in_system=1000")
	res := system.New(cfg, system.Options{}).Run()
	if !strings.Contains(res.Stopped, "max_in_system guard") || !strings.Contains(res.Stopped, "calls of their parallel or hedged steps") {
		t.Errorf("stopped %q; want the max_in_system guard, counting the members' calls", res.Stopped)
	}
}

// TestGroupMemoryLinear: the memory a parallel step's runs take grows with
// the members, not with members × run slots (every member holds a run
// slot too, and a row of the plan's stages or a list of the longest
// group's length per slot was quadratic). Measured by the bytes allocated,
// which are deterministic, not by time: four times the members, at the
// same arrivals, allocate about four times as much (the members' slots,
// calls and events), where the quadratic state allocated sixteen times as
// much for itself.
func TestGroupMemoryLinear(t *testing.T) {
	alloc := func(n int) uint64 {
		cfg := scenarioFile(t, wideFanOut(n), "tools.web.latency={dist: exponential, mean: 10s}")
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res := system.New(cfg, system.Options{}).Run()
		runtime.ReadMemStats(&after)
		if res.Runs.Completed != 300 {
			t.Fatalf("%d members: %d of 300 runs completed", n, res.Runs.Completed)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(100), alloc(400)
	t.Logf("%d %d %.2f", small, large, float64(large)/float64(small))
	if r := float64(large) / float64(small); r > 5 {
		t.Errorf("400 members allocate %.1f× what 100 do (%d and %d bytes): want about 4× (linear), not up to 16× (quadratic)", r, large, small)
	}
}
