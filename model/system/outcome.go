package system

import "fmt"

// RunOutcome is how a run ended.
type RunOutcome int

// The run outcomes, in the order the summary lists them.
const (
	// Completed: every step succeeded.
	Completed RunOutcome = iota
	// Rejected: the waiting room was full on arrival.
	Rejected
	// Expired: the deadline passed while the run was queued; it was dropped
	// at dequeue.
	Expired
	// Refused: a call was refused locally before it was dialed, and no
	// fallback took over: what remained of the deadline was below the floor
	// (or the minimum lease), the wait for a client-side rate-limit token
	// would have outlasted it, or the cost reservation did not fit the
	// budget (AttemptCounts.Refused breaks the calls down).
	Refused
	// DeadlineExceeded: the deadline ended an attempt, or a backoff sleep or
	// a Retry-After would have outlasted it.
	DeadlineExceeded
	// Failed: a non-retryable error, attempts exhausted, an unsafe retry
	// not taken, or the retry budget exhausted.
	Failed
	numOutcomes
)

var outcomeNames = [...]string{"completed", "rejected", "expired", "refused", "deadline_exceeded", "failed"}

// String returns the outcome's name as used in summaries.
func (o RunOutcome) String() string {
	if o < 0 || o >= numOutcomes {
		return "unknown"
	}
	return outcomeNames[o]
}

// Counts are the outcomes of the measured runs (those that arrived after
// the warm-up). The conservation law
//
//	Arrived = Completed + Rejected + Expired + Refused + DeadlineExceeded + Failed + InFlight
//
// holds at the end of every simulation (Check verifies it).
type Counts struct {
	Arrived          int64 `json:"arrived"`
	Completed        int64 `json:"completed"`
	Rejected         int64 `json:"rejected"`
	Expired          int64 `json:"expired"`
	Refused          int64 `json:"refused"`
	DeadlineExceeded int64 `json:"deadline_exceeded"`
	Failed           int64 `json:"failed"`
	InFlight         int64 `json:"in_flight"`
}

func (c *Counts) add(o RunOutcome) {
	switch o {
	case Completed:
		c.Completed++
	case Rejected:
		c.Rejected++
	case Expired:
		c.Expired++
	case Refused:
		c.Refused++
	case DeadlineExceeded:
		c.DeadlineExceeded++
	case Failed:
		c.Failed++
	}
}

// Ended returns the number of runs that left the system.
func (c Counts) Ended() int64 {
	return c.Completed + c.Rejected + c.Expired + c.Refused + c.DeadlineExceeded + c.Failed
}

// Check reports a non-nil error when the conservation law is violated.
func (c Counts) Check() error {
	if c.Arrived != c.Ended()+c.InFlight {
		return conservationError{c}
	}
	return nil
}

// Merge adds o's counts to c.
func (c *Counts) Merge(o Counts) {
	c.Arrived += o.Arrived
	c.Completed += o.Completed
	c.Rejected += o.Rejected
	c.Expired += o.Expired
	c.Refused += o.Refused
	c.DeadlineExceeded += o.DeadlineExceeded
	c.Failed += o.Failed
	c.InFlight += o.InFlight
}

type conservationError struct{ c Counts }

func (e conservationError) Error() string {
	c := e.c
	return fmt.Sprintf("system: conservation law violated: arrived %d != ended %d + in flight %d", c.Arrived, c.Ended(), c.InFlight)
}

// AttemptCounts are per-attempt counters of the measured runs.
type AttemptCounts struct {
	// Attempts is the number of calls dialed (refusals excluded).
	Attempts int64 `json:"attempts"`
	// Retries is the number of attempts after the first of a step.
	Retries int64 `json:"retries"`
	// OK, Timeouts, Transient, RateLimited, Permanent count attempt outcomes.
	OK          int64 `json:"ok"`
	Timeouts    int64 `json:"timeouts"`
	Transient   int64 `json:"transient"`
	RateLimited int64 `json:"rate_limited"`
	Permanent   int64 `json:"permanent"`
	// Overloaded counts the provider's own overload answers (a 529
	// overloaded_error, or a 503 a profile names so), apart from the 429s
	// of the caller's limits: retried without a Retry-After, not billed.
	Overloaded int64 `json:"overloaded,omitempty"`
	// Refused counts calls refused locally before dialing, for any of three
	// reasons: RefusedLease (the lease the deadline grants is below the floor
	// or the minimum lease), RefusedTokenWait (the wait for a client-side
	// rate-limit token would outlast the deadline) and a cost reservation
	// that does not fit (CostStats.Refused).
	Refused          int64 `json:"refused"`
	RefusedLease     int64 `json:"refused_lease"`
	RefusedTokenWait int64 `json:"refused_token_wait"`
	// RefusedLimit counts calls refused by a tool's adaptive concurrency
	// limit: on_limit: reject at the limit, or a wait for a slot that
	// would outlast the deadline (also in Refused).
	RefusedLimit int64 `json:"refused_concurrency_limit,omitempty"`
	// RefusedBreaker counts the calls an open circuit breaker refused (a
	// fourth reason, absent from scenarios without one).
	RefusedBreaker int64 `json:"refused_breaker,omitempty"`
	// RefusedWindow counts the model calls of an agent loop whose input
	// would exceed the context window (loop.go).
	RefusedWindow int64 `json:"refused_window,omitempty"`
	// FirstTokenTimeouts counts the streaming calls cut because no first
	// token came within their step's first_token_timeout (also in
	// Timeouts); StreamCuts the streaming calls that timed out or were
	// cancelled after their first token, billed and counted for the
	// tokens produced by then (also in Timeouts, or Cancelled).
	FirstTokenTimeouts int64 `json:"first_token_timeouts,omitempty"`
	StreamCuts         int64 `json:"stream_cuts,omitempty"`
	// WastedSeconds is the attempt time spent on attempts that did not
	// succeed (timeouts and errors).
	WastedSeconds float64 `json:"wasted_attempt_s"`
	// BackoffSeconds is the total time spent sleeping between attempts.
	BackoffSeconds float64 `json:"backoff_s"`
	// Duplicates counts retries and fallbacks that may have executed a
	// non-idempotent call twice: allow_unsafe retries without a key, and
	// allow_unsafe fallbacks after a timeout (a key does not travel to
	// another tool).
	Duplicates int64 `json:"duplicate_executions"`
	// RetryAfterHonored counts sleeps taken from a server's Retry-After.
	RetryAfterHonored int64 `json:"retry_after_honored"`
	// BudgetDenied counts retries a retry budget refused.
	BudgetDenied int64 `json:"budget_denied"`
	// Fallbacks counts steps that switched to a fallback tool.
	Fallbacks int64 `json:"fallbacks"`
	// UnsafeFallbacks counts fallbacks withheld because an attempt of the
	// step may have executed (it timed out) and the step is not idempotent.
	UnsafeFallbacks int64 `json:"fallbacks_withheld_unsafe"`
	// Cancelled counts calls cancelled because their parallel or hedged
	// step was decided without them.
	Cancelled int64 `json:"cancelled,omitempty"`
}

// Merge adds o's counters to a.
func (a *AttemptCounts) Merge(o AttemptCounts) {
	a.Attempts += o.Attempts
	a.Retries += o.Retries
	a.OK += o.OK
	a.Timeouts += o.Timeouts
	a.Transient += o.Transient
	a.RateLimited += o.RateLimited
	a.Overloaded += o.Overloaded
	a.Permanent += o.Permanent
	a.Refused += o.Refused
	a.RefusedLease += o.RefusedLease
	a.RefusedTokenWait += o.RefusedTokenWait
	a.RefusedLimit += o.RefusedLimit
	a.RefusedBreaker += o.RefusedBreaker
	a.RefusedWindow += o.RefusedWindow
	a.FirstTokenTimeouts += o.FirstTokenTimeouts
	a.StreamCuts += o.StreamCuts
	a.WastedSeconds += o.WastedSeconds
	a.BackoffSeconds += o.BackoffSeconds
	a.Duplicates += o.Duplicates
	a.RetryAfterHonored += o.RetryAfterHonored
	a.BudgetDenied += o.BudgetDenied
	a.Fallbacks += o.Fallbacks
	a.UnsafeFallbacks += o.UnsafeFallbacks
	a.Cancelled += o.Cancelled
}
