// Package hedge is the decision of a hedged request: send a call, and if no
// answer has come after a delay, send another copy in parallel; the first
// answer wins and the rest are cancelled. It follows gRPC's hedging policy
// (gRFC A6, "gRPC Retry Design": maxAttempts, hedgingDelay,
// nonFatalStatusCodes) and Polly v8's hedging strategy (MaxHedgedAttempts,
// Delay, DelayGenerator), with the delay optionally taken from a percentile
// of observed latency.
//
// The package decides; it does not send, wait or cancel. A [Call] tracks
// the attempts of one request and answers three questions: when the next
// attempt is due ([Call.NextAt]), what an ended attempt means ([Call.Finish]:
// the request is over, and which attempts to cancel, or it goes on), and
// what to cancel when the caller gives up ([Call.Abandon]). Time is an
// argument: every instant is a [time.Duration] from an arbitrary origin, so
// the same code runs on a simulator's virtual clock and, with
// now = time.Since(start), on the real clock. There is no package-level
// state.
//
// Hedging multiplies load. gRPC throttles hedges with its retry token
// bucket and counts every hedge as an attempt; a caller should do the same:
// ask its retry budget (model/retry.Budget.AllowRetry) before launching a
// hedge, lease the attempt from the run's deadline like any other, and call
// [Call.Stop] when either refuses.
package hedge

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Never is a Delay that sends no timed hedge: a new attempt starts only
// when one fails with a non-fatal outcome. It is Polly's fallback mode
// (Delay = Timeout.InfiniteTimeSpan).
const Never = time.Duration(math.MaxInt64)

// MaxAttemptsLimit is the largest MaxAttempts a [Policy] accepts: Polly's
// bound of 10 hedged attempts plus the first. gRPC treats a maxAttempts
// above 5 as 5; set MaxAttempts ≤ 5 to match it.
const MaxAttemptsLimit = 11

// Policy configures hedging for one kind of call. The zero value is
// invalid; [New] validates every field.
type Policy struct {
	// MaxAttempts is the most attempts a request may make, the first
	// included (gRPC's maxAttempts; Polly's MaxHedgedAttempts + 1, default
	// 2). 1 disables hedging. It must be in [1, MaxAttemptsLimit].
	MaxAttempts int
	// Delay is the time between the starts of successive attempts (gRPC's
	// hedgingDelay, default 0; Polly's Delay, default 2s). 0 sends all
	// attempts at once (Polly's parallel mode); [Never] sends a new attempt
	// only after a non-fatal failure. While Percentile is in use, Delay is
	// the delay until MinSamples latencies have been observed. It must be
	// ≥ 0.
	Delay time.Duration
	// Percentile, if not 0, takes the delay from the Percentile-quantile of
	// the observed latency of first attempts (see [Hedger.Delay]), as a
	// Polly DelayGenerator might; the usual choice is 0.95 (Dean and
	// Barroso, "The Tail at Scale", CACM 56(2), 2013: "defer sending a
	// secondary request until the first request has been outstanding for
	// more than the 95th-percentile expected latency"). It must be 0 or in
	// (0, 1).
	Percentile float64
	// MinSamples is the number of observed latencies needed before the
	// percentile replaces Delay; it must be ≥ 1 when Percentile is set.
	MinSamples int
	// NonFatal lists the outcomes that do not end a request: after one, the
	// next attempt starts at once instead of after its delay, and the
	// request goes on while any attempt is in flight (gRPC's
	// nonFatalStatusCodes, default empty; Polly's ShouldHandle). Any other
	// outcome, success included, commits the request: it is the answer,
	// and every other attempt is cancelled.
	NonFatal []retry.Outcome
}

// Validate returns an error naming the first field of p that is out of
// range, or nil.
func (p Policy) Validate() error {
	if p.MaxAttempts < 1 || p.MaxAttempts > MaxAttemptsLimit {
		return fmt.Errorf("hedge: MaxAttempts: must be in [1, %d], got %d", MaxAttemptsLimit, p.MaxAttempts)
	}
	if p.Delay < 0 {
		return fmt.Errorf("hedge: Delay: must be ≥ 0, got %v", p.Delay)
	}
	if p.Percentile != 0 {
		if !(p.Percentile > 0 && p.Percentile < 1) {
			return fmt.Errorf("hedge: Percentile: must be 0 (off) or in (0, 1), got %v", p.Percentile)
		}
		if p.MinSamples < 1 {
			return fmt.Errorf("hedge: MinSamples: must be ≥ 1 when Percentile is set, got %d", p.MinSamples)
		}
	}
	for i, o := range p.NonFatal {
		if o == retry.OK {
			return fmt.Errorf("hedge: NonFatal[%d]: ok cannot be non-fatal", i)
		}
		if _, err := o.MarshalText(); err != nil {
			return fmt.Errorf("hedge: NonFatal[%d]: %v", i, err)
		}
	}
	return nil
}

// A Hedger applies a Policy to many requests and keeps the latency
// estimate the percentile delay is read from. Make one with [New]. A Hedger
// is safe for concurrent use; the [Call]s it begins are not.
type Hedger struct {
	p  Policy
	mu sync.Mutex
	// latency of first attempts, in seconds; only used with Percentile
	hist *stats.Histogram
}

// New returns a Hedger for policy p, or an error naming the first field of
// p out of range.
func New(p Policy) (*Hedger, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p.NonFatal = slices.Clone(p.NonFatal)
	h := &Hedger{p: p}
	if p.Percentile != 0 {
		h.hist = stats.NewHistogram()
	}
	return h, nil
}

// Policy returns the hedger's policy.
func (h *Hedger) Policy() Policy {
	p := h.p
	p.NonFatal = slices.Clone(p.NonFatal)
	return p
}

// Delay returns the hedging delay a request begun now would use: Policy.Delay,
// or, with Percentile set and at least MinSamples observed, the
// Percentile-quantile of the first-attempt latencies observed since New
// (the nearest-rank estimate of a sim/stats.Histogram, within 1/256
// relative), rounded to a nanosecond. The estimate does not forget: to
// follow a dependency whose latency drifts, make a new Hedger per period.
//
// A first attempt that is cancelled because a hedge won is observed at the
// time it had run, a lower bound of its latency. It was cancelled after the
// delay had passed, so it still counts as slower than that delay, and the
// estimate of any quantile at or below the delay in force is unbiased by
// the censoring.
func (h *Hedger) Delay() time.Duration {
	if h.hist == nil {
		return h.p.Delay
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.hist.Count() < uint64(h.p.MinSamples) {
		return h.p.Delay
	}
	return time.Duration(math.Round(h.hist.Quantile(h.p.Percentile) * 1e9))
}

// Observe records the latency of one call for the percentile delay. A
// [Call] observes its first attempt itself; call Observe for latencies
// learned elsewhere. Without Percentile it does nothing. Negative latencies
// are recorded as 0.
func (h *Hedger) Observe(latency time.Duration) {
	if h.hist == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hist.Add(max(0, latency).Seconds())
}

// Observed returns the number of latencies observed.
func (h *Hedger) Observed() int {
	if h.hist == nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return int(h.hist.Count())
}

func (h *Hedger) nonFatal(o retry.Outcome) bool {
	return slices.Contains(h.p.NonFatal, o)
}

// Attempt is one attempt of a [Call].
type Attempt struct {
	Start time.Duration // when it was launched
	End   time.Duration // when it ended or was cancelled; valid once not InFlight
	// InFlight reports that the attempt was launched and has not ended or
	// been cancelled.
	InFlight bool
	// Cancelled reports that the call cancelled it: its work is wasted.
	Cancelled bool
	// Outcome is how it ended; valid once ended and not Cancelled.
	Outcome retry.Outcome
}

// Decision is what a [Call] says after an attempt ends.
type Decision struct {
	// Done reports that the request is over: either an attempt committed
	// it (Winner), or every attempt failed non-fatally and none remain.
	Done bool
	// Winner is the attempt whose outcome is the request's, or −1 while
	// the request goes on.
	Winner int
	// Outcome is the request's outcome when Done.
	Outcome retry.Outcome
	// Cancel lists the attempts still in flight that the caller must
	// cancel now, in launch order; they are marked Cancelled.
	Cancel []int
}

// Call is the hedging state of one request. Begin one with [Hedger.Begin].
// A Call is not safe for concurrent use.
type Call struct {
	h           *Hedger
	delay       time.Duration
	maxAttempts int
	attempts    []Attempt
	inFlight    int
	last        time.Duration // start of the latest attempt
	asap        bool          // a non-fatal failure asks for the next attempt at once
	asapAt      time.Duration // when it did
	stopped     bool
	done        bool
	winner      int
	outcome     retry.Outcome
}

// Begin starts a request at now with its first attempt (attempt 0) in
// flight. Only an idempotent request hedges: for one that is not, the call
// makes a single attempt, since running a non-idempotent step twice is not
// safe (gRFC A6 leaves this to the service config; Polly to the caller).
// The hedging delay is fixed for the request at Begin.
func (h *Hedger) Begin(now time.Duration, idempotent bool) *Call {
	c := &Call{h: h, delay: h.Delay(), maxAttempts: h.p.MaxAttempts, winner: -1, last: now}
	if !idempotent {
		c.maxAttempts = 1
	}
	c.attempts = append(make([]Attempt, 0, c.maxAttempts), Attempt{Start: now, InFlight: true})
	c.inFlight = 1
	return c
}

// Delay returns the hedging delay of this request.
func (c *Call) Delay() time.Duration { return c.delay }

// Attempts returns the attempts launched so far, in launch order. The slice
// is the call's own; do not modify it.
func (c *Call) Attempts() []Attempt { return c.attempts }

// Done reports whether the request is over.
func (c *Call) Done() bool { return c.done }

// NextAt returns the instant the next attempt is due and true, or false if
// no further attempt will be launched (the request is over, MaxAttempts
// are launched, the request is not idempotent, or Stop was called). The
// next attempt is due Delay after the latest one started (gRFC A6: hedged
// requests are sent at hedgingDelay intervals), or at the instant an
// attempt failed non-fatally, if one has since the latest launch (gRFC A6:
// a non-fatal status "shortcuts" the delay; Polly launches the next hedge
// when an attempt's outcome is handled). The instant may be in the past:
// the attempt is then due at once.
func (c *Call) NextAt() (time.Duration, bool) {
	if !c.more() {
		return 0, false
	}
	if c.asap {
		return c.asapAt, true
	}
	if c.delay == Never {
		return 0, false
	}
	if c.last > math.MaxInt64-c.delay {
		return 0, false
	}
	return c.last + c.delay, true
}

// more reports whether another attempt may be launched.
func (c *Call) more() bool {
	return !c.done && !c.stopped && len(c.attempts) < c.maxAttempts
}

// Launch records that the next attempt started at now and returns its
// index. It reports false, and records nothing, if NextAt reports that no
// attempt remains. Launching before the attempt is due is allowed (the
// caller may have reasons); the next one is then due Delay after now.
func (c *Call) Launch(now time.Duration) (int, bool) {
	if !c.more() {
		return -1, false
	}
	c.attempts = append(c.attempts, Attempt{Start: now, InFlight: true})
	c.inFlight++
	c.last = now
	c.asap = false
	return len(c.attempts) - 1, true
}

// Stop ends hedging for this request: no further attempt is launched, and
// the attempts in flight decide the outcome. Call it when the retry budget
// or the deadline refuses a hedge.
func (c *Call) Stop() { c.stopped = true }

// Finish records that attempt i ended at now with outcome o and returns the
// decision. A success or a fatal outcome commits the request: attempt i
// wins and every other attempt in flight is cancelled (gRFC A6; Polly
// returns the first accepted outcome and cancels the rest). A non-fatal
// outcome leaves the request going while attempts are in flight or due; if
// none is in flight and none remains, the request fails with that outcome
// (gRFC A6: the RPC fails with the last attempt's status).
//
// An attempt that ends after it was cancelled (the cancellation came too
// late to stop its answer) changes nothing: the decision is the request's
// state, with nothing to cancel. Finish panics if i is not an attempt of
// the call or has already ended.
func (c *Call) Finish(now time.Duration, i int, o retry.Outcome) Decision {
	if i < 0 || i >= len(c.attempts) {
		panic(fmt.Sprintf("hedge: Finish(%d): the call has %d attempts", i, len(c.attempts)))
	}
	a := &c.attempts[i]
	if !a.InFlight && !a.Cancelled {
		panic(fmt.Sprintf("hedge: Finish(%d): attempt already ended", i))
	}
	if c.done || a.Cancelled {
		return c.decision(nil)
	}
	a.InFlight, a.End, a.Outcome = false, now, o
	c.inFlight--
	if i == 0 {
		c.h.Observe(now - a.Start)
	}
	if o == retry.OK || !c.h.nonFatal(o) {
		c.done, c.winner, c.outcome = true, i, o
		return c.decision(c.cancelAll(now))
	}
	if c.more() {
		c.asap, c.asapAt = true, now
		return c.decision(nil)
	}
	if c.inFlight == 0 {
		c.done, c.winner, c.outcome = true, i, o
	}
	return c.decision(nil)
}

// Abandon ends the request at now without an answer (its deadline passed,
// or its caller gave up) and returns the attempts in flight to cancel. The
// request's Outcome is then retry.Timeout and Winner is −1. It returns nil
// if the request was already over.
func (c *Call) Abandon(now time.Duration) []int {
	if c.done {
		return nil
	}
	c.done, c.outcome = true, retry.Timeout
	return c.cancelAll(now)
}

func (c *Call) cancelAll(now time.Duration) []int {
	var cancel []int
	for j := range c.attempts {
		a := &c.attempts[j]
		if !a.InFlight {
			continue
		}
		a.InFlight, a.Cancelled, a.End = false, true, now
		c.inFlight--
		cancel = append(cancel, j)
		if j == 0 {
			c.h.Observe(now - a.Start) // a lower bound: see Hedger.Delay
		}
	}
	return cancel
}

func (c *Call) decision(cancel []int) Decision {
	if !c.done {
		return Decision{Winner: -1, Cancel: cancel}
	}
	return Decision{Done: true, Winner: c.winner, Outcome: c.outcome, Cancel: cancel}
}
