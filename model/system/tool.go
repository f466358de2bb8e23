package system

import (
	"time"

	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/model/sched"
)

// request is a call waiting for or in service at a tool with capacity.
type request struct {
	run     int32
	gen     uint32
	tool    int32
	class   int32 // the calling run's class (m.schedClasses)
	arrived time.Duration
	lease   time.Duration // instant the caller stops waiting
	latency time.Duration
}

// submit sends the outstanding attempt of run ri to its capacity tool and
// starts the caller's timeout.
func (m *Model) submit(ri int32, lease, firstToken time.Duration) {
	r := m.runs.At(ri)
	a := &r.cur
	now := m.s.Now()
	t := r.tool
	tp := &m.toolPlans[t]
	ts := &m.tools[t]
	switch {
	case firstToken > 0:
		// A streaming call's timer first waits for its first token
		// (stream.go); startRequest moves it to the lease.
		a.firstBy = now + firstToken
		m.arm(ri, a, a.firstBy, evAttemptEnd, true)
	case lease < noLimit:
		m.arm(ri, a, now+lease, evAttemptEnd, true)
	}
	qi := m.allocReq()
	q := m.reqs.At(qi)
	*q = request{run: ri, gen: a.gen, tool: t, class: r.class, arrived: now, lease: now + lease, latency: a.latency}
	if lease >= noLimit {
		q.lease = noLimit
	}
	// A request starts at once only when nobody waits: a slot that frees
	// goes to the head of the queue first (onToolDone), so a free slot with
	// a queue behind it is a stalled tool's.
	if ts.busy < tp.concurrency && !ts.stalled && ts.queue.Len() == 0 {
		if ts.queue.q != nil {
			// Through the discipline's queue, which counts the
			// request in service until done.
			ts.queue.push(now, qi, &m.schedClasses[q.class])
			qi, _ = ts.queue.pop(now)
		}
		m.startRequest(qi)
		return
	}
	if tp.queueCapacity != Unbounded && ts.queue.Len() >= tp.queueCapacity && !m.pushOutRequest(q.tool, &m.schedClasses[q.class]) {
		// The waiting room is full: 503 at once.
		ts.stats.QueueFull++
		m.freeReq(qi)
		a.hasRA = tp.retryAfter != nil
		m.turnAway(ri, a, retry.Transient, 0, false)
		return
	}
	if ts.queue.q == nil {
		ts.queue.ring.Push(qi)
	} else {
		ts.queue.pushSched(now, qi, &m.schedClasses[q.class])
	}
	if ts.queue.Len() > m.guards.MaxToolQueue {
		m.toolQueueFull = t // the run loop stops after this event
	}
}

func (m *Model) allocReq() int32 {
	if n := len(m.freeReqs); n > 0 {
		i := m.freeReqs[n-1]
		m.freeReqs = m.freeReqs[:n-1]
		return i
	}
	return m.reqs.Add()
}

func (m *Model) freeReq(qi int32) { m.freeReqs = append(m.freeReqs, qi) }

func (m *Model) startRequest(qi int32) {
	q := m.reqs.At(qi)
	now := m.s.Now()
	ts := &m.tools[q.tool]
	ts.busy++
	ts.busyTW.Add(now, 1)
	if ts.delay != nil {
		ts.delay.Add(secs((now - q.arrived)))
	}
	if a := &m.runs.At(q.run).cur; a.state.outstanding() && a.gen == q.gen {
		a.served = now
		if tp := &m.toolPlans[q.tool]; tp.promptCache != nil && a.outcome == retry.OK && a.state != hanging && !a.hit {
			m.cacheCommit(q.run, m.runs.At(q.run), tp, now)
		}
		if a.firstBy > 0 && m.firstTokenServed(q.run, a, now) {
			q.gen = a.gen // the caller still waits for this request
		}
	}
	m.s.At(now+q.latency, evToolDone, qi, 0)
}

// serveTool starts queued requests on free servers, dropping at dequeue the
// work a deadline-aware tool can no longer finish inside its caller's lease.
func (m *Model) serveTool(t int32) {
	tp := &m.toolPlans[t]
	ts := &m.tools[t]
	now := m.s.Now()
	for ts.busy < tp.concurrency && !ts.stalled && ts.queue.Len() > 0 {
		var qi int32
		if ts.queue.q == nil {
			qi, _ = ts.queue.ringPop()
		} else {
			qi, _ = ts.queue.popSched(now)
		}
		q := m.reqs.At(qi)
		a := &m.runs.At(q.run).cur
		gone := !a.state.outstanding() || a.gen != q.gen // the caller gave up, or cancelled the call
		if tp.deadlineAware && (q.lease-now < tp.dropFloor || gone) {
			ts.queue.refund()
			ts.queue.done(now, &m.schedClasses[q.class])
			ts.stats.Dropped++
			if !gone {
				// Tell the caller at once (DEADLINE_EXCEEDED): a slow failure
				// becomes an immediate one.
				a.outcome, a.ending = retry.Timeout, turnedAway
				m.rearm(q.run, a, now, evAttemptEnd) // replaces the timeout
			}
			m.freeReq(qi)
			continue
		}
		m.startRequest(qi)
	}
}

// pushOutRequest makes room in tool t's full fair queue for a call of
// class c by longest queue drop, as the worker queue does (pushOut): the
// oldest waiting call of the tenant holding the most of the queue for its
// weight is turned away (503, counted as queue_full) and the arriving call
// queues, unless that tenant is the caller's own, whose call is then the
// one turned away (pushOutRequest reports false). Other disciplines turn
// the arrival away.
func (m *Model) pushOutRequest(t int32, c *schedClass) bool {
	ts := &m.tools[t]
	f, ok := ts.queue.q.(*sched.Fair[int32])
	if !ok {
		return false
	}
	it, ok := f.PushOut(c.tenant)
	if !ok {
		return false
	}
	qi := it.Value
	q := m.reqs.At(qi)
	ts.stats.QueueFull++
	if a := &m.runs.At(q.run).cur; a.state.outstanding() && a.gen == q.gen {
		a.hasRA = m.toolPlans[t].retryAfter != nil
		m.turnAway(q.run, a, retry.Transient, 0, false)
	}
	m.freeReq(qi)
	return true
}

// refund gives back the turn of the entry just popped from a fair queue,
// which is dropped unserved: a call dropped at dequeue is not its tenant's
// turn (model/sched's Fair.Refund). Other disciplines keep no turns.
func (w *waitQueue) refund() {
	if f, ok := w.q.(*sched.Fair[int32]); ok {
		if err := f.Refund(); err != nil {
			panic("system: " + err.Error())
		}
	}
}

// dropFloor is the least remaining lease a deadline-aware tool starts work
// for: t's drop_floor, or its median latency.
func dropFloor(t *Tool) time.Duration {
	if t.DropFloor > 0 {
		return t.DropFloor
	}
	return seconds(t.Latency.Quantile(0.5))
}

func (m *Model) onToolDone(qi int32) {
	q := *m.reqs.At(qi)
	now := m.s.Now()
	ts := &m.tools[q.tool]
	ts.busy--
	ts.busyTW.Add(now, -1)
	ts.stats.Served++
	ts.stats.BusySeconds += secs(q.latency)
	ts.queue.done(now, &m.schedClasses[q.class])
	m.res.Series.addBusy(now-q.latency, now, int(q.tool))
	m.freeReq(qi)
	// The freed slot goes to the head of the tool's queue before the
	// caller hears back: its reply can submit a request at this instant
	// (its next step at the same tool, or a queued run taking its worker),
	// and that request must queue behind the ones already waiting.
	m.serveTool(q.tool)
	if a := &m.runs.At(q.run).cur; a.state == inFlight && a.gen == q.gen {
		m.attemptEnded(q.run) // release cancels the caller's timeout
	} else {
		// The caller gave up, or the call hangs: the server did the work
		// but no answer reaches the caller, whose timeout ends the attempt.
		ts.stats.WastedSeconds += secs(q.latency)
	}
}
