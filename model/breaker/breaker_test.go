package breaker_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/budgetsim/budgetsim/model/breaker"
)

const ms = time.Millisecond

// step is one scripted call on a breaker: at instant at, either ask Allow
// ("allow"), record an outcome ("ok", "fail", "slow" = a slow success,
// "atslow" = a success taking exactly SlowCallDuration, "slowfail"), or release a permit ("release"). For "allow", want is the
// expected answer; after every step the breaker's state must be state.
type step struct {
	at    time.Duration
	op    string
	want  bool
	state breaker.State
}

func apply(b *breaker.Breaker, s step, slow time.Duration) bool {
	switch s.op {
	case "allow":
		return b.Allow(s.at)
	case "ok":
		b.Record(s.at, breaker.Success, 0)
	case "fail":
		b.Record(s.at, breaker.Failure, 0)
	case "slow":
		b.Record(s.at, breaker.Success, slow+1)
	case "atslow":
		b.Record(s.at, breaker.Success, slow)
	case "slowfail":
		b.Record(s.at, breaker.Failure, slow+1)
	case "release":
		b.Release(s.at)
	default:
		panic("unknown op " + s.op)
	}
	return false
}

// base is a small count-based breaker: window 4, minimum 4 calls, open at
// 50% failures or 75% slow calls (slow = over 100ms), 1s open, 2 probes.
func base() breaker.Config {
	return breaker.Config{
		Window:                breaker.CountBased,
		WindowSize:            4,
		MinimumCalls:          4,
		FailureRateThreshold:  50,
		SlowCallRateThreshold: 75,
		SlowCallDuration:      100 * ms,
		WaitInOpen:            time.Second,
		PermittedInHalfOpen:   2,
	}
}

var (
	C = breaker.Closed
	O = breaker.Open
	H = breaker.HalfOpen
)

func TestScripted(t *testing.T) {
	t.Parallel()
	timeBased := base()
	timeBased.Window = breaker.TimeBased
	timeBased.WindowSize = 3
	timeBased.BucketWidth = time.Second
	timeBased.MinimumCalls = 2
	minAboveWindow := base()
	minAboveWindow.MinimumCalls = 10 // capped at WindowSize 4 for count-based
	tests := []struct {
		name  string
		cfg   breaker.Config
		steps []step
	}{
		{"below minimum calls the rate is not checked", base(), []step{
			{0, "fail", false, C}, {0, "fail", false, C}, {0, "fail", false, C},
			{0, "allow", true, C},
		}},
		{"failure rate exactly at the threshold opens", base(), []step{
			{0, "ok", false, C}, {0, "fail", false, C}, {0, "ok", false, C},
			{5 * ms, "fail", false, O}, // 2 of 4 = 50% ≥ 50%
			{5 * ms, "allow", false, O},
		}},
		{"failure rate below the threshold stays closed", base(), []step{
			{0, "ok", false, C}, {0, "ok", false, C}, {0, "ok", false, C}, {0, "fail", false, C},
			{0, "ok", false, C}, // window: ok ok fail ok, 25%
		}},
		{"count window forgets the oldest call", base(), []step{
			{0, "fail", false, C}, {0, "ok", false, C}, {0, "ok", false, C}, {0, "ok", false, C}, // 25%
			{0, "ok", false, C},   // fail leaves: 0%
			{0, "fail", false, C}, // 25%
			{0, "fail", false, O}, // ok ok fail fail = 50%
		}},
		{"slow calls open at their own threshold, failed or not", base(), []step{
			{0, "slow", false, C}, {0, "slowfail", false, C}, {0, "ok", false, C},
			{0, "slow", false, O}, // 3 slow of 4 = 75%, but 1 failure = 25%: open on slow
		}},
		{"a call at exactly the slow duration is not slow", base(), []step{
			{0, "atslow", false, C}, {0, "atslow", false, C}, {0, "atslow", false, C}, {0, "atslow", false, C},
			{0, "slow", false, C}, {0, "slow", false, C}, {0, "slow", false, O}, // 3 of 4 slow
		}},
		{"open refuses until the wait has passed, then half-open probes", base(), []step{
			{0, "fail", false, C}, {0, "fail", false, C}, {0, "fail", false, C}, {100 * ms, "fail", false, O},
			{1099 * ms, "allow", false, O},
			{1100 * ms, "allow", true, H}, // exactly WaitInOpen after opening
			{1100 * ms, "allow", true, H},
			{1100 * ms, "allow", false, H}, // only 2 probes
			{1200 * ms, "ok", false, H},
			{1300 * ms, "ok", false, C}, // 2 probes, 0% failures: close
			{1300 * ms, "fail", false, C}, {1300 * ms, "fail", false, C}, {1300 * ms, "fail", false, C},
			{1300 * ms, "allow", true, C}, // the window restarted on closing: 3 < minimum 4
		}},
		{"a failed probe reopens and restarts the wait", base(), []step{
			{0, "fail", false, C}, {0, "fail", false, C}, {0, "fail", false, C}, {0, "fail", false, O},
			{2 * time.Second, "allow", true, H}, {2 * time.Second, "allow", true, H},
			{2 * time.Second, "ok", false, H},
			{2500 * ms, "fail", false, O}, // 1 of 2 = 50%: reopen at 2.5s
			{3499 * ms, "allow", false, O},
			{3500 * ms, "allow", true, H},
		}},
		{"released probes free their slot", base(), []step{
			{0, "fail", false, C}, {0, "fail", false, C}, {0, "fail", false, C}, {0, "fail", false, O},
			{time.Second, "allow", true, H}, {time.Second, "allow", true, H}, {time.Second, "allow", false, H},
			{time.Second, "release", false, H},
			{time.Second, "allow", true, H},
		}},
		{"slow probes reopen", base(), []step{
			{0, "fail", false, C}, {0, "fail", false, C}, {0, "fail", false, C}, {0, "fail", false, O},
			{time.Second, "allow", true, H}, {time.Second, "allow", true, H},
			{time.Second, "slow", false, H}, {time.Second, "slow", false, O}, // 100% slow ≥ 75%
		}},
		{"outcomes recorded while open count for nothing", base(), []step{
			{0, "fail", false, C}, {0, "fail", false, C}, {0, "fail", false, C}, {0, "fail", false, O},
			{500 * ms, "ok", false, O}, {500 * ms, "ok", false, O},
			{time.Second, "allow", true, H},
		}},
		{"minimum capped at the count window's size", minAboveWindow, []step{
			{0, "fail", false, C}, {0, "ok", false, C}, {0, "ok", false, C}, {0, "fail", false, O},
		}},
		{"time window counts the last buckets only", timeBased, []step{
			{0, "fail", false, C},               // bucket 0
			{3 * time.Second, "ok", false, C},   // bucket 0 has left (window = buckets 1..3): 1 call, below minimum
			{3 * time.Second, "ok", false, C},   // 2 calls, 0%
			{5 * time.Second, "fail", false, C}, // buckets 3..5: ok ok fail = 33%
			{5 * time.Second, "fail", false, O}, // 2 of 4 = 50%
		}},
		{"time window edge: an old bucket leaves exactly on its boundary", timeBased, []step{
			{0, "fail", false, C},
			{2999 * ms, "fail", false, O}, // bucket 0 and 2 within a 3-bucket window: 100%
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := breaker.New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range tt.steps {
				got := apply(b, s, tt.cfg.SlowCallDuration)
				if s.op == "allow" && got != s.want {
					t.Fatalf("step %d: Allow(%v) = %v, want %v", i, s.at, got, s.want)
				}
				if st := b.State(s.at); st != s.state {
					t.Fatalf("step %d (%s at %v): State = %v, want %v", i, s.op, s.at, st, s.state)
				}
			}
		})
	}
}

func TestTransitionsReported(t *testing.T) {
	t.Parallel()
	var log []breaker.Transition
	cfg := base()
	cfg.OnTransition = func(tr breaker.Transition) { log = append(log, tr) }
	b, err := breaker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		b.Allow(time.Duration(i) * ms)
		b.Record(time.Duration(i)*ms, breaker.Failure, 0)
	}
	// Observed late: the half-open transition carries the instant it was due.
	b.Allow(5 * time.Second)
	b.Record(5*time.Second, breaker.Success, 0)
	b.Allow(5 * time.Second)
	b.Record(6*time.Second, breaker.Success, 0)
	want := []breaker.Transition{
		{At: 3 * ms, From: C, To: O, Window: breaker.WindowStats{Calls: 4, Failures: 4}},
		{At: 1003 * ms, From: O, To: H},
		{At: 6 * time.Second, From: H, To: C, Window: breaker.WindowStats{Calls: 2}},
	}
	if fmt.Sprint(log) != fmt.Sprint(want) {
		t.Errorf("transitions:\n got %v\nwant %v", log, want)
	}
	c := b.Counts()
	wantCounts := breaker.Counts{Permitted: 6, Successes: 2, Failures: 4}
	if c != wantCounts {
		t.Errorf("Counts() = %+v, want %+v", c, wantCounts)
	}
}

func TestOnTransitionMayCallBreaker(t *testing.T) {
	t.Parallel()
	cfg := base()
	var b *breaker.Breaker
	var seen []breaker.State
	cfg.OnTransition = func(tr breaker.Transition) { seen = append(seen, b.State(tr.At)) }
	b, _ = breaker.New(cfg)
	for range 4 {
		b.Record(0, breaker.Failure, 0)
	}
	if len(seen) != 1 || seen[0] != O {
		t.Errorf("state seen from the hook = %v, want [open]", seen)
	}
}

func TestClockBackwards(t *testing.T) {
	t.Parallel()
	b, _ := breaker.New(base())
	for range 4 {
		b.Record(10*time.Second, breaker.Failure, 0)
	}
	// A call at an earlier instant is taken to happen at 10s: still open.
	if b.Allow(0) || b.State(10*time.Second+999*ms) != O {
		t.Fatal("clock going backwards shortened the open period")
	}
	if !b.Allow(11 * time.Second) {
		t.Fatal("breaker did not half-open WaitInOpen after opening")
	}
}

func TestNegativeInstantsTimeWindow(t *testing.T) {
	t.Parallel()
	cfg := base()
	cfg.Window = breaker.TimeBased
	cfg.WindowSize = 2
	cfg.BucketWidth = time.Second
	cfg.MinimumCalls = 1
	b, _ := breaker.New(cfg)
	b.Record(-1500*ms, breaker.Success, 0) // bucket −2
	b.Record(-1*ms, breaker.Success, 0)    // bucket −1
	if w := b.Window(-1 * ms); w.Calls != 2 {
		t.Fatalf("Window(-1ms).Calls = %d, want 2", w.Calls)
	}
	if w := b.Window(0); w.Calls != 1 { // buckets −1, 0
		t.Fatalf("Window(0).Calls = %d, want 1", w.Calls)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		field string
		edit  func(*breaker.Config)
	}{
		{"Window", func(c *breaker.Config) { c.Window = 7 }},
		{"WindowSize", func(c *breaker.Config) { c.WindowSize = 0 }},
		{"WindowSize", func(c *breaker.Config) { c.WindowSize = 1 << 30 }},
		{"BucketWidth", func(c *breaker.Config) { c.Window = breaker.TimeBased; c.BucketWidth = 0 }},
		{"BucketWidth", func(c *breaker.Config) { c.Window = breaker.TimeBased; c.BucketWidth = 1 << 62 }},
		{"MinimumCalls", func(c *breaker.Config) { c.MinimumCalls = 0 }},
		{"FailureRateThreshold", func(c *breaker.Config) { c.FailureRateThreshold = 0 }},
		{"FailureRateThreshold", func(c *breaker.Config) { c.FailureRateThreshold = 100.5 }},
		{"SlowCallRateThreshold", func(c *breaker.Config) { c.SlowCallRateThreshold = -1 }},
		{"SlowCallDuration", func(c *breaker.Config) { c.SlowCallDuration = -1 }},
		{"WaitInOpen", func(c *breaker.Config) { c.WaitInOpen = 0 }},
		{"PermittedInHalfOpen", func(c *breaker.Config) { c.PermittedInHalfOpen = 0 }},
	}
	for _, tt := range tests {
		c := base()
		tt.edit(&c)
		_, err := breaker.New(c)
		if err == nil || !strings.Contains(err.Error(), tt.field+":") {
			t.Errorf("New with bad %s: err = %v, want one naming %s", tt.field, err, tt.field)
		}
	}
	for _, c := range []breaker.Config{breaker.Resilience4jDefaults(), breaker.PollyDefaults()} {
		if err := c.Validate(); err != nil {
			t.Errorf("defaults invalid: %v", err)
		}
	}
}

func TestStrings(t *testing.T) {
	t.Parallel()
	got := fmt.Sprint(C, O, H, breaker.State(9), breaker.CountBased, breaker.TimeBased, breaker.WindowType(5), breaker.Success, breaker.Failure, breaker.Result(3))
	want := "closed open half_open State(9) count_based time_based WindowType(5) success failure Result(3)"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// model is a reference breaker written for clarity: it keeps every outcome
// recorded since the breaker last closed and recomputes the window by
// scanning them.
type model struct {
	cfg      breaker.Config
	last     time.Duration
	seen     bool
	state    breaker.State
	openedAt time.Duration
	recs     []rec // outcomes since last closing (Closed)
	probes   []rec // outcomes in HalfOpen
	issued   int
	trans    []breaker.Transition
	counts   breaker.Counts
}

type rec struct {
	at           time.Duration
	failed, slow bool
}

func stats(rs []rec) breaker.WindowStats {
	var w breaker.WindowStats
	for _, r := range rs {
		w.Calls++
		if r.failed {
			w.Failures++
		}
		if r.slow {
			w.Slow++
		}
	}
	return w
}

func floor(t, w time.Duration) int64 {
	q := int64(t / w)
	if t%w != 0 && t < 0 {
		q--
	}
	return q
}

func (m *model) window() breaker.WindowStats {
	if m.cfg.Window == breaker.CountBased {
		return stats(m.recs[max(0, len(m.recs)-m.cfg.WindowSize):])
	}
	var in []rec
	for _, r := range m.recs {
		if floor(r.at, m.cfg.BucketWidth) > floor(m.last, m.cfg.BucketWidth)-int64(m.cfg.WindowSize) {
			in = append(in, r)
		}
	}
	return stats(in)
}

func (m *model) exceeds(w breaker.WindowStats) bool {
	return 100*float64(w.Failures)/float64(w.Calls) >= m.cfg.FailureRateThreshold ||
		100*float64(w.Slow)/float64(w.Calls) >= m.cfg.SlowCallRateThreshold
}

func (m *model) to(at time.Duration, s breaker.State, w breaker.WindowStats) {
	m.trans = append(m.trans, breaker.Transition{At: at, From: m.state, To: s, Window: w})
	m.state = s
	switch s {
	case breaker.Open:
		m.openedAt = at
	case breaker.HalfOpen:
		m.probes, m.issued = nil, 0
	case breaker.Closed:
		m.recs = nil
	}
}

func (m *model) tick(now time.Duration) {
	if !m.seen || now > m.last {
		m.last, m.seen = now, true
	}
	if m.state == breaker.Open && m.last >= m.openedAt+m.cfg.WaitInOpen {
		m.to(m.openedAt+m.cfg.WaitInOpen, breaker.HalfOpen, breaker.WindowStats{})
	}
}

func (m *model) allow(now time.Duration) bool {
	m.tick(now)
	ok := m.state == breaker.Closed || (m.state == breaker.HalfOpen && m.issued < m.cfg.PermittedInHalfOpen)
	if ok {
		m.counts.Permitted++
		if m.state == breaker.HalfOpen {
			m.issued++
		}
	} else {
		m.counts.Rejected++
	}
	return ok
}

func (m *model) record(now time.Duration, failed bool, latency time.Duration) {
	m.tick(now)
	slow := m.cfg.SlowCallDuration > 0 && latency > m.cfg.SlowCallDuration
	if failed {
		m.counts.Failures++
	} else {
		m.counts.Successes++
	}
	if slow {
		m.counts.Slow++
	}
	r := rec{m.last, failed, slow}
	switch m.state {
	case breaker.Open:
		m.counts.Late++
	case breaker.Closed:
		m.recs = append(m.recs, r)
		w := m.window()
		need := m.cfg.MinimumCalls
		if m.cfg.Window == breaker.CountBased {
			need = min(need, m.cfg.WindowSize)
		}
		if w.Calls >= need && m.exceeds(w) {
			m.to(m.last, breaker.Open, w)
		}
	case breaker.HalfOpen:
		m.probes = append(m.probes, r)
		if w := stats(m.probes); w.Calls == m.cfg.PermittedInHalfOpen {
			if m.exceeds(w) {
				m.to(m.last, breaker.Open, w)
			} else {
				m.to(m.last, breaker.Closed, w)
			}
		}
	}
}

func (m *model) release(now time.Duration) {
	m.tick(now)
	m.counts.Released++
	if m.state == breaker.HalfOpen && m.issued > 0 {
		m.issued--
	}
}

// TestAgainstModel drives a Breaker and the reference model with the same
// random configuration and script and requires identical answers, states,
// window counts, totals and transition logs after every call.
func TestAgainstModel(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := breaker.Config{
			Window:                breaker.WindowType(rapid.IntRange(0, 1).Draw(rt, "window")),
			WindowSize:            rapid.IntRange(1, 6).Draw(rt, "size"),
			BucketWidth:           time.Duration(rapid.IntRange(1, 4).Draw(rt, "bucket")) * 100 * ms,
			MinimumCalls:          rapid.IntRange(1, 8).Draw(rt, "min"),
			FailureRateThreshold:  rapid.SampledFrom([]float64{1, 25, 100.0 / 3, 50, 66.67, 100}).Draw(rt, "fail%"),
			SlowCallRateThreshold: rapid.SampledFrom([]float64{20, 50, 100}).Draw(rt, "slow%"),
			SlowCallDuration:      time.Duration(rapid.IntRange(0, 3).Draw(rt, "slowdur")) * 100 * ms,
			WaitInOpen:            time.Duration(rapid.IntRange(1, 10).Draw(rt, "wait")) * 100 * ms,
			PermittedInHalfOpen:   rapid.IntRange(1, 3).Draw(rt, "probes"),
		}
		m := &model{cfg: cfg}
		var got []breaker.Transition
		cfg.OnTransition = func(tr breaker.Transition) { got = append(got, tr) }
		b, err := breaker.New(cfg)
		if err != nil {
			rt.Fatal(err)
		}
		now := time.Duration(rapid.IntRange(-5000, 5000).Draw(rt, "start")) * ms
		n := rapid.IntRange(1, 200).Draw(rt, "ops")
		for i := range n {
			// Mostly forward, sometimes backward (the clock is clamped).
			now += time.Duration(rapid.IntRange(-50, 400).Draw(rt, "dt")) * ms
			switch op := rapid.IntRange(0, 9).Draw(rt, "op"); {
			case op < 4:
				if g, w := b.Allow(now), m.allow(now); g != w {
					rt.Fatalf("op %d: Allow(%v) = %v, model %v", i, now, g, w)
				}
			case op < 9:
				failed := rapid.Bool().Draw(rt, "failed")
				lat := time.Duration(rapid.IntRange(0, 400).Draw(rt, "latency")) * ms
				r := breaker.Success
				if failed {
					r = breaker.Failure
				}
				b.Record(now, r, lat)
				m.record(now, failed, lat)
			default:
				b.Release(now)
				m.release(now)
			}
			if g, w := b.State(now), m.state; g != w {
				rt.Fatalf("op %d at %v: State = %v, model %v", i, now, g, w)
			}
			var ww breaker.WindowStats
			switch m.state {
			case breaker.Closed:
				ww = m.window()
			case breaker.HalfOpen:
				ww = stats(m.probes)
			}
			if g := b.Window(now); g != ww {
				rt.Fatalf("op %d at %v: Window = %+v, model %+v", i, now, g, ww)
			}
			if g := b.Counts(); g != m.counts {
				rt.Fatalf("op %d: Counts = %+v, model %+v", i, g, m.counts)
			}
			if fmt.Sprint(got) != fmt.Sprint(m.trans) {
				rt.Fatalf("op %d: transitions\n got %v\nmodel %v", i, got, m.trans)
			}
		}
	})
}

// TestExhaustive runs every sequence of seven calls, each one of allow, a
// success, a failure, a slow success or a release, 300ms apart, on a
// count-based and a time-based breaker, and requires the breaker to agree
// with the reference model after every call: 5⁷ = 78125 scripts each.
func TestExhaustive(t *testing.T) {
	t.Parallel()
	count := breaker.Config{
		Window: breaker.CountBased, WindowSize: 3, MinimumCalls: 2,
		FailureRateThreshold: 50, SlowCallRateThreshold: 60, SlowCallDuration: 100 * ms,
		WaitInOpen: 500 * ms, PermittedInHalfOpen: 2,
	}
	timed := count
	timed.Window, timed.WindowSize, timed.BucketWidth = breaker.TimeBased, 2, 400*ms
	const n, ops = 7, 5
	for _, cfg := range []breaker.Config{count, timed} {
		kinds := map[[2]breaker.State]bool{}
		script := make([]int, n)
		for code := 0; code < pow(ops, n); code++ {
			c := code
			for i := range script {
				script[i], c = c%ops, c/ops
			}
			trans, err := runScript(cfg, script)
			if err != nil {
				t.Fatalf("%v window, script %v: %v", cfg.Window, script, err)
			}
			for _, tr := range trans {
				kinds[[2]breaker.State{tr.From, tr.To}] = true
			}
		}
		// The scripts reach every transition of the state machine.
		if len(kinds) != 4 || !kinds[[2]breaker.State{C, O}] || !kinds[[2]breaker.State{O, H}] || !kinds[[2]breaker.State{H, C}] || !kinds[[2]breaker.State{H, O}] {
			t.Errorf("%v window: transitions reached %v, want all four", cfg.Window, kinds)
		}
	}
}

func pow(b, e int) int {
	p := 1
	for range e {
		p *= b
	}
	return p
}

func runScript(cfg breaker.Config, script []int) ([]breaker.Transition, error) {
	m := &model{cfg: cfg}
	var got []breaker.Transition
	cfg.OnTransition = func(tr breaker.Transition) { got = append(got, tr) }
	b, err := breaker.New(cfg)
	if err != nil {
		return nil, err
	}
	for i, op := range script {
		now := time.Duration(i) * 300 * ms
		switch op {
		case 0:
			if g, w := b.Allow(now), m.allow(now); g != w {
				return nil, fmt.Errorf("op %d: Allow = %v, model %v", i, g, w)
			}
		case 1, 2, 3:
			r, lat := breaker.Success, time.Duration(0)
			if op == 2 {
				r = breaker.Failure
			}
			if op == 3 {
				lat = 200 * ms
			}
			b.Record(now, r, lat)
			m.record(now, r == breaker.Failure, lat)
		case 4:
			b.Release(now)
			m.release(now)
		}
		if g := b.State(now); g != m.state {
			return nil, fmt.Errorf("op %d: State = %v, model %v", i, g, m.state)
		}
		if g := b.Counts(); g != m.counts {
			return nil, fmt.Errorf("op %d: Counts = %+v, model %+v", i, g, m.counts)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(m.trans) {
		return nil, fmt.Errorf("transitions %v, model %v", got, m.trans)
	}
	return got, nil
}
