package hedge_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/budgetsim/budgetsim/model/hedge"
	"github.com/budgetsim/budgetsim/model/retry"
)

const ms = time.Millisecond

func newHedger(t testing.TB, p hedge.Policy) *hedge.Hedger {
	t.Helper()
	h, err := hedge.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func next(c *hedge.Call) string {
	at, ok := c.NextAt()
	if !ok {
		return "none"
	}
	return at.String()
}

func TestTimedHedges(t *testing.T) {
	t.Parallel()
	h := newHedger(t, hedge.Policy{MaxAttempts: 3, Delay: 100 * ms})
	c := h.Begin(10*ms, true)
	if got := next(c); got != "110ms" {
		t.Fatalf("NextAt after Begin(10ms) = %s, want 110ms", got)
	}
	if i, ok := c.Launch(110 * ms); i != 1 || !ok {
		t.Fatalf("Launch = %d, %v", i, ok)
	}
	if got := next(c); got != "210ms" {
		t.Fatalf("NextAt after the first hedge = %s, want 210ms", got)
	}
	c.Launch(210 * ms)
	if got := next(c); got != "none" {
		t.Fatalf("NextAt after MaxAttempts = %s, want none", got)
	}
	if _, ok := c.Launch(300 * ms); ok {
		t.Fatal("Launch beyond MaxAttempts succeeded")
	}
	d := c.Finish(250*ms, 1, retry.OK)
	want := hedge.Decision{Done: true, Winner: 1, Outcome: retry.OK, Cancel: []int{0, 2}}
	if fmt.Sprint(d) != fmt.Sprint(want) {
		t.Fatalf("Finish = %+v, want %+v", d, want)
	}
	for _, j := range []int{0, 2} {
		if a := c.Attempts()[j]; !a.Cancelled || a.InFlight || a.End != 250*ms {
			t.Errorf("attempt %d = %+v, want cancelled at 250ms", j, a)
		}
	}
	// The cancelled first attempt answers anyway: nothing changes.
	if d := c.Finish(260*ms, 0, retry.OK); !d.Done || d.Winner != 1 || d.Cancel != nil {
		t.Errorf("late Finish of a cancelled attempt = %+v", d)
	}
}

func TestNotIdempotentNeverHedges(t *testing.T) {
	t.Parallel()
	h := newHedger(t, hedge.Policy{MaxAttempts: 5, Delay: 0, NonFatal: []retry.Outcome{retry.Transient}})
	c := h.Begin(0, false)
	if got := next(c); got != "none" {
		t.Fatalf("NextAt for a non-idempotent call = %s, want none", got)
	}
	d := c.Finish(5*ms, 0, retry.Transient)
	if !d.Done || d.Outcome != retry.Transient || d.Winner != 0 || len(c.Attempts()) != 1 {
		t.Fatalf("Finish = %+v after %d attempts, want done, transient, one attempt", d, len(c.Attempts()))
	}
}

func TestParallelMode(t *testing.T) {
	t.Parallel()
	h := newHedger(t, hedge.Policy{MaxAttempts: 3, Delay: 0})
	c := h.Begin(7*ms, true)
	for i := 1; i < 3; i++ {
		if got := next(c); got != "7ms" {
			t.Fatalf("attempt %d: NextAt = %s, want 7ms (all at once)", i, got)
		}
		c.Launch(7 * ms)
	}
}

func TestNonFatalShortcutsDelay(t *testing.T) {
	t.Parallel()
	h := newHedger(t, hedge.Policy{MaxAttempts: 3, Delay: time.Second, NonFatal: []retry.Outcome{retry.Transient, retry.RateLimited}})
	c := h.Begin(0, true)
	d := c.Finish(300*ms, 0, retry.Transient)
	if d.Done || d.Winner != -1 || d.Cancel != nil {
		t.Fatalf("non-fatal Finish = %+v, want the request to go on", d)
	}
	if got := next(c); got != "300ms" {
		t.Fatalf("NextAt after a non-fatal failure = %s, want 300ms (at once)", got)
	}
	c.Launch(300 * ms)
	if got := next(c); got != "1.3s" {
		t.Fatalf("NextAt after the shortcut = %s, want 1.3s", got)
	}
	c.Launch(1300 * ms)
	// Attempt 1 fails non-fatally while 2 is in flight and none remain:
	// the request waits for 2.
	if d := c.Finish(1400*ms, 1, retry.RateLimited); d.Done {
		t.Fatalf("Finish with an attempt in flight = %+v, want not done", d)
	}
	// The last one fails too: the request fails with its outcome.
	d = c.Finish(1500*ms, 2, retry.Transient)
	want := hedge.Decision{Done: true, Winner: 2, Outcome: retry.Transient}
	if fmt.Sprint(d) != fmt.Sprint(want) {
		t.Fatalf("last Finish = %+v, want %+v", d, want)
	}
}

func TestFatalCommits(t *testing.T) {
	t.Parallel()
	h := newHedger(t, hedge.Policy{MaxAttempts: 2, Delay: 10 * ms, NonFatal: []retry.Outcome{retry.Transient}})
	c := h.Begin(0, true)
	c.Launch(10 * ms)
	d := c.Finish(15*ms, 1, retry.Permanent)
	want := hedge.Decision{Done: true, Winner: 1, Outcome: retry.Permanent, Cancel: []int{0}}
	if fmt.Sprint(d) != fmt.Sprint(want) {
		t.Fatalf("fatal Finish = %+v, want %+v", d, want)
	}
}

func TestFallbackMode(t *testing.T) {
	t.Parallel()
	h := newHedger(t, hedge.Policy{MaxAttempts: 2, Delay: hedge.Never, NonFatal: []retry.Outcome{retry.Timeout}})
	c := h.Begin(0, true)
	if got := next(c); got != "none" {
		t.Fatalf("NextAt in fallback mode = %s, want none before a failure", got)
	}
	c.Finish(2*time.Second, 0, retry.Timeout)
	if got := next(c); got != "2s" {
		t.Fatalf("NextAt after a non-fatal failure = %s, want 2s", got)
	}
	i, _ := c.Launch(2 * time.Second)
	if d := c.Finish(2100*ms, i, retry.OK); !d.Done || d.Winner != 1 || d.Cancel != nil {
		t.Fatalf("Finish = %+v", d)
	}
}

func TestStopAndAbandon(t *testing.T) {
	t.Parallel()
	h := newHedger(t, hedge.Policy{MaxAttempts: 4, Delay: 50 * ms, NonFatal: []retry.Outcome{retry.Transient}})
	c := h.Begin(0, true)
	c.Launch(50 * ms)
	c.Stop() // the retry budget refused the next hedge
	if got := next(c); got != "none" {
		t.Fatalf("NextAt after Stop = %s, want none", got)
	}
	if d := c.Finish(60*ms, 0, retry.Transient); d.Done {
		t.Fatalf("Finish with attempt 1 in flight = %+v, want not done", d)
	}
	if got := c.Abandon(70 * ms); fmt.Sprint(got) != "[1]" {
		t.Fatalf("Abandon = %v, want [1]", got)
	}
	if d := c.Finish(80*ms, 1, retry.OK); !d.Done || d.Winner != -1 || d.Outcome != retry.Timeout {
		t.Fatalf("Finish after Abandon = %+v, want the abandoned end", d)
	}
	if c.Abandon(90*ms) != nil {
		t.Fatal("second Abandon cancelled something")
	}
}

func TestFinishMisuse(t *testing.T) {
	t.Parallel()
	h := newHedger(t, hedge.Policy{MaxAttempts: 2, Delay: ms, NonFatal: []retry.Outcome{retry.Transient}})
	for name, f := range map[string]func(c *hedge.Call){
		"index out of range": func(c *hedge.Call) { c.Finish(0, 1, retry.OK) },
		"ended twice":        func(c *hedge.Call) { c.Finish(0, 0, retry.Transient); c.Finish(0, 0, retry.OK) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f(h.Begin(0, true))
		}()
	}
}

// TestPercentileDelay: the delay is Policy.Delay until MinSamples first
// attempts have been observed, then their Percentile-quantile; a first
// attempt cancelled by a winning hedge is observed at the time it ran.
func TestPercentileDelay(t *testing.T) {
	t.Parallel()
	h := newHedger(t, hedge.Policy{MaxAttempts: 2, Delay: time.Second, Percentile: 0.9, MinSamples: 100})
	for i := 1; i <= 99; i++ {
		c := h.Begin(0, true)
		c.Finish(time.Duration(i)*ms, 0, retry.OK)
	}
	if d := h.Delay(); d != time.Second {
		t.Fatalf("Delay with 99 < MinSamples observed = %v, want the fixed 1s", d)
	}
	// The 100th first attempt is slow: the fixed 1s hedge wins at 1.05s and
	// the first attempt is cancelled then, observed as 1.05s.
	c := h.Begin(0, true)
	at, _ := c.NextAt()
	i, _ := c.Launch(at)
	c.Finish(1050*ms, i, retry.OK)
	if h.Observed() != 100 {
		t.Fatalf("Observed = %d, want 100", h.Observed())
	}
	// Nearest rank ⌈0.9·100⌉ = 90 of {1..99ms, 1.05s}: 90ms within 1/256.
	if d := h.Delay(); math.Abs(float64(d-90*ms)) > float64(90*ms)/256 {
		t.Fatalf("Delay = %v, want 90ms ± 1/256", d)
	}
	if c := h.Begin(0, true); c.Delay() != h.Delay() {
		t.Fatalf("a new call's delay %v, want the estimate %v", c.Delay(), h.Delay())
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		field string
		p     hedge.Policy
	}{
		{"MaxAttempts", hedge.Policy{MaxAttempts: 0}},
		{"MaxAttempts", hedge.Policy{MaxAttempts: 12}},
		{"Delay", hedge.Policy{MaxAttempts: 2, Delay: -1}},
		{"Percentile", hedge.Policy{MaxAttempts: 2, Percentile: 1, MinSamples: 1}},
		{"MinSamples", hedge.Policy{MaxAttempts: 2, Percentile: 0.95}},
		{"NonFatal[1]", hedge.Policy{MaxAttempts: 2, NonFatal: []retry.Outcome{retry.Transient, retry.OK}}},
		{"NonFatal[0]", hedge.Policy{MaxAttempts: 2, NonFatal: []retry.Outcome{99}}},
	}
	for _, tt := range tests {
		if _, err := hedge.New(tt.p); err == nil || !strings.Contains(err.Error(), tt.field+":") {
			t.Errorf("New(%+v): err = %v, want one naming %s", tt.p, err, tt.field)
		}
	}
}

// TestFirstAnswerWins drives a Call with an event loop over scripted
// attempt latencies X₀, X₁, … and checks the model the validation rests on:
// without failures the request ends at min over i of (i·Delay + Xᵢ), the
// attempts launched are those due before then, all but the winner are
// cancelled, and nothing stays in flight.
func TestFirstAnswerWins(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		m := rapid.IntRange(1, 6).Draw(rt, "max")
		delay := time.Duration(rapid.IntRange(0, 100).Draw(rt, "delay")) * ms
		xs := make([]time.Duration, m)
		for i := range xs {
			xs[i] = time.Duration(rapid.IntRange(1, 400).Draw(rt, "x")) * ms
		}
		h, err := hedge.New(hedge.Policy{MaxAttempts: m, Delay: delay})
		if err != nil {
			rt.Fatal(err)
		}
		c := h.Begin(0, true)
		ends := map[int]time.Duration{0: xs[0]}
		var end time.Duration
		for !c.Done() {
			// The earliest event; a finish goes before a launch at the same instant.
			first, at := -1, time.Duration(math.MaxInt64)
			for i, e := range ends {
				if e < at || (e == at && i < first) {
					first, at = i, e
				}
			}
			if due, ok := c.NextAt(); ok && due < at {
				i, _ := c.Launch(due)
				ends[i] = due + xs[i]
				continue
			}
			d := c.Finish(at, first, retry.OK)
			delete(ends, first)
			if !d.Done || d.Winner != first {
				rt.Fatalf("Finish(%v, %d) = %+v", at, first, d)
			}
			end = at
			for _, j := range d.Cancel {
				delete(ends, j)
			}
		}
		want := time.Duration(math.MaxInt64)
		launched := 0
		for i, x := range xs {
			want = min(want, time.Duration(i)*delay+x)
		}
		for i := range xs {
			if time.Duration(i)*delay < want {
				launched++
			}
		}
		if end != want {
			rt.Fatalf("request ended at %v, want min(i·d + Xᵢ) = %v", end, want)
		}
		as := c.Attempts()
		if len(as) != launched {
			rt.Fatalf("launched %d attempts, want %d", len(as), launched)
		}
		cancelled := 0
		for _, a := range as {
			if a.InFlight {
				rt.Fatalf("attempt %+v still in flight", a)
			}
			if a.Cancelled {
				cancelled++
			}
		}
		if cancelled != launched-1 {
			rt.Fatalf("%d cancelled of %d launched, want all but the winner", cancelled, launched)
		}
	})
}
