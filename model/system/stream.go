package system

import (
	"time"

	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/sim"
)

// Streaming model calls. A model API with Stream sends its output as it
// is generated, as the providers' streaming modes do (server-sent events:
// Anthropic's Messages streaming, OpenAI's stream: true): the caller sees
// the first token after the time to first token (the tool's latency plus
// the prefill of the uncached input) and the rest at the tool's time per
// output token. Three rules follow (docs/agents.md, "Streaming"):
//
//   - A step's first_token_timeout cuts a call whose first token has not
//     come that long after it was sent (queueing at the tool included):
//     a hung stream is detected early instead of at the lease. The cut is
//     a timeout like any other, retried as one, with its usage unknown.
//     A call that will answer with an error sends no token: the timeout
//     cuts it too when its answer comes later.
//   - Once the first token is in, only the lease (timeout and deadline)
//     bounds the call. A call the lease cuts, or its parallel or hedged
//     step cancels, after its first token is a stream cut: the tokens
//     produced by then are known, so the call settles its limits and its
//     cost with its input and those output tokens (billed as a failed
//     call is, plus the output) instead of keeping its reservation.
//   - A retry sends the whole request again: the same context as input,
//     a new output; what the cut stream produced is not reused.
//
// The tool is assumed to go on with a call its caller cut, as with any
// timeout (the wasted work of docs/outputs.md).

// firstTokenLimit returns the first-token timeout that applies to run r's
// call at a tool of plan tp under lease: its step's, when the tool
// streams and the timeout is shorter than the lease; 0 otherwise.
func (m *Model) firstTokenLimit(r *run, tp *toolPlan, lease time.Duration) time.Duration {
	fto := m.steps[r.step].firstToken
	if !tp.stream || fto <= 0 || fto >= lease {
		return 0
	}
	return fto
}

// streamTTFT is a streaming call's time from the start of its service to
// its first token: first, unless it hangs or answers with an error, which
// send no token.
func streamTTFT(o retry.Outcome, hung bool, first time.Duration) time.Duration {
	if hung || o != retry.OK {
		return noLimit
	}
	return first
}

// firstTokenServed is called when a tool with concurrency starts serving
// run ri's streaming call at now, its first-token timer armed for
// a.firstBy: if the first token will come by then, the timer moves to the
// call's lease. It reports whether the timer was re-armed (the attempt's
// generation changed).
func (m *Model) firstTokenServed(ri int32, a *attempt, now time.Duration) bool {
	if now+m.held[ri].tok.ttft > a.firstBy {
		return false // the first-token timeout cuts it
	}
	a.firstBy = 0
	m.s.Cancel(a.timer)
	a.timer = sim.Timer{}
	if a.lease < noLimit {
		m.arm(ri, a, a.dialed+a.lease, evAttemptEnd, true)
		return true
	}
	return false
}

// cutStream is called when the caller ends run ri's dialed streaming call
// at now without its answer (its lease ran out, or its group cancelled
// it): if the first token had come, the call becomes a stream cut and its
// output the tokens produced by now, in proportion to the time it has
// been generating.
func (m *Model) cutStream(ri int32, r *run, now time.Duration) {
	a := &r.cur
	tc := &m.held[ri].tok
	if !tc.live || tc.ttft >= noLimit {
		return
	}
	start := a.dialed
	if m.toolPlans[r.tool].capacity {
		if a.served < 0 {
			return // still queued at the tool
		}
		start = a.served
	}
	first := start + tc.ttft
	if now <= first {
		return
	}
	if gen := a.latency - tc.ttft; gen > 0 && now < start+a.latency {
		tc.out = int64(float64(tc.out) * float64(now-first) / float64(gen))
	}
	a.ending = streamCut
	if r.measured {
		m.res.Attempts.StreamCuts++
	}
}
