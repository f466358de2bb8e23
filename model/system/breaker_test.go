package system_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/breaker"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// scripted is one call's scripted fate in the breaker tests.
type scripted int

const (
	callOK   scripted = iota // succeeds after 100 ms
	callFail                 // a 503 after 100 ms
	callSlow                 // succeeds after 500 ms: slower than the 300 ms slow-call duration
)

func (s scripted) latency() time.Duration {
	if s == callSlow {
		return 500 * time.Millisecond
	}
	return 100 * time.Millisecond
}

// breakerBase is a run every second, each one call; the tool's breaker
// keeps a window of 4 calls (or 3 one-second buckets), checks it from 3
// calls (2 for time), opens at 50 % failed or 50 % slow, stays open 2.5 s
// and lets 2 probes through. Every call ends before the next run arrives,
// so the breaker sees the script in order.
const breakerBase = `
name: breaker-script
runs: 10
arrivals: {process: constant, rate: 1/s}
workers: 10
steps: [{name: call, tool: api}]
tools:
  api:
    latency: {dist: constant, value: 100ms}
    circuit_breaker:
      window: {type: count, size: 4}
      minimum_calls: 3
      failure_rate: 0.5
      slow_call_rate: 0.5
      slow_call_duration: 300ms
      open_for: 2500ms
      half_open_probes: 2
`

// refBreaker is the breaker's rules written out for serial calls, apart
// from model/breaker: the outcomes recorded since the breaker last closed,
// from which the window is recomputed at every record.
type refBreaker struct {
	timeWindow      bool
	size, minCalls  int
	probesAllowed   int
	openFor         time.Duration
	state           string // closed, open, half_open
	since, openedAt time.Duration
	log             []refCall // closed: every outcome since the last close
	probes          []refCall
	issued          int
	// what it did
	opened, refused, wouldFail, wouldSucceed int64
	openTime, halfTime                       time.Duration
}

type refCall struct {
	at         time.Duration
	fail, slow bool
}

func (b *refBreaker) enter(state string, at time.Duration) {
	switch b.state {
	case "open":
		b.openTime += at - b.since
	case "half_open":
		b.halfTime += at - b.since
	}
	if state == "open" && b.state != "open" {
		b.opened++
		b.openedAt = at
	}
	b.state, b.since = state, at
}

func (b *refBreaker) advance(now time.Duration) {
	if b.state == "open" && now-b.openedAt >= b.openFor {
		b.enter("half_open", b.openedAt+b.openFor)
		b.probes, b.issued = nil, 0
	}
}

// exceeds: 50 % failed or 50 % slow, in integers.
func exceeds(calls []refCall) bool {
	var f, s int
	for _, c := range calls {
		if c.fail {
			f++
		}
		if c.slow {
			s++
		}
	}
	return 2*f >= len(calls) || 2*s >= len(calls)
}

func (b *refBreaker) window(now time.Duration) []refCall {
	if !b.timeWindow {
		return b.log[max(0, len(b.log)-b.size):]
	}
	var w []refCall
	for _, c := range b.log {
		if int64(c.at/time.Second) > int64(now/time.Second)-int64(b.size) {
			w = append(w, c)
		}
	}
	return w
}

func (b *refBreaker) record(now time.Duration, c refCall) {
	b.advance(now)
	switch b.state {
	case "closed":
		b.log = append(b.log, c)
		w := b.window(now)
		least := b.minCalls
		if !b.timeWindow {
			least = min(least, b.size)
		}
		if len(w) >= least && exceeds(w) {
			b.enter("open", now)
		}
	case "half_open":
		b.probes = append(b.probes, c)
		if len(b.probes) >= b.probesAllowed {
			if exceeds(b.probes) {
				b.enter("open", now)
			} else {
				b.enter("closed", now)
				b.log = nil
			}
		}
	}
}

// allow is Allow for a call whose fate is s.
func (b *refBreaker) allow(now time.Duration, s scripted) bool {
	b.advance(now)
	ok := b.state == "closed" || b.state == "half_open" && b.issued < b.probesAllowed
	if ok && b.state == "half_open" {
		b.issued++
	}
	if !ok {
		b.refused++
		if s == callFail {
			b.wouldFail++
		} else {
			b.wouldSucceed++
		}
	}
	return ok
}

// TestBreakerScripted runs every script of ok, failed and slow calls of
// the given length through a tool's breaker, count-based and time-based,
// and checks each run's outcome, the refusals and their split into calls
// saved and successes lost, the openings and the time spent open and
// half-open against refBreaker.
func TestBreakerScripted(t *testing.T) {
	sc, err := scenarios.Parse("breaker.yaml", []byte(breakerBase), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, window := range []string{"count", "time"} {
		cfg := *sc.Config
		tool := cfg.Tools[0]
		cb := *tool.CircuitBreaker
		n := 7
		if window == "time" {
			// 3 buckets of 1 s: the window holds the outcomes recorded in
			// the current second and the two before.
			cb.Window, cb.WindowSize, cb.MinimumCalls = breaker.TimeBased, 3, 2
		}
		tool.CircuitBreaker = &cb
		cfg.Tools = []system.Tool{tool}
		cfg.Runs = int64(n)
		seq := make([]scripted, n)
		for code := range int(math.Pow(3, float64(n))) {
			c := code
			for i := range seq {
				seq[i] = scripted(c % 3)
				c /= 3
			}
			ref := &refBreaker{timeWindow: window == "time", size: cb.WindowSize, minCalls: cb.MinimumCalls,
				probesAllowed: cb.PermittedInHalfOpen, openFor: cb.WaitInOpen, state: "closed"}
			tool.Script = tool.Script[:0]
			want := make([]system.RunOutcome, n)
			var end time.Duration
			for i, s := range seq {
				o := retry.OK
				if s == callFail {
					o = retry.Transient
				}
				tool.Script = append(tool.Script, system.ScriptEntry{Run: int64(i), Attempt: 1, Outcome: o, Latency: s.latency()})
				at := time.Duration(i+1) * time.Second
				end = at
				if !ref.allow(at, s) {
					want[i] = system.Refused
					continue
				}
				end = at + s.latency()
				ref.record(end, refCall{at: end, fail: s == callFail, slow: s == callSlow})
				want[i] = system.Completed
				if s == callFail {
					want[i] = system.Failed
				}
			}
			ref.advance(end)
			ref.enter(ref.state, end)
			cfg.Tools[0] = tool
			rec, res := traceOf(t, &cfg)
			name := fmt.Sprintf("%s window, script %v", window, seq)
			for i, r := range rec.runs {
				if r.Outcome != want[r.Run] {
					t.Fatalf("%s: run %d %v, want %v", name, i, r.Outcome, want[r.Run])
				}
			}
			got := res.Breakers[0]
			if got.Opened != ref.opened || got.Refused != ref.refused || got.RefusedWouldFail != ref.wouldFail || got.RefusedWouldSucceed != ref.wouldSucceed {
				t.Fatalf("%s: opened %d, refused %d (would fail %d, would succeed %d); want %d, %d (%d, %d)", name,
					got.Opened, got.Refused, got.RefusedWouldFail, got.RefusedWouldSucceed, ref.opened, ref.refused, ref.wouldFail, ref.wouldSucceed)
			}
			if math.Abs(got.OpenSeconds-ref.openTime.Seconds()) > 1e-9 || math.Abs(got.HalfOpenSeconds-ref.halfTime.Seconds()) > 1e-9 {
				t.Fatalf("%s: open %v s, half-open %v s; want %v, %v", name, got.OpenSeconds, got.HalfOpenSeconds, ref.openTime.Seconds(), ref.halfTime.Seconds())
			}
			if a := res.Attempts; a.RefusedBreaker != ref.refused || a.Refused != ref.refused || res.Runs.Refused != ref.refused {
				t.Fatalf("%s: attempts refused %d (breaker %d), runs refused %d; want %d", name, a.Refused, a.RefusedBreaker, res.Runs.Refused, ref.refused)
			}
			var open, half float64
			var refused int64
			for _, v := range res.Series.BreakerOpen[0] {
				open += v
			}
			for _, v := range res.Series.BreakerHalfOpen[0] {
				half += v
			}
			for _, v := range res.Series.BreakerRefused[0] {
				refused += v
			}
			if math.Abs(open-ref.openTime.Seconds()) > 1e-6 || math.Abs(half-ref.halfTime.Seconds()) > 1e-6 || refused != ref.refused {
				t.Fatalf("%s: the series holds %v s open, %v s half-open, %d refused; want %v, %v, %d", name, open, half, refused, ref.openTime.Seconds(), ref.halfTime.Seconds(), ref.refused)
			}
		}
	}
}

// TestBreakerOutage: a tool hangs from 20 s to 40 s under a run every
// 100 ms, each one call of 50 ms with a 1.05 s timeout. The breaker (the
// last 10 calls, 50 %, open 5 s, 2 probes) opens at the fifth timeout,
// 21.45 s (the calls dialed from 20.0 s time out from 21.05 s, and five
// failures make half of ten); each half-open spell lets two probes through
// (0.05 s and 0.15 s after it starts, on the next arrivals), and while the
// tool hangs they time out and reopen it 1.2 s after it turned half-open:
// at 27.65, 33.85 and 40.05 s (the probes of 38.9 and 39.0 s were dialed
// inside the outage). The probes of 45.1 and 45.2 s succeed and close it at
// 45.25 s. The instants are read back from the series (the time the
// breaker spent open and half-open in each bin); the 51 calls refused from
// 40.0 s to 45.0 s would have succeeded, the 179 before would have hung.
func TestBreakerOutage(t *testing.T) {
	const src = `
name: breaker-outage
horizon: 60s
arrivals: {process: constant, rate: 10/s}
workers: 1000
steps: [{name: call, tool: api, timeout: 1050ms}]
tools:
  api:
    latency: {dist: constant, value: 50ms}
    outages: [{start: 20s, end: 40s, mode: hang}]
    circuit_breaker: {window: {type: count, size: 10}, minimum_calls: 10, failure_rate: 0.5, open_for: 5s, half_open_probes: 2}
`
	sc, err := scenarios.Parse("outage.yaml", []byte(src), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := system.New(sc.Config, system.Options{}).Run()
	s := res.Series
	w := s.Width.Seconds()
	open, half := s.BreakerOpen[0], s.BreakerHalfOpen[0]
	const eps = 1e-6
	// The breaker opens inside the first bin with open time: the rest of
	// that bin is its open time.
	first := -1
	for i, v := range open {
		if v > 0 {
			first = i
			break
		}
	}
	if first < 0 {
		t.Fatal("the breaker never opened")
	}
	if opened := float64(first+1)*w - open[first]; math.Abs(opened-21.45) > eps {
		t.Errorf("the breaker opened at %.6f s, want 21.45 s", opened)
	}
	// It closes inside the last bin with half-open time, which it entered
	// half-open.
	last := -1
	for i := range max(len(open), len(half)) {
		if i < len(open) && open[i] > 0 || i < len(half) && half[i] > 0 {
			last = i
		}
	}
	if closed := float64(last)*w + half[last]; math.Abs(closed-45.25) > eps {
		t.Errorf("the breaker closed at %.6f s, want 45.25 s", closed)
	}
	b := res.Breakers[0]
	want := system.BreakerStats{Opened: 4, OpenSeconds: 20, HalfOpenSeconds: 3.8, Refused: 230, RefusedWouldFail: 179, RefusedWouldSucceed: 51}
	if b.Opened != want.Opened || b.Refused != want.Refused || b.RefusedWouldFail != want.RefusedWouldFail || b.RefusedWouldSucceed != want.RefusedWouldSucceed ||
		math.Abs(b.OpenSeconds-want.OpenSeconds) > eps || math.Abs(b.HalfOpenSeconds-want.HalfOpenSeconds) > eps {
		t.Errorf("breaker %+v, want %+v", b, want)
	}
	// The runs that failed are the 15 calls dialed in the outage before it
	// opened and the 6 probes dialed in it.
	if res.Runs.Failed != 21 || res.Runs.Refused != 230 {
		t.Errorf("runs failed %d, refused %d; want 21 and 230", res.Runs.Failed, res.Runs.Refused)
	}
}

// TestBreakerFallsBack: the calls an open breaker refuses go to the step's
// fallback (TestBreakerOutage's 230), and so every run completes but the
// 21 whose call hung: those may have run, and the step is not idempotent.
func TestBreakerFallsBack(t *testing.T) {
	const src = `
name: breaker-fallback
horizon: 60s
arrivals: {process: constant, rate: 10/s}
workers: 1000
steps: [{name: call, tool: api, timeout: 1050ms, fallback: [spare]}]
tools:
  api:
    latency: {dist: constant, value: 50ms}
    outages: [{start: 20s, end: 40s, mode: hang}]
    circuit_breaker: {window: {type: count, size: 10}, minimum_calls: 10, failure_rate: 0.5, open_for: 5s, half_open_probes: 2}
  spare:
    latency: {dist: constant, value: 50ms}
`
	sc, err := scenarios.Parse("fallback.yaml", []byte(src), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := system.New(sc.Config, system.Options{}).Run()
	a := res.Attempts
	if b := res.Breakers[0]; b.Refused != 230 || a.Fallbacks != 230 || a.UnsafeFallbacks != 21 || res.Runs.Refused != 0 {
		t.Errorf("refused %d by the breaker, %d fallbacks (%d withheld), %d runs refused; want 230, 230 (21), 0", b.Refused, a.Fallbacks, a.UnsafeFallbacks, res.Runs.Refused)
	}
	if res.Runs.Completed != res.Runs.Arrived-21 {
		t.Errorf("completed %d of %d runs, want all but 21", res.Runs.Completed, res.Runs.Arrived)
	}
}

// TestBreakerAllocationsDoNotGrowWithRuns: a breaker that opens and closes
// all the time (30 % of calls fail, a window of 10) allocates per
// simulation, not per call or per change of state.
func TestBreakerAllocationsDoNotGrowWithRuns(t *testing.T) {
	allocs := func(runs string) float64 {
		cfg := load(t, "mmc", "runs="+runs, "warmup=0", "tools.server.errors.transient=0.3",
			"tools.server.circuit_breaker={window: {type: count, size: 10}, minimum_calls: 5, failure_rate: 0.3, open_for: 1s, half_open_probes: 2}")
		var opened int64
		a := testing.AllocsPerRun(2, func() { opened = system.New(cfg, system.Options{}).Run().Breakers[0].Opened })
		if opened < 100 {
			t.Fatalf("runs=%s: the breaker opened %d times; the test needs it to flip often", runs, opened)
		}
		return a
	}
	small, big := allocs("20000"), allocs("200000")
	if big > small+20 {
		t.Fatalf("allocations: %v for 20k runs, %v for 200k runs: something allocates per event", small, big)
	}
}

// TestBreakerReleasesARefusedProbe: a half-open breaker's probe that the
// cost budget then refuses gives its permission back, so the next call
// may probe. Runs 0 and 1 fail (10 units each of a 25-unit scenario
// budget) and open the breaker at 2.1 s; run 2 (3 s) finds it open; from
// 3.1 s it is half-open, and every later run takes the probe, cannot
// reserve 10 of the 5 units left and is refused by the budget. Had the
// first of them kept its probe, the others would be refused by the
// breaker instead.
func TestBreakerReleasesARefusedProbe(t *testing.T) {
	const src = `
name: breaker-release
runs: 8
arrivals: {process: constant, rate: 1/s}
workers: 10
cost: {scenario_budget: 25}
steps: [{name: call, tool: api}]
tools:
  api:
    latency: {dist: constant, value: 100ms}
    cost: {reserve: 10, usage: {dist: constant, value: 10}}
    script: [{run: 0, attempt: 1, outcome: transient}, {run: 1, attempt: 1, outcome: transient}]
    circuit_breaker: {window: {type: count, size: 2}, minimum_calls: 2, failure_rate: 0.5, open_for: 1s, half_open_probes: 1}
`
	sc, err := scenarios.Parse("release.yaml", []byte(src), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := system.New(sc.Config, system.Options{}).Run()
	a := res.Attempts
	if a.RefusedBreaker != 1 || res.Cost.Refused != 5 || res.Breakers[0].Opened != 1 {
		t.Errorf("refused by the breaker %d, by the budget %d, opened %d; want 1 (run 2), 5 (runs 3–7), 1", a.RefusedBreaker, res.Cost.Refused, res.Breakers[0].Opened)
	}
}
