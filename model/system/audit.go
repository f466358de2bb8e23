package system

import (
	"fmt"

	"github.com/budgetsim/budgetsim/model/cost"
)

// Audit returns the first bookkeeping violation the model found while it
// ran with Options.Audit, or nil. Call it after Run.
//
// The checks: after every event, no tool with capacity serves more calls
// than its concurrency and no limiter counts a negative number of calls;
// when a run's worker is taken, its tenant holds no more workers than its
// max_in_flight; when a run or a member of a group ends, its slot holds
// nothing (no gate's grant, no reservation, no pending event); and at the
// end, every adaptive limiter's calls in flight and waiting, and the
// scenario ledger's open reservations, are exactly those of the attempts
// still holding them.
func (m *Model) Audit() error { return m.auditErr }

// auditf records a violation, keeping the first.
func (m *Model) auditf(format string, args ...any) {
	if m.auditErr == nil {
		m.auditErr = fmt.Errorf("at %v: "+format, append([]any{m.s.Now()}, args...)...)
	}
}

// auditEvent checks the shared state after an event.
func (m *Model) auditEvent() {
	for i := range m.tools {
		ts := &m.tools[i]
		if c := m.toolPlans[i].concurrency; ts.busy < 0 || c > 0 && ts.busy > c {
			m.auditf("tool %s serves %d calls with concurrency %d", m.cfg.Tools[i].Name, ts.busy, c)
		}
	}
	for i, tl := range m.limiters {
		if tl != nil && (tl.waiting < 0 || tl.lim.InFlight() < 0) {
			m.auditf("tool %s's adaptive limiter: %d in flight, %d waiting", m.cfg.Tools[i].Name, tl.lim.InFlight(), tl.waiting)
		}
	}
}

// tokenAudit counts token reservations: made at a limiter, settled
// there, or kept for good by a call whose usage is unknown.
type tokenAudit struct{ reserved, settled, kept int64 }

// auditLimit checks that tool t's adaptive limiter, having just granted a
// permit, has no more calls in flight than its limit.
func (m *Model) auditLimit(t int32, tl *toolLimiter) {
	if tl.lim.InFlight() > tl.lim.Limit() {
		m.auditf("tool %s's adaptive limiter granted a permit with %d in flight over a limit of %d", m.cfg.Tools[t].Name, tl.lim.InFlight(), tl.lim.Limit())
	}
}

// auditWorker counts a run of class k taking (+1) or freeing (-1) a
// worker, and checks its tenant's cap.
func (m *Model) auditWorker(k int32, d int) {
	c := &m.schedClasses[k]
	if m.auditTenants == nil {
		m.auditTenants = map[string]int{}
	}
	n := m.auditTenants[c.tenant] + d
	m.auditTenants[c.tenant] = n
	if n < 0 || c.cap > 0 && n > c.cap {
		m.auditf("tenant %q holds %d workers, its max_in_flight is %d", c.tenant, n, c.cap)
	}
}

// auditFree checks that run slot ri, being freed, holds nothing.
func (m *Model) auditFree(ri int32, r *run) {
	a := &r.cur
	if a.held != 0 {
		m.auditf("run slot %d (run %d) freed holding %06b", ri, r.id, a.held)
	}
	if m.s.Pending(a.timer) {
		m.auditf("run slot %d (run %d) freed with an event pending", ri, r.id)
	}
	if m.tk != nil && m.held[ri].tok.live {
		m.auditf("run slot %d (run %d) freed with its tokens unsettled", ri, r.id)
	}
}

// auditEnd checks, at the end of the simulation, that the limiters and the
// ledger hold exactly what the attempts still in the system hold.
func (m *Model) auditEnd() {
	inFlight := make([]int, len(m.cfg.Tools))
	waiting := make([]int, len(m.cfg.Tools))
	var reserved cost.Amount
	open := 0
	var tokensHeld int64
	for i := range int32(m.runs.Len()) {
		r := m.runs.At(i)
		if r.id < 0 {
			continue
		}
		h := r.cur.held
		if h&holdLimit != 0 {
			inFlight[r.tool]++
		}
		if h&holdLimitWait != 0 {
			waiting[r.tool]++
		}
		if h&holdCost != 0 {
			reserved += r.cur.reserved
			open++
		}
		if h&holdTokens != 0 {
			tokensHeld++
		}
	}
	if ta := m.auditTokens; ta.reserved != ta.settled+ta.kept+tokensHeld {
		m.auditf("%d token reservations made, %d settled, %d kept with unknown usage and %d held by calls in flight", ta.reserved, ta.settled, ta.kept, tokensHeld)
	}
	for t, tl := range m.limiters {
		if tl == nil {
			continue
		}
		if tl.lim.InFlight() != inFlight[t] || tl.waiting != waiting[t] {
			m.auditf("tool %s's adaptive limiter counts %d in flight and %d waiting; the attempts hold %d and wait %d",
				m.cfg.Tools[t].Name, tl.lim.InFlight(), tl.waiting, inFlight[t], waiting[t])
		}
	}
	if m.ledger != nil {
		b := m.ledger.Balance()
		if b.Open != open || b.Reserved != reserved {
			m.auditf("the scenario ledger has %d open reservations of %v; the attempts hold %d of %v", b.Open, b.Reserved, open, reserved)
		}
		if b.Remaining+b.Reserved+b.Pending+b.Spent > b.Limit || b.Remaining < 0 {
			m.auditf("the scenario ledger does not balance: %+v", b)
		}
	}
}
