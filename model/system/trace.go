package system

import (
	"time"

	"github.com/budgetsim/budgetsim/model/retry"
)

// AttemptRecord describes one attempt (or one local refusal) of a traced run:
// what the budget granted and what remained, so that a slow run can be
// explained without rerunning it.
type AttemptRecord struct {
	Run     int64
	Step    string
	Tool    string
	Attempt int
	// Start is the instant the attempt was dialed (or refused).
	Start time.Duration
	// Granted is the lease (the per-attempt timeout actually used).
	Granted time.Duration
	// Remaining is what was left of the run's deadline before the attempt.
	Remaining time.Duration
	// HasDeadline reports whether the run has a deadline (else Remaining is
	// meaningless).
	HasDeadline bool
	Outcome     retry.Outcome
	// Served is the instant a tool with concurrency started serving the
	// call, or -1: the tool has no concurrency limit, the call was turned
	// away or answered from a cache, or the attempt ended (the caller gave
	// up) before service started. Served − Start is the call's queueing
	// delay at the tool.
	Served time.Duration
	// Latency is how long the attempt took until its reply or its timeout.
	Latency time.Duration
	// Backoff is the sleep chosen after the attempt, or -1 when none.
	Backoff time.Duration
	// ResendCount is OpenTelemetry's http.request.resend_count: attempts
	// before this one for the same step.
	ResendCount int
	// Decision is why the run retried or stopped after this attempt.
	Decision string
	// Lane is 0 for a run's own calls, and 1 + the member's index for the
	// calls of a member of a parallel or hedged step, which overlap the
	// run's other calls.
	Lane int
	// Turn is the 1-based turn of the agent loop the step belongs to, or
	// 0 outside loops.
	Turn int
	// Group marks the record of a parallel or hedged step as a whole
	// (Step is its name, Tool empty): Latency is its time, from its start
	// to its end.
	Group bool
	// InputTokens and OutputTokens are the usage a successful call to a
	// tool with tokens reported; CacheReadTokens and CacheWriteTokens the
	// part of its input read from and written to the prompt cache. All
	// are -1 for other attempts.
	InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens int64
	// TTFT is a successful model call's time to its first token (its
	// latency less the time its output took), or -1: another attempt, or
	// a tool without a time per output token.
	TTFT time.Duration
	// RetryAfter is the Retry-After the attempt's answer carried, or -1.
	RetryAfter time.Duration
}

// RunRecord describes one traced run from arrival to its end.
type RunRecord struct {
	Run     int64
	Arrived time.Duration
	// Started is when it got a worker, or -1 if it never did.
	Started time.Duration
	Ended   time.Duration
	Outcome RunOutcome
	// Deadline is the run's deadline instant, or -1 when it has none.
	Deadline time.Duration
	// Class is the run's class of work, "" when the scenario has none.
	Class string
}

// Tracer receives trace records. The record passed to Attempt is reused
// after the call returns: copy what you keep.
type Tracer interface {
	Attempt(rec *AttemptRecord)
	Run(rec RunRecord)
}

// turnOf is the Turn of r's records: its 1-based turn when its step is
// in an agent loop, else 0.
func (m *Model) turnOf(r *run) int {
	if m.steps[r.step].loop == 0 {
		return 0
	}
	return int(r.turn) + 1
}
