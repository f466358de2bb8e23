package system

import (
	"time"

	"github.com/budgetsim/budgetsim/sim"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// The plain path. A scenario whose calls can only succeed (no error rates,
// outages, scripts, timeouts, deadline, cost, cache, rate limit or tool
// capacity) is a network of FIFO servers: every run waits for a worker,
// calls each step's tool once and completes. The general handlers then
// spend most of their time deciding what cannot happen: leases, refusals,
// fallbacks, retries, settlements. The plain handlers below do only what
// can, in the same order and with the same arithmetic, on the same tables
// and statistics: the result is identical to the general path's, bit for
// bit (TestPlainPathMatchesGeneral), in a fraction of the time. M/M/1,
// M/M/c, M/M/c/K, M/G/1 and M/D/1, the scenarios that validate the
// simulator against closed forms, are all plain.

// runPlain is Run's event loop for the plain path, with the general
// loop's guards; it returns why a guard stopped it, or "".
func (m *Model) runPlain(wallStart time.Time) string {
	q := &m.pe
	q.heap = make([]plainEvent, 0, 64)
	for {
		// One decision per event, its handler inside each branch: the
		// choice between an arrival and a completion is the loop's
		// least predictable branch, and taking it twice costs twice.
		if q.arrivalNext() {
			q.takeArrival()
			if q.now > m.guards.MaxTime {
				return maxTimeStop(q.now)
			}
			m.plainArrival()
		} else if len(q.heap) > 0 {
			ri := q.takeEnd()
			if q.now > m.guards.MaxTime {
				q.fillHole()
				return maxTimeStop(q.now)
			}
			m.plainAttemptEnd(ri)
			if q.hole { // no end took the place of the one taken
				q.fillHole()
			}
		} else {
			return ""
		}
		if m.inSys > m.guards.MaxInSystem || m.pe.processed&0xfff == 0 {
			if stop := m.guardStop(wallStart, m.pe.processed); stop != "" {
				return stop
			}
		}
	}
}

// plainApplies reports whether cfg, simulated with opt, takes the plain
// path.
func plainApplies(cfg *Config, opt Options) bool {
	if opt.Tracer != nil && opt.TraceRuns > 0 {
		return false
	}
	switch cfg.Arrivals.Process {
	case Poisson, Constant, Open:
	default:
		return false
	}
	if len(cfg.Steps) == 0 || cfg.Deadline > 0 || cfg.RunBudget > 0 || cfg.ScenarioBudget > 0 {
		return false
	}
	for i := range cfg.Steps {
		st := &cfg.Steps[i]
		if st.Timeout > 0 || st.Budget != nil || !plainTool(&cfg.Tools[st.Tool]) {
			return false
		}
	}
	for i := range cfg.Tools {
		// A stalling outage schedules events of its own, even at a tool
		// no step calls.
		for _, o := range cfg.Tools[i].Outages {
			if o.Stall {
				return false
			}
		}
	}
	return true
}

// plainTool reports whether every call to t succeeds at once, served
// without a queue, a token, a charge or a cache.
func plainTool(t *Tool) bool {
	return t.Errors == Errors{} && len(t.Outages) == 0 && len(t.Script) == 0 &&
		!t.Contention && t.Concurrency == 0 && t.RateLimit == nil && t.Cache == nil && t.Cost == nil
}

// plainArrival is onArrival for the plain path: no tracing, no closed
// population, no deadline. Its measurement and admission lines repeat
// onArrival's on purpose: sharing one function between the two made the
// plain path measurably slower on one goroutine (BenchmarkMMc).
func (m *Model) plainArrival() {
	now := m.pe.now
	cfg := m.cfg
	id := m.nArr
	m.nArr++
	lat0 := m.nextDraw.lat // this arrival's first latency (when drawn ahead), before the next arrival's replaces it
	m.scheduleArrival()
	measured := id >= cfg.WarmupRuns && now >= cfg.WarmupTime
	if measured && !m.warm {
		m.startMeasuring(now)
	}
	if measured {
		m.res.Runs.Arrived++
		m.res.Series.bin(now).Arrivals++
	}
	if m.busy >= cfg.Workers && cfg.QueueCapacity != Unbounded && m.queue.len() >= cfg.QueueCapacity {
		if measured {
			m.res.Runs.Rejected++
			m.measuredRunEnded(now)
			m.res.Series.bin(now).Ended++
		}
		return
	}
	ri := m.alloc()
	r := m.runs.at(ri)
	// Only the fields the plain handlers and finish read: a slot's other
	// fields are never read on this path.
	r.id, r.arrived, r.measured = id, now, measured
	r.dialed = -1 // not started: stopEndLog tells queued runs from runs in service
	r.ahead.lat, r.hasAhead = lat0, m.ahead != nil
	if !m.oneStep {
		clear(m.stagesOf(ri))
	}
	m.enter(now, measured)
	if m.busy < cfg.Workers {
		m.takeWorker(now)
		m.plainStart(ri, r, now)
		return
	}
	m.queue.push(ri)
}

// plainStart is startService for the plain path: run ri (r) starts.
func (m *Model) plainStart(ri int32, r *run, now time.Duration) {
	wait := now - r.arrived
	if !m.oneStep {
		m.stagesOf(ri)[0] = wait
	}
	if r.measured {
		if m.endLog == nil {
			m.res.Wait.Add(secs(wait))
		}
		if wait > 0 {
			m.res.Waited++
		}
	}
	r.step = 0
	m.plainDial(ri, r, now)
}

// plainDial is dial and draw for the plain path: the call succeeds after
// its drawn latency (no lease can cut it: there is neither deadline nor
// ceiling).
func (m *Model) plainDial(ri int32, r *run, now time.Duration) {
	t := m.cfg.Steps[r.step].Tool
	r.dialed = now
	if r.measured {
		m.res.Attempts.Attempts++
		m.res.Series.bin(now).Attempts++
	}
	var lat time.Duration
	if r.hasAhead && r.step == 0 {
		lat = r.ahead.lat
	} else {
		stream := m.toolRng[t]
		stream.Key(uint64(r.id), uint64(r.step), 1)
		rnd := stream.Rand()
		rnd.Float64() // the outcome's uniform: every outcome is a success here
		lat = seconds(m.cfg.Tools[t].Latency.Sample(rnd))
	}
	ts := &m.tools[t]
	ts.stats.Calls++
	ts.stats.Served++
	ts.stats.BusySeconds += secs(lat)
	m.res.Series.addBusy(now, now+lat, t)
	m.pe.scheduleEnd(now+lat, ri)
}

// plainAttemptEnd is attemptEnded for the plain path: a success.
func (m *Model) plainAttemptEnd(ri int32) {
	r := m.runs.at(ri)
	now := m.pe.now
	elapsed := now - r.dialed
	if !m.oneStep {
		m.stagesOf(ri)[1+int(r.step)] += elapsed
	}
	if r.measured {
		m.res.Attempts.OK++
		if m.endLog == nil {
			m.res.StepLatency[r.step].Add(secs(elapsed))
		}
	}
	r.step++
	if int(r.step) == len(m.cfg.Steps) {
		m.plainEnd(ri, r, now)
		return
	}
	m.plainDial(ri, r, now)
}

// plainEnd is end for the plain path: the run completed; its worker takes
// the next run in the queue (none can have expired: there is no deadline).
func (m *Model) plainEnd(ri int32, r *run, now time.Duration) {
	stopLog := false
	if r.measured {
		m.measuredRunEnded(now)
		m.res.Runs.Completed++
		b := m.res.Series.bin(now)
		b.Ended++
		b.Completed++
		switch {
		case m.endLog != nil:
			stopLog = !m.endLog.put(endRec{arrived: r.arrived, dialed: r.dialed, ended: now})
		case m.oneStep:
			m.endFigures.add(&endRec{arrived: r.arrived, dialed: r.dialed, ended: now}, false)
		default:
			soj := secs((now - r.arrived))
			m.sojournSum += soj
			m.res.Latency.Add(soj)
			m.tail.add(soj, m.stagesOf(ri))
		}
	}
	r.id = -1
	m.free = append(m.free, ri)
	if stopLog {
		// After the slot is free: stopEndLog adds the waits of the runs
		// in service, and this one's is in the log.
		m.stopEndLog()
	}
	m.inSys--
	if r.measured {
		m.inSystemTW.Dec(now)
	}
	if m.queue.len() > 0 {
		next := m.queue.pop()
		m.plainStart(next, m.runs.at(next), now)
		return
	}
	m.busy--
	if m.warm {
		m.workersChanging()
		m.workersTW.Dec(now)
	}
}

// plainEvents is the plain path's future-event list: the next arrival and
// the attempts in progress. It orders them exactly as sim.Sim would (by
// instant, then by scheduling order, the arrival in a lane of its own) but
// keeps nothing for cancelling, which the plain path never does: an entry
// carries its run, and sifting moves 24-byte entries and nothing else.
//
// Taking the earliest end leaves its slot, the root, empty (a hole): most
// ends are followed at once by the next end (the worker takes the next
// queued run, or the run calls its next step), which scheduleEnd then
// sifts down from the root, one pass where a pop and a push take two.
// When none follows, fillHole completes the pop as a heap does. Either
// way the heap holds the same events, so they come out in the same order.
type plainEvents struct {
	heap      []plainEvent // attempt ends: a 4-ary min-heap
	hole      bool         // heap[0] was taken (takeEnd) and not yet replaced
	arrival   plainEvent   // the next arrival, when hasArr
	hasArr    bool
	seq       uint64
	now       time.Duration
	processed uint64
}

type plainEvent struct {
	at  time.Duration
	seq uint64
	ri  int32
}

func plainBefore(a, b *plainEvent) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// scheduleArrival sets the next arrival (sim.Sim.Source).
func (q *plainEvents) scheduleArrival(at time.Duration) {
	q.seq++
	q.arrival = plainEvent{at: at, seq: q.seq}
	q.hasArr = true
}

// scheduleEnd schedules run ri's attempt end at at (sim.Sim.At).
func (q *plainEvents) scheduleEnd(at time.Duration, ri int32) {
	q.seq++
	e := plainEvent{at: at, seq: q.seq, ri: ri}
	if q.hole {
		q.hole = false
		q.siftDown(e, len(q.heap))
		return
	}
	h := append(q.heap, e)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !plainBefore(&e, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
	q.heap = h
}

// arrivalNext reports whether the earliest pending event is the arrival.
func (q *plainEvents) arrivalNext() bool {
	return q.hasArr && (len(q.heap) == 0 || plainBefore(&q.arrival, &q.heap[0]))
}

// takeArrival removes the pending arrival and advances the clock to it.
func (q *plainEvents) takeArrival() {
	q.hasArr = false
	q.now = q.arrival.at
	q.processed++
}

// takeEnd takes the earliest attempt end (the heap must hold one and it
// must come before any arrival), leaving a hole at the root for
// scheduleEnd or fillHole, and advances the clock to it; it returns the
// run.
func (q *plainEvents) takeEnd() int32 {
	top := &q.heap[0]
	q.hole = true
	q.now = top.at
	q.processed++
	return top.ri
}

// fillHole completes takeEnd when no end took the root's place: the last
// entry goes down from the root.
func (q *plainEvents) fillHole() {
	q.hole = false
	n := len(q.heap) - 1
	e := q.heap[n]
	q.heap = q.heap[:n]
	if n > 0 {
		q.siftDown(e, n)
	}
}

// siftDown places e, taken to be at the root, among the heap's first n
// entries (the root's old content is overwritten).
func (q *plainEvents) siftDown(e plainEvent, n int) {
	h := q.heap
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+4, n); j++ {
			if plainBefore(&h[j], &h[m]) {
				m = j
			}
		}
		if !plainBefore(&h[m], &e) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = e
}

// The end log. With one step, a measured run's completion comes down to
// three instants: arrived, dialed (it started and called at once) and
// ended. From them follow the wait, call and completion histograms, the
// sojourn sum and the tail table: a third of the plain path's work. When a
// core is spare (Options.SpareCore), the simulation writes the instants to
// a log in batches and the spare core's goroutine (spare.go) applies them
// in the order written, which is the order the simulation would have
// applied them; the sums and the tail table, whose floats depend on
// order, get the same additions in the same order, and the histograms do
// not depend on order at all. The log's ring is large (16 batches of
// 48 KiB) on purpose: a cache line the applier has read must leave its
// caches before the simulation writes it again, or the write waits for
// the line to come back from the other core. With 4 batches in the ring
// the log saved 4 % of the simulation's time, with 16 it saved 18 %.

// endRec is a measured run's completion: its arrival, its start (the
// instant its one call was dialed) and its end.
type endRec struct {
	arrived, dialed, ended time.Duration
}

const (
	endLogRecs    = 2048 // records in a batch (48 KiB)
	endLogBatches = 16   // batches in the ring
)

type endBatch struct {
	n    int
	recs [endLogRecs]endRec
}

// endLog is the simulation's end of the log.
type endLog struct {
	full chan *endBatch // to the applier, in order; nil ends the log
	free chan *endBatch // back from the applier
	done chan struct{}  // closed by the applier when it has applied everything
	cur  *endBatch
	// logged counts the records put; at switchAt (tests only: 0 is never)
	// put reports the ring full, to exercise the switch.
	logged, switchAt int64
	taken            int // batches taken from free so far
	toMake           int // batches the spare core's goroutine makes (newEndLog)
}

// endFigures are the figures a completed run updates, held apart from the
// Model's own fields (cache lines apart) so that the goroutine applying
// the log shares nothing with the simulation but the log.
type endFigures struct {
	_                   sim.CacheLinePad
	wait, call, latency *stats.Histogram // Result.Wait, StepLatency[0], Latency
	sojournSum          float64
	tail                tailTable
	_                   sim.CacheLinePad
}

// add applies a completed run's record. fromLog: it came through the log,
// so its wait and call go to their histograms here too (without the log,
// plainStart and plainAttemptEnd add them as they happen).
func (f *endFigures) add(r *endRec, fromLog bool) {
	wait, call := r.dialed-r.arrived, r.ended-r.dialed
	if fromLog {
		f.wait.Add(secs(wait))
		f.call.Add(secs(call))
	}
	soj := secs((r.ended - r.arrived))
	f.sojournSum += soj
	f.latency.Add(soj)
	// One step called once: the stages are the wait, the call and no
	// backoff.
	stages := [3]time.Duration{wait, call, 0}
	f.tail.add(soj, stages[:])
}

// put appends r to the log. It reports false when the applier has fallen
// a whole ring behind (no batch is free when one fills): the core was not
// spare after all (another process, or the draw-ahead goroutine, holds
// it), and the caller should stop the log and go on without it rather
// than wait for the applier at every batch.
func (l *endLog) put(r endRec) bool {
	b := l.cur
	b.recs[b.n] = r
	b.n++
	l.logged++
	if b.n < len(b.recs) && l.logged != l.switchAt {
		return true
	}
	l.full <- b
	l.cur = nil
	if l.logged == l.switchAt {
		return false
	}
	if l.taken < endLogBatches-1 {
		// The spare core may still be making the ring (spare.go):
		// wait for the next batch rather than take its absence for a
		// lag.
		l.cur = <-l.free
		l.taken++
		return true
	}
	select {
	case l.cur = <-l.free:
		return true
	default:
		return false
	}
}

// newTouchedBatch returns a batch whose every page has been written once:
// a first touch of a page is a page fault, which the spare core's
// goroutine then pays instead of the simulation's.
func newTouchedBatch() *endBatch {
	b := new(endBatch)
	const perPage = 4096 / 24
	for i := 0; i < len(b.recs); i += perPage {
		b.recs[i].arrived = 0
	}
	b.recs[len(b.recs)-1].arrived = 0
	return b
}

// newEndLog returns an empty log; the spare core's goroutine applies it
// (spare.go). For a long run (long: it will go round the ring), that
// goroutine also makes the ring's other batches, touching their pages
// (newTouchedBatch) while it has nothing else to do; otherwise the ring
// is filled here with batches whose pages the simulation touches as it
// writes them, if it ever does.
func newEndLog(switchAt int64, long bool) *endLog {
	l := &endLog{
		full:     make(chan *endBatch, endLogBatches),
		free:     make(chan *endBatch, endLogBatches),
		done:     make(chan struct{}),
		cur:      new(endBatch),
		switchAt: switchAt,
	}
	if long {
		l.toMake = endLogBatches - 1
		return l
	}
	for range endLogBatches - 1 {
		l.free <- new(endBatch)
	}
	l.taken = endLogBatches - 1
	return l
}

// stopEndLog hands the rest of the log over, waits until it has been
// applied, and adds the waits of the measured runs in service now (the
// log holds completed runs only; the general path adds a wait when a run
// starts). It runs when the simulation ends, or in the middle when put
// finds the applier a ring behind: from then on plainStart and
// plainAttemptEnd add waits and calls as they happen, and the runs in
// service, whose waits were added here, add only their calls.
func (m *Model) stopEndLog() {
	l := m.endLog
	if l == nil {
		return
	}
	if l.cur != nil {
		l.full <- l.cur
	}
	l.full <- nil
	<-l.done
	m.endLog = nil
	for i := range int32(m.runs.len()) {
		if r := m.runs.at(i); r.id >= 0 && r.measured && r.dialed >= 0 {
			m.res.Wait.Add(secs(r.dialed - r.arrived))
		}
	}
}
