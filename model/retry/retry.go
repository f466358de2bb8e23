// Package retry decides whether a failed attempt is tried again, and after
// how long: by outcome class, idempotency, Retry-After, the run's deadline
// and an optional retry budget shared across calls.
//
// Decide is the decision as a function of one Input, with the clock reading
// and the uniform draw passed in, so the simulator runs exactly the code a
// production agent runs. Runner is a small driver around it for the real
// clock (see the package example, which retries an HTTP call).
//
// # Order of the rules
//
// Decide applies its rules in this order and stops at the first that
// decides:
//
//  1. OK → Success.
//  2. Not Retryable (Permanent, Refused) → NotRetryable.
//  3. The attempt that ended was the last allowed (Attempt ≥ Attempts) →
//     AttemptsExhausted.
//  4. Neither Idempotent nor carrying an IdempotencyKey, and AllowUnsafe not
//     set → Unsafe. With AllowUnsafe the retry goes ahead and Decision.Duplicate
//     says whether it may execute the request a second time.
//  5. The sleep is chosen: a Retry-After, when present and honoured, replaces
//     the local backoff (RFC 9110 §10.2.3), spread upwards by
//     Policy.RetryAfterJitter so that clients told the same instant do not
//     all come back at it; otherwise backoff.Policy.Delay.
//  6. The sleep is checked against the deadline (deadline.Deadline.FitsSleep):
//     a Retry-After that does not fit → RetryAfterOutlastsDeadline, a backoff
//     that does not fit → SleepOutlastsDeadline. Giving up now leaves time to
//     report; waiting would not.
//  7. The retry budget, if any, is asked last, so that only a retry that would
//     otherwise happen withdraws from it → BudgetExhausted.
//  8. Otherwise → Retrying, after Decision.Sleep.
//
// # Retry budgets
//
// A Budget bounds retries across many calls so that a struggling backend is
// not hit by a retry storm: TokenBucket (AWS SDK standard mode), Throttle
// (gRPC retry throttling, gRFC A6) and Ratio (Finagle's RetryBudget). The
// caller reports every dialed attempt to it (OnAttempt, OnResult); Decide
// only asks AllowRetry. Runner does all three.
package retry

import (
	"fmt"
	"time"

	"github.com/budgetsim/budgetsim/model/backoff"
	"github.com/budgetsim/budgetsim/model/deadline"
)

// Policy is one step's retry policy. It is a plain value, safe for
// concurrent use.
type Policy struct {
	// Attempts is the maximum number of attempts including the first; 1
	// means no retries. Values below 1 are treated as 1 (Validate rejects
	// them).
	Attempts int
	// Backoff computes the local sleep between attempts.
	Backoff backoff.Policy
	// HonorRetryAfter makes a server's Retry-After replace the local backoff.
	HonorRetryAfter bool
	// RetryAfterJitter spreads an honoured Retry-After upwards: the sleep is
	// RetryAfter × (1 + RetryAfterJitter × U), at least what the server
	// asked and at most RetryAfterJitter more, so that clients told the same
	// instant (every caller a rate limiter turned away gets the time to its
	// next token) do not retry in unison. 0 sleeps exactly the Retry-After.
	RetryAfterJitter float64
	// Idempotent declares the request safe to repeat (RFC 9110 §9.2.2: GET,
	// HEAD, PUT, DELETE, …). The method's definition constrains the method,
	// not the implementation behind it; declare what the endpoint honours.
	Idempotent bool
	// IdempotencyKey declares that the request carries a client-supplied
	// key the server uses to execute it at most once, so repeating it is
	// safe although the method is not idempotent.
	IdempotencyKey bool
	// AllowUnsafe forces retries of a request that is neither idempotent nor
	// keyed. Such retries happen and are flagged Decision.Duplicate when the
	// failed attempt may have executed.
	AllowUnsafe bool
}

// Validate reports the first invalid field, naming it and its value.
func (p Policy) Validate() error {
	if p.Attempts < 1 {
		return fmt.Errorf("attempts: must be ≥ 1, got %d", p.Attempts)
	}
	if err := p.Backoff.Validate(); err != nil {
		return fmt.Errorf("backoff: %w", err)
	}
	if !(p.RetryAfterJitter >= 0 && p.RetryAfterJitter <= MaxRetryAfterJitter) {
		return fmt.Errorf("retry_after_jitter: must be in [0, %g], got %g", float64(MaxRetryAfterJitter), p.RetryAfterJitter)
	}
	return nil
}

// MaxRetryAfterJitter bounds Policy.RetryAfterJitter: a sleep of up to
// twice what the server asked is already barely honouring it.
const MaxRetryAfterJitter = 1

// DefaultRetryAfterJitter is the spread scenarios get unless they say
// otherwise: up to a fifth more than the Retry-After, the width gRPC gives
// its own backoff jitter (±20 %).
const DefaultRetryAfterJitter = 0.2

// safe reports whether repeating the request cannot execute it twice.
func (p Policy) safe() bool { return p.Idempotent || p.IdempotencyKey }

// MayRetry reports whether Decide can ever allow a retry under p: the
// request is safe to repeat (idempotent or keyed) or AllowUnsafe forces
// it. When it is false, every failure ends the step however many
// Attempts p allows.
func (p Policy) MayRetry() bool { return p.safe() || p.AllowUnsafe }

// Reason says why Decide decided what it did. The zero value is invalid, so
// an unset Decision is recognisable.
type Reason int

// The reasons, in the order Decide checks them (see the package doc).
const (
	// Success: the attempt succeeded; nothing to retry.
	Success Reason = iota + 1
	// NotRetryable: the outcome cannot be helped by retrying (Permanent,
	// Refused).
	NotRetryable
	// AttemptsExhausted: the attempt that ended was the last allowed.
	AttemptsExhausted
	// Unsafe: the request is neither idempotent nor keyed and AllowUnsafe is
	// not set.
	Unsafe
	// RetryAfterOutlastsDeadline: the server's Retry-After would leave no
	// lease the deadline grants.
	RetryAfterOutlastsDeadline
	// SleepOutlastsDeadline: the backoff sleep would leave no lease the
	// deadline grants.
	SleepOutlastsDeadline
	// BudgetExhausted: the retry budget denied the retry.
	BudgetExhausted
	// Retrying: retry after Decision.Sleep.
	Retrying
)

var reasonNames = [...]string{
	Success:                    "success",
	NotRetryable:               "not_retryable",
	AttemptsExhausted:          "attempts_exhausted",
	Unsafe:                     "unsafe",
	RetryAfterOutlastsDeadline: "retry_after_outlasts_deadline",
	SleepOutlastsDeadline:      "sleep_outlasts_deadline",
	BudgetExhausted:            "budget_exhausted",
	Retrying:                   "retrying",
}

// String returns the reason in snake case, e.g. "sleep_outlasts_deadline",
// or "Reason(n)" for an invalid value.
func (r Reason) String() string {
	if r >= Success && int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// Input is everything Decide needs about the attempt that just ended.
type Input struct {
	// Policy is the step's retry policy.
	Policy Policy
	// Attempt is the 1-based number of the attempt that just ended.
	Attempt int
	// Outcome is how it ended.
	Outcome Outcome
	// RetryAfter is the server's requested wait, meaningful only when
	// HasRetryAfter is set. A negative value counts as 0.
	RetryAfter    time.Duration
	HasRetryAfter bool
	// PrevSleep is the sleep before the attempt that just ended (0 before
	// the first retry); Decorrelated jitter grows from it.
	PrevSleep time.Duration
	// U is a uniform draw in [0, 1) for the jitter: the backoff's, or the
	// Retry-After's spread. Decide panics if it is outside that range and a
	// jittered sleep is computed.
	U float64
	// Now is the current instant on the deadline's clock.
	Now time.Duration
	// Deadline is the run's deadline; the zero Deadline is none.
	Deadline deadline.Deadline
	// Budget is the retry budget to withdraw from; nil means none.
	Budget Budget
}

// Decision is Decide's answer.
type Decision struct {
	// Retry reports whether to try again after Sleep.
	Retry bool
	// Sleep is the wait before the next attempt. It is also set when the
	// sleep was chosen but the retry denied (the deadline or the budget
	// said no), for the record; do not sleep when Retry is false.
	Sleep time.Duration
	// FromRetryAfter reports that Sleep is the server's Retry-After rather
	// than the local backoff.
	FromRetryAfter bool
	// Reason says why.
	Reason Reason
	// Duplicate reports a retry that may execute the request a second time:
	// a forced (AllowUnsafe) retry of an unsafe request whose failed attempt
	// may have executed (Outcome.MayHaveExecuted).
	Duplicate bool
}

// retryAfterSleep is ra spread upwards by the fraction jitter of it, at
// the uniform u; ra itself when jitter is 0.
func retryAfterSleep(ra time.Duration, jitter, u float64) time.Duration {
	if jitter == 0 || ra == 0 {
		return ra
	}
	if u < 0 || u >= 1 {
		panic(fmt.Sprintf("retry: Decide: U must be in [0, 1), got %v", u))
	}
	extra := float64(ra) * jitter * u
	if extra >= float64(maxDuration-ra) {
		return maxDuration
	}
	return ra + time.Duration(extra)
}

const maxDuration = time.Duration(1<<63 - 1)

// Decide decides whether to retry after the attempt in.Attempt ended with
// in.Outcome, applying the rules in the order given in the package doc. It
// is a pure function of in, except that when the retry would otherwise
// happen it asks in.Budget (if any), which withdraws from it on success.
// It does not allocate. It panics if in.Attempt < 1.
func Decide(in Input) Decision {
	if in.Attempt < 1 {
		panic(fmt.Sprintf("retry: Decide: Attempt must be ≥ 1, got %d", in.Attempt))
	}
	p := in.Policy
	switch {
	case in.Outcome == OK:
		return Decision{Reason: Success}
	case !in.Outcome.Retryable():
		return Decision{Reason: NotRetryable}
	case in.Attempt >= max(p.Attempts, 1):
		return Decision{Reason: AttemptsExhausted}
	case !p.MayRetry():
		return Decision{Reason: Unsafe}
	}
	d := Decision{Duplicate: !p.safe() && in.Outcome.MayHaveExecuted()}
	if p.HonorRetryAfter && in.HasRetryAfter {
		d.Sleep, d.FromRetryAfter = retryAfterSleep(max(in.RetryAfter, 0), p.RetryAfterJitter, in.U), true
		if !in.Deadline.FitsSleep(in.Now, d.Sleep) {
			d.Reason, d.Duplicate = RetryAfterOutlastsDeadline, false
			return d
		}
	} else {
		d.Sleep = p.Backoff.Delay(in.Attempt, in.PrevSleep, in.U)
		if !in.Deadline.FitsSleep(in.Now, d.Sleep) {
			d.Reason, d.Duplicate = SleepOutlastsDeadline, false
			return d
		}
	}
	if in.Budget != nil && !in.Budget.AllowRetry(in.Now, in.Outcome) {
		d.Reason, d.Duplicate = BudgetExhausted, false
		return d
	}
	d.Retry, d.Reason = true, Retrying
	return d
}
