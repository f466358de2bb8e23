package system

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/budgetsim/budgetsim/model/deadline"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/sim"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Event kinds of the system model.
const (
	evArrival sim.Kind = iota
	evAttemptEnd
	evWake
)

// Options are per-simulation settings that are not part of the scenario.
type Options struct {
	// Replication selects the replication (0-based): its seed is
	// sim.ReplicationSeed(cfg.Seed, Replication).
	Replication int
	// Tracer, when set, receives one record per attempt and per run of the
	// runs whose arrival index is below TraceRuns.
	Tracer    Tracer
	TraceRuns int64
	// Interrupt, when set and true, stops the simulation at the next check
	// (every few thousand events); the result is marked partial.
	Interrupt *atomic.Bool
}

// run is the state of one run; runs live in a table and are reused.
type run struct {
	id       int64
	arrived  time.Duration
	started  time.Duration
	dl       deadline.Deadline
	measured bool
	traced   bool
	queued   bool

	step      int32
	attempt   int32
	prevSleep time.Duration

	dialed     time.Duration
	lease      time.Duration
	leaseCut   bool // the lease was bounded by the deadline, not the ceiling
	outcome    retry.Outcome
	hung       bool
	retryAfter time.Duration
	hasRA      bool
	version    uint64 // contention: the row version read at dial

	prevOutcome retry.Outcome // outcome of the previous attempt of the step

	backoff time.Duration // total backoff sleep so far
}

// Model is one simulation of a Config. Build it with New and call Run once.
// A Model is not safe for concurrent use; run replications on separate
// Models (see Replicate).
type Model struct {
	cfg    *Config
	opt    Options
	guards Guards
	s      *sim.Sim

	arrivals *sim.Stream
	tools    []*sim.Stream
	jitter   *sim.Stream
	budgets  []retry.Budget
	versions []uint64 // contention: committed writes per tool

	runs   []run
	free   []int32
	queue  ring
	busy   int
	inSys  int
	nArr   int64
	nextAt time.Duration

	warm       bool
	warmStart  time.Duration
	res        *Result
	inSystemTW stats.TimeWeighted
	sojournSum float64
	sojournN   int64
	rec        AttemptRecord
}

// Result is what one simulation measured, after the warm-up.
type Result struct {
	// Seed is the replication's seed.
	Seed uint64
	// Runs are the outcome counts; Attempts the per-attempt counters.
	Runs     Counts
	Attempts AttemptCounts
	// Latency is arrival → completion of completed runs (seconds); Wait is
	// arrival → start of service of runs that got a worker (seconds).
	Latency *stats.Histogram
	Wait    *stats.Histogram
	// Waited counts the runs in Wait whose wait was > 0 (they queued).
	Waited int64
	// StepLatency holds, per step (Config.Steps order), the latency of the
	// measured attempts that got an answer (ok or an error reply; timeouts
	// are censored and excluded), in seconds: what a latency log of that
	// endpoint would show.
	StepLatency []*stats.Histogram
	// StepTimeouts counts, per step, the measured attempts that timed out.
	StepTimeouts []int64
	// SojournSum is the total time in system of measured runs that ended.
	SojournSum float64
	// Window is the measured interval: from the first measured arrival to
	// the end of the simulation.
	Window time.Duration
	// TimeAvgInSystem is the time-average number of measured runs in the
	// system over Window (integrated, not sampled). Runs that arrived during
	// the warm-up are not counted, so when every measured run has ended it
	// equals λW exactly: Little's law as an identity of the bookkeeping.
	TimeAvgInSystem float64
	// PeakInSystem is the largest number of runs in the system at once.
	PeakInSystem int
	// Series bins arrivals, attempts and completions over virtual time.
	Series *Series
	// End is the virtual instant the simulation stopped; Events the number
	// of events processed.
	End    time.Duration
	Events uint64
	// Stopped is empty when the simulation ran to its natural end, else the
	// guard or interrupt that stopped it (the result is then partial).
	Stopped string
}

// New builds a model of cfg. cfg must have passed Validate.
func New(cfg *Config, opt Options) *Model {
	seed := sim.ReplicationSeed(cfg.Seed, opt.Replication)
	m := &Model{
		cfg:    cfg,
		opt:    opt,
		guards: cfg.Guards.withDefaults(),
		s:      sim.New(1024),
		res: &Result{
			Seed:    seed,
			Latency: stats.NewHistogram(),
			Wait:    stats.NewHistogram(),
			Series:  newSeries(),
		},
	}
	m.res.StepLatency = make([]*stats.Histogram, len(cfg.Steps))
	for i := range m.res.StepLatency {
		m.res.StepLatency[i] = stats.NewHistogram()
	}
	m.res.StepTimeouts = make([]int64, len(cfg.Steps))
	m.arrivals = sim.NewStream(seed, "arrivals")
	m.jitter = sim.NewStream(seed, "retry:jitter")
	m.tools = make([]*sim.Stream, len(cfg.Tools))
	for i, t := range cfg.Tools {
		m.tools[i] = sim.NewStream(seed, "tool:"+t.Name)
	}
	m.versions = make([]uint64, len(cfg.Tools))
	m.budgets = make([]retry.Budget, len(cfg.Steps))
	for i, st := range cfg.Steps {
		if st.Budget != nil {
			m.budgets[i] = newBudget(st.Budget)
		}
	}
	m.queue.init(64)
	return m
}

// Run simulates until the arrivals are exhausted and every run has ended,
// or a guard stops it, and returns what was measured.
func (m *Model) Run() *Result {
	cfg := m.cfg
	if cfg.Arrivals.Process == Batch {
		for range cfg.Arrivals.Count {
			m.s.At(0, evArrival, 0, 0)
		}
	} else {
		m.scheduleArrival()
	}
	wallStart := time.Now()
	var stop string
	for {
		ev, ok := m.s.Next()
		if !ok {
			break
		}
		switch ev.Kind {
		case evArrival:
			m.onArrival()
		case evAttemptEnd:
			m.onAttemptEnd(ev.Ref)
		case evWake:
			m.onWake(ev.Ref)
		}
		if m.inSys > m.guards.MaxInSystem {
			stop = fmt.Sprintf("more than %d runs in the system at once (max_in_system guard): the system is unstable or overloaded", m.guards.MaxInSystem)
			break
		}
		if n := m.s.Processed(); n&0xfff == 0 {
			if n >= m.guards.MaxEvents {
				stop = fmt.Sprintf("stopped after %d events (max_events guard)", n)
				break
			}
			if m.s.Now() > m.guards.MaxTime {
				stop = fmt.Sprintf("stopped at virtual time %v (max_time guard)", m.s.Now())
				break
			}
			if m.opt.Interrupt != nil && m.opt.Interrupt.Load() {
				stop = "interrupted"
				break
			}
			if n&0xfffff == 0 && time.Since(wallStart) > m.guards.MaxWall {
				stop = fmt.Sprintf("stopped after %v of wall-clock time (max_wall guard)", m.guards.MaxWall)
				break
			}
		}
	}
	return m.finish(stop)
}

func (m *Model) finish(stop string) *Result {
	r := m.res
	end := m.s.Now()
	r.End = end
	r.Events = m.s.Processed()
	r.Stopped = stop
	for i := range m.runs {
		// Runs still in the system (in a queue, an attempt or a sleep).
		if m.runs[i].id >= 0 && m.runs[i].measured {
			r.Runs.InFlight++
		}
	}
	if m.warm {
		r.Window = end - m.warmStart
		r.TimeAvgInSystem = m.inSystemTW.Mean(end)
	}
	r.SojournSum = m.sojournSum
	return r
}

func (m *Model) scheduleArrival() {
	cfg := m.cfg
	if cfg.Runs > 0 && m.nArr >= cfg.Runs {
		return
	}
	var gap time.Duration
	switch cfg.Arrivals.Process {
	case Poisson:
		gap = seconds(m.arrivals.Rand().ExpFloat64() / cfg.Arrivals.Rate)
	case Constant:
		gap = seconds(1 / cfg.Arrivals.Rate)
	}
	at := m.nextAt + gap
	if cfg.Horizon > 0 && at >= cfg.Horizon {
		return
	}
	m.nextAt = at
	m.s.At(at, evArrival, 0, 0)
}

func (m *Model) onArrival() {
	now := m.s.Now()
	cfg := m.cfg
	id := m.nArr
	m.nArr++
	if cfg.Arrivals.Process != Batch {
		m.scheduleArrival()
	}
	measured := id >= cfg.WarmupRuns && now >= cfg.WarmupTime
	if measured && !m.warm {
		m.warm = true
		m.warmStart = now
		m.inSystemTW.Start(now, 0)
	}
	if measured {
		m.res.Runs.Arrived++
		m.res.Series.add(now, binArrival, 1)
	}
	if m.busy >= cfg.Workers && cfg.QueueCapacity != Unbounded && m.queue.len() >= cfg.QueueCapacity {
		if measured {
			m.res.Runs.Rejected++
			m.sojournN++
		}
		if m.traced(id) {
			m.opt.Tracer.Run(RunRecord{Run: id, Arrived: now, Started: -1, Ended: now, Outcome: Rejected, Deadline: m.deadlineInstant(now)})
		}
		return
	}
	ri := m.alloc()
	r := &m.runs[ri]
	*r = run{id: id, arrived: now, measured: measured, traced: m.traced(id)}
	if cfg.Deadline > 0 {
		r.dl = deadline.After(now, cfg.Deadline)
	}
	r.dl = r.dl.WithFloor(cfg.Floor).WithMinLease(cfg.MinLease)
	m.inSys++
	if m.inSys > m.res.PeakInSystem {
		m.res.PeakInSystem = m.inSys
	}
	if measured {
		m.inSystemTW.Add(now, 1)
	}
	if m.busy < cfg.Workers {
		m.busy++
		m.startService(ri)
		return
	}
	r.queued = true
	m.queue.push(ri)
}

func (m *Model) deadlineInstant(now time.Duration) time.Duration {
	if m.cfg.Deadline > 0 {
		return now + m.cfg.Deadline
	}
	return -1
}

func (m *Model) traced(id int64) bool {
	return m.opt.Tracer != nil && id < m.opt.TraceRuns
}

func (m *Model) alloc() int32 {
	if n := len(m.free); n > 0 {
		i := m.free[n-1]
		m.free = m.free[:n-1]
		return i
	}
	m.runs = append(m.runs, run{})
	return int32(len(m.runs) - 1)
}

func (m *Model) startService(ri int32) {
	r := &m.runs[ri]
	now := m.s.Now()
	r.queued = false
	r.started = now
	if r.measured {
		m.res.Wait.Add((now - r.arrived).Seconds())
		if now > r.arrived {
			m.res.Waited++
		}
	}
	r.step = 0
	m.beginStep(ri)
}

func (m *Model) beginStep(ri int32) {
	r := &m.runs[ri]
	r.attempt = 1
	r.prevSleep = 0
	m.dial(ri)
}

// dial starts attempt r.attempt of step r.step, or refuses it locally.
func (m *Model) dial(ri int32) {
	r := &m.runs[ri]
	now := m.s.Now()
	st := &m.cfg.Steps[r.step]
	lease, ok := r.dl.TryLease(now, st.Timeout)
	if !ok {
		if r.measured {
			m.res.Attempts.Refused++
		}
		if r.traced {
			m.traceAttempt(r, st, retry.Refused, 0, -1, "refused")
		}
		m.end(ri, Refused)
		return
	}
	r.dialed = now
	r.lease = lease
	r.leaseCut = st.Timeout <= 0 || lease < st.Timeout
	if b := m.budgets[r.step]; b != nil {
		b.OnAttempt(now, int(r.attempt))
	}
	if r.measured {
		m.res.Attempts.Attempts++
		if r.attempt > 1 {
			m.res.Attempts.Retries++
		}
		m.res.Series.add(now, binAttempt, 1)
	}
	o, lat, hung := m.draw(r, st)
	r.outcome, r.hung = o, hung
	if hung || lat > lease {
		r.outcome = retry.Timeout
		r.hung = true
		if lease >= noLimit {
			// Nothing will ever end this attempt: no ceiling, no deadline.
			// The run stays in flight; the scenario validation warns.
			return
		}
		m.s.At(now+lease, evAttemptEnd, ri, 0)
		return
	}
	m.s.At(now+lat, evAttemptEnd, ri, 0)
}

// noLimit is the lease of a call with neither ceiling nor deadline.
const noLimit = time.Duration(math.MaxInt64 / 4)

// draw decides an attempt's outcome and latency from the tool's stream keyed
// by (run, step, attempt): the same attempt of the same run sees the same
// draws whatever policy led to it (common random numbers).
func (m *Model) draw(r *run, st *Step) (retry.Outcome, time.Duration, bool) {
	now := m.s.Now()
	tool := &m.cfg.Tools[st.Tool]
	stream := m.tools[st.Tool]
	stream.Key(uint64(r.id), uint64(r.step), uint64(r.attempt))
	rnd := stream.Rand()
	u := rnd.Float64()
	lat := seconds(tool.Latency.Sample(rnd))
	raU := rnd.Float64()
	o := retry.OK
	hung := false
	e := tool.Errors
	switch {
	case u < e.Hang:
		hung = true
		o = retry.Timeout
	case u < e.Hang+e.Permanent:
		o = retry.Permanent
	case u < e.Hang+e.Permanent+e.RateLimited:
		o = retry.RateLimited
	case u < e.Hang+e.Permanent+e.RateLimited+e.Transient:
		o = retry.Transient
	}
	for i := range tool.Outages {
		out := &tool.Outages[i]
		if now >= out.Start && now < out.End {
			o = out.Mode
			hung = o == retry.Timeout
		}
	}
	for i := range tool.Script {
		sc := &tool.Script[i]
		if int32(sc.Attempt) == r.attempt && (sc.Run < 0 || sc.Run == r.id) {
			o = sc.Outcome
			hung = o == retry.Timeout
			if sc.Latency > 0 {
				lat = sc.Latency
			}
		}
	}
	if tool.Contention && o == retry.OK {
		r.version = m.versions[st.Tool]
	}
	r.hasRA = false
	if tool.RetryAfter != nil && (o == retry.Transient || o == retry.RateLimited) {
		r.retryAfter = seconds(tool.RetryAfter.Quantile(raU))
		r.hasRA = true
	}
	return o, lat, hung
}

func (m *Model) onAttemptEnd(ri int32) {
	r := &m.runs[ri]
	now := m.s.Now()
	st := &m.cfg.Steps[r.step]
	tool := &m.cfg.Tools[st.Tool]
	o := r.outcome
	if tool.Contention && o == retry.OK && !r.hung {
		if m.versions[st.Tool] != r.version {
			o = retry.Transient // the read was stale: the conditional write conflicts
		} else {
			m.versions[st.Tool]++
		}
	}
	elapsed := now - r.dialed
	if r.measured {
		a := &m.res.Attempts
		switch o {
		case retry.OK:
			a.OK++
		case retry.Timeout:
			a.Timeouts++
		case retry.Transient:
			a.Transient++
		case retry.RateLimited:
			a.RateLimited++
		case retry.Permanent:
			a.Permanent++
		}
		if o != retry.OK {
			a.WastedSeconds += elapsed.Seconds()
		}
		if o == retry.Timeout {
			m.res.StepTimeouts[r.step]++
		} else {
			m.res.StepLatency[r.step].Add(elapsed.Seconds())
		}
	}
	budget := m.budgets[r.step]
	if budget != nil {
		budget.OnResult(now, int(r.attempt), o, r.prevOutcome)
	}
	r.prevOutcome = o
	if o == retry.OK {
		if r.traced {
			m.traceAttempt(r, st, o, elapsed, -1, "success")
		}
		r.step++
		if int(r.step) == len(m.cfg.Steps) {
			m.end(ri, Completed)
			return
		}
		m.beginStep(ri)
		return
	}
	m.jitter.Key(uint64(r.id), uint64(r.step), uint64(r.attempt))
	d := retry.Decide(retry.Input{
		Policy:        st.Retry,
		Attempt:       int(r.attempt),
		Outcome:       o,
		RetryAfter:    r.retryAfter,
		HasRetryAfter: r.hasRA,
		PrevSleep:     r.prevSleep,
		U:             m.jitter.Float64(),
		Now:           now,
		Deadline:      r.dl,
		Budget:        budget,
	})
	if r.traced {
		sleep := time.Duration(-1)
		if d.Retry {
			sleep = d.Sleep
		}
		m.traceAttempt(r, st, o, elapsed, sleep, d.Reason.String())
	}
	if !d.Retry {
		outcome := Failed
		switch {
		case o == retry.Timeout && r.leaseCut:
			// The deadline, not the ceiling, bounded the attempt that timed out.
			outcome = DeadlineExceeded
		case d.Reason == retry.SleepOutlastsDeadline || d.Reason == retry.RetryAfterOutlastsDeadline:
			outcome = DeadlineExceeded
		}
		if r.measured && d.Reason == retry.BudgetExhausted {
			m.res.Attempts.BudgetDenied++
		}
		m.end(ri, outcome)
		return
	}
	if r.measured {
		if d.Duplicate {
			m.res.Attempts.Duplicates++
		}
		if d.FromRetryAfter {
			m.res.Attempts.RetryAfterHonored++
		}
		m.res.Attempts.BackoffSeconds += d.Sleep.Seconds()
	}
	r.prevSleep = d.Sleep
	r.backoff += d.Sleep
	if d.Sleep <= 0 {
		r.attempt++
		m.dial(ri)
		return
	}
	m.s.At(now+d.Sleep, evWake, ri, 0)
}

func (m *Model) onWake(ri int32) {
	m.runs[ri].attempt++
	m.dial(ri)
}

// end records run ri's outcome, frees its worker and serves the queue.
func (m *Model) end(ri int32, o RunOutcome) {
	r := &m.runs[ri]
	now := m.s.Now()
	if r.measured {
		m.res.Runs.add(o)
		soj := (now - r.arrived).Seconds()
		m.sojournSum += soj
		m.sojournN++
		if o == Completed {
			m.res.Latency.Add(soj)
			m.res.Series.add(now, binCompleted, 1)
		}
	}
	if r.traced {
		m.opt.Tracer.Run(RunRecord{Run: r.id, Arrived: r.arrived, Started: r.started, Ended: now, Outcome: o, Deadline: m.deadlineInstant(r.arrived)})
	}
	wasQueued := r.queued
	r.id = -1
	m.free = append(m.free, ri)
	m.inSys--
	if r.measured {
		m.inSystemTW.Add(now, -1)
	}
	if wasQueued {
		return
	}
	// The worker is free: serve the queue, dropping entries whose deadline
	// passed while they waited (recorded as expired).
	for m.queue.len() > 0 {
		next := m.queue.pop()
		nr := &m.runs[next]
		if nr.dl.Expired(now) {
			if nr.traced {
				m.traceExpired(nr)
			}
			m.end(next, Expired)
			continue
		}
		m.startService(next)
		return
	}
	m.busy--
}

func (m *Model) traceExpired(r *run) {
	r.started = -1
}

func (m *Model) traceAttempt(r *run, st *Step, o retry.Outcome, latency, backoff time.Duration, decision string) {
	now := m.s.Now()
	rec := &m.rec
	*rec = AttemptRecord{
		Run:         r.id,
		Step:        st.Name,
		Tool:        m.cfg.Tools[st.Tool].Name,
		Attempt:     int(r.attempt),
		Start:       r.dialed,
		Granted:     r.lease,
		Remaining:   r.dl.Remaining(r.dialed),
		Outcome:     o,
		Latency:     latency,
		Backoff:     backoff,
		ResendCount: int(r.attempt) - 1,
		Decision:    decision,
		HasDeadline: m.cfg.Deadline > 0,
	}
	if o == retry.Refused {
		rec.Start = now
		rec.Granted = 0
		rec.Remaining = r.dl.Remaining(now)
	}
	m.opt.Tracer.Attempt(rec)
}

// seconds converts float seconds to a Duration, rounding to the nearest
// nanosecond and saturating instead of overflowing.
func seconds(s float64) time.Duration {
	ns := s * 1e9
	if ns >= float64(noLimit) || math.IsInf(ns, 1) {
		return noLimit
	}
	if ns <= 0 || math.IsNaN(ns) {
		return 0
	}
	return time.Duration(ns + 0.5)
}
