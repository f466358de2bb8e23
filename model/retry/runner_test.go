package retry

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/backoff"
	"github.com/budgetsim/budgetsim/model/deadline"
)

// fakeClock is a virtual clock: Sleep advances it, and so does each
// scripted attempt by its latency.
type fakeClock struct {
	now    time.Duration
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Duration { return c.now }
func (c *fakeClock) Sleep(d time.Duration) {
	c.sleeps = append(c.sleeps, d)
	c.now += d
}

// scripted returns an attempt func that answers with results[n−1] after
// latency (cut to the lease, as a real timeout would) and records leases.
func scripted(c *fakeClock, latency time.Duration, leases *[]time.Duration, results ...Result) func(int, time.Duration) Result {
	return func(n int, lease time.Duration) Result {
		*leases = append(*leases, lease)
		if latency > lease {
			c.now += lease
			return Result{Outcome: Timeout}
		}
		c.now += latency
		return results[n-1]
	}
}

// recorder is a Budget that logs the protocol.
type recorder struct{ log []string }

func (r *recorder) OnAttempt(now time.Duration, n int) {
	r.log = append(r.log, fmt.Sprintf("dial %d @%v", n, now))
}
func (r *recorder) OnResult(now time.Duration, n int, o, prev Outcome) {
	r.log = append(r.log, fmt.Sprintf("result %d %v prev %v @%v", n, o, prev, now))
}
func (r *recorder) AllowRetry(now time.Duration, o Outcome) bool {
	r.log = append(r.log, fmt.Sprintf("allow %v @%v", o, now))
	return true
}

func TestRunnerRetriesThenSucceeds(t *testing.T) {
	t.Parallel()
	c := &fakeClock{now: 1 * s}
	b := &recorder{}
	r := Runner{Now: c.Now, Sleep: c.Sleep, Rand: func() float64 { return 0.5 }, Budget: b}
	p := Policy{Attempts: 4, Idempotent: true, HonorRetryAfter: true,
		Backoff: backoff.Policy{Base: 100 * ms, Cap: s, Multiplier: 2, Jitter: backoff.Full}}
	var leases []time.Duration
	d := deadline.After(1*s, 2*s).WithFloor(20 * ms)
	res, tr := r.Run(d, p, 500*ms, scripted(c, 30*ms, &leases,
		Result{Outcome: Transient},
		Result{Outcome: RateLimited, RetryAfter: 300 * ms, HasRetryAfter: true},
		Result{Outcome: OK},
	))
	if res.Outcome != OK || len(tr) != 3 {
		t.Fatalf("Run = %v after %d attempts, want ok after 3", res.Outcome, len(tr))
	}
	// Attempt 1 at 1s: lease min(500ms, 2s−20ms); ends 1.03s; full jitter u=0.5 of 100ms → 50ms.
	// Attempt 2 at 1.08s; ends 1.11s; Retry-After 300ms.
	// Attempt 3 at 1.41s: remaining 1.59s.
	want := Trace{
		{N: 1, Start: 1 * s, Remaining: 2 * s, Lease: 500 * ms, Outcome: Transient,
			Decision: Decision{Retry: true, Sleep: 50 * ms, Reason: Retrying}},
		{N: 2, Start: 1080 * ms, Remaining: 1920 * ms, Lease: 500 * ms, Outcome: RateLimited, RetryAfter: 300 * ms, HasRetryAfter: true,
			Decision: Decision{Retry: true, Sleep: 300 * ms, FromRetryAfter: true, Reason: Retrying}},
		{N: 3, Start: 1410 * ms, Remaining: 1590 * ms, Lease: 500 * ms, Outcome: OK,
			Decision: Decision{Reason: Success}},
	}
	for i := range want {
		if tr[i] != want[i] {
			t.Errorf("trace[%d] = %+v\nwant       %+v", i, tr[i], want[i])
		}
	}
	wantLog := []string{
		"dial 1 @1s", "result 1 transient prev ok @1.03s", "allow transient @1.03s",
		"dial 2 @1.08s", "result 2 rate_limited prev transient @1.11s", "allow rate_limited @1.11s",
		"dial 3 @1.41s", "result 3 ok prev rate_limited @1.44s",
	}
	if fmt.Sprint(b.log) != fmt.Sprint(wantLog) {
		t.Errorf("budget protocol:\n got %q\nwant %q", b.log, wantLog)
	}
	if fmt.Sprint(c.sleeps) != "[50ms 300ms]" {
		t.Errorf("sleeps = %v, want [50ms 300ms]", c.sleeps)
	}
	const line = "attempt 2: remaining 1.92s, lease 500ms, rate_limited, retry-after 300ms → retrying after 300ms"
	if got := tr[1].String(); got != line {
		t.Errorf("tr[1].String() = %q, want %q", got, line)
	}
}

// TestRunnerLeaseShrinks: each hung attempt spends its whole lease, so the
// leases shrink to what remains; the call ends when the backoff would leave
// less than floor + min lease. Because FitsSleep checked the sleep, a retry
// is never refused on an exact clock.
func TestRunnerLeaseShrinks(t *testing.T) {
	t.Parallel()
	c := &fakeClock{}
	r := Runner{Now: c.Now, Sleep: c.Sleep}
	p := Policy{Attempts: 10, Idempotent: true, Backoff: backoff.Policy{Base: 10 * ms, Cap: 10 * ms, Multiplier: 1}}
	d := deadline.After(0, 1*s).WithFloor(20 * ms).WithMinLease(100 * ms)
	var leases []time.Duration
	res, tr := r.Run(d, p, 400*ms, scripted(c, time.Hour, &leases))
	// 0: lease 400 → 410: 400 → 820: 160 (980−820) → at 980 a 10ms sleep
	// would leave 10ms − 20ms floor: give up.
	if fmt.Sprint(leases) != "[400ms 400ms 160ms]" {
		t.Errorf("leases = %v, want [400ms 400ms 160ms]", leases)
	}
	last := tr[len(tr)-1]
	if res.Outcome != Timeout || len(tr) != 3 || last.Decision.Reason != SleepOutlastsDeadline {
		t.Errorf("Run = %v after %d attempts, last %v; want timeout after 3, sleep_outlasts_deadline", res.Outcome, len(tr), last)
	}
}

// TestRunnerRefusesFirstAttempt: a deadline that starts below floor + min
// lease is refused before dialing.
func TestRunnerRefusesFirstAttempt(t *testing.T) {
	t.Parallel()
	c := &fakeClock{}
	b := &recorder{}
	r := Runner{Now: c.Now, Sleep: c.Sleep, Budget: b}
	dialed := false
	res, tr := r.Run(deadline.After(0, 10*ms).WithFloor(20*ms), Policy{Attempts: 3, Idempotent: true}, 250*ms,
		func(int, time.Duration) Result { dialed = true; return Result{} })
	if dialed || res.Outcome != Refused || !errors.Is(res.Err, deadline.ErrRefused) {
		t.Errorf("Run = %+v, dialed %v; want Refused with deadline.ErrRefused, not dialed", res, dialed)
	}
	if len(tr) != 1 || tr[0].Lease != 0 || tr[0].Remaining != 10*ms || tr[0].Decision.Reason != NotRetryable {
		t.Errorf("trace = %v, want one refused attempt with 10ms remaining", tr)
	}
	if len(b.log) != 0 {
		t.Errorf("budget saw %q for a refused attempt, want nothing", b.log)
	}
}

// TestRunnerGivesUpBeforeSleeping: a Retry-After longer than what remains
// ends the call at once, without sleeping.
func TestRunnerGivesUpBeforeSleeping(t *testing.T) {
	t.Parallel()
	c := &fakeClock{}
	r := Runner{Now: c.Now, Sleep: c.Sleep}
	p := Policy{Attempts: 3, Idempotent: true, HonorRetryAfter: true}
	var leases []time.Duration
	res, tr := r.Run(deadline.After(0, 2*s), p, 0, scripted(c, 100*ms, &leases,
		Result{Outcome: Transient, RetryAfter: 5 * s, HasRetryAfter: true}))
	if res.Outcome != Transient || len(tr) != 1 || tr[0].Decision.Reason != RetryAfterOutlastsDeadline || len(c.sleeps) != 0 {
		t.Errorf("Run = %v, %d attempts, reason %v, sleeps %v; want transient, 1, retry_after_outlasts_deadline, none",
			res.Outcome, len(tr), tr[0].Decision.Reason, c.sleeps)
	}
	if leases[0] != 2*s {
		t.Errorf("lease with no ceiling = %v, want the 2s remaining", leases[0])
	}
}

func TestRunnerNoDeadline(t *testing.T) {
	t.Parallel()
	c := &fakeClock{}
	r := Runner{Now: c.Now, Sleep: c.Sleep}
	var leases []time.Duration
	_, tr := r.Run(deadline.None(), Policy{Attempts: 1}, 0, scripted(c, ms, &leases, Result{Outcome: OK}))
	if leases[0] != deadline.Unlimited || tr[0].Remaining != deadline.Unlimited {
		t.Errorf("no deadline, no ceiling: lease %v, remaining %v; want Unlimited", leases[0], tr[0].Remaining)
	}
	if got, want := tr[0].String(), "attempt 1: no deadline, lease 2562047h47m16.854775807s, ok → success"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestRunnerRandRequired(t *testing.T) {
	t.Parallel()
	c := &fakeClock{}
	r := Runner{Now: c.Now, Sleep: c.Sleep}
	p := Policy{Attempts: 2, Idempotent: true, Backoff: backoff.Policy{Base: ms, Cap: ms, Multiplier: 1, Jitter: backoff.Full}}
	defer func() {
		if recover() == nil {
			t.Errorf("Run with jitter and nil Rand did not panic")
		}
	}()
	var leases []time.Duration
	r.Run(deadline.None(), p, s, scripted(c, ms, &leases, Result{Outcome: Transient}, Result{Outcome: OK}))
}
