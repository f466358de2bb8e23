package system_test

import (
	"cmp"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/analytic"
	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// threeAtOnce is issue 18's repro: three runs arrive together at two
// workers, and their one step calls a tool that serves one call at a time.
const threeAtOnce = `name: three-at-once
arrivals: {process: batch, count: 3}
workers: 2
deadline: 10s
steps:
  - {name: call, tool: api}
tools:
  api:
    latency: {dist: constant, value: 10ms}
    concurrency: 1
`

// TestFreedToolSlotGoesToTheQueueHead: run 1 has waited at the tool since
// t = 0; run 2 gets a worker only at 10 ms, when run 0 ends. The slot run 0
// frees at the tool is run 1's: run 1 ends at 20 ms and run 2 at 30 ms.
func TestFreedToolSlotGoesToTheQueueHead(t *testing.T) {
	rec, _ := traceOf(t, scenarioFile(t, threeAtOnce))
	ended := map[int64]time.Duration{}
	for _, r := range rec.runs {
		ended[r.Run] = r.Ended
	}
	want := map[int64]time.Duration{0: 10 * time.Millisecond, 1: 20 * time.Millisecond, 2: 30 * time.Millisecond}
	for run, at := range want {
		if ended[run] != at {
			t.Errorf("run %d ended at %v, want %v (a tool's queue is first-in, first-out)", run, ended[run], at)
		}
	}
}

// busyTools is a tool-bound scenario with more workers than tool slots,
// two steps at the same tool (a run's next call is submitted the instant
// its previous one is answered), errors, retries and timeouts: every way
// a request can reach a tool at the instant a slot frees.
const busyTools = `name: busy-tools
seed: 7
runs: 4000
arrivals: {rate: 3.6/s}
workers: 6
deadline: 30s
retry:
  idempotent: true
  attempts: 3
  backoff: {base: 10ms, multiplier: 2, cap: 200ms, jitter: full}
steps:
  - {name: plan, tool: model, timeout: 3s}
  - {name: search, tool: search, timeout: 2s}
  - {name: answer, tool: model, timeout: 3s}
tools:
  model:
    latency: {dist: exponential, mean: 250ms}
    errors: {transient: 0.05}
    concurrency: 2
  search:
    latency: {dist: lognormal, median: 100ms, p99: 800ms}
    concurrency: 1
`

// TestToolServiceStartsInArrivalOrder: at each tool with concurrency, a
// call that reached the tool earlier starts service no later than one
// that reached it later (calls submitted at the same instant may start in
// either order; calls whose caller gave up first are not in the trace).
func TestToolServiceStartsInArrivalOrder(t *testing.T) {
	rec, res := traceOf(t, scenarioFile(t, busyTools))
	if res.ToolDelay[0].Mean() < 0.05 {
		t.Fatalf("mean queueing delay at model %.3fs: the scenario is not busy enough to test the order", res.ToolDelay[0].Mean())
	}
	byTool := map[string][]system.AttemptRecord{}
	for _, a := range rec.attempts {
		if a.Served >= 0 {
			byTool[a.Tool] = append(byTool[a.Tool], a)
		}
	}
	for tool, as := range byTool {
		slices.SortStableFunc(as, func(a, b system.AttemptRecord) int {
			return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Served, b.Served))
		})
		queued := 0
		prevMax := time.Duration(-1) // the latest service start among calls that arrived strictly earlier
		for i := 0; i < len(as); {
			j := i
			for j < len(as) && as[j].Start == as[i].Start {
				j++
			}
			for _, a := range as[i:j] {
				if a.Served < prevMax {
					t.Fatalf("%s: run %d's call arrived at %v and started service at %v, before a call that arrived earlier (started %v)", tool, a.Run, a.Start, a.Served, prevMax)
				}
				if a.Served > a.Start {
					queued++
				}
			}
			prevMax = max(prevMax, as[j-1].Served)
			i = j
		}
		if queued < 100 {
			t.Errorf("%s: only %d calls queued: the order was hardly tested", tool, queued)
		}
	}
	if len(byTool) != 2 {
		t.Fatalf("service starts traced at %d tools, want 2", len(byTool))
	}
}

// TestToolBehindWorkersIsErlangC: with W = 4 workers in front of a tool
// with concurrency c = 2 and exponential service, runs leave at rate
// μ·min(n, c) whatever W ≥ c, so the whole system is an M/M/2 queue; when
// both queues are first-in, first-out so is the system, and its sojourn
// time has the FIFO M/M/c distribution (Erlang C wait + Exp(μ)). The
// analytic mean and p99 must lie inside 99.9% Student-t intervals over
// replications (the p99 widened by the sketch's relative error). A freed
// tool slot taken by a run that just got a worker, ahead of the tool's
// queue, leaves the mean alone but fattens the tail far outside.
func TestToolBehindWorkersIsErlangC(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 3.2 million runs")
	}
	cfg := load(t, "mmc", "workers=4", "tools.server.concurrency=2", "arrivals.rate=1.7/s", "runs=400000", "warmup=5000")
	q := analytic.MMc{Lambda: 1.7, Mu: 1, C: 2}
	res := replicate.All(cfg, 8, 0, system.Options{})
	means, p99s := make([]float64, len(res)), make([]float64, len(res))
	for i, r := range res {
		means[i] = r.Latency.Mean()
		p99s[i] = r.Latency.Quantile(0.99)
	}
	wantMean, err := q.MeanSojourn()
	if err != nil {
		t.Fatal(err)
	}
	wantP99, err := q.SojournQuantile(0.99)
	if err != nil {
		t.Fatal(err)
	}
	if iv := stats.MeanCI(means, 0.999); !iv.Contains(wantMean) {
		t.Errorf("mean time in system %v, M/M/2 W = Wq + 1/μ = %.4fs outside it", iv, wantMean)
	}
	iv := stats.MeanCI(p99s, 0.999)
	slack := stats.RelativeError * wantP99
	if math.Abs(wantP99-iv.Mean) > iv.Hi-iv.Mean+slack {
		t.Errorf("p99 time in system %v ± %.3g, FIFO M/M/2 p99 %.4fs outside it", iv, slack, wantP99)
	}
}
