package system

import (
	"time"

	"github.com/budgetsim/budgetsim/model/cost"
	"github.com/budgetsim/budgetsim/model/deadline"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/sim"
)

// The attempt lifecycle. A call to a tool passes the tool's admission
// gates in order (toolPlan.gates, compiled from what the tool declares and
// nothing else): its circuit breaker, its client-side rate limit, its
// client-side token limits, its adaptive concurrency limit and the cost
// reservation. Each gate admits the call now, makes it wait (and then
// holds what it granted while the caller sleeps), or refuses it; whatever
// a gate grants is recorded in the attempt's hold set. After the gates the
// call is dialed; at the tool a provider-side rate or token limit may turn
// it away, and a tool with capacity queues it.
//
// However the attempt ends — an answer, a timeout, a turn-away, a local
// refusal, cancellation by its group or hedge — everything it holds is
// given back in one place, release, as the ending says: a breaker and an
// adaptive limit learn from an answer or a timeout and from nothing else;
// an answered call settles its cost and tokens, a call whose usage is
// unknown (it timed out, or was cancelled after it was sent) keeps its
// reservations, and a call that was never sent gives them back whole.
// This mirrors the designs that cannot leak: SimPy ties a resource's
// release to its request (Request.__exit__, Put.cancel), and grpc-go
// routes every ending of an attempt through one csAttempt.finish.
//
// Every event that names a run slot carries the generation of the slot's
// current attempt, and an attempt arms at most one timer (arm): Run drops
// a stale event before any handler sees it.

// holdSet is what an attempt holds, one bit per kind.
type holdSet uint8

const (
	// holdBreaker: the tool's circuit breaker permitted the call.
	holdBreaker holdSet = 1 << iota
	// holdRate: the call reserved a token of the tool's client-side rate
	// limit (spent whatever follows: a token bucket takes no refunds).
	holdRate
	// holdTokens: the call reserved its tokens at the tool's token
	// limiter (client side before it was sent, or the provider's on
	// admission).
	holdTokens
	// holdLimitWait: the call waits in the adaptive limiter's FIFO.
	holdLimitWait
	// holdLimit: the call holds an adaptive concurrency permit.
	holdLimit
	// holdCost: the call holds a cost reservation.
	holdCost
)

// slotHolds is the handles a run slot's attempt holds at the gates that
// keep one per call: its cost reservation, its adaptive limiter permit
// (or place in the limiter's queue) and its token call. Which of them are
// live is its attempt's hold set; resetSlot clears them all when the slot
// is reused.
type slotHolds struct {
	resv   cost.Reservation
	permit permit
	tok    tokenCall
}

// gateKind is one admission gate of a tool.
type gateKind uint8

const (
	gateBreaker gateKind = iota
	gateRate
	gateTokens
	gateLimit
	gateCost
)

// holds is the bit a gate sets once it has admitted a call (or granted it
// what it waits with).
var holds = [...]holdSet{gateBreaker: holdBreaker, gateRate: holdRate, gateTokens: holdTokens, gateLimit: holdLimit, gateCost: holdCost}

// admission is a gate's answer.
type admission uint8

const (
	admitted admission = iota // go on to the next gate
	waiting                   // the caller sleeps; a wake resumes at this gate's successor
	refused                   // refused locally (the gate has called refuse)
)

// ender says what ended an attempt, for release.
type ender uint8

const (
	// byEnd: the attempt ended as its ending says (answered, timed out,
	// turned away by the tool).
	byEnd ender = iota
	// byRefusal: refused locally before it was dialed.
	byRefusal
	// byCancel: its group ended, or a hedge won, while it waited or was in
	// flight.
	byCancel
)

// admit passes run ri's call through its tool's gates, from the first it
// does not hold yet. It reports whether the call may be dialed now.
func (m *Model) admit(ri int32, r *run, tp *toolPlan, lease time.Duration) bool {
	a := &r.cur
	for _, g := range tp.gates {
		if a.held&holds[g] != 0 {
			continue
		}
		var ad admission
		switch g {
		case gateBreaker:
			ad = m.admitBreaker(ri, r, tp, lease)
		case gateRate:
			ad = m.admitRate(ri, r)
		case gateTokens:
			ad = m.admitTokens(ri, r, tp)
		case gateLimit:
			if a.held&holdLimitWait != 0 {
				return false // still waiting: a grant or a give-up resumes it
			}
			ad = m.admitLimit(ri, r)
		case gateCost:
			ad = m.admitCost(ri, r, tp)
		}
		if ad != admitted {
			return false
		}
	}
	return true
}

// release gives back everything run ri's current attempt holds, and
// cancels its pending timer. It is the only place that does so; calling
// it twice releases nothing the second time. o is the outcome a breaker
// records and elapsed the call's duration (byEnd only). An attempt that
// holds nothing at a tool without tokens costs two branches.
func (m *Model) release(ri int32, r *run, by ender, o retry.Outcome, elapsed time.Duration) {
	a := &r.cur
	if a.timer.Valid() {
		m.s.Cancel(a.timer)
		a.timer = sim.Timer{}
	}
	if a.held != 0 || m.tk != nil {
		m.releaseHeld(ri, r, by, o, elapsed)
	}
}

// releaseHeld is release's part for an attempt that holds something, or
// whose tokens may need settling.
func (m *Model) releaseHeld(ri int32, r *run, by ender, o retry.Outcome, elapsed time.Duration) {
	a := &r.cur
	dialed := by == byEnd || by == byCancel && a.state.outstanding()
	if by == byCancel && dialed {
		a.ending = timedOut // its usage is unknown to the caller
	}
	if dialed && a.ending == timedOut && m.toolPlans[r.tool].stream {
		m.cutStream(ri, r, m.s.Now()) // unless its stream had started
	}
	h := a.held
	a.held = 0
	if h&holdLimitWait != 0 {
		m.leaveLimitQueue(ri, r)
	}
	if h&holdLimit != 0 {
		if by == byEnd {
			m.endLimit(ri, r, a.outcome)
		} else {
			m.releaseLimit(ri, r) // a call refused or cancelled tells the limit nothing
		}
	}
	if h&holdBreaker != 0 {
		if by == byEnd {
			m.breakerRecord(r, o, elapsed)
		} else {
			m.breakerRelease(r) // nor the circuit breaker
		}
	}
	if h&holdCost != 0 {
		m.settle(ri, r, o, dialed)
	}
	if m.tk != nil {
		m.settleTokens(ri, r, o, h&holdTokens != 0, dialed)
	}
}

// arm schedules run ri's next event of kind k at instant at (a timeout's
// evAttemptEnd is armed with the negated generation): the attempt's one
// pending timer, under a new generation that makes every older event of
// the slot stale. The attempt has no other pending timer (rearm replaces
// one).
func (m *Model) arm(ri int32, a *attempt, at time.Duration, k sim.Kind, timeout bool) {
	if m.opt.Audit && m.s.Pending(a.timer) {
		m.auditf("run slot %d arms a second timer", ri)
	}
	a.gen++
	arg := int64(a.gen)
	if timeout {
		arg = -arg
	}
	a.timer = m.s.At(at, k, ri, arg)
}

// rearm is arm for an attempt whose pending timer the new one replaces
// (a timeout that becomes an immediate turn-away, a give-up that becomes
// a grant).
func (m *Model) rearm(ri int32, a *attempt, at time.Duration, k sim.Kind) {
	m.s.Cancel(a.timer)
	a.timer = sim.Timer{}
	m.arm(ri, a, at, k, false)
}

// current reports whether an event for run slot ri with argument arg
// belongs to the slot's current attempt (arg: its generation, negated for
// a timeout), and if so forgets the delivered event's timer. Run drops the
// others: the call they were armed for was cancelled, refused or answered
// first.
func (m *Model) current(ri int32, arg int64) bool {
	if arg < 0 {
		arg = -arg
	}
	a := &m.runs.At(ri).cur
	if uint32(arg) != a.gen {
		return false
	}
	a.timer = sim.Timer{}
	return true
}

// waitAllowance is the longest run r may wait at now for a gate (a token,
// tokens, a limiter slot) and still be dialed after it: what its deadline
// leaves beyond the floor and the shortest lease. It is unlimited without
// a deadline (deadline.Unlimited).
func waitAllowance(r *run, now time.Duration) time.Duration {
	if _, set := r.dl.Instant(); !set {
		return deadline.Unlimited
	}
	return r.dl.Remaining(now) - r.dl.Floor() - max(r.dl.MinLease(), 1)
}

// turnAway ends run ri's dialed call at once with outcome o, unserved (a
// rate limiter's 429, a full queue's 503, a deadline-aware tool's drop):
// the tool answers now, with Retry-After ra when hasRA (a tool's own
// retry_after, when it has one, replaces it at decide).
func (m *Model) turnAway(ri int32, a *attempt, o retry.Outcome, ra time.Duration, setRA bool) {
	a.outcome, a.latency, a.ending, a.state = o, 0, turnedAway, inFlight
	if setRA {
		a.retryAfter = capped(ra)
	}
	m.rearm(ri, a, m.s.Now(), evAttemptEnd) // a tool's full queue replaces the caller's timeout
}
