package retry

import (
	"fmt"
	"time"

	"github.com/budgetsim/budgetsim/model/backoff"
	"github.com/budgetsim/budgetsim/model/deadline"
)

// Result is what one attempt reports to a Runner.
type Result struct {
	// Outcome classifies how the attempt ended.
	Outcome Outcome
	// RetryAfter is the server's Retry-After, meaningful when HasRetryAfter
	// is set (see ParseRetryAfter).
	RetryAfter    time.Duration
	HasRetryAfter bool
	// Err carries detail for the caller; the Runner does not inspect it.
	// For a Refused attempt it is the *deadline.RefusedError.
	Err error
}

// Attempt records one attempt of a Runner.Run, so that a slow or failed
// call can be explained without rerunning it: what was left, what was
// granted, what came back and what was decided. Attempt n is an HTTP resend
// with OpenTelemetry's http.request.resend_count = n − 1.
type Attempt struct {
	// N is the 1-based attempt number.
	N int
	// Start is the instant the attempt was dialed (or refused).
	Start time.Duration
	// Remaining is deadline − Start (deadline.Unlimited without one).
	Remaining time.Duration
	// Lease is the timeout granted; 0 when the attempt was refused.
	Lease time.Duration
	// Outcome, RetryAfter and HasRetryAfter are what the attempt reported.
	Outcome       Outcome
	RetryAfter    time.Duration
	HasRetryAfter bool
	// Decision is what Decide made of it.
	Decision Decision
}

// String formats a one-line log record, e.g.
// "attempt 1: remaining 2s, lease 250ms, transient, retry-after 0s → retrying after 0s".
func (a Attempt) String() string {
	rem := "no deadline"
	if a.Remaining != deadline.Unlimited {
		rem = "remaining " + a.Remaining.String()
	}
	s := fmt.Sprintf("attempt %d: %s, lease %v, %v", a.N, rem, a.Lease, a.Outcome)
	if a.HasRetryAfter {
		s += fmt.Sprintf(", retry-after %v", a.RetryAfter)
	}
	s += " → " + a.Decision.Reason.String()
	if a.Decision.Retry {
		s += fmt.Sprintf(" after %v", a.Decision.Sleep)
	}
	return s
}

// Trace is the record of every attempt of one Runner.Run, in order. The last
// element's Decision.Reason says why the call ended.
type Trace []Attempt

// Runner drives one logical call through its attempts on a clock: lease,
// attempt, decide, sleep, repeat. It is the production shape of the loop
// the simulator runs on virtual time; with the real clock:
//
//	origin := time.Now()
//	r := retry.Runner{
//		Now:   func() time.Duration { return time.Since(origin) },
//		Sleep: time.Sleep,
//		Rand:  rand.New(rand.NewPCG(seed1, seed2)).Float64,
//	}
//
// A Runner holds no state of its own between calls; it is as safe for
// concurrent use as its functions and Budget are.
type Runner struct {
	// Now returns the current instant on the deadline's monotonic clock.
	// Required.
	Now func() time.Duration
	// Sleep waits for the given duration. Required if any retry sleeps.
	Sleep func(time.Duration)
	// Rand returns a uniform draw in [0, 1) for the jitter. Required unless
	// the policy's jitter is backoff.None or every sleep is a Retry-After.
	Rand func() float64
	// Budget is the retry budget shared with other calls; nil means none.
	Budget Budget
}

// Run performs the call: before each attempt it re-reads the clock and asks
// d for a lease of at most ceiling (≤ 0: no ceiling); a refusal ends the call
// with Outcome Refused without dialing. Otherwise it calls attempt(n, lease),
// which must give up after lease (e.g. context.WithTimeout), reports the
// attempt to the Budget, and lets Decide rule on retrying, sleeping first
// when told to. It returns the last attempt's Result and the Trace.
//
// Only the first attempt can be refused on an exact clock: Decide grants a
// retry only if FitsSleep says the lease after the sleep will be granted. On
// a real clock a late wake-up can still get a retry refused.
func (r Runner) Run(d deadline.Deadline, p Policy, ceiling time.Duration,
	attempt func(n int, lease time.Duration) Result) (Result, Trace) {
	var (
		trace     Trace
		prevSleep time.Duration
		prev      Outcome
	)
	for n := 1; ; n++ {
		now := r.Now()
		rec := Attempt{N: n, Start: now, Remaining: d.Remaining(now)}
		lease, err := d.Lease(now, ceiling)
		var res Result
		if err != nil {
			res = Result{Outcome: Refused, Err: err}
		} else {
			rec.Lease = lease
			if r.Budget != nil {
				r.Budget.OnAttempt(now, n)
			}
			res = attempt(n, lease)
			now = r.Now()
			if r.Budget != nil {
				r.Budget.OnResult(now, n, res.Outcome, prev)
			}
		}
		rec.Outcome, rec.RetryAfter, rec.HasRetryAfter = res.Outcome, res.RetryAfter, res.HasRetryAfter
		u := 0.0
		if res.Outcome.Retryable() && p.Backoff.Jitter != backoff.None &&
			!(p.HonorRetryAfter && res.HasRetryAfter) {
			if r.Rand == nil {
				panic("retry: Runner.Rand is nil but the backoff has jitter")
			}
			u = r.Rand()
		}
		rec.Decision = Decide(Input{
			Policy:        p,
			Attempt:       n,
			Outcome:       res.Outcome,
			RetryAfter:    res.RetryAfter,
			HasRetryAfter: res.HasRetryAfter,
			PrevSleep:     prevSleep,
			U:             u,
			Now:           now,
			Deadline:      d,
			Budget:        r.Budget,
		})
		trace = append(trace, rec)
		if !rec.Decision.Retry {
			return res, trace
		}
		if s := rec.Decision.Sleep; s > 0 {
			r.Sleep(s)
		}
		prevSleep, prev = rec.Decision.Sleep, res.Outcome
	}
}
