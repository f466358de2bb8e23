package system

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/budgetsim/budgetsim/model/arrival"
	"github.com/budgetsim/budgetsim/model/cost"
	"github.com/budgetsim/budgetsim/model/deadline"
	"github.com/budgetsim/budgetsim/model/ratelimit"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/sim"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Event kinds of the system model.
const (
	evArrival    sim.Kind = iota
	evAttemptEnd          // Ref: run; the attempt's reply or its timeout
	evWake                // Ref: run; a backoff sleep or a rate-limit wait is over
	evToolDone            // Ref: request; a capacity tool finished serving it
	evStall               // Ref: tool; a stall outage starts
	evUnstall             // Ref: tool; a stall outage ends
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
	// SpareCore says a core would otherwise sit idle during this
	// simulation, and lets it run a goroutine of its own there (spareCore)
	// that, for an open workload, makes the arrival instants and each
	// run's first draws ahead of the simulation (drawAhead). The result is
	// the same, bit for bit; only the wall time is shorter. Replicate and
	// ReplicateEach set it when they run fewer replications than they have
	// workers.
	SpareCore bool
}

// run is the state of one run; runs live in a table and are reused.
type run struct {
	// The fields every run's arrival, call and end read come first and
	// fill one cache line: id, arrived, dialed, step, measured, hasAhead,
	// ahead.
	id       int64
	arrived  time.Duration
	dialed   time.Duration
	step     int32
	measured bool
	// hasAhead: ahead holds the first attempt's draws at the first step,
	// made ahead (drawAhead).
	hasAhead bool
	ahead    aheadDraw

	started time.Duration
	dl      deadline.Deadline
	traced  bool
	queued  bool

	tool      int32 // the tool serving the current step (primary or fallback)
	fallback  int32 // fallbacks of the current step used so far
	attempt   int32
	prevSleep time.Duration

	gen        uint32 // attempt generation: a reply for an older one is stale
	waiting    bool   // an attempt is outstanding
	timer      sim.Timer
	lease      time.Duration
	leaseCut   bool // the lease was bounded by the deadline, not the ceiling
	outcome    retry.Outcome
	hung       bool
	noAnswer   bool          // the outstanding attempt's call hangs: it would never answer
	dropped    bool          // the call was turned away unserved and the caller was told: a limiter's 429, a full tool queue's 503, a deadline-aware drop
	mayRan     bool          // an attempt of the current step may have executed (a timeout the server did not disown)
	latency    time.Duration // drawn latency of the outstanding attempt
	served     time.Duration // when a tool with concurrency started serving the outstanding attempt, or -1
	retryAfter time.Duration // the limiter's time to its next token (a tool without retry_after)
	raU        float64       // the attempt's uniform for its tool's retry_after
	hasRA      bool
	version    uint64 // contention: the row version read at dial
	tokenHeld  bool   // a client-side rate-limit token is reserved for the next dial

	prevOutcome retry.Outcome

	costHeld  bool // a reservation for the outstanding attempt
	costRes   cost.Reservation
	spent     cost.Amount // run budget: settled and held so far
	reserved  cost.Amount // run budget: the outstanding reservation
	stepStart time.Duration
	backoff   time.Duration // total backoff sleep so far
}

// request is a call waiting for or in service at a tool with capacity.
type request struct {
	run     int32
	gen     uint32
	tool    int32
	arrived time.Duration
	lease   time.Duration // instant the caller stops waiting
	latency time.Duration
	costRes cost.Reservation
	metered bool
}

// toolState is a tool's shared, server-side state.
type toolState struct {
	_       sim.CacheLinePad
	busy    int
	queue   ring
	bucket  *ratelimit.TokenBucket
	stalled bool
	stats   ToolStats
	delay   *stats.Histogram // queueing delay at the tool
	busyTW  stats.TimeWeighted
	_       sim.CacheLinePad
}

// Model is one simulation of a Config. Build it with New and call Run once.
// A Model is not safe for concurrent use; run replications on separate
// Models (see Replicate).
type Model struct {
	_      sim.CacheLinePad
	cfg    *Config
	opt    Options
	guards Guards
	s      *sim.Sim

	arrivals *sim.Stream
	src      arrival.Process
	ahead    *drawAhead // nil unless Options.SpareCore applies
	spare    *spareCore // the goroutine on the spare core, or nil
	// nextDraw holds the draws of the arrival scheduled next, made ahead.
	nextDraw aheadDraw
	toolRng  []*sim.Stream
	jitter   *sim.Stream
	costRng  *sim.Stream
	budgets  []retry.Budget
	versions []uint64 // contention: committed writes per tool
	tools    []toolState
	ledger   *cost.Account // the scenario-wide budget, or nil

	runs     chunked[run]
	free     []int32
	stages   [][]time.Duration // per run slot, by chunk of 1<<chunkBits slots: queue, one per step, backoff
	nStages  int
	reqs     chunked[request]
	freeReqs []int32
	queue    ring
	busy     int
	inSys    int
	nArr     int64
	pending  int64 // closed population: arrivals scheduled, not yet happened
	// closedDone: a closed population with Runs has had all its measured
	// arrivals and every measured run has ended; the simulation stops.
	closedDone bool
	batchSeq   uint64 // a batch: the first of its arrivals' reserved places (sim.ReserveSeq)
	// toolQueueFull is the tool whose queue passed the max_tool_queue
	// guard, or -1.
	toolQueueFull int32
	nextAt        time.Duration

	warm       bool
	warmStart  time.Duration
	lastRunEnd time.Duration
	res        *Result
	inSystemTW stats.Count
	workersTW  stats.Count
	// workersAtLastEnd is workersTW as it was when the last measured run
	// ended: warm-up runs can hold workers after that, moving workersTW
	// past the end of the measured window.
	workersAtLastEnd stats.Count
	// snapPending: a measured run ended and workersAtLastEnd has not been
	// taken yet. It is taken lazily, before workersTW next changes (or at
	// finish): until then workersTW is the state it must copy, and most
	// ends are followed by another before a worker is taken or freed.
	snapPending bool
	sojournSum  float64
	unsettled   cost.Amount
	tail        tailTable
	rec         AttemptRecord
	_           sim.CacheLinePad
}

// Result is what one simulation measured, after the warm-up.
type Result struct {
	_ sim.CacheLinePad
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
	// StepHangs counts, per step, the part of StepTimeouts whose call would
	// never have answered (a hang: the tool's hang rate, an outage or a
	// scripted timeout); the rest were slow calls cut off by their lease.
	StepHangs []int64
	// Tools holds each tool's server-side figures (Config.Tools order) over
	// ToolWindow.
	Tools []ToolStats
	// ToolDelay holds each tool's queueing delay (seconds) for tools with
	// capacity, of the requests that started service in ToolWindow.
	ToolDelay []*stats.Histogram
	// ToolWindow is the interval the tool figures cover: from the first
	// measured arrival (the end of the warm-up) to End, as the workers'
	// and runs' figures start there too; the whole simulation when no run
	// was measured.
	ToolWindow time.Duration
	// Cost is the money side of the measured runs.
	Cost CostStats
	// Tail is the mean time per stage of the completed runs at the p99 of
	// completion time, and the stage sums of every completed run.
	Tail Tail
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
	// WorkerUtilisation is the time-average share of busy workers over
	// Window.
	WorkerUtilisation float64
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
	_       sim.CacheLinePad
}

// ToolStats are a tool's server-side figures over the measured window
// (Result.ToolWindow: from the end of the warm-up to the end of the
// simulation), whichever runs the requests came from: the server does not
// know which runs are measured, but its load during the warm-up's
// transient is not the steady state's.
type ToolStats struct {
	// Calls is the requests that reached the tool (cache hits and local
	// refusals excluded); Served those it finished serving.
	Calls  int64 `json:"calls"`
	Served int64 `json:"served"`
	// CacheHits were answered by the cache in front of the tool.
	CacheHits int64 `json:"cache_hits"`
	// RateLimited is the 429s the tool sent (server-enforced rate limit).
	RateLimited int64 `json:"rate_limited_sent"`
	// QueueFull is the 503s sent because the tool's queue was full.
	QueueFull int64 `json:"queue_full_sent"`
	// Dropped is work a deadline-aware tool dropped at dequeue because it
	// could no longer finish inside the caller's lease.
	Dropped int64 `json:"dropped"`
	// BusySeconds is server time spent serving; WastedSeconds the part spent
	// on requests whose caller had already given up.
	BusySeconds   float64 `json:"busy_s"`
	WastedSeconds float64 `json:"wasted_s"`
	// ClientWaitSeconds is time callers waited for a client-side rate-limit
	// token.
	ClientWaitSeconds float64 `json:"client_wait_s"`
	// MeanBusy is the time-average number of requests in service.
	MeanBusy float64 `json:"mean_busy"`
}

// CostStats are the money side of the measured runs, in cost units.
type CostStats struct {
	// Spent is settled usage.
	Spent float64 `json:"spent"`
	// Unsettled is usage still reserved for reconciliation: metered calls
	// that timed out, whose usage is unknown (never settled as zero).
	Unsettled float64 `json:"reserved_unsettled"`
	// Wasted is spend on attempts that did not succeed.
	Wasted float64 `json:"wasted"`
	// Refused counts calls refused locally because the reservation did not
	// fit the run's or the scenario's budget.
	Refused int64 `json:"refused_calls"`
	// Overrun counts calls whose drawn usage exceeded the declared maximum
	// (clamped to it: the maximum is the contract).
	Overrun int64 `json:"overruns"`
}

// New builds a model of cfg. cfg must have passed Validate.
func New(cfg *Config, opt Options) *Model {
	seed := sim.ReplicationSeed(cfg.Seed, opt.Replication)
	m := &Model{
		cfg:           cfg,
		opt:           opt,
		guards:        cfg.Guards.withDefaults(),
		s:             sim.New(64), // grows with the events pending; most scenarios keep few
		toolQueueFull: -1,
		res: &Result{
			Seed:    seed,
			Latency: newHistogram(),
			Wait:    newHistogram(),
			Series:  newSeries(len(cfg.Tools)),
		},
	}
	m.arrivals = sim.NewStream(seed, "arrivals")
	if m.src = cfg.Arrivals.Source; m.src == nil {
		var err error
		switch cfg.Arrivals.Process {
		case Poisson:
			m.src, err = arrival.Poisson(cfg.Arrivals.Rate)
		case Constant:
			m.src, err = arrival.Constant(cfg.Arrivals.Rate)
		}
		if err != nil {
			panic("system: invalid arrivals (the loader validates them): " + err.Error())
		}
	}
	m.jitter = sim.NewStream(seed, "retry:jitter")
	m.costRng = sim.NewStream(seed, "cost")
	m.toolRng = make([]*sim.Stream, len(cfg.Tools))
	m.tools = make([]toolState, len(cfg.Tools))
	m.res.Tools = make([]ToolStats, len(cfg.Tools))
	m.res.ToolDelay = make([]*stats.Histogram, len(cfg.Tools))
	for i, t := range cfg.Tools {
		m.toolRng[i] = sim.NewStream(seed, "tool:"+t.Name)
		ts := &m.tools[i]
		ts.queue.init(16)
		ts.busyTW.Start(0, 0) // restarted when the warm-up ends (startMeasuring)
		if t.Concurrency > 0 {
			ts.delay = newHistogram()
			m.res.ToolDelay[i] = ts.delay
		}
		if rl := t.RateLimit; rl != nil {
			b, err := ratelimit.NewTokenBucket(rl.Rate, rl.Burst)
			if err != nil {
				panic("system: invalid rate limit (the loader validates it): " + err.Error())
			}
			ts.bucket = b
		}
	}
	m.versions = make([]uint64, len(cfg.Tools))
	m.budgets = make([]retry.Budget, len(cfg.Steps))
	for i, st := range cfg.Steps {
		if st.Budget != nil {
			m.budgets[i] = newBudget(st.Budget)
		}
	}
	if cfg.ScenarioBudget > 0 {
		a, err := cost.NewAccount(cfg.ScenarioBudget)
		if err != nil {
			panic("system: invalid scenario budget: " + err.Error())
		}
		m.ledger = a
	}
	m.res.StepLatency = make([]*stats.Histogram, len(cfg.Steps))
	for i := range m.res.StepLatency {
		m.res.StepLatency[i] = newHistogram()
	}
	m.res.StepTimeouts = make([]int64, len(cfg.Steps))
	m.res.StepHangs = make([]int64, len(cfg.Steps))
	m.nStages = len(cfg.Steps) + 2
	m.tail.init(m.nStages)
	m.queue.init(64)
	// Free lists start with a cache line or more of their own (see
	// sim.CacheLinePad): they are written on every run.
	m.runs.pool, m.reqs.pool = &runChunks, &requestChunks
	m.free = make([]int32, 0, 64)
	m.freeReqs = make([]int32, 0, 64)
	return m
}

// Run simulates until the arrivals are exhausted and every run has ended,
// or a guard stops it, and returns what was measured.
func (m *Model) Run() *Result {
	cfg := m.cfg
	switch cfg.Arrivals.Process {
	case Batch:
		// The whole batch arrives at 0, fed through the source lane one
		// at a time in places reserved now: the delivery order of a batch
		// scheduled at once, in constant memory whatever its size.
		m.batchSeq = m.s.ReserveSeq(uint64(cfg.Arrivals.Count))
		m.s.SourceSeq(0, m.batchSeq, evArrival, 0, 0)
	case Closed:
		// Every agent thinks once before its first run.
		for u := range cfg.Arrivals.Users {
			m.think(int64(-1 - u))
		}
	default:
		if m.opt.SpareCore {
			m.startSpare()
		}
		m.scheduleArrival()
	}
	for i, t := range cfg.Tools {
		for _, o := range t.Outages {
			if o.Stall {
				m.s.At(o.Start, evStall, int32(i), 0)
				m.s.At(o.End, evUnstall, int32(i), 0)
			}
		}
	}
	wallStart := time.Now()
	var stop string
	for !m.closedDone {
		ev, ok := m.s.Next()
		if !ok {
			break
		}
		if m.s.Now() > m.guards.MaxTime {
			// Checked at every event, not every 4096: every delay is
			// scheduled at most noLimit (~73 years) ahead (seconds() and
			// capped clamp them), and max_time is at most 100 years, so
			// the clock stays far from what a Duration holds only if the
			// guard looks before each event is handled.
			stop = maxTimeStop(m.s.Now())
			break
		}
		switch {
		case ev.Kind == evArrival:
			m.onArrival()
		case ev.Kind == evAttemptEnd:
			m.onAttemptEvent(ev.Ref, ev.Arg)
		case ev.Kind == evWake:
			m.onWake(ev.Ref)
		case ev.Kind == evToolDone:
			m.onToolDone(ev.Ref)
		case ev.Kind == evStall:
			m.tools[ev.Ref].stalled = true
		case ev.Kind == evUnstall:
			m.tools[ev.Ref].stalled = false
			m.serveTool(ev.Ref)
		}
		if m.inSys > m.guards.MaxInSystem || m.toolQueueFull >= 0 || m.s.Processed()&0xfff == 0 {
			if stop = m.guardStop(wallStart, m.s.Processed()); stop != "" {
				break
			}
		}
	}
	m.stopSpare()
	r := m.finish(stop, m.s.Now(), m.s.Processed())
	// The run and request tables are done with: later simulations in the
	// process reuse their chunks (see recycle.go).
	m.runs.release()
	m.reqs.release()
	return r
}

// maxTimeStop is why the max_time guard stopped the simulation at now.
func maxTimeStop(now time.Duration) string {
	return fmt.Sprintf("stopped at virtual time %v (max_time guard)", now)
}

// guardStop returns why a guard stops the simulation after the event just
// handled, the n-th, or "" to go on. Run calls it when the runs in the
// system or a tool queue passed their guard, and every 4096 events.
func (m *Model) guardStop(wallStart time.Time, n uint64) string {
	if m.inSys > m.guards.MaxInSystem {
		return fmt.Sprintf("more than %d runs in the system at once (max_in_system guard): the system is unstable or overloaded", m.guards.MaxInSystem)
	}
	if m.toolQueueFull >= 0 {
		return fmt.Sprintf("more than %d requests waiting at tool %s (max_tool_queue guard): callers give up and retry faster than it serves, and their abandoned requests pile up in its queue (a deadline-aware tool or a bounded tool queue would shed them)", m.guards.MaxToolQueue, m.cfg.Tools[m.toolQueueFull].Name)
	}
	if n&0xfff == 0 {
		if n >= m.guards.MaxEvents {
			return fmt.Sprintf("stopped after %d events (max_events guard)", n)
		}
		if m.opt.Interrupt != nil && m.opt.Interrupt.Load() {
			return "interrupted"
		}
		if n&0xfffff == 0 && time.Since(wallStart) > m.guards.MaxWall {
			return fmt.Sprintf("stopped after %v of wall-clock time (max_wall guard)", m.guards.MaxWall)
		}
	}
	return ""
}

func (m *Model) finish(stop string, end time.Duration, events uint64) *Result {
	r := m.res
	r.End = end
	r.Events = events
	r.Stopped = stop
	for i := range int32(m.runs.len()) {
		// Runs still in the system (in a queue, an attempt or a sleep).
		if run := m.runs.at(i); run.id >= 0 && run.measured {
			r.Runs.InFlight++
		}
	}
	if m.warm {
		// The measured window ends when the last measured run ended (the
		// servers may keep working on abandoned requests after that), or
		// now if runs are still in flight.
		wend := max(m.lastRunEnd, m.warmStart)
		if r.Runs.InFlight > 0 {
			wend = end
		}
		r.Window = wend - m.warmStart
		m.workersChanging()
		workers := &m.workersTW
		if wend < end {
			// Read the workers as they were at wend: warm-up runs may
			// have taken or freed workers since.
			workers = &m.workersAtLastEnd
		}
		if r.Window > 0 {
			r.TimeAvgInSystem = m.inSystemTW.Mean(wend)
			r.WorkerUtilisation = workers.Mean(wend) / float64(m.cfg.Workers)
		}
	}
	r.ToolWindow = end - m.warmStart // warmStart is 0 until a run is measured
	for i := range m.tools {
		ts := &m.tools[i]
		switch {
		case r.ToolWindow <= 0:
		case m.cfg.Tools[i].Concurrency > 0:
			ts.stats.MeanBusy = ts.busyTW.Mean(end)
		default:
			ts.stats.MeanBusy = ts.stats.BusySeconds / secs(r.ToolWindow)
		}
		r.Tools[i] = ts.stats
	}
	// The measured runs' timed-out reservations: the ledger also holds the
	// warm-up's, and those of runs in flight at the end.
	r.Cost.Unsettled = m.unsettled.Float64()
	r.SojournSum = m.sojournSum
	r.Tail = m.tail.result(r.Latency)
	return r
}

// scheduleArrival schedules the next arrival of an open process.
func (m *Model) scheduleArrival() {
	if m.ahead != nil {
		d, ok := m.ahead.next()
		if !ok {
			return
		}
		m.nextDraw = d
		m.nextAt = d.at
		m.s.Source(d.at, evArrival, 0, 0)
		return
	}
	cfg := m.cfg
	if cfg.Runs > 0 && m.nArr >= cfg.Runs {
		return
	}
	at, ok := m.src.Next(m.nArr, m.nextAt, m.arrivals.Rand())
	if !ok || cfg.Horizon > 0 && at >= cfg.Horizon {
		return
	}
	m.nextAt = at
	// Open arrivals come one at a time, in order: the engine's source lane.
	m.s.Source(at, evArrival, 0, 0)
}

// think schedules a closed-population agent's next run after a think time
// drawn by key (the run that just ended, or -1-agent at the start).
//
// With Runs, the population stays complete until the last measured run
// has ended: agents keep looping past the Runs-th arrival (those runs are
// not measured), so no measured run is served while the population winds
// down, and throughput, L and utilisation are those of N agents to the
// end of the measured window. The simulation stops there (closedDone).
// Ending the window where the population first shrinks instead would cut
// off the runs still in flight, the long ones, and bias the sojourn low.
// A measured run that can never end (a hung call with neither timeout nor
// deadline) would keep the agents looping for ever: the loop stops after
// Runs arrivals past the measured ones, and the simulation drains as an
// open one does.
func (m *Model) think(key int64) {
	cfg := m.cfg
	if m.closedDone || cfg.Runs > 0 && m.nArr+m.pending >= 2*cfg.Runs {
		return
	}
	m.arrivals.Key(uint64(key), 0x7417, 0)
	at := m.s.Now() + seconds(cfg.Arrivals.Think.Sample(m.arrivals.Rand()))
	if cfg.Horizon > 0 && at >= cfg.Horizon {
		return
	}
	m.pending++
	m.s.At(at, evArrival, 0, 0)
}

// startMeasuring ends the warm-up at now, the first measured arrival: the
// time-average figures of runs, workers and tools start here, and the
// tools' counters and queueing delays start again from zero.
func (m *Model) startMeasuring(now time.Duration) {
	m.warm = true
	m.warmStart = now
	m.inSystemTW.Start(now, 0)
	m.workersTW.Start(now, int64(m.busy))
	for i := range m.tools {
		ts := &m.tools[i]
		ts.stats = ToolStats{}
		ts.busyTW.Start(now, ts.busyTW.Level())
		if ts.delay != nil {
			*ts.delay = stats.Histogram{}
		}
	}
}

func (m *Model) onArrival() {
	now := m.s.Now()
	cfg := m.cfg
	id := m.nArr
	m.nArr++
	ahead := m.nextDraw // this arrival's draws (when made ahead), before the next one's replace them
	switch cfg.Arrivals.Process {
	case Batch:
		if m.nArr < cfg.Arrivals.Count {
			m.s.SourceSeq(0, m.batchSeq+uint64(m.nArr), evArrival, 0, 0)
		}
	case Closed:
		m.pending--
	default:
		m.scheduleArrival()
	}
	// A closed population's arrivals past Runs keep it complete; they are
	// not measured (see think).
	measured := id >= cfg.WarmupRuns && now >= cfg.WarmupTime && (cfg.Runs == 0 || id < cfg.Runs)
	if measured && !m.warm {
		m.startMeasuring(now)
	}
	if measured {
		m.res.Runs.Arrived++
		m.res.Series.add(now, binArrival, 1)
	}
	if m.busy >= cfg.Workers && cfg.QueueCapacity != Unbounded && m.queue.len() >= cfg.QueueCapacity {
		if measured {
			m.res.Runs.Rejected++
			m.measuredRunEnded(now)
			m.res.Series.add(now, binEnded, 1)
		}
		if m.traced(id) {
			m.opt.Tracer.Run(RunRecord{Run: id, Arrived: now, Started: -1, Ended: now, Outcome: Rejected, Deadline: m.deadlineInstant(now)})
		}
		if cfg.Arrivals.Process == Closed {
			m.checkClosedDone()
			m.think(id)
		}
		return
	}
	ri := m.alloc()
	r := m.runs.at(ri)
	gen := r.gen
	*r = run{id: id, arrived: now, measured: measured, traced: m.traced(id), gen: gen + 1}
	if m.ahead != nil {
		r.ahead, r.hasAhead = ahead, true
	}
	if cfg.Deadline > 0 {
		r.dl = deadline.After(now, cfg.Deadline)
	}
	r.dl = r.dl.WithFloor(cfg.Floor).WithMinLease(cfg.MinLease)
	st := m.stagesOf(ri)
	clear(st)
	m.enter(now, measured)
	if m.busy < cfg.Workers {
		m.takeWorker(now)
		m.startService(ri)
		return
	}
	r.queued = true
	m.queue.push(ri)
}

// enter counts a run into the system at now: the peak, and the
// time-average of the measured runs.
func (m *Model) enter(now time.Duration, measured bool) {
	m.inSys++
	if m.inSys > m.res.PeakInSystem {
		m.res.PeakInSystem = m.inSys
	}
	if measured {
		m.inSystemTW.Inc(now)
	}
}

func (m *Model) takeWorker(now time.Duration) {
	m.busy++
	if m.warm {
		m.workersChanging()
		m.workersTW.Inc(now)
	}
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
	// Tables grow by chunks (see chunked): an overloaded system holding
	// 100 000 runs never copies them.
	ri := m.runs.add()
	if int(ri>>chunkBits) == len(m.stages) {
		m.stages = append(m.stages, make([]time.Duration, m.nStages<<chunkBits))
	}
	return ri
}

// stagesOf returns run slot ri's stage times: queue, one per step, backoff.
func (m *Model) stagesOf(ri int32) []time.Duration {
	c := m.stages[ri>>chunkBits]
	o := int(ri&(1<<chunkBits-1)) * m.nStages
	return c[o : o+m.nStages : o+m.nStages]
}

func (m *Model) startService(ri int32) {
	r := m.runs.at(ri)
	now := m.s.Now()
	r.queued = false
	r.started = now
	m.stagesOf(ri)[0] = now - r.arrived
	if r.measured {
		m.res.Wait.Add(secs((now - r.arrived)))
		if now > r.arrived {
			m.res.Waited++
		}
	}
	r.step = 0
	m.beginStep(ri)
}

func (m *Model) beginStep(ri int32) {
	r := m.runs.at(ri)
	r.attempt = 1
	r.prevSleep = 0
	r.fallback = 0
	r.mayRan = false
	r.tool = int32(m.cfg.Steps[r.step].Tool)
	r.stepStart = m.s.Now()
	m.dial(ri)
}

// stepTime adds d to the current step's stage time.
func (m *Model) stepTime(ri int32, d time.Duration) {
	m.stagesOf(ri)[1+int(m.runs.at(ri).step)] += d
}

// dial starts attempt r.attempt of step r.step, or refuses it locally.
func (m *Model) dial(ri int32) {
	r := m.runs.at(ri)
	now := m.s.Now()
	st := &m.cfg.Steps[r.step]
	tool := &m.cfg.Tools[r.tool]
	ts := &m.tools[r.tool]
	lease, ok := r.dl.TryLease(now, st.Timeout)
	if !ok {
		m.refuse(ri, refusedLease)
		return
	}
	// A cache in front of the tool answers hits without a token, a server
	// slot or a charge.
	hit := m.cacheHit(r, tool)
	// A client-side rate limit: wait for a token before dialing. The wait
	// spends the deadline; a wait that would leave no lease is refused now.
	if !hit && ts.bucket != nil && tool.RateLimit.Client && !r.tokenHeld {
		maxWait := deadline.Unlimited
		if _, set := r.dl.Instant(); set {
			maxWait = r.dl.Remaining(now) - r.dl.Floor() - max(r.dl.MinLease(), 1)
		}
		wait, ok := ts.bucket.ReserveWithinAt(now, 1, maxWait)
		if !ok {
			m.refuse(ri, refusedTokenWait)
			return
		}
		if wait > 0 {
			r.tokenHeld = true
			ts.stats.ClientWaitSeconds += secs(wait)
			m.stepTime(ri, wait)
			m.s.At(now+capped(wait), evWake, ri, 0)
			return
		}
	}
	r.tokenHeld = false
	// Metered calls reserve their declared maximum first; a reservation
	// that does not fit is refused locally, like a lease below the floor.
	r.costHeld = false
	if c := tool.Cost; c != nil && !hit {
		if !m.reserve(r, c.Reserve) {
			if r.measured {
				m.res.Cost.Refused++
			}
			m.refuse(ri, refusedBudget)
			return
		}
	}
	r.gen++
	r.waiting = true
	r.dialed = now
	r.served = -1
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
	o, lat, hung := m.draw(r, hit)
	r.outcome, r.hung, r.latency = o, hung, lat
	r.noAnswer, r.dropped = hung, false
	if !hit {
		// Server-enforced rate limit: over the limit → 429 at once, with a
		// Retry-After of the time until the next token.
		if ts.bucket != nil && !tool.RateLimit.Client && !ts.bucket.AllowAt(now, 1) {
			ts.stats.RateLimited++
			r.outcome, r.hung, r.latency = retry.RateLimited, false, 0
			r.noAnswer, r.dropped = false, true
			if tool.RetryAfter == nil {
				// Without a declared Retry-After, the limiter says when its
				// next token comes.
				r.retryAfter = capped(ts.bucket.NextAt(now) - now)
			}
			r.hasRA = true
			m.s.At(now, evAttemptEnd, ri, int64(r.gen))
			return
		}
		ts.stats.Calls++
		if tool.RateLimit != nil {
			m.res.Series.addCall(now, int(r.tool))
		}
		if tool.Concurrency > 0 {
			m.submit(ri, lease)
			return
		}
		// An unlimited tool serves at once; account its busy time now.
		if !hung {
			ts.stats.Served++
			ts.stats.BusySeconds += secs(lat)
			m.res.Series.addBusy(now, now+lat, int(r.tool))
		}
	}
	if hung || lat > lease {
		r.outcome = retry.Timeout
		r.hung = true
		if !hit && tool.Concurrency == 0 && !hung {
			// The server keeps working after the caller gave up.
			ts.stats.WastedSeconds += secs(lat)
		}
		if lease >= noLimit {
			// Nothing will ever end this attempt: no ceiling, no deadline.
			// The run stays in flight; the scenario validation warns.
			return
		}
		m.s.At(now+lease, evAttemptEnd, ri, int64(r.gen))
		return
	}
	m.s.At(now+lat, evAttemptEnd, ri, int64(r.gen))
}

// reserve reserves amount from the run's budget and the scenario's.
func (m *Model) reserve(r *run, amount cost.Amount) bool {
	if m.cfg.RunBudget > 0 && r.spent+amount > m.cfg.RunBudget {
		return false
	}
	if m.ledger != nil {
		res, ok := m.ledger.TryReserve(amount)
		if !ok {
			return false
		}
		r.costRes = res
	}
	r.reserved = amount
	r.costHeld = true
	return true
}

// settle ends the outstanding reservation with the attempt's outcome:
// answered calls settle their usage (0 when only successes are billed and
// this one failed); timed-out calls have unknown usage and stay reserved
// for reconciliation; a call turned away unserved (a rate limiter's 429, a
// full tool queue's 503, a deadline-aware tool's drop) used nothing, even
// when every request is billed.
func (m *Model) settle(r *run, o retry.Outcome) {
	if !r.costHeld {
		return
	}
	r.costHeld = false
	c := m.cfg.Tools[r.tool].Cost
	if o == retry.Timeout && !r.dropped {
		r.spent += r.reserved // unknown usage: the budget keeps it reserved
		if r.measured {
			m.unsettled += r.reserved
		}
		if m.ledger != nil {
			// The simulation never learns the usage: held for good,
			// without keeping a slot per timed-out call.
			if err := m.ledger.HoldForever(r.costRes); err != nil {
				panic("system: cost hold: " + err.Error())
			}
		}
		return
	}
	var actual cost.Amount
	if (o == retry.OK || !c.BillSuccessOnly) && !r.dropped {
		actual = m.usage(r, c)
	}
	r.spent += actual
	if m.ledger != nil {
		if err := m.ledger.Settle(r.costRes, actual); err != nil {
			panic("system: cost settle: " + err.Error())
		}
	}
	if r.measured {
		m.res.Cost.Spent += actual.Float64()
		if o != retry.OK {
			m.res.Cost.Wasted += actual.Float64()
		}
	}
}

// usage draws a call's actual usage, keyed like the tool's other draws.
func (m *Model) usage(r *run, c *ToolCost) cost.Amount {
	m.costRng.Key(uint64(r.id), uint64(r.step), uint64(r.attempt))
	rnd := m.costRng.Rand()
	u := 0.0
	if c.Usage != nil {
		u = c.Usage.Sample(rnd)
	}
	for i := range c.Dims {
		u += float64(c.Dims[i].Price * c.Dims[i].Usage.Sample(rnd))
	}
	a, err := cost.AmountFromFloat(u)
	if err != nil || a > c.Reserve {
		if r.measured {
			m.res.Cost.Overrun++
		}
		return c.Reserve
	}
	return max(a, 0)
}

// The reasons a call is refused before it is dialed, as traces spell them.
const (
	refusedLease     = "refused"
	refusedTokenWait = "rate_limit_wait_outlasts_deadline"
	refusedBudget    = "cost_budget_exhausted"
)

// refuse ends the current step locally, before dialing: a fallback takes
// over if one can, else the run ends refused.
func (m *Model) refuse(ri int32, why string) {
	r := m.runs.at(ri)
	st := &m.cfg.Steps[r.step]
	if r.measured {
		a := &m.res.Attempts
		a.Refused++
		switch why {
		case refusedLease:
			a.RefusedLease++
		case refusedTokenWait:
			a.RefusedTokenWait++
		}
	}
	if r.traced {
		m.traceRefusal(r, st, why)
	}
	if m.tryFallback(ri) {
		return
	}
	m.end(ri, Refused)
}

// tryFallback switches the current step to its next capable fallback tool
// and dials it; it reports false when none is left. A fallback repeats the
// step's request at another tool: when an attempt may have executed (it
// timed out) that is safe only for an idempotent step. An idempotency key
// does not travel to another provider, so a keyed step falls back only
// with allow_unsafe, like a forced retry, and the call is counted as a
// possible duplicate execution.
func (m *Model) tryFallback(ri int32) bool {
	r := m.runs.at(ri)
	st := &m.cfg.Steps[r.step]
	duplicate := r.mayRan && !st.Retry.Idempotent
	if duplicate && !st.Retry.AllowUnsafe {
		if r.measured && int(r.fallback) < len(st.Fallbacks) {
			m.res.Attempts.UnsafeFallbacks++
		}
		return false
	}
	for int(r.fallback) < len(st.Fallbacks) {
		t := st.Fallbacks[r.fallback]
		r.fallback++
		if !capable(&m.cfg.Tools[t], st.Requires) {
			continue
		}
		if r.measured {
			m.res.Attempts.Fallbacks++
			if duplicate {
				m.res.Attempts.Duplicates++
			}
		}
		r.tool = int32(t)
		r.attempt = 1
		r.prevSleep = 0
		r.prevOutcome = retry.OK
		m.dial(ri)
		return true
	}
	return false
}

func capable(t *Tool, requires []string) bool {
	for _, need := range requires {
		found := false
		for _, c := range t.Capabilities {
			if c == need {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// noLimit is the lease of a call with neither ceiling nor deadline, and
// the longest delay the model schedules.
const noLimit = time.Duration(math.MaxInt64 / 4)

// capped bounds a delay to noLimit: a token wait at a very slow rate, a
// spread Retry-After or a proportional backoff past a 100-year cap could
// otherwise carry an event past what a Duration holds.
func capped(d time.Duration) time.Duration { return min(d, noLimit) }

// draw decides an attempt's outcome and latency from the tool's stream keyed
// by (run, step, attempt): the same attempt of the same run sees the same
// draws whatever policy led to it (common random numbers).
func (m *Model) draw(r *run, hit bool) (o retry.Outcome, lat time.Duration, hung bool) {
	now := m.s.Now()
	tool := &m.cfg.Tools[r.tool]
	var u, raU float64
	if r.hasAhead && !hit && r.step == 0 && r.attempt == 1 && r.tool == int32(m.cfg.Steps[0].Tool) {
		// Drawn ahead, from the same stream and key (drawProducer.fill).
		u, lat, raU = r.ahead.u, r.ahead.lat, r.ahead.raU
	} else {
		stream := m.toolRng[r.tool]
		stream.Key(uint64(r.id), uint64(r.step), uint64(r.attempt))
		rnd := stream.Rand()
		u = rnd.Float64()
		lat = seconds(tool.Latency.Sample(rnd))
		// The Retry-After draw comes last (before a cache hit's latency),
		// so skipping it when nothing reads it changes no other draw.
		if hit || tool.RetryAfter != nil {
			raU = rnd.Float64()
		}
		if hit {
			r.hasRA = false
			return retry.OK, seconds(tool.Cache.Latency.Sample(rnd)), false
		}
	}
	o = retry.OK
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
		if !out.Stall && now >= out.Start && now < out.End {
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
		r.version = m.versions[r.tool]
	}
	// The tool's Retry-After for this attempt comes with any 503 or 429 it
	// sends: a drawn error, its rate limiter's 429 or its full queue's 503.
	// Its uniform is kept; the value is computed only if a reply carries it.
	r.raU = raU
	r.hasRA = tool.RetryAfter != nil && (o == retry.Transient || o == retry.RateLimited)
	return o, lat, hung
}

// cacheHit decides whether the cache answers the attempt, from its own
// keyed draw so that the decision does not depend on anything else.
func (m *Model) cacheHit(r *run, tool *Tool) bool {
	c := tool.Cache
	if c == nil || c.HitRatio == 0 {
		return false
	}
	m.costRng.Key(uint64(r.id)^0xcac4e, uint64(r.step), uint64(r.attempt))
	hit := m.costRng.Float64() < c.HitRatio
	if hit {
		m.tools[r.tool].stats.CacheHits++
	}
	return hit
}

// submit sends the outstanding attempt of run ri to its capacity tool and
// starts the caller's timeout.
func (m *Model) submit(ri int32, lease time.Duration) {
	r := m.runs.at(ri)
	now := m.s.Now()
	t := r.tool
	tool := &m.cfg.Tools[t]
	ts := &m.tools[t]
	if lease < noLimit {
		r.timer = m.s.At(now+lease, evAttemptEnd, ri, -int64(r.gen))
	}
	qi := m.allocReq()
	q := m.reqs.at(qi)
	*q = request{run: ri, gen: r.gen, tool: t, arrived: now, lease: now + lease, latency: r.latency, costRes: r.costRes, metered: r.costHeld}
	if lease >= noLimit {
		q.lease = noLimit
	}
	// A request starts at once only when nobody waits: a slot that frees
	// goes to the head of the queue first (onToolDone), so a free slot with
	// a queue behind it is a stalled tool's.
	if ts.busy < tool.Concurrency && !ts.stalled && ts.queue.len() == 0 {
		m.startRequest(qi)
		return
	}
	if tool.QueueCapacity != Unbounded && ts.queue.len() >= tool.QueueCapacity {
		// The waiting room is full: 503 at once.
		ts.stats.QueueFull++
		m.freeReq(qi)
		m.s.Cancel(r.timer)
		r.outcome, r.hung, r.latency = retry.Transient, false, 0
		r.noAnswer, r.hasRA, r.dropped = false, tool.RetryAfter != nil, true
		m.s.At(now, evAttemptEnd, ri, int64(r.gen))
		return
	}
	ts.queue.push(qi)
	if ts.queue.len() > m.guards.MaxToolQueue {
		m.toolQueueFull = t // the run loop stops after this event
	}
}

func (m *Model) allocReq() int32 {
	if n := len(m.freeReqs); n > 0 {
		i := m.freeReqs[n-1]
		m.freeReqs = m.freeReqs[:n-1]
		return i
	}
	return m.reqs.add()
}

func (m *Model) freeReq(qi int32) { m.freeReqs = append(m.freeReqs, qi) }

func (m *Model) startRequest(qi int32) {
	q := m.reqs.at(qi)
	now := m.s.Now()
	ts := &m.tools[q.tool]
	ts.busy++
	ts.busyTW.Add(now, 1)
	if ts.delay != nil {
		ts.delay.Add(secs((now - q.arrived)))
	}
	if r := m.runs.at(q.run); r.waiting && r.gen == q.gen {
		r.served = now
	}
	m.s.At(now+q.latency, evToolDone, qi, 0)
}

// serveTool starts queued requests on free servers, dropping at dequeue the
// work a deadline-aware tool can no longer finish inside its caller's lease.
func (m *Model) serveTool(t int32) {
	tool := &m.cfg.Tools[t]
	ts := &m.tools[t]
	now := m.s.Now()
	for ts.busy < tool.Concurrency && !ts.stalled && ts.queue.len() > 0 {
		qi := ts.queue.pop()
		q := m.reqs.at(qi)
		if tool.DeadlineAware && q.lease-now < m.dropFloor(tool) {
			ts.stats.Dropped++
			r := m.runs.at(q.run)
			if r.waiting && r.gen == q.gen {
				// Tell the caller at once (DEADLINE_EXCEEDED): a slow failure
				// becomes an immediate one.
				m.s.Cancel(r.timer)
				r.outcome, r.hung, r.dropped = retry.Timeout, true, true
				m.s.At(now, evAttemptEnd, q.run, int64(r.gen))
			}
			m.freeReq(qi)
			continue
		}
		m.startRequest(qi)
	}
}

func (m *Model) dropFloor(t *Tool) time.Duration {
	if t.DropFloor > 0 {
		return t.DropFloor
	}
	return seconds(t.Latency.Quantile(0.5))
}

func (m *Model) onToolDone(qi int32) {
	q := *m.reqs.at(qi)
	now := m.s.Now()
	ts := &m.tools[q.tool]
	ts.busy--
	ts.busyTW.Add(now, -1)
	ts.stats.Served++
	ts.stats.BusySeconds += secs(q.latency)
	m.res.Series.addBusy(now-q.latency, now, int(q.tool))
	m.freeReq(qi)
	// The freed slot goes to the head of the tool's queue before the
	// caller hears back: its reply can submit a request at this instant
	// (its next step at the same tool, or a queued run taking its worker),
	// and that request must queue behind the ones already waiting.
	m.serveTool(q.tool)
	r := m.runs.at(q.run)
	if r.waiting && r.gen == q.gen && !r.noAnswer {
		m.s.Cancel(r.timer)
		m.attemptEnded(q.run)
	} else {
		// The caller gave up, or the call hangs: the server did the work
		// but no answer reaches the caller, whose timeout ends the attempt.
		ts.stats.WastedSeconds += secs(q.latency)
	}
}

// onAttemptEvent handles an evAttemptEnd: arg is the attempt's generation,
// negated when the event is the caller's timeout on a capacity tool.
func (m *Model) onAttemptEvent(ri int32, arg int64) {
	r := m.runs.at(ri)
	gen := arg
	if gen < 0 {
		gen = -gen
	}
	if !r.waiting || uint32(gen) != r.gen {
		return // a stale event (cannot happen with cancelled timers; kept as a guard)
	}
	if arg < 0 {
		// The caller gives up; the request stays at the tool (wasted work).
		r.outcome, r.hung = retry.Timeout, true
	}
	m.attemptEnded(ri)
}

// attemptEnded handles an attempt's reply or its timeout.
func (m *Model) attemptEnded(ri int32) {
	r := m.runs.at(ri)
	now := m.s.Now()
	tool := &m.cfg.Tools[r.tool]
	r.waiting = false
	st := &m.cfg.Steps[r.step]
	o := r.outcome
	if tool.Contention && o == retry.OK && !r.hung {
		if m.versions[r.tool] != r.version {
			o = retry.Transient // the read was stale: the conditional write conflicts
		} else {
			m.versions[r.tool]++
		}
	}
	elapsed := now - r.dialed
	m.stepTime(ri, elapsed)
	m.settle(r, o)
	if o == retry.Timeout && !r.dropped {
		r.mayRan = true
	}
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
			a.WastedSeconds += secs(elapsed)
		}
		if o == retry.Timeout {
			m.res.StepTimeouts[r.step]++
			if r.noAnswer {
				m.res.StepHangs[r.step]++
			}
		} else {
			m.res.StepLatency[r.step].Add(secs(elapsed))
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
	hasRA := r.hasRA && o != retry.Timeout // a timed-out caller read no reply
	retryAfter := r.retryAfter
	if hasRA && tool.RetryAfter != nil {
		retryAfter = seconds(tool.RetryAfter.Quantile(r.raU))
	}
	m.jitter.Key(uint64(r.id), uint64(r.step), uint64(r.attempt))
	d := retry.Decide(retry.Input{
		Policy:        st.Retry,
		Attempt:       int(r.attempt),
		Outcome:       o,
		RetryAfter:    retryAfter,
		HasRetryAfter: hasRA,
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
		if r.measured && d.Reason == retry.BudgetExhausted {
			m.res.Attempts.BudgetDenied++
		}
		outcome := Failed
		switch {
		case o == retry.Timeout && r.leaseCut:
			// The deadline, not the ceiling, bounded the attempt that timed out.
			outcome = DeadlineExceeded
		case d.Reason == retry.SleepOutlastsDeadline || d.Reason == retry.RetryAfterOutlastsDeadline:
			outcome = DeadlineExceeded
		}
		if outcome == Failed && m.tryFallback(ri) {
			return
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
		m.res.Attempts.BackoffSeconds += secs(d.Sleep)
	}
	r.prevSleep = d.Sleep
	r.backoff += d.Sleep
	m.stagesOf(ri)[m.nStages-1] += d.Sleep
	r.attempt++
	if d.Sleep <= 0 {
		m.dial(ri)
		return
	}
	m.s.At(now+capped(d.Sleep), evWake, ri, 0)
}

func (m *Model) onWake(ri int32) {
	m.dial(ri)
}

// measuredRunEnded notes that a measured run ended at now: the measured
// window lasts at least until then.
func (m *Model) measuredRunEnded(now time.Duration) {
	m.lastRunEnd = now
	m.snapPending = true
}

// workersChanging takes the pending snapshot of workersTW (see
// snapPending): callers call it before they change workersTW.
func (m *Model) workersChanging() {
	if m.snapPending {
		m.workersAtLastEnd = m.workersTW
		m.snapPending = false
	}
}

// end records run ri's outcome, frees its worker and serves the queue.
func (m *Model) end(ri int32, o RunOutcome) {
	r := m.runs.at(ri)
	now := m.s.Now()
	if r.measured {
		m.measuredRunEnded(now)
		m.res.Runs.add(o)
		m.res.Series.add(now, binEnded, 1)
		soj := secs((now - r.arrived))
		m.sojournSum += soj
		if o == Completed {
			m.res.Latency.Add(soj)
			m.res.Series.add(now, binCompleted, 1)
			m.tail.add(soj, m.stagesOf(ri))
		}
	}
	if r.traced {
		m.opt.Tracer.Run(RunRecord{Run: r.id, Arrived: r.arrived, Started: r.started, Ended: now, Outcome: o, Deadline: m.deadlineInstant(r.arrived)})
	}
	wasQueued := r.queued
	id := r.id
	r.id = -1
	r.waiting = false
	m.free = append(m.free, ri)
	m.inSys--
	if r.measured {
		m.inSystemTW.Dec(now)
	}
	if m.cfg.Arrivals.Process == Closed {
		m.checkClosedDone()
		m.think(id)
	}
	if wasQueued {
		return
	}
	// The worker is free: serve the queue, dropping entries whose deadline
	// passed while they waited (recorded as expired).
	for m.queue.len() > 0 {
		next := m.queue.pop()
		nr := m.runs.at(next)
		if nr.dl.Expired(now) {
			nr.started = -1
			m.end(next, Expired)
			continue
		}
		m.startService(next)
		return
	}
	m.busy--
	if m.warm {
		m.workersChanging()
		m.workersTW.Dec(now)
	}
}

// checkClosedDone sets closedDone when a closed population with Runs has
// had all its measured arrivals and none of them is left in the system.
func (m *Model) checkClosedDone() {
	if m.cfg.Runs > 0 && m.nArr >= m.cfg.Runs && m.inSystemTW.Level() == 0 {
		m.closedDone = true
	}
}

func (m *Model) traceRefusal(r *run, st *Step, why string) {
	now := m.s.Now()
	rec := &m.rec
	*rec = AttemptRecord{
		Run: r.id, Step: st.Name, Tool: m.cfg.Tools[r.tool].Name, Attempt: int(r.attempt),
		Start: now, Remaining: r.dl.Remaining(now), Served: -1, Outcome: retry.Refused, Backoff: -1,
		ResendCount: int(r.attempt) - 1, Decision: why, HasDeadline: m.cfg.Deadline > 0,
	}
	m.opt.Tracer.Attempt(rec)
}

func (m *Model) traceAttempt(r *run, st *Step, o retry.Outcome, latency, backoff time.Duration, decision string) {
	rec := &m.rec
	*rec = AttemptRecord{
		Run:         r.id,
		Step:        st.Name,
		Tool:        m.cfg.Tools[r.tool].Name,
		Attempt:     int(r.attempt),
		Start:       r.dialed,
		Granted:     r.lease,
		Remaining:   r.dl.Remaining(r.dialed),
		Served:      r.served,
		Outcome:     o,
		Latency:     latency,
		Backoff:     backoff,
		ResendCount: int(r.attempt) - 1,
		Decision:    decision,
		HasDeadline: m.cfg.Deadline > 0,
	}
	m.opt.Tracer.Attempt(rec)
}

// seconds converts float seconds to a Duration, rounding to the nearest
// nanosecond and saturating instead of overflowing.
func seconds(s float64) time.Duration {
	ns := float64(s * 1e9) // float64(): no fused multiply-add (see internal/fpcheck)
	if ns >= float64(noLimit) || math.IsInf(ns, 1) {
		return noLimit
	}
	if ns <= 0 || math.IsNaN(ns) {
		return 0
	}
	return time.Duration(ns + 0.5)
}

// secs converts a Duration to float seconds with one division
// (correctly rounded for |d| < 2⁵³ ns; time.Duration.Seconds splits it
// with an integer division and modulo, measurably slower on the hot path).
func secs(d time.Duration) float64 { return float64(d) / 1e9 }
