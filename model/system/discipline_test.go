package system_test

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/system"
)

// flood is two tenants on 4 workers: every run holds a worker for exactly
// 1 s. The quiet tenant sends 3 runs/s, more than its share of the 4 runs/s
// the workers serve under either weighting below, so it always has runs
// waiting; the noisy tenant floods.
const flood = `name: flood
seed: 3
horizon: 600s
workers: 4
scheduling: {workers: fair}
tenants:
  quiet: {weight: 1}
  noisy: {weight: 1}
classes:
  - name: quiet
    arrivals: {rate: 3/s}
    steps: [{name: work, tool: api}]
  - name: noisy
    arrivals: {rate: 20/s}
    steps: [{name: work, tool: api}]
tools:
  api: {latency: {dist: constant, value: 1s}}
`

// workerSeconds returns each class's worker-seconds inside [from, to) from
// a trace: a run holds its worker for its one attempt, dialed the instant
// it gets the worker. When the tool has a queue, it is the seconds of the
// tool's servers instead: the attempt is served for 1 s from Served.
func workerSeconds(rec *recorder, from, to time.Duration) map[string]float64 {
	out := map[string]float64{}
	for _, a := range rec.attempts {
		class, _, _ := strings.Cut(a.Step, system.ClassStepSep)
		start, end := a.Start, a.Start+a.Latency
		if a.Served >= 0 {
			start, end = a.Served, a.Served+time.Second
		}
		lo, hi := max(start, from), min(end, to)
		if hi > lo {
			out[class] += (hi - lo).Seconds()
		}
	}
	return out
}

// TestFloodCannotPushAnotherTenantBelowItsWeight: under fair queuing the
// quiet tenant's share of the workers over [100 s, 600 s) is at least its
// weight's share, however hard the noisy tenant floods, and under FIFO it
// is not; and the same holds for the servers of a tool whose queue is fair,
// behind more workers than runs.
//
// The bound is exact, not statistical. Start-time fair queuing hands out
// runs so that, over any stretch in which both tenants have runs waiting,
// |S_q/w_q − S_n/w_n| ≤ 1/w_q + 1/w_n (model/sched's Fair, one run costing
// 1), so the quiet tenant gets S_q ≥ N·w_q/(w_q+w_n) − 1 of the N runs
// started. The window holds 2000 worker-seconds; at most 4 runs started
// before it reach into it and at most 4 started in it reach past its end,
// so N ≥ 1996 and the quiet tenant's worker-seconds are at least
// 2000·w_q/(w_q+w_n) − 9. The quiet tenant has runs waiting throughout:
// its backlog grows by at least 1 run/s from the start, and a random walk
// with that drift returns to 0 after 100 s with probability below e^−40.
func TestFloodCannotPushAnotherTenantBelowItsWeight(t *testing.T) {
	const from, to = 100 * time.Second, 600 * time.Second
	total := (to - from).Seconds() * 4
	for _, tc := range []struct {
		noisyRate    string
		quiet, noisy float64 // weights
		atTool       bool    // the 4 servers are the tool's, behind unlimited workers
	}{{"20/s", 1, 1, false}, {"100/s", 1, 1, false}, {"20/s", 1, 3, false}, {"100/s", 1, 3, false}, {"20/s", 1, 1, true}, {"20/s", 1, 3, true}} {
		name := fmt.Sprintf("noisy %s, weights %g:%g, at the tool %v", tc.noisyRate, tc.quiet, tc.noisy, tc.atTool)
		t.Run(name, func(t *testing.T) {
			sets := []string{"classes.noisy.arrivals.rate=" + tc.noisyRate,
				fmt.Sprintf("tenants.quiet.weight=%g", tc.quiet), fmt.Sprintf("tenants.noisy.weight=%g", tc.noisy)}
			if tc.atTool {
				sets = append(sets, "workers=100000", "scheduling.workers=fifo", "tools.api.concurrency=4", "tools.api.queue={discipline: fair}")
			}
			cfg := scenarioFile(t, flood, sets...)
			rec, _ := traceOf(t, cfg)
			ws := workerSeconds(rec, from, to)
			if got := ws["quiet"] + ws["noisy"]; got < total-1e-6 || got > total+1e-6 {
				t.Fatalf("busy worker-seconds %v, want all %v (both tenants backlogged)", got, total)
			}
			want := total*tc.quiet/(tc.quiet+tc.noisy) - 9
			t.Logf("quiet %.1f, noisy %.1f worker-seconds", ws["quiet"], ws["noisy"])
			if ws["quiet"] < want {
				t.Errorf("quiet tenant held %.0f of %.0f worker-seconds, want ≥ %.0f (its weight's share less the SFQ bound)", ws["quiet"], total, want)
			}
		})
	}
	// First come first served, the flood takes the workers in proportion
	// to the arrivals: the quiet tenant gets about 3/23 of them.
	rec, _ := traceOf(t, scenarioFile(t, flood, "scheduling.workers=fifo"))
	ws := workerSeconds(rec, from, to)
	t.Logf("fifo: quiet %.1f, noisy %.1f worker-seconds", ws["quiet"], ws["noisy"])
	if ws["quiet"] > 0.2*total {
		t.Errorf("fifo: quiet tenant held %.0f of %.0f worker-seconds, want about 3/23 of them: the test cannot tell fair queuing from FIFO", ws["quiet"], total)
	}
}

// capped has a free tenant capped at one run holding a worker, and a paying
// tenant without a cap, on 4 workers with 1 s runs.
const capped = `name: capped
seed: 5
horizon: 300s
workers: 4
tenants:
  free: {max_in_flight: 1}
classes:
  - name: free
    arrivals: {rate: 2/s}
    steps: [{name: work, tool: api}]
  - name: paying
    arrivals: {rate: 0.5/s}
    steps: [{name: work, tool: api}]
tools:
  api: {latency: {dist: constant, value: 1s}}
`

// TestMaxInFlightWaitsWithWorkersFree: under each discipline the free
// tenant never holds more than one worker, and its runs wait while workers
// are free: it sends 2 runs/s to the 1 run/s its one worker serves, so it
// has runs waiting from early on to the end of the window, yet the workers
// are busy about (1 + 0.5 · 300/600)/4 of the time: its worker, and the
// paying tenant's 0.5 runs/s over the first half of the window. The paying
// tenant's runs never wait (with this seed it never has more than 3 in
// flight).
func TestMaxInFlightWaitsWithWorkersFree(t *testing.T) {
	for _, disc := range system.Disciplines() {
		t.Run(disc, func(t *testing.T) {
			rec, res := traceOf(t, scenarioFile(t, capped, "scheduling={workers: "+disc+"}"))
			class := map[int64]string{}
			for _, a := range rec.attempts {
				class[a.Run], _, _ = strings.Cut(a.Step, system.ClassStepSep)
			}
			type ev struct {
				at    time.Duration
				delta int
			}
			var free []ev
			waited, paying, payingWaited := 0, 0, 0
			for _, r := range rec.runs {
				if r.Started < 0 {
					continue
				}
				switch class[r.Run] {
				case "free":
					free = append(free, ev{r.Started, +1}, ev{r.Ended, -1})
					if r.Started > r.Arrived {
						waited++
					}
				case "paying":
					paying++
					if r.Started > r.Arrived {
						payingWaited++
					}
				}
			}
			// Ends before starts at the same instant: a freed slot is
			// taken at once.
			inFlight, peak := 0, 0
			for len(free) > 0 {
				k := 0
				for i, e := range free {
					if e.at < free[k].at || e.at == free[k].at && e.delta < free[k].delta {
						k = i
					}
				}
				inFlight += free[k].delta
				peak = max(peak, inFlight)
				free = append(free[:k], free[k+1:]...)
			}
			t.Logf("free: peak %d, waited %d; paying %d, waited %d; utilisation %.3f", peak, waited, paying, payingWaited, res.WorkerUtilisation)
			if peak != 1 {
				t.Errorf("the free tenant held up to %d workers at once, want 1 (max_in_flight)", peak)
			}
			if waited < 100 {
				t.Errorf("%d of the free tenant's runs waited, want most: it sends 2 runs/s to one worker's 1/s", waited)
			}
			if paying < 100 || payingWaited > 0 {
				t.Errorf("%d of %d paying runs waited, want none: at most 1 of the 4 workers is the free tenant's", payingWaited, paying)
			}
			if u := res.WorkerUtilisation; u > 0.35 {
				t.Errorf("utilisation %.3f, want about 0.31: the free tenant's runs wait with workers free", u)
			}
		})
	}
}

// urgentFirst is a batch of 40 runs at instant 0, of two classes drawn by
// weight, on one worker, or on 40 workers in front of a tool that serves
// one call at a time.
const urgentFirst = `name: urgent-first
seed: 9
arrivals: {process: batch, count: 40}
workers: 1
scheduling: {workers: priority}
classes:
  - {name: urgent, priority: 0, steps: [{name: work, tool: api}]}
  - {name: later, priority: 1, steps: [{name: work, tool: api}]}
tools:
  api: {latency: {dist: exponential, mean: 1s}}
`

// TestPriorityServesUrgentFirst: every run arrives at 0; the first takes
// the worker (or the tool's one server) at once, and after it every urgent
// run is served before any run of the later class, under the worker
// queue's priority discipline and under the tool queue's.
func TestPriorityServesUrgentFirst(t *testing.T) {
	for name, sets := range map[string][]string{
		"workers": nil,
		"tool":    {"workers=40", "scheduling.workers=fifo", "tools.api.concurrency=1", "tools.api.queue={discipline: priority}"},
	} {
		t.Run(name, func(t *testing.T) {
			rec, _ := traceOf(t, scenarioFile(t, urgentFirst, sets...))
			type served struct {
				at    time.Duration
				class string
			}
			var order []served
			for _, a := range rec.attempts {
				class, _, _ := strings.Cut(a.Step, system.ClassStepSep)
				at := a.Start
				if a.Served >= 0 {
					at = a.Served
				}
				order = append(order, served{at, class})
			}
			if len(order) != 40 {
				t.Fatalf("%d attempts, want 40", len(order))
			}
			slices.SortStableFunc(order, func(a, b served) int { return cmp.Compare(a.at, b.at) })
			seen := map[string]int{}
			for i, s := range order[1:] {
				seen[s.class]++
				if s.class == "urgent" && seen["later"] > 0 {
					t.Fatalf("service %d is urgent's, after %d of the later class's", i+1, seen["later"])
				}
			}
			if seen["urgent"] < 5 || seen["later"] < 5 {
				t.Fatalf("classes %v: want both well represented", seen)
			}
		})
	}
}

// TestClassWorkerTimeAddsUpToUtilisation: with every run measured and
// ended (some cut off by their deadline while holding a worker), the
// worker-seconds the classes' runs held add up to the workers' integrated
// busy time, utilisation × workers × window.
func TestClassWorkerTimeAddsUpToUtilisation(t *testing.T) {
	for _, disc := range system.Disciplines() {
		cfg := scenarioFile(t, capped, "scheduling.workers="+disc, "deadline=20s")
		res := system.New(cfg, system.Options{}).Run()
		busy := 0.0
		for _, c := range res.Classes {
			busy += c.BusySeconds
		}
		want := res.WorkerUtilisation * float64(cfg.Workers) * res.Window.Seconds()
		if res.Runs.InFlight != 0 || res.Runs.DeadlineExceeded == 0 || math.Abs(busy-want) > 1e-9*want {
			t.Errorf("%s: classes held %.6f worker-seconds, the workers were busy %.6f (in flight %d, deadline exceeded %d)", disc, busy, want, res.Runs.InFlight, res.Runs.DeadlineExceeded)
		}
	}
}

// TestDisciplinesDoNotAllocatePerEvent: each discipline (fifo with a cap
// is model/sched's priority queue too), at the workers and at a tool of
// load 0.875, allocates per simulation, not per event: ten times the runs
// must not cost ten times the allocations.
func TestDisciplinesDoNotAllocatePerEvent(t *testing.T) {
	for _, disc := range []string{"fifo", "priority", "fair"} {
		allocs := func(runs string) float64 {
			cfg := load(t, "mmc", "runs="+runs, "warmup=0", "scheduling.workers="+disc,
				"classes=[{name: a, priority: 1}, {name: b, weight: 2}]", "tenants={a: {max_in_flight: 4}, b: {weight: 2}}",
				"arrivals.rate=7/s", "tools.server.concurrency=8", "tools.server.queue={discipline: "+disc+"}")
			return testing.AllocsPerRun(2, func() { system.New(cfg, system.Options{}).Run() })
		}
		small, big := allocs("20000"), allocs("200000")
		if big > small+20 {
			t.Errorf("%s: allocations: %v for 20k runs, %v for 200k runs: something allocates per event", disc, small, big)
		}
	}
}

// herdOfTwo is a batch of 20 runs of two classes and tenants on one worker,
// each run holding it 1 s, with a 2.5 s deadline.
const herdOfTwo = `name: herd-of-two
seed: 2
arrivals: {process: batch, count: 20}
workers: 1
deadline: 2500ms
classes:
  - {name: a, priority: 0}
  - {name: b, priority: 1}
steps:
  - {name: work, tool: api}
tools:
  api: {latency: {dist: constant, value: 1s}}
`

// TestExpiryAndRejectionUnderEveryDiscipline: under each discipline, runs
// whose deadline passed in the queue are dropped as expired when the worker
// frees (two complete, the third is cut off by its deadline at 2.5 s, and
// the other 17 have expired by then); and a full bounded queue rejects (of
// 20 at once, 1 gets the worker, 5 wait, 14 are rejected), also when the
// tenant's cap, not the workers, makes the run wait.
func TestExpiryAndRejectionUnderEveryDiscipline(t *testing.T) {
	for _, disc := range system.Disciplines() {
		res := system.New(scenarioFile(t, herdOfTwo, "scheduling.workers="+disc), system.Options{}).Run()
		if r := res.Runs; r.Completed != 2 || r.DeadlineExceeded != 1 || r.Expired != 17 {
			t.Errorf("%s: %+v, want 2 completed, 1 deadline exceeded, 17 expired", disc, r)
		}
		res = system.New(scenarioFile(t, herdOfTwo, "scheduling.workers="+disc, "queue={capacity: 5}", "deadline=0"), system.Options{}).Run()
		if r := res.Runs; r.Completed != 6 || r.Rejected != 14 {
			t.Errorf("%s, capacity 5: %+v, want 6 completed, 14 rejected", disc, r)
		}
		res = system.New(scenarioFile(t, herdOfTwo, "scheduling.workers="+disc, "queue={capacity: 5}", "deadline=0", "workers=3",
			"classes=[{name: a}]", "tenants={a: {max_in_flight: 1}}"), system.Options{}).Run()
		if r := res.Runs; r.Completed != 6 || r.Rejected != 14 {
			t.Errorf("%s, capacity 5, cap 1 of 3 workers: %+v, want 6 completed, 14 rejected", disc, r)
		}
	}
}
