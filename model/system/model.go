package system

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/budgetsim/budgetsim/internal/container"
	"github.com/budgetsim/budgetsim/model/arrival"
	"github.com/budgetsim/budgetsim/model/cost"
	"github.com/budgetsim/budgetsim/model/deadline"
	"github.com/budgetsim/budgetsim/model/ratelimit"
	"github.com/budgetsim/budgetsim/sim"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Event kinds of the system model.
const (
	evArrival     sim.Kind = iota
	evAttemptEnd           // Ref: run slot; Arg: generation (negated: the caller's timeout); the attempt's reply or its timeout
	evWake                 // Ref: run slot; Arg: generation; a backoff sleep or a wait at a gate is over
	evToolDone             // Ref: request; a capacity tool finished serving it
	evStall                // Ref: tool; a stall outage starts
	evUnstall              // Ref: tool; a stall outage ends
	evLimitGiveUp          // Ref: run slot; Arg: generation; a wait for an adaptive concurrency permit outlasts the deadline or max_wait
	evHedge                // Ref: run slot; Arg: the group's generation; a hedged step's next attempt is due
)

// Run drops an event of a run slot whose generation is not the slot's
// current one (Model.current, and the group's for evHedge): the call it was
// armed for has ended, been refused or been cancelled. That is the one
// place staleness is checked; the handlers act on current events only.

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
	// the same, bit for bit; only the wall time is shorter. replicate.All and
	// replicate.Each (model/replicate) set it when they run fewer
	// replications than they have workers.
	SpareCore bool
	// Audit makes the model check its own bookkeeping as it runs (audit.go):
	// what an attempt holds is given back when it ends, a tool never
	// serves more calls than its concurrency, a tenant never holds more
	// workers than its cap, and, at the end, every limiter, ledger and
	// breaker agrees with the attempts still holding it. Model.Audit
	// reports the first violation. It costs a few checks per event: for
	// tests and soaks, not for planning.
	Audit bool
}

// run is the state of one run; runs live in a table and are reused.
type run struct {
	// The fields every run's arrival, first call and end read come first.
	id       int64
	arrived  time.Duration
	step     int32
	turn     int32 // the turn of the loop the run is in (loop.go), else 0
	class    int32 // the run's class (classPlan index)
	measured bool
	// hasAhead: ahead holds the first attempt's draws at the first step,
	// made ahead (drawAhead).
	hasAhead bool
	ahead    aheadDraw

	started time.Duration
	dl      deadline.Deadline
	traced  bool
	queued  bool
	// mayRan: an attempt of the current step may have executed (it timed
	// out and the server did not disown it).
	mayRan   bool
	tool     int32 // the tool serving the current step (primary or fallback)
	fallback int32 // fallbacks of the current step used so far

	// cur is the current attempt.
	cur attempt

	// parent is the slot + 1 of the run this one is a member of (a call
	// of a parallel or hedged step, group.go), 0 for a run; member is its
	// index in the group.
	parent int32
	member int32

	spent     cost.Amount // run budget: settled and held so far
	stepStart time.Duration
	backoff   time.Duration // total backoff sleep so far
}

// toolState is a tool's shared, server-side state.
type toolState struct {
	_       sim.CacheLinePad
	busy    int
	queue   waitQueue
	bucket  *ratelimit.TokenBucket
	stalled bool
	stats   ToolStats
	delay   *stats.Histogram // queueing delay at the tool
	busyTW  stats.TimeWeighted
	_       sim.CacheLinePad
}

// window is the measured window of a Model: when the warm-up ended, the
// last measured arrival and end, and the time-averages and sums that
// span it.
type window struct {
	warm        bool
	warmStart   time.Duration
	lastRunEnd  time.Duration
	lastArrival time.Duration // the last measured arrival
	inSystemTW  stats.Count
	workersTW   stats.Count
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
	unsettled   cost.Amount // the measured runs' timed-out reservations
}

// arrivalSource is where a Model's runs come from: the arrival process
// (an open one's next instant, a batch's reserved places, a closed
// population's pending think times), the class each run is drawn into,
// and the draws made ahead on a spare core.
type arrivalSource struct {
	stream *sim.Stream
	src    arrival.Process
	ahead  *drawAhead // nil unless Options.SpareCore applies
	spare  *spareCore // the goroutine on the spare core, or nil
	// nextDraw holds the draws of the arrival scheduled next, made ahead;
	// nextAt is its instant.
	nextDraw aheadDraw
	nextAt   time.Duration
	// classRng and classCum draw a run's class by weight; merge
	// superposes the classes' own arrivals (nextClass: the class of the
	// arrival scheduled next).
	classRng  *sim.Stream
	classCum  []float64
	merge     *classMerge
	nextClass int32
	// n counts the arrivals so far; pending, for a closed population, the
	// arrivals scheduled that have not happened yet.
	n       int64
	pending int64
	// closedDone: a closed population with Runs has had all its measured
	// arrivals and every measured run has ended; the simulation stops.
	closedDone bool
	batchSeq   uint64 // a batch: the first of its arrivals' reserved places (sim.ReserveSeq)
}

// Model is one simulation of a Config. Build it with New and call Run once.
// A Model is not safe for concurrent use; run replications on separate
// Models (see model/replicate).
type Model struct {
	_      sim.CacheLinePad
	cfg    *Config
	opt    Options
	guards Guards
	s      *sim.Sim

	arr     arrivalSource
	toolRng []*sim.Stream
	jitter  *sim.Stream
	costRng *sim.Stream
	// steps and toolPlans are the scenario compiled (plan.go): what each
	// step's and tool's calls can run into.
	steps     []stepPlan
	toolPlans []toolPlan
	// stepCfg is Config.PlanSteps: the steps of every class, indexed like
	// steps. classes is the class table (class.go), one implicit class
	// without classes.
	stepCfg  []Step
	classes  []classPlan
	versions []uint64 // contention: committed writes per tool
	tools    []toolState
	ledger   *cost.Account // the scenario-wide budget, or nil
	// limiters holds each tool's adaptive concurrency limiter (nil
	// entries for tools without one; nil when no tool has one).
	limiters []*toolLimiter
	// breakers holds, per tool, its circuit breaker (breaker.go); nil
	// when no tool has one.
	breakers []toolBreaker
	// held holds, per run slot, what its attempt holds at the gates that
	// keep a handle per call (slotHolds), or is nil when no tool has such
	// a gate: apart from the run table, which then holds no pointers for
	// the collector to scan.
	held []slotHolds

	runs         container.Chunked[run]
	free         []int32
	stages       [][]time.Duration // per run slot, its run's stage times (stages.go): queue, one per step, backoff; nil for a member
	stagePool    [][]time.Duration // stage rows free for the next run
	nStages      int
	reqs         container.Chunked[request]
	freeReqs     []int32
	queue        waitQueue
	schedClasses []schedClass // per class: its priority, tenant and cap (discipline.go)
	busy         int
	inSys        int
	// toolQueueFull is the tool whose queue passed the max_tool_queue
	// guard, or -1.
	toolQueueFull int32

	win window
	res *Result
	tk  *tokenModel // nil unless a tool uses tokens (tokens.go)
	// loops is the agent loops' state (loop.go); nil without loops.
	loops *loopModel
	// caches is the prompt caches' state (promptcache.go); nil without.
	caches *promptCaches
	// calls draws a step's tool among its choices and a parallel step's
	// number of calls (choose.go); nil when no step does either.
	calls *sim.Stream
	tail  tailTable
	rec   AttemptRecord
	// groups holds, per run slot, the group its run waits on (group.go);
	// empty when the scenario has none. kidPool holds the members' lists of
	// groups that ended, for the next to take; maxKids is the most members
	// or hedged attempts of a group.
	groups  container.Chunked[groupRun]
	kidPool [][]int32
	maxKids int
	// auditErr is the first violation found with Options.Audit (audit.go);
	// auditTenants counts the workers each tenant holds.
	auditErr     error
	auditTenants map[string]int
	auditTokens  tokenAudit
	_            sim.CacheLinePad
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
	// Groups holds, per parallel or hedged step (Config.Groups order),
	// what its groups measured; nil when the scenario has none.
	Groups []GroupResult
	// Loops holds, per agent loop (Config.Loops order), what its turns
	// measured; nil when the scenario has none.
	Loops []LoopResult
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
	// Classes holds each class's part of the figures above (Config.Classes
	// order); nil when the scenario has no classes.
	Classes []ClassResult
	// Tokens holds each tool's token figures (Config.Tools order) over
	// ToolWindow, or nil when no tool uses tokens.
	Tokens []TokenStats
	// Tail is the mean time per stage of the completed runs at the p99 of
	// completion time, and the stage sums of every completed run.
	Tail Tail
	// SojournSum is the total time in system of measured runs that ended.
	SojournSum float64
	// Window is the measured interval: from the first measured arrival to
	// the end of the last measured run (or of the simulation, when runs
	// are still in flight).
	Window time.Duration
	// ArrivalSpan is from the first measured arrival to the last: the
	// time over which the measured load was offered. Window is longer by
	// the drain after the last arrival.
	ArrivalSpan time.Duration
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
	// Breakers holds, per tool (Config.Tools order), what its circuit
	// breaker did; nil when no tool has one, and zero for a tool without.
	Breakers []BreakerStats
	_        sim.CacheLinePad
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
	// Adaptive holds the figures of the tool's adaptive concurrency limit;
	// nil without one.
	Adaptive *AdaptiveStats `json:"adaptive_concurrency,omitempty"`
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
	// Tokens splits the settled spend on model calls' tokens by kind.
	Tokens TokenCost `json:"tokens,omitzero"`
}

// TokenCost is settled spend on tokens by kind: input tokens at
// input_token, those read from and written to a prompt cache at their
// prices, and output tokens at output_token (a call whose bill its
// reservation clamped is scaled down with it). It is part of Spent;
// rounding to the ledger's unit may separate the two by a unit a call.
type TokenCost struct {
	Input      float64 `json:"input"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
	Output     float64 `json:"output"`
}

// Add adds o to c.
func (c *TokenCost) Add(o TokenCost) {
	c.Input += o.Input
	c.CacheRead += o.CacheRead
	c.CacheWrite += o.CacheWrite
	c.Output += o.Output
}

// New builds a model of cfg, which must be as the scenarios package
// builds it: checked, defaults applied. It may panic on a Config those
// checks refuse.
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
			Latency: NewHistogram(),
			Wait:    NewHistogram(),
			Series:  NewSeries(len(cfg.Tools)),
		},
	}
	m.arr.stream = sim.NewStream(seed, "arrivals")
	if m.arr.src = arrival.Instance(cfg.Arrivals.Source); m.arr.src == nil {
		var err error
		switch cfg.Arrivals.Process {
		case Poisson:
			m.arr.src, err = arrival.Poisson(cfg.Arrivals.Rate)
		case Constant:
			m.arr.src, err = arrival.Constant(cfg.Arrivals.Rate)
		}
		if err != nil {
			panic("system: invalid arrivals (the loader validates them): " + err.Error())
		}
	}
	m.jitter = sim.NewStream(seed, "retry:jitter")
	m.costRng = sim.NewStream(seed, "cost")
	m.toolRng = make([]*sim.Stream, len(cfg.Tools))
	m.tools = make([]toolState, len(cfg.Tools))
	m.toolPlans = make([]toolPlan, len(cfg.Tools))
	m.res.Tools = make([]ToolStats, len(cfg.Tools))
	m.res.ToolDelay = make([]*stats.Histogram, len(cfg.Tools))
	for i, t := range cfg.Tools {
		m.toolRng[i] = sim.NewStream(seed, "tool:"+t.Name)
		m.toolPlans[i] = compileTool(&cfg.Tools[i])
		ts := &m.tools[i]
		ts.queue.init(t.Discipline, cfg.Scheduling.Tenants, false, 16)
		ts.busyTW.Start(0, 0) // restarted when the warm-up ends (startMeasuring)
		if t.Concurrency > 0 {
			ts.delay = NewHistogram()
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
	m.initAdaptive()
	m.breakers = m.newBreakers(cfg)
	m.tk = newTokenModel(cfg, seed)
	m.loops = newLoopModel(cfg, seed)
	m.caches = newPromptCaches(cfg)
	m.calls = newCallsStream(cfg, seed)
	if m.limiters != nil || m.tk != nil || cfg.ScenarioBudget > 0 {
		m.held = make([]slotHolds, 0, 64)
	}
	m.versions = make([]uint64, len(cfg.Tools))
	m.stepCfg = cfg.PlanSteps()
	m.compileClasses(seed)
	m.steps = make([]stepPlan, len(m.stepCfg))
	for i, st := range m.stepCfg {
		m.steps[i] = stepPlan{tool: int32(st.Tool), timeout: st.Timeout, firstToken: st.FirstTokenTimeout, group: int32(st.Group), loop: int32(st.Loop), choose: compileChoices(st.Choose)}
		if st.Budget != nil {
			m.steps[i].budget = newBudget(st.Budget)
		}
		if st.Group > 0 {
			if h := cfg.Groups[st.Group-1].Hedge; h != nil {
				m.steps[i].hedger = newHedger(h)
			}
		}
	}
	for _, g := range cfg.Groups {
		m.maxKids = max(m.maxKids, g.Members)
		if g.Hedge != nil {
			m.maxKids = max(m.maxKids, g.Hedge.MaxAttempts)
		}
	}
	if len(cfg.Loops) > 0 {
		m.res.Loops = make([]LoopResult, len(cfg.Loops))
		for i := range m.res.Loops {
			m.res.Loops[i] = newLoopResult()
		}
	}
	if len(cfg.Groups) > 0 {
		m.res.Groups = make([]GroupResult, len(cfg.Groups))
		for i := range m.res.Groups {
			m.res.Groups[i].Latency = NewHistogram()
		}
	}
	if cfg.ScenarioBudget > 0 {
		a, err := cost.NewAccount(cfg.ScenarioBudget)
		if err != nil {
			panic("system: invalid scenario budget: " + err.Error())
		}
		m.ledger = a
	}
	m.res.StepLatency = make([]*stats.Histogram, len(m.stepCfg))
	for i := range m.res.StepLatency {
		m.res.StepLatency[i] = NewHistogram()
	}
	m.res.StepTimeouts = make([]int64, len(m.stepCfg))
	m.res.StepHangs = make([]int64, len(m.stepCfg))
	m.res.Classes = newClassResults(len(cfg.Classes))
	m.nStages = len(m.stepCfg) + 2 + len(cfg.Groups) // queue, steps, a stage per group (group.go), backoff
	m.tail.init(m.nStages)
	m.queue.init(cfg.Scheduling.Workers, cfg.Scheduling.Tenants, true, 64)
	m.schedClasses = compileSchedClasses(cfg)
	// Free lists start with a cache line or more of their own (see
	// sim.CacheLinePad): they are written on every run.
	m.runs.Pool, m.reqs.Pool = &runChunks, &requestChunks
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
		m.arr.batchSeq = m.s.ReserveSeq(uint64(cfg.Arrivals.Count))
		m.s.SourceSeq(0, m.arr.batchSeq, evArrival, 0, 0)
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
	for !m.arr.closedDone {
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
		switch ev.Kind {
		case evArrival:
			m.onArrival()
		case evAttemptEnd:
			if m.current(ev.Ref, ev.Arg) {
				m.onAttemptEvent(ev.Ref, ev.Arg)
			}
		case evWake:
			if m.current(ev.Ref, ev.Arg) {
				m.onWake(ev.Ref)
			}
		case evToolDone:
			m.onToolDone(ev.Ref)
		case evStall:
			m.tools[ev.Ref].stalled = true
		case evUnstall:
			m.tools[ev.Ref].stalled = false
			m.serveTool(ev.Ref)
		case evLimitGiveUp:
			if m.current(ev.Ref, ev.Arg) {
				m.onLimitGiveUp(ev.Ref)
			}
		case evHedge:
			if m.groups.At(ev.Ref).gen == uint32(ev.Arg) {
				m.hedgeNow(ev.Ref, m.groups.At(ev.Ref))
			}
		}
		if m.opt.Audit {
			m.auditEvent()
		}
		if m.liveSlots() > m.guards.MaxInSystem || m.toolQueueFull >= 0 || m.s.Processed()&0xfff == 0 {
			if stop = m.guardStop(wallStart, m.s.Processed()); stop != "" {
				break
			}
		}
	}
	m.stopSpare()
	if m.opt.Audit {
		m.auditEnd()
	}
	r := m.finish(stop, m.s.Now(), m.s.Processed())
	// The run and request tables are done with: later simulations in the
	// process reuse their chunks (see recycle.go).
	m.runs.Release()
	m.reqs.Release()
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
	if n := m.liveSlots(); n > m.guards.MaxInSystem {
		return fmt.Sprintf("more than %d runs and calls of their parallel or hedged steps in the system at once (%d runs, %d calls; the max_in_system guard counts both, each holding a run's memory): the system is unstable or overloaded", m.guards.MaxInSystem, m.inSys, n-m.inSys)
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
	for i := range int32(m.runs.Len()) {
		// Runs still in the system (in a queue, an attempt or a sleep).
		if run := m.runs.At(i); run.id >= 0 && run.measured && run.parent == 0 {
			r.Runs.InFlight++
			if r.Classes != nil {
				r.Classes[run.class].Runs.InFlight++
			}
		}
	}
	if m.win.warm {
		// The measured window ends when the last measured run ended (the
		// servers may keep working on abandoned requests after that), or
		// now if runs are still in flight.
		wend := max(m.win.lastRunEnd, m.win.warmStart)
		if r.Runs.InFlight > 0 {
			wend = end
		}
		r.Window = wend - m.win.warmStart
		r.ArrivalSpan = m.win.lastArrival - m.win.warmStart
		m.workersChanging()
		workers := &m.win.workersTW
		if wend < end {
			// Read the workers as they were at wend: warm-up runs may
			// have taken or freed workers since.
			workers = &m.win.workersAtLastEnd
		}
		if r.Window > 0 {
			r.TimeAvgInSystem = m.win.inSystemTW.Mean(wend)
			r.WorkerUtilisation = workers.Mean(wend) / float64(m.cfg.Workers)
		}
	}
	r.ToolWindow = end - m.win.warmStart // warmStart is 0 until a run is measured
	if m.breakers != nil {
		m.finishBreakers(end)
	}
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
	if m.limiters != nil {
		m.finishAdaptive(r, end)
	}
	// The measured runs' timed-out reservations: the ledger also holds the
	// warm-up's, and those of runs in flight at the end.
	r.Cost.Unsettled = m.win.unsettled.Float64()
	if m.tk != nil {
		r.Tokens = m.tk.result()
	}
	r.SojournSum = m.win.sojournSum
	r.Tail = m.tail.result(r.Latency)
	return r
}

// scheduleArrival schedules the next arrival of an open process.
func (m *Model) scheduleArrival() {
	if m.arr.ahead != nil {
		d, ok := m.arr.ahead.next()
		if !ok {
			return
		}
		m.arr.nextDraw = d
		m.arr.nextAt = d.at
		m.s.Source(d.at, evArrival, 0, 0)
		return
	}
	cfg := m.cfg
	if cfg.Runs > 0 && m.arr.n >= cfg.Runs {
		return
	}
	if m.arr.merge != nil {
		at, k, ok := m.arr.merge.pop(cfg.Horizon)
		if !ok {
			return
		}
		m.arr.nextAt, m.arr.nextClass = at, k
		m.s.Source(at, evArrival, 0, 0)
		return
	}
	at, ok := m.arr.src.Next(m.arr.n, m.arr.nextAt, m.arr.stream.Rand())
	if !ok || cfg.Horizon > 0 && at >= cfg.Horizon {
		return
	}
	m.arr.nextAt = at
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
	if m.arr.closedDone || cfg.Runs > 0 && m.arr.n+m.arr.pending >= 2*cfg.Runs {
		return
	}
	m.arr.stream.Key(uint64(key), 0x7417, 0)
	at := m.s.Now() + seconds(cfg.Arrivals.Think.Sample(m.arr.stream.Rand()))
	if cfg.Horizon > 0 && at >= cfg.Horizon {
		return
	}
	m.arr.pending++
	m.s.At(at, evArrival, 0, 0)
}

// startMeasuring ends the warm-up at now, the first measured arrival: the
// time-average figures of runs, workers and tools start here, and the
// tools' counters and queueing delays start again from zero.
func (m *Model) startMeasuring(now time.Duration) {
	m.win.warm = true
	m.win.warmStart = now
	m.win.inSystemTW.Start(now, 0)
	m.win.workersTW.Start(now, int64(m.busy))
	for i := range m.tools {
		ts := &m.tools[i]
		ts.stats = ToolStats{}
		ts.busyTW.Start(now, ts.busyTW.Level())
		if ts.delay != nil {
			*ts.delay = stats.Histogram{}
		}
	}
	if m.limiters != nil {
		m.startMeasuringAdaptive(now)
	}
	if m.tk != nil {
		m.tk.resetStats()
	}
}

func (m *Model) onArrival() {
	now := m.s.Now()
	cfg := m.cfg
	id := m.arr.n
	m.arr.n++
	ahead := m.arr.nextDraw // this arrival's draws (when made ahead), before the next one's replace them
	class := m.arr.nextClass
	if m.arr.classRng != nil {
		class = m.drawClass(id)
	}
	switch cfg.Arrivals.Process {
	case Batch:
		if m.arr.n < cfg.Arrivals.Count {
			m.s.SourceSeq(0, m.arr.batchSeq+uint64(m.arr.n), evArrival, 0, 0)
		}
	case Closed:
		m.arr.pending--
	default:
		m.scheduleArrival()
	}
	// A closed population's arrivals past Runs keep it complete; they are
	// not measured (see think).
	measured := id >= cfg.WarmupRuns && now >= cfg.WarmupTime && (cfg.Runs == 0 || id < cfg.Runs)
	if measured && !m.win.warm {
		m.startMeasuring(now)
	}
	if measured {
		m.res.Runs.Arrived++
		m.res.Series.bin(now).Arrivals++
		m.win.lastArrival = now
		if m.res.Classes != nil {
			m.res.Classes[class].Runs.Arrived++
		}
	}
	c := &m.schedClasses[class]
	if (m.busy >= cfg.Workers || m.queue.q != nil && m.queue.atCap(c)) && cfg.QueueCapacity != Unbounded && m.queue.Len() >= cfg.QueueCapacity && !m.pushOut(c) {
		if measured {
			m.res.Runs.Rejected++
			if m.res.Classes != nil {
				m.res.Classes[class].Runs.Rejected++
			}
			m.measuredRunEnded(now)
			m.res.Series.bin(now).Ended++
		}
		if m.traced(id) {
			m.opt.Tracer.Run(RunRecord{Run: id, Arrived: now, Started: -1, Ended: now, Outcome: Rejected, Deadline: m.deadlineInstant(class, now), Class: m.className(class)})
		}
		if cfg.Arrivals.Process == Closed {
			m.checkClosedDone()
			m.think(id)
		}
		return
	}
	ri := m.alloc()
	m.takeStages(ri)
	r := m.runs.At(ri)
	gen := r.cur.gen // the slot's: events of its last run's attempts are stale
	*r = run{}       // cleared in place (a literal with fields is built aside, then copied)
	r.id, r.arrived, r.measured, r.traced = id, now, measured, m.traced(id)
	r.class = class
	r.cur.gen = gen + 1
	if m.arr.ahead != nil {
		r.ahead, r.hasAhead = ahead, true
	}
	if d := m.classes[class].deadline; d > 0 {
		r.dl = deadline.After(now, d)
	}
	r.dl = r.dl.WithFloor(cfg.Floor).WithMinLease(cfg.MinLease)
	m.enter(now, measured)
	if m.queue.q != nil {
		m.queueRun(now, ri, c)
		return
	}
	if m.busy < cfg.Workers {
		m.takeWorker(now)
		m.startService(ri)
		return
	}
	r.queued = true
	m.queue.ring.Push(ri)
}

// enter counts a run into the system at now: the peak, and the
// time-average of the measured runs.
func (m *Model) enter(now time.Duration, measured bool) {
	m.inSys++
	if m.inSys > m.res.PeakInSystem {
		m.res.PeakInSystem = m.inSys
	}
	if measured {
		m.win.inSystemTW.Inc(now)
	}
}

func (m *Model) takeWorker(now time.Duration) {
	m.busy++
	if m.win.warm {
		m.workersChanging()
		m.win.workersTW.Inc(now)
	}
}

// deadlineInstant is the deadline of a run of class k arrived at now, or
// -1 when it has none.
func (m *Model) deadlineInstant(k int32, now time.Duration) time.Duration {
	if d := m.classes[k].deadline; d > 0 {
		return now + d
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
		m.resetSlot(i)
		return i
	}
	// Tables grow by chunks (container.Chunked): an overloaded system holding
	// 100 000 runs never copies them.
	ri := m.runs.Add()
	m.stages = append(m.stages, nil)
	if m.held != nil {
		m.held = append(m.held, slotHolds{})
	}
	if m.tk != nil {
		m.tk.alloc()
	}
	if m.loops != nil {
		m.loops.runs = append(m.loops.runs, loopRun{})
	}
	return ri
}

// resetSlot clears what the per-slot tables kept of run slot ri's last
// run, before the slot is reused (the run itself is cleared by its
// caller, which keeps its generation).
func (m *Model) resetSlot(ri int32) {
	if m.loops != nil {
		m.loops.runs[ri] = loopRun{}
	}
	if m.held != nil {
		m.held[ri] = slotHolds{}
	}
	if tk := m.tk; tk != nil {
		clear(tk.outs[int(ri)*tk.nOuts : int(ri+1)*tk.nOuts])
	}
}

// stagesOf returns run slot ri's stage times: queue, one per step, backoff;
// nil for a member of a group.
func (m *Model) stagesOf(ri int32) []time.Duration { return m.stages[ri] }

func (m *Model) startService(ri int32) {
	r := m.runs.At(ri)
	now := m.s.Now()
	if m.opt.Audit {
		m.auditWorker(r.class, 1)
	}
	r.queued = false
	r.started = now
	m.stagesOf(ri)[0] = now - r.arrived
	if r.measured {
		m.res.Wait.Add(secs((now - r.arrived)))
		if now > r.arrived {
			m.res.Waited++
		}
		if m.res.Classes != nil {
			m.res.Classes[r.class].started(secs(now - r.arrived))
		}
	}
	r.step = m.classes[r.class].first
	m.beginStep(ri)
}

func (m *Model) beginStep(ri int32) {
	r := m.runs.At(ri)
	r.cur.n = 1
	r.cur.prevSleep = 0
	r.fallback = 0
	r.mayRan = false
	r.tool = m.stepTool(r, r.step)
	r.stepStart = m.s.Now()
	if li := m.steps[r.step].loop - 1; li >= 0 {
		if !m.loopRunOf(ri).active {
			m.enterLoop(ri, r, li)
		}
		if lp := &m.loops.loops[li]; lp.compact && r.step == int32(lp.First) && m.skipCompaction(ri, r, li) {
			r.step++ // no compaction this turn
			m.beginStep(ri)
			return
		}
	}
	if m.steps[r.step].group > 0 {
		m.beginGroup(ri, r)
		return
	}
	m.dial(ri)
}

// measuredRunEnded notes that a measured run ended at now: the measured
// window lasts at least until then.
func (m *Model) measuredRunEnded(now time.Duration) {
	m.win.lastRunEnd = now
	m.win.snapPending = true
}

// workersChanging takes the pending snapshot of workersTW (see
// snapPending): callers call it before they change workersTW.
func (m *Model) workersChanging() {
	if m.win.snapPending {
		m.win.workersAtLastEnd = m.win.workersTW
		m.win.snapPending = false
	}
}

// end records run ri's outcome, frees its worker and serves the queue.
func (m *Model) end(ri int32, o RunOutcome) {
	r := m.runs.At(ri)
	if r.parent != 0 {
		m.memberEnded(ri, o) // a member of a group ends, not a run
		return
	}
	now := m.s.Now()
	if r.measured {
		m.measuredRunEnded(now)
		m.res.Runs.add(o)
		b := m.res.Series.bin(now)
		b.Ended++
		soj := secs((now - r.arrived))
		m.win.sojournSum += soj
		if o == Completed {
			m.res.Latency.Add(soj)
			b.Completed++
			m.tail.add(soj, m.stagesOf(ri))
		}
		if m.res.Classes != nil {
			m.res.Classes[r.class].ended(o, soj)
			m.classWorkerTime(r, now)
		}
	}
	if r.traced {
		m.opt.Tracer.Run(RunRecord{Run: r.id, Arrived: r.arrived, Started: r.started, Ended: now, Outcome: o, Deadline: m.deadlineInstant(r.class, r.arrived), Class: m.className(r.class)})
	}
	wasQueued := r.queued
	c := m.classOf(r)
	id := r.id
	if m.opt.Audit {
		m.auditFree(ri, r)
		if !wasQueued && r.started >= 0 {
			m.auditWorker(r.class, -1)
		}
	}
	r.id = -1
	r.cur.state = idle
	m.putStages(ri)
	m.free = append(m.free, ri)
	m.inSys--
	if r.measured {
		m.win.inSystemTW.Dec(now)
	}
	if m.cfg.Arrivals.Process == Closed {
		m.checkClosedDone()
		m.think(id)
	}
	if wasQueued {
		return
	}
	m.queue.done(now, c)
	// The worker is free: serve the queue, dropping entries whose deadline
	// passed while they waited (recorded as expired).
	for {
		var next int32
		var ok bool
		if m.queue.q == nil {
			next, ok = m.queue.ringPop()
		} else {
			next, ok = m.queue.popSched(now)
		}
		if !ok {
			break
		}
		nr := m.runs.At(next)
		if nr.dl.Expired(now) {
			m.queue.done(now, m.classOf(nr))
			nr.started = -1
			m.end(next, Expired)
			continue
		}
		m.startService(next)
		return
	}
	m.busy--
	if m.win.warm {
		m.workersChanging()
		m.win.workersTW.Dec(now)
	}
}

// checkClosedDone sets closedDone when a closed population with Runs has
// had all its measured arrivals and none of them is left in the system.
func (m *Model) checkClosedDone() {
	if m.cfg.Runs > 0 && m.arr.n >= m.cfg.Runs && m.win.inSystemTW.Level() == 0 {
		m.arr.closedDone = true
	}
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
