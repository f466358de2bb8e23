package system

import (
	"time"

	"github.com/budgetsim/budgetsim/model/hedge"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/sim"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Groups: more than one call outstanding per run. A run that reaches a
// parallel step or a hedged step (Config.Groups) makes each of its calls a
// member: a run slot of its own in the run table, whose parent field points
// back at the run. A member is an ordinary run to every handler (dial, the
// tool's queue, the caller's timeout, retries, fallbacks, the cost
// reservation, the trace), keyed by its parent's id, so that its draws are
// those of the step and attempt it makes, with the run's deadline and its
// own lease and attempt state. Where an ordinary run would go on to its
// next step or end, a member reports to its parent instead (memberEnded),
// and the group decides: it waits, is satisfied (its parent goes on), or
// fails (its parent falls back or ends). When a group ends, the members
// still running are cancelled (cancelMember): their timers are removed,
// their requests left to the tool (a deadline-aware tool drops those still
// queued; the others' work is wasted), and their slots freed.
//
// A scenario without groups never reaches this file: its steps' group is
// 0, its runs' parent is 0.

// groupRun is the state of the group a run waits on, kept per run slot.
type groupRun struct {
	gen    uint32 // the group begun on this slot: an evHedge for an older one is stale
	g      int32  // Config.Groups index
	start  time.Duration
	ok     int32   // members that succeeded
	failed int32   // members that failed
	live   int32   // members running
	kids   []int32 // run slot of each member (or hedged attempt), -1 once ended
	// A hedged step: attempts launched, the delay in force, the timer of
	// the next hedge, and stopped once the retry budget or the deadline
	// refused one.
	launched int32
	delay    time.Duration
	timer    sim.Timer
	stopped  bool
	last     RunOutcome // the outcome of the latest failed member
	// n is the members launched and k how many must succeed: the
	// group's Members and K, or, with Group.Calls, the members drawn.
	n, k int32
}

// GroupResult is what one group (Config.Groups order) measured over the
// measured runs.
type GroupResult struct {
	// Latency is the time from the group's start to its being satisfied
	// (K members succeeded, or a hedged attempt won), in seconds.
	Latency *stats.Histogram
	// Satisfied and Failed count the groups that ended either way.
	Satisfied, Failed int64
	// Cancelled counts the calls cancelled when their group ended: the
	// losers, and the hedges that lost.
	Cancelled int64
	// Hedges counts the attempts a hedged step launched after its first.
	Hedges int64
}

// groupOf returns run slot ri's group state. The states live in a table
// that grows by chunks, like the run table; a group's members' slots are
// in a list it takes when it begins and gives back when it ends
// (takeKids, endGroup), so that memory holds lists for the groups running
// at once, each as long as its members, not one of the longest group's
// length for every run slot (members have slots too: that was quadratic).
func (m *Model) groupOf(ri int32) *groupRun {
	for int(ri) >= m.groups.Len() {
		m.groups.Add()
	}
	return m.groups.At(ri)
}

// takeKids returns an empty list for a group's members' slots, one a
// group that ended gave back if there is one: the lists in use and spare
// are at most the peak of groups running at once.
func (m *Model) takeKids() []int32 {
	if n := len(m.kidPool); n > 0 {
		k := m.kidPool[n-1]
		m.kidPool = m.kidPool[:n-1]
		return k[:0]
	}
	return make([]int32, 0, m.maxKids)
}

// liveSlots is the run slots in use: the runs in the system and the
// members of their parallel and hedged steps, which the max_in_system
// guard counts, each costing a slot's memory.
func (m *Model) liveSlots() int { return m.runs.Len() - len(m.free) }

// beginGroup starts the group of run pi's current step.
func (m *Model) beginGroup(pi int32, r *run) {
	now := m.s.Now()
	gi := m.steps[r.step].group - 1
	g := &m.cfg.Groups[gi]
	gs := m.groupOf(pi)
	gs.gen++
	gs.g, gs.start = gi, now
	gs.ok, gs.failed, gs.live, gs.launched = 0, 0, 0, 0
	gs.kids = m.takeKids()
	gs.stopped = false
	gs.last = Failed
	r.cur.state = idle
	gs.n, gs.k = int32(g.Members), int32(g.K)
	if g.Hedge != nil {
		gs.delay = m.steps[r.step].hedger.Delay()
		gs.launched = 1
		m.spawn(pi, gs, r.step, 1)
		m.scheduleHedge(pi, gs, now)
		return
	}
	if g.Calls != nil {
		m.calls.Key(uint64(r.id), stepKey(r), 0)
		gs.n = int32(min(max(roundTokens(g.Calls.Sample(m.calls.Rand())), 1), int64(g.Members)))
		gs.k = min(gs.k, gs.n)
	}
	for j := range gs.n {
		m.spawn(pi, gs, int32(g.First)+j, 1)
	}
}

// spawn starts a member of pi's group at step, as attempt n: its dial is
// an event at this instant, so that no member ends (and no group is
// decided) while the group is being set up.
func (m *Model) spawn(pi int32, gs *groupRun, step, n int32) {
	now := m.s.Now()
	ci := m.alloc()
	p := m.runs.At(pi) // the run table's chunks do not move when it grows
	c := m.runs.At(ci)
	gen := c.cur.gen // the slot's: events of its last call are stale
	*c = run{}
	c.cur.gen = gen + 1
	c.id, c.arrived, c.started, c.measured, c.traced = p.id, p.arrived, p.started, p.measured, p.traced
	c.class = p.class
	c.dl = p.dl
	c.parent = pi + 1
	c.member = int32(len(gs.kids))
	c.step = step
	c.turn = p.turn
	c.tool = m.stepTool(c, step)
	c.stepStart = now
	c.cur.n = n
	c.cur.dialed = -1
	gs.kids = append(gs.kids, ci)
	gs.live++
	c.cur.state = backingOff
	m.arm(ci, &c.cur, now, evWake, false)
}

// scheduleHedge schedules the next hedge of a hedged step, due the delay
// after the attempt launched at from.
func (m *Model) scheduleHedge(pi int32, gs *groupRun, from time.Duration) {
	g := &m.cfg.Groups[gs.g]
	if int(gs.launched) >= g.Hedge.MaxAttempts || gs.stopped || gs.delay == hedge.Never {
		return
	}
	gs.timer = m.s.At(from+capped(gs.delay), evHedge, pi, int64(gs.gen))
}

// hedgeNow launches the next attempt of pi's hedged step now, if the
// policy, the retry budget and the deadline allow one: a hedge is an
// attempt like a retry (gRFC A6 throttles hedges with the retry tokens).
func (m *Model) hedgeNow(pi int32, gs *groupRun) {
	r := m.runs.At(pi)
	g := &m.cfg.Groups[gs.g]
	if int(gs.launched) >= g.Hedge.MaxAttempts || gs.stopped {
		return
	}
	now := m.s.Now()
	sp := &m.steps[r.step]
	if _, ok := r.dl.TryLease(now, sp.timeout); !ok {
		gs.stopped = true
		return
	}
	if sp.budget != nil && !sp.budget.AllowRetry(now, retry.Transient) {
		if r.measured {
			m.res.Attempts.BudgetDenied++
		}
		gs.stopped = true
		return
	}
	gs.launched++
	if r.measured {
		m.res.Groups[gs.g].Hedges++
	}
	m.spawn(pi, gs, r.step, gs.launched)
	m.scheduleHedge(pi, gs, now)
}

// hedgeFailed handles the failure o of an attempt of a hedged step (run
// ci): an outcome the step's retry policy would retry is non-fatal and
// starts the next attempt at once (gRFC A6 nonFatalStatusCodes, Polly's
// ShouldHandle); any other ends the step.
func (m *Model) hedgeFailed(ci int32, c *run, o retry.Outcome, elapsed time.Duration) {
	st := &m.stepCfg[c.step]
	outcome := Failed
	if o == retry.Timeout && c.cur.leaseCut {
		outcome = DeadlineExceeded
	}
	fatal := !o.Retryable() || !st.Retry.MayRetry()
	if c.traced {
		why := "hedge_non_fatal"
		if fatal {
			why = "hedge_fatal"
		}
		m.traceAttempt(ci, c, st, o, elapsed, -1, why)
	}
	if !fatal {
		m.memberEnded(ci, outcome)
		return
	}
	pi, gs := m.detach(ci, c)
	gs.failed++
	m.failGroup(pi, gs, outcome)
}

// lane is the trace lane of r's calls: 0 for a run's own, 1 + the member
// index for a member's.
func lane(r *run) int {
	if r.parent == 0 {
		return 0
	}
	return int(r.member) + 1
}

// detach takes member ci (c) out of its group and frees its slot; it
// returns the parent's slot and group.
func (m *Model) detach(ci int32, c *run) (int32, *groupRun) {
	pi := c.parent - 1
	gs := m.groups.At(pi)
	if m.cfg.Groups[gs.g].Hedge != nil && c.member == 0 && c.cur.dialed >= 0 {
		m.steps[c.step].hedger.Observe(m.s.Now() - c.cur.dialed)
	}
	gs.kids[c.member] = -1
	gs.live--
	if gs.live < 0 {
		panic("system: a member ended outside its group")
	}
	m.memberSpan(pi, gs, c)
	m.freeMember(ci, c)
	return pi, gs
}

// memberEnded takes the end of member ci (Completed, or how it failed),
// frees its slot and lets the group decide.
func (m *Model) memberEnded(ci int32, o RunOutcome) {
	pi, gs := m.detach(ci, m.runs.At(ci))
	g := &m.cfg.Groups[gs.g]
	if o == Completed {
		gs.ok++
		if gs.ok >= gs.k {
			m.satisfyGroup(pi, gs)
		}
		return
	}
	gs.failed++
	gs.last = o
	if g.Hedge != nil {
		// A non-fatal failure: the next attempt at once.
		m.s.Cancel(gs.timer)
		m.hedgeNow(pi, gs)
		if gs.live == 0 {
			m.failGroup(pi, gs, o)
		}
		return
	}
	if gs.n-gs.failed < gs.k {
		m.failGroup(pi, gs, o)
	}
}

// freeMember returns member slot ci to the free list.
func (m *Model) freeMember(ci int32, c *run) {
	if m.opt.Audit {
		m.auditFree(ci, c)
	}
	c.id = -1
	c.parent = 0
	c.cur.state = idle
	m.free = append(m.free, ci)
}

// endGroup cancels the members of pi's group still running and its
// pending hedge, and returns the group's time so far.
func (m *Model) endGroup(pi int32, gs *groupRun) time.Duration {
	m.s.Cancel(gs.timer)
	gs.stopped = true
	for j, ci := range gs.kids {
		if ci < 0 {
			continue
		}
		gs.kids[j] = -1
		gs.live--
		m.cancelMember(ci, gs)
	}
	gs.gen++ // nothing of this group may act any more
	m.kidPool = append(m.kidPool, gs.kids)
	gs.kids = nil
	return m.s.Now() - gs.start
}

// satisfyGroup: K members succeeded (a hedged attempt won); the run goes on
// after the group's last step.
func (m *Model) satisfyGroup(pi int32, gs *groupRun) {
	gi := gs.g
	el := m.endGroup(pi, gs)
	r := m.runs.At(pi)
	g := &m.cfg.Groups[gi]
	m.groupTime(pi, r, gi, el)
	if r.measured {
		gr := &m.res.Groups[gi]
		gr.Satisfied++
		gr.Latency.Add(secs(el))
	}
	if r.traced {
		m.traceGroup(r, g, el, "group_satisfied")
	}
	r.step = int32(g.First + g.Members - 1)
	m.nextStep(pi, r)
}

// failGroup: the group can no longer be satisfied. A hedged step falls
// back like any step; a parallel step ends the run with outcome o.
func (m *Model) failGroup(pi int32, gs *groupRun, o RunOutcome) {
	gi := gs.g
	el := m.endGroup(pi, gs)
	r := m.runs.At(pi)
	g := &m.cfg.Groups[gi]
	m.groupTime(pi, r, gi, el)
	if r.measured {
		m.res.Groups[gi].Failed++
	}
	if r.traced {
		m.traceGroup(r, g, el, "group_failed")
	}
	if g.Hedge != nil && o == Failed {
		r.cur.n = 1
		r.cur.prevSleep = 0
		r.cur.prevOutcome = retry.OK
		if m.tryFallback(pi) {
			return
		}
	}
	m.end(pi, o)
}

// cancelMember cancels member ci of a group that ended: its call (if
// dialed) is counted as cancelled and its work as wasted, everything it
// holds is released (release removes its pending event too), and its slot
// is freed. Its request stays in the tool's queue or service: a
// deadline-aware tool drops it at dequeue (serveTool), any other serves it
// for nothing (onToolDone).
func (m *Model) cancelMember(ci int32, gs *groupRun) {
	c := m.runs.At(ci)
	a := &c.cur
	now := m.s.Now()
	var elapsed time.Duration
	if a.state.outstanding() {
		g := &m.cfg.Groups[gs.g]
		elapsed = now - a.dialed
		if g.Hedge != nil && c.member == 0 {
			m.steps[c.step].hedger.Observe(elapsed) // a lower bound (see hedge.Hedger.Delay)
		}
		tp := &m.toolPlans[c.tool]
		if !tp.capacity && !a.hit && a.ending == answered && a.state == inFlight && a.latency > 0 && a.dialed >= m.win.warmStart {
			// An unlimited tool serves the call to its end, for nobody
			// (a call that would time out was counted so at dial). Its
			// busy time was counted at dial: a call dialed before the
			// measured window is in neither.
			m.tools[c.tool].stats.WastedSeconds += secs(a.latency)
		}
		if c.measured {
			m.res.Attempts.WastedSeconds += secs(elapsed)
			m.res.Attempts.Cancelled++
			m.res.Groups[gs.g].Cancelled++
		}
		if c.traced {
			m.traceAttempt(ci, c, &m.stepCfg[c.step], retry.Timeout, elapsed, -1, "cancelled")
		}
	}
	m.release(ci, c, byCancel, retry.Timeout, elapsed)
	m.memberSpan(c.parent-1, gs, c)
	a.gen++
	m.freeMember(ci, c)
}

// owner is the run slot whose context run slot ri's calls read and
// extend: ri itself, or the run ri is a member of.
func (m *Model) owner(ri int32, r *run) int32 {
	if r.parent != 0 {
		return r.parent - 1
	}
	return ri
}

// traceGroup records a group's span on its run's own lane.
func (m *Model) traceGroup(r *run, g *Group, el time.Duration, decision string) {
	now := m.s.Now()
	o := retry.OK
	if decision != "group_satisfied" {
		o = retry.Permanent
	}
	rec := &m.rec
	*rec = AttemptRecord{
		Run: r.id, Step: g.Name, Tool: "", Attempt: 1, Start: now - el, Granted: el,
		Remaining: r.dl.Remaining(now - el), Served: -1, Outcome: o, Latency: el, Backoff: -1,
		Decision: decision, HasDeadline: m.classes[r.class].deadline > 0, Group: true,
		Turn: m.turnOf(r), InputTokens: -1, OutputTokens: -1, CacheReadTokens: -1, CacheWriteTokens: -1, TTFT: -1, RetryAfter: -1,
	}
	m.opt.Tracer.Attempt(rec)
}

// newHedger returns the hedger of a step with policy h.
func newHedger(h *Hedge) *hedge.Hedger {
	hg, err := hedge.New(hedge.Policy{MaxAttempts: h.MaxAttempts, Delay: h.Delay, Percentile: h.Percentile, MinSamples: h.MinSamples})
	if err != nil {
		panic("system: invalid hedge (the loader validates it): " + err.Error())
	}
	return hg
}

// groupTime adds a group's time el to run pi's stages: a hedged step's to
// the step's own stage, a parallel step's to the group's stage, which
// follows the steps' (its members' stages hold their own spans, which
// overlap: the tail breakdown shows them beside the stages, not among
// them).
func (m *Model) groupTime(pi int32, r *run, gi int32, el time.Duration) {
	if m.cfg.Groups[gi].Hedge != nil {
		m.stepTime(pi, el)
		return
	}
	m.stagesOf(pi)[1+len(m.stepCfg)+int(gi)] += el
}

// memberSpan records in its parent's stages the time member c of a
// parallel step took, from the group's start to its end or cancellation.
func (m *Model) memberSpan(pi int32, gs *groupRun, c *run) {
	if m.cfg.Groups[gs.g].Hedge == nil {
		m.stagesOf(pi)[1+int(c.step)] += m.s.Now() - gs.start
	}
}
