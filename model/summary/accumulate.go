package summary

import (
	"math"
	"strings"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// An Accumulator pools replications one at a time, in replication order,
// into the Summary that Summarize gives for the same results (Summarize is
// an Accumulator fed the whole slice). A caller running many replications
// can add each as it completes and drop it: memory then holds the pooled
// figures, not every replication's histograms and series.
type Accumulator struct {
	cfg   *system.Config
	level float64
	s     Summary
	n     int

	lat, wait              *stats.Histogram
	series                 *system.Series
	window, sojourn, tavgW float64
	// span is Σ ArrivalSpan and gaps Σ (arrived − 1) over the replications
	// that measured at least one arrival.
	span, gaps       float64
	steps            []StepCalls
	groups           []groupPool
	loops            []loopPool
	stops            []Stop
	util, toolWindow float64
	tools            []toolPool
	cost             CostSummary
	tail             system.Tail
	figs             []replicationFigures
	breakers         []system.BreakerStats // per tool; nil without breakers
	classes          []classPool           // nil without classes (classes.go)
}

// StepCalls is one step's calls pooled over the replications added so
// far: the latencies of its answered attempts, its attempts that timed out
// and, of those, the hangs (calls that would never have answered).
type StepCalls struct {
	Latency         *stats.Histogram
	Timeouts, Hangs int64
}

// Stop records a replication that stopped early and why (its
// system.Result.Stopped).
type Stop struct {
	Replication int
	Reason      string
}

// toolPool is one tool's server-side figures so far.
type toolPool struct {
	ts     ToolSummary
	busy   float64 // Σ mean busy × simulated time
	delay  *stats.Histogram
	tokens system.TokenStats
}

// NewAccumulator returns an empty Accumulator for replications of cfg,
// with confidence intervals at level.
func NewAccumulator(cfg *system.Config, level float64) *Accumulator {
	a := &Accumulator{
		cfg:   cfg,
		level: level,
		s: Summary{
			Scenario:  cfg.Name,
			Seed:      cfg.Seed,
			Estimator: QuantileEstimator,
			Warnings:  []string{},
		},
		lat:    system.NewHistogram(),
		wait:   system.NewHistogram(),
		series: system.NewSeries(len(cfg.Tools)),
		steps:  make([]StepCalls, len(cfg.PlanSteps())),
		tools:  make([]toolPool, len(cfg.Tools)),
		tail:   system.NewTail(len(cfg.PlanSteps()) + 2 + len(cfg.Groups)),
		groups: newGroupPools(cfg),
		loops:  newLoopPools(cfg),
	}
	a.classes = newClassPools(cfg)
	for i := range a.steps {
		a.steps[i].Latency = system.NewHistogram()
	}
	for i, t := range cfg.Tools {
		a.tools[i] = toolPool{ts: ToolSummary{Name: t.Name, Concurrency: t.Concurrency}, delay: system.NewHistogram()}
	}
	return a
}

// Add pools replication r; replications must come in replication order
// (the sums are of floats: another order could change the last digit).
func (a *Accumulator) Add(r *system.Result) {
	s := &a.s
	if r.Stopped != "" {
		a.stops = append(a.stops, Stop{Replication: a.n, Reason: r.Stopped})
	}
	a.n++
	s.Runs.Merge(r.Runs)
	s.Attempts.AttemptCounts.Merge(r.Attempts)
	a.lat.Merge(r.Latency)
	a.wait.Merge(r.Wait)
	a.series.Merge(r.Series)
	w := r.Window.Seconds()
	a.window += w
	if r.Runs.Arrived > 0 {
		a.span += r.ArrivalSpan.Seconds()
		a.gaps += float64(r.Runs.Arrived - 1)
	}
	a.sojourn += r.SojournSum
	a.tavgW += float64(r.TimeAvgInSystem * w)
	s.Events += r.Events
	s.Little.PeakInSystem = max(s.Little.PeakInSystem, r.PeakInSystem)
	if r.Stopped != "" {
		s.Partial = true
		s.Warnings = appendOnce(s.Warnings, "partial result: "+r.Stopped)
	}
	for i := range a.steps {
		st := &a.steps[i]
		if i < len(r.StepLatency) && r.StepLatency[i] != nil {
			st.Latency.Merge(r.StepLatency[i])
		}
		if i < len(r.StepTimeouts) {
			st.Timeouts += r.StepTimeouts[i]
		}
		if i < len(r.StepHangs) {
			st.Hangs += r.StepHangs[i]
		}
	}
	a.addGroups(r)
	a.addLoops(r)
	a.util += float64(r.WorkerUtilisation * r.Window.Seconds())
	a.toolWindow += r.ToolWindow.Seconds()
	for i := range a.tools {
		tp, st := &a.tools[i], r.Tools[i]
		ts := &tp.ts
		ts.Calls += st.Calls
		ts.Served += st.Served
		ts.CacheHits += st.CacheHits
		ts.RateLimited += st.RateLimited
		ts.QueueFull += st.QueueFull
		ts.Dropped += st.Dropped
		ts.BusySeconds += st.BusySeconds
		ts.WastedSeconds += st.WastedSeconds
		ts.ClientWaitSeconds += st.ClientWaitSeconds
		ts.Adaptive = ts.Adaptive.Merge(st.Adaptive)
		tp.busy += float64(st.MeanBusy * r.ToolWindow.Seconds())
		if r.ToolDelay[i] != nil {
			tp.delay.Merge(r.ToolDelay[i])
		}
		tp.addTokens(r, i)
	}
	c := &a.cost
	c.Spent += r.Cost.Spent
	c.Unsettled += r.Cost.Unsettled
	c.Wasted += r.Cost.Wasted
	c.Refused += r.Cost.Refused
	c.Overrun += r.Cost.Overrun
	c.Tokens.Add(r.Cost.Tokens)
	a.tail.Merge(r.Tail)
	// Peak attempt rate: per replication (the runs of different
	// replications never overlap in reality), so take the maximum.
	if p := r.Series.PeakAttemptRate(); p > s.Attempts.PeakRate {
		s.Attempts.PeakRate = p
		s.Attempts.PeakWindow = r.Series.Width.Seconds()
	}
	a.figs = append(a.figs, figures(a.cfg, r))
	a.breakers = poolBreakers(a.breakers, r.Breakers)
	a.addClasses(r)
}

// ReplicationFigure is one replication's headline figures: what a paired
// comparison of variants run on common random numbers differences
// replication by replication.
type ReplicationFigure struct {
	// SuccessRate is completed / arrived; LatencyMean and LatencyP99 are
	// the completion time's, over Completed runs (0 when none).
	SuccessRate, LatencyMean, LatencyP99 float64
	Completed                            uint64
	// AttemptsPerRun is attempts dialed / arrived; PeakAttemptRate the
	// replication's peak attempts per second (system.Series).
	AttemptsPerRun, PeakAttemptRate float64
	// CostPerSuccess is spent / completed when a tool is metered (NaN
	// when unmetered or nothing completed); RecoveryAfter is how long
	// goodput took to come back after the last outage, as Recovery.After
	// (NaN without outages or when it never came back).
	CostPerSuccess, RecoveryAfter float64
}

// Figures returns each replication's figures, in the order the
// replications were added (replication order, through replicate.Each).
func (a *Accumulator) Figures() []ReplicationFigure {
	out := make([]ReplicationFigure, len(a.figs))
	for i, f := range a.figs {
		out[i] = ReplicationFigure{SuccessRate: f.success, LatencyMean: f.lat.Mean, LatencyP99: f.lat.P99, Completed: f.lat.N,
			AttemptsPerRun: f.perRun, PeakAttemptRate: f.peakRate, CostPerSuccess: math.NaN(), RecoveryAfter: f.recoverAfter}
		if metered(a.cfg) && f.completed > 0 {
			out[i].CostPerSuccess = f.spent / f.completed
		}
	}
	return out
}

// metered reports whether a tool of cfg has a cost.
func metered(cfg *system.Config) bool {
	for _, t := range cfg.Tools {
		if t.Cost != nil {
			return true
		}
	}
	return false
}

// Latency and Wait return the pooled completion and wait histograms (what
// Pool returns for the same results). They are the Accumulator's own.
func (a *Accumulator) Latency() *stats.Histogram { return a.lat }

// Wait returns the pooled wait histogram; see Latency.
func (a *Accumulator) Wait() *stats.Histogram { return a.wait }

// Config returns the configuration the Accumulator pools replications of.
func (a *Accumulator) Config() *system.Config { return a.cfg }

// Replications returns the number of replications added so far.
func (a *Accumulator) Replications() int { return a.n }

// StepCalls returns each step's pooled calls, in the configuration's step
// order; the histograms are the Accumulator's own.
func (a *Accumulator) StepCalls() []StepCalls { return a.steps }

// Stops returns the replications added so far that stopped early, in
// replication order (counted from 0 in the order they were added).
func (a *Accumulator) Stops() []Stop { return a.stops }

// Summary returns the summary of the replications added so far.
func (a *Accumulator) Summary() Summary {
	cfg, s := a.cfg, a.s
	s.Replications = a.n
	s.Warnings = append([]string{}, a.s.Warnings...)
	s.Latency = percentiles(a.lat)
	s.Wait = percentiles(a.wait)
	s.Steps = a.stepSummaries()
	s.Groups = a.groupSummaries()
	s.Loops = a.loopSummaries()
	s.Recovery = recovery(cfg, a.series)
	s.Breakers = breakerSummaries(cfg, a.breakers)
	a.resources(&s)
	tail := a.tail.Recompute(a.lat)
	s.Tail = tailSummary(cfg, tail)
	if s.Runs.Arrived > 0 {
		s.SuccessRate = float64(s.Runs.Completed) / float64(s.Runs.Arrived)
		s.Attempts.PerRun = float64(s.Attempts.Attempts) / float64(s.Runs.Arrived)
	}
	if a.window > 0 {
		s.Little.ArrivalRate = float64(s.Runs.Arrived) / a.window
		s.Little.Throughput = float64(s.Runs.Completed) / a.window
		s.Little.TimeAvgInSystem = a.tavgW / a.window
	}
	if n := s.Runs.Ended(); n > 0 {
		s.Little.MeanInSystem = a.sojourn / float64(n)
	}
	s.Rates = Rates{CompletedPerSecond: s.Little.Throughput, ArrivalSpan: a.span, Window: a.window}
	if a.span > 0 {
		s.Rates.OfferedPerSecond = a.gaps / a.span
		s.Rates.AdmittedPerSecond = s.Rates.OfferedPerSecond * float64(s.Runs.Arrived-s.Runs.Rejected) / float64(s.Runs.Arrived)
	}
	s.Little.LambdaW = s.Little.ArrivalRate * s.Little.MeanInSystem
	if a.n >= 2 {
		s.Confidence = confidence(a.figs, a.level, &s)
		if s.Cost != nil {
			var xs []float64
			for _, f := range a.figs {
				if f.completed > 0 {
					xs = append(xs, f.spent/f.completed)
				}
			}
			if len(xs) >= 2 {
				iv := stats.SectionCI(xs, s.Cost.PerSuccess, a.level)
				s.Confidence.CostPerSuccess = &Interval{Lo: max(iv.Lo, 0), Hi: iv.Hi}
			}
		}
	}
	s.Classes = a.classSummaries(&s)
	s.Tenants = tenantSummaries(a.cfg, s.Classes)
	s.Warnings = append(s.Warnings, warnings(cfg, &s)...)
	return s
}

// stepSummaries gives each step's pooled answered latencies, timeouts and
// hangs.
func (a *Accumulator) stepSummaries() []StepSummary {
	cfg := a.cfg
	steps := cfg.PlanSteps()
	out := make([]StepSummary, len(steps))
	for i, st := range steps {
		o := &out[i]
		o.Name, o.Tool = st.Name, cfg.Tools[st.Tool].Name
		if len(st.Choose) > 0 {
			names := make([]string, len(st.Choose))
			for j, c := range st.Choose {
				names[j] = cfg.Tools[c.Tool].Name
			}
			o.Tool = strings.Join(names, " | ")
		}
		for _, f := range st.Fallbacks {
			o.Fallbacks = append(o.Fallbacks, cfg.Tools[f].Name)
		}
		o.Timeouts, o.Hangs = a.steps[i].Timeouts, a.steps[i].Hangs
		o.Latency = percentiles(a.steps[i].Latency)
	}
	return out
}

// resources fills the workers and tools blocks, the cost block and the
// bottleneck.
func (a *Accumulator) resources(s *Summary) {
	cfg := a.cfg
	s.Workers.Count = cfg.Workers
	if a.window > 0 {
		s.Workers.Utilisation = a.util / a.window
	}
	best, bestLoad := "workers", s.Workers.Utilisation
	metered := false
	s.Tools = nil
	for i, t := range cfg.Tools {
		tp := &a.tools[i]
		ts := tp.ts
		if a.toolWindow > 0 {
			ts.MeanBusy = tp.busy / a.toolWindow
			ts.Throughput = float64(ts.Served) / a.toolWindow
		}
		if t.Concurrency > 0 {
			ts.Utilisation = ts.MeanBusy / float64(t.Concurrency)
		}
		if t.RateLimit != nil {
			ts.RateLimit = t.RateLimit.Rate
			if a.toolWindow > 0 {
				ts.RateUtilisation = float64(ts.Calls) / a.toolWindow / t.RateLimit.Rate
			}
		}
		ts.Load = math.Max(ts.Utilisation, ts.RateUtilisation)
		if ts.Tokens = tokenSummary(&cfg.Tools[i], &tp.tokens, a.toolWindow); ts.Tokens != nil {
			for _, l := range ts.Tokens.Limits {
				ts.Load = math.Max(ts.Load, l.Utilisation)
			}
		}
		if tp.delay.Count() > 0 {
			ts.QueueDelayP50 = tp.delay.Quantile(0.5)
			ts.QueueDelayP99 = tp.delay.Quantile(0.99)
		}
		if ts.Load > bestLoad {
			best, bestLoad = t.Name, ts.Load
		}
		if t.Cost != nil {
			metered = true
		}
		s.Tools = append(s.Tools, ts)
	}
	if bestLoad >= 0.85 {
		s.Bottleneck = best
	}
	if metered {
		c := a.cost
		c.Currency = a.cfg.Currency
		if s.Runs.Completed > 0 {
			c.PerSuccess = c.Spent / float64(s.Runs.Completed)
		}
		s.Cost = &c
	}
}
