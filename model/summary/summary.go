package summary

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/budgetsim/budgetsim/model/dist"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// QuantileEstimator names how every percentile in a Summary is computed.
const QuantileEstimator = "nearest-rank on a log-linear histogram (128 sub-buckets per octave, relative error ≤ 0.39%)"

// Summary is the model of what a scenario's simulations measured: data, not
// text. Renderers (table, JSON, CSV, charts) format it at the edge. Times are
// seconds.
type Summary struct {
	Scenario     string `json:"scenario"`
	Seed         uint64 `json:"seed"`
	Replications int    `json:"replications"`
	// Runs are totals over all replications; the conservation law holds.
	Runs system.Counts `json:"runs"`
	// SuccessRate is completed / arrived.
	SuccessRate float64 `json:"success_rate"`
	// Latency is arrival → completion of completed runs; Wait is arrival →
	// start of service. Percentiles pool every replication's sketch.
	Latency Percentiles `json:"latency_s"`
	Wait    Percentiles `json:"wait_s"`
	// Rates are the offered, admitted and completed runs per second, each
	// over the span it belongs to.
	Rates Rates `json:"rates"`
	// Little is the Little's-law check: time_avg_in_system (integrated) and
	// lambda_w (arrival rate × mean time in system) should agree.
	Little   Little          `json:"littles_law"`
	Attempts AttemptsSummary `json:"attempts"`
	// Steps is each step of the plan as its callers saw it.
	Steps []StepSummary `json:"steps"`
	// Groups are the parallel steps and hedged steps, when the plan has any.
	Groups []GroupSummary `json:"groups,omitempty"`
	// Loops are the agent loops, when the plan has any.
	Loops []LoopSummary `json:"loops,omitempty"`
	// Workers is the run-level capacity; Tools the per-tool block.
	Workers WorkersSummary `json:"workers"`
	Tools   []ToolSummary  `json:"tools"`
	// Bottleneck names the most loaded resource ("workers" or a tool) when
	// its load is at least 0.85, else "".
	Bottleneck string `json:"bottleneck"`
	// Tail says where the p99 run spent its time.
	Tail TailSummary `json:"tail"`
	// Cost is present when any tool is metered.
	Cost *CostSummary `json:"cost,omitempty"`
	// Classes holds each class of work's figures, by name; absent when the
	// scenario has no classes.
	Classes map[string]ClassSummary `json:"classes,omitempty"`
	// Tenants holds each tenant's runs and shares of the work, by name;
	// present when the classes belong to at least two tenants and the
	// scenario declares tenants or queues by fair share.
	Tenants map[string]TenantSummary `json:"tenants,omitempty"`
	// Recovery is present when a tool has outages: how long goodput took
	// to come back after the last one ended.
	Recovery *Recovery `json:"recovery,omitempty"`
	// Breakers is present when a tool has a circuit breaker: what each
	// did, in the order of the tools.
	Breakers []BreakerSummary `json:"breakers,omitempty"`
	// Confidence holds Student-t intervals over replications (nil when
	// there is only one).
	Confidence *Confidence `json:"confidence,omitempty"`
	// Estimator names the percentile estimator.
	Estimator string `json:"quantile_estimator"`
	// Partial is true when a guard or an interrupt stopped a simulation.
	Partial  bool     `json:"partial"`
	Events   uint64   `json:"events"`
	Warnings []string `json:"warnings"`
}

// Percentiles summarise a distribution in seconds; N is the sample count.
type Percentiles struct {
	N    uint64  `json:"n"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// Rates say how much work came and how much got through, in runs per
// second, each over its own span:
//
//   - OfferedPerSecond is the measured arrivals per second of the span in
//     which they arrived (ArrivalSpan, first to last measured arrival, n − 1
//     gaps for n arrivals): the load offered, whatever became of it. 0 when
//     every run arrived at one instant (a batch).
//   - AdmittedPerSecond is the part of them that got past the door (not
//     rejected by a full queue), per second of the same span.
//   - CompletedPerSecond is the runs that completed per second of the
//     measured window (first measured arrival to the end of the last
//     measured run): throughput, Little.Throughput.
//
// Little.ArrivalRate is none of these: it is the measured arrivals per
// second of the measured window, the λ for which L = λW holds over that
// window. When runs were still queued as arrivals stopped, the window is
// longer than ArrivalSpan by their drain, and that λ falls below the
// offered rate, towards the throughput.
type Rates struct {
	OfferedPerSecond   float64 `json:"offered_per_s"`
	AdmittedPerSecond  float64 `json:"admitted_per_s"`
	CompletedPerSecond float64 `json:"completed_per_s"`
	// ArrivalSpan and Window are the spans in seconds, summed over
	// replications.
	ArrivalSpan float64 `json:"arrival_span_s"`
	Window      float64 `json:"window_s"`
}

// Little holds the figures of Little's law, L = λW.
type Little struct {
	// ArrivalRate is the λ of L = λW: measured arrivals per second of the
	// measured window, which includes the drain after the last arrival.
	// It is not the offered rate (Rates.OfferedPerSecond).
	ArrivalRate float64 `json:"arrival_rate"`
	// Throughput is completions per second of the measured window.
	Throughput float64 `json:"throughput"`
	// MeanInSystem is the mean time in system of the runs that ended
	// (every outcome; a rejected run spends 0 s).
	MeanInSystem float64 `json:"mean_in_system_s"`
	// LambdaW is ArrivalRate × MeanInSystem.
	LambdaW float64 `json:"lambda_w"`
	// TimeAvgInSystem integrates the number of runs in the system over time.
	TimeAvgInSystem float64 `json:"time_avg_in_system"`
	// PeakInSystem is the most runs in the system at once.
	PeakInSystem int `json:"peak_in_system"`
}

// StepSummary is one step of the plan as its callers saw it: the measured
// attempts of every replication, on the step's tool or its fallbacks.
type StepSummary struct {
	Name string `json:"name"`
	Tool string `json:"tool"`
	// Fallbacks are the step's fallback tools, in order; their attempts
	// count here too.
	Fallbacks []string `json:"fallbacks,omitempty"`
	// Latency is the attempts that got an answer (ok or an error reply):
	// what a latency log of the step would show. Timeouts are not in it.
	Latency Percentiles `json:"latency_s"`
	// Timeouts counts the attempts cut off by their lease; Hangs is the
	// part of them whose call would never have answered (the rest were
	// slow: a longer timeout would have seen them answer).
	Timeouts int64 `json:"timeouts"`
	Hangs    int64 `json:"hangs"`
}

// AttemptsSummary adds per-run ratios and the peak rate to AttemptCounts.
type AttemptsSummary struct {
	system.AttemptCounts
	// PerRun is attempts dialed per measured arrival.
	PerRun float64 `json:"per_run"`
	// PeakRate is the highest attempts per second over one bin of
	// PeakWindow seconds.
	PeakRate   float64 `json:"peak_rate"`
	PeakWindow float64 `json:"peak_window_s"`
}

// WorkersSummary is the run-level capacity.
type WorkersSummary struct {
	Count       int     `json:"count"`
	Utilisation float64 `json:"utilisation"`
}

// ToolSummary is one tool's server-side block. Figures cover the measured
// window (system.Result.ToolWindow: from the end of the warm-up to the end of the
// simulation), pooled over replications, whichever runs the requests came
// from.
type ToolSummary struct {
	Name string `json:"name"`
	system.ToolStats
	// Throughput is calls served per second of the measured window.
	Throughput float64 `json:"throughput"`
	// Utilisation is mean busy servers / concurrency (tools with capacity
	// only; else 0 with Concurrency 0).
	Concurrency int     `json:"concurrency"`
	Utilisation float64 `json:"utilisation"`
	// RateLimit is the token rate; RateUtilisation the admitted calls per
	// second over it.
	RateLimit       float64 `json:"rate_limit"`
	RateUtilisation float64 `json:"rate_utilisation"`
	// Load is the larger of the two utilisations: the share of the tool's
	// capacity in use.
	Load float64 `json:"load"`
	// QueueDelay is the waiting time at the tool (tools with capacity).
	QueueDelayP50 float64 `json:"queue_delay_p50_s"`
	QueueDelayP99 float64 `json:"queue_delay_p99_s"`
	// Tokens is a model API's token figures (tools with tokens or token
	// limits only).
	Tokens *TokenSummary `json:"tokens,omitempty"`
}

// TailSummary is Tail with its stages named.
type TailSummary struct {
	P99    float64      `json:"p99_s"`
	N      int64        `json:"n"`
	Stages []StageShare `json:"stages"`
	// Members are the members of parallel steps: the mean time from their
	// group's start to their end (or cancellation) in the band. They
	// overlap each other and their group's stage, and are not among the
	// stages the shares partition.
	Members []StageShare `json:"members,omitempty"`
}

// Shares returns each stage's share of the band's mean completion time
// (the sum of the stages' means, which the stages partition), so that the
// shares add up to 1. The band is up to 1.6 % wide, so that mean, and a
// share of it, is not quite the p99 itself.
func (t TailSummary) Shares() []float64 {
	var total float64
	for _, st := range t.Stages {
		total += st.Seconds
	}
	out := make([]float64, len(t.Stages))
	if total > 0 {
		for i, st := range t.Stages {
			out[i] = st.Seconds / total
		}
	}
	return out
}

// StageShare is the mean seconds a stage took in the p99 band.
type StageShare struct {
	Stage   string  `json:"stage"`
	Seconds float64 `json:"seconds"`
}

// CostSummary is the money side of the measured runs, in cost units.
type CostSummary struct {
	system.CostStats
	// PerSuccess is spent / completed runs.
	PerSuccess float64 `json:"per_successful_run"`
	// Currency is the scenario's cost.currency ("" for the abstract units
	// of the prices): the label of every amount here.
	Currency string `json:"currency,omitempty"`
}

// Unit is the label of the amounts: the currency, or "units".
func (c *CostSummary) Unit() string {
	if c.Currency == "" {
		return "units"
	}
	return c.Currency
}

// Recovery measures whether and when goodput came back after an outage:
// the first 10 s window starting after the outage ended in which runs
// completed at ≥ 90% of the rate they arrived. A metastable system never
// gets there while the load lasts.
type Recovery struct {
	// OutageEnd is when the last outage ended.
	OutageEnd float64 `json:"outage_end_s"`
	// Recovered reports whether goodput came back; After is how long after
	// OutageEnd the recovering window started (−1 if never).
	Recovered bool    `json:"recovered"`
	After     float64 `json:"after_s"`
	// LateGoodput is completions / arrivals over the last quarter of the
	// arrivals' span (1 for a healthy system at steady state).
	LateGoodput float64 `json:"late_goodput"`
}

// recoveryWindow and recoveryShare define recovery.
const (
	recoveryWindow = 10 * time.Second
	recoveryShare  = 0.9
)

func recovery(cfg *system.Config, s *system.Series) *Recovery {
	var end time.Duration
	for _, t := range cfg.Tools {
		for _, o := range t.Outages {
			end = max(end, o.End)
		}
	}
	if end == 0 || len(s.Bins) == 0 {
		return nil
	}
	rec := &Recovery{OutageEnd: end.Seconds(), After: -1}
	last := -1
	for i, b := range s.Bins {
		if b.Arrivals > 0 {
			last = i
		}
	}
	k := max(1, int(recoveryWindow/s.Width))
	for i := int(end / s.Width); i+k <= last+1; i++ {
		var arr, done int64
		for _, b := range s.Bins[i : i+k] {
			arr += b.Arrivals
			done += b.Completed
		}
		if arr > 0 && float64(done) >= recoveryShare*float64(arr) {
			rec.Recovered = true
			rec.After = max(0, (time.Duration(i)*s.Width - end).Seconds())
			break
		}
	}
	if last >= 0 {
		from := last - (last+1)/4
		var arr, done int64
		for _, b := range s.Bins[from : last+1] {
			arr += b.Arrivals
			done += b.Completed
		}
		if arr > 0 {
			rec.LateGoodput = float64(done) / float64(arr)
		}
	}
	return rec
}

// Interval is a confidence interval [Lo, Hi].
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Confidence holds Student-t confidence intervals for the main figures,
// computed from the per-replication estimates.
type Confidence struct {
	Level        float64             `json:"level"`
	Replications int                 `json:"replications"`
	SuccessRate  Interval            `json:"success_rate"`
	Latency      PercentileIntervals `json:"latency_s"`
	Wait         PercentileIntervals `json:"wait_s"`
	// TimeAvgInSystem and LambdaW are the Little's-law figures' intervals.
	TimeAvgInSystem Interval `json:"time_avg_in_system"`
	LambdaW         Interval `json:"lambda_w"`
	Throughput      Interval `json:"throughput"`
	AttemptsPerRun  Interval `json:"attempts_per_run"`
	// CostPerSuccess is the interval of the cost per successful run when a
	// tool is metered, centred on the pooled figure (sectioning over the
	// replications that completed a run).
	CostPerSuccess *Interval `json:"cost_per_successful_run,omitempty"`
	// PerReplication holds the figures the Summary pools as a maximum or
	// a sum over replications, as one replication's mean value with its
	// interval.
	PerReplication PerReplication `json:"per_replication_mean"`
}

// PerReplication is the mean over replications of one replication's
// value, with its Student-t interval, for each figure the Summary pools as
// a maximum (Latency.Max, Attempts.PeakRate, Little.PeakInSystem: the
// largest over all replications) or a sum (Runs, Attempts: totals).
type PerReplication struct {
	// LatencyMax is a replication's longest completion time: for a batch,
	// the time its last run completed (its makespan).
	LatencyMax Estimate `json:"latency_max_s"`
	// Arrived, Completed and Attempts are a replication's measured
	// arrivals, completed runs and attempts dialed.
	Arrived   Estimate `json:"arrived"`
	Completed Estimate `json:"completed"`
	Attempts  Estimate `json:"attempts"`
	// PeakAttemptRate and PeakInSystem are a replication's peaks.
	PeakAttemptRate Estimate `json:"peak_attempt_rate"`
	PeakInSystem    Estimate `json:"peak_in_system"`
}

// Estimate is a mean with its confidence interval [Lo, Hi].
type Estimate struct {
	Mean float64 `json:"mean"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
}

// PercentileIntervals are the intervals of a Percentiles' figures.
type PercentileIntervals struct {
	Mean Interval `json:"mean"`
	P50  Interval `json:"p50"`
	P90  Interval `json:"p90"`
	P99  Interval `json:"p99"`
	P999 Interval `json:"p999"`
}

func percentiles(h *stats.Histogram) Percentiles {
	if h.Count() == 0 {
		return Percentiles{}
	}
	return Percentiles{
		N:    h.Count(),
		Mean: h.Mean(),
		P50:  h.Quantile(0.50),
		P90:  h.Quantile(0.90),
		P99:  h.Quantile(0.99),
		P999: h.Quantile(0.999),
		Max:  h.Max(),
	}
}

// replicationFigures are one replication's point estimates.
type replicationFigures struct {
	success, thru, tavg, lw, perRun float64
	lat, wait                       Percentiles
	// The figures pooled as sums or maxima, for their per-replication
	// means.
	arrived, completed, attempts, peakRate, peakIn float64
	// spent is what the run cost (0 unmetered); recoverAfter is how long
	// goodput took to come back after the last outage (NaN when the
	// scenario has none or it never came back).
	spent, recoverAfter float64
}

func figures(cfg *system.Config, r *system.Result) replicationFigures {
	f := replicationFigures{spent: r.Cost.Spent, recoverAfter: math.NaN()}
	if rec := recovery(cfg, r.Series); rec != nil && rec.Recovered {
		f.recoverAfter = rec.After
	}
	if r.Runs.Arrived > 0 {
		f.success = float64(r.Runs.Completed) / float64(r.Runs.Arrived)
		f.perRun = float64(r.Attempts.Attempts) / float64(r.Runs.Arrived)
	}
	if w := r.Window.Seconds(); w > 0 {
		f.thru = float64(r.Runs.Completed) / w
		lambda := float64(r.Runs.Arrived) / w
		if n := r.Runs.Ended(); n > 0 {
			f.lw = lambda * r.SojournSum / float64(n)
		}
	}
	f.tavg = r.TimeAvgInSystem
	f.lat = percentiles(r.Latency)
	f.wait = percentiles(r.Wait)
	f.arrived, f.completed = float64(r.Runs.Arrived), float64(r.Runs.Completed)
	f.attempts = float64(r.Attempts.Attempts)
	f.peakRate, f.peakIn = r.Series.PeakAttemptRate(), float64(r.PeakInSystem)
	return f
}

// Summarize pools the results of a scenario's replications into a Summary.
// level is the confidence level of the intervals (e.g. 0.95), used when
// there are two or more results.
func Summarize(cfg *system.Config, results []*system.Result, level float64) Summary {
	a := NewAccumulator(cfg, level)
	for _, r := range results {
		a.Add(r)
	}
	return a.Summary()
}

func confidence(fs []replicationFigures, level float64, s *Summary) *Confidence {
	n := len(fs)
	// Every figure here is ≥ 0 and a rate is ≤ 1: an interval is cut to
	// that range (the true value lies in it, so coverage is unchanged, and
	// nobody reads of a success rate of 100.01 %).
	ciIn := func(get func(f *replicationFigures) float64, hi float64) Interval {
		xs := make([]float64, n)
		for i := range fs {
			xs[i] = get(&fs[i])
		}
		iv := stats.MeanCI(xs, level)
		return Interval{Lo: max(iv.Lo, 0), Hi: min(iv.Hi, hi)}
	}
	ci := func(get func(f *replicationFigures) float64) Interval { return ciIn(get, math.Inf(1)) }
	// A percentile's interval is centred on the pooled percentile (the
	// summary's own figure) by sectioning: each replication's percentile
	// rests on fewer samples and is biased (low, for a tail percentile of
	// an autocorrelated queue), so the mean of them is the worse centre.
	section := func(get func(f *replicationFigures) float64, pooled float64) Interval {
		xs := make([]float64, n)
		for i := range fs {
			xs[i] = get(&fs[i])
		}
		iv := stats.SectionCI(xs, pooled, level)
		return Interval{Lo: max(iv.Lo, 0), Hi: iv.Hi}
	}
	pci := func(get func(f *replicationFigures) *Percentiles, pooled *Percentiles) PercentileIntervals {
		return PercentileIntervals{
			Mean: ci(func(f *replicationFigures) float64 { return get(f).Mean }),
			P50:  section(func(f *replicationFigures) float64 { return get(f).P50 }, pooled.P50),
			P90:  section(func(f *replicationFigures) float64 { return get(f).P90 }, pooled.P90),
			P99:  section(func(f *replicationFigures) float64 { return get(f).P99 }, pooled.P99),
			P999: section(func(f *replicationFigures) float64 { return get(f).P999 }, pooled.P999),
		}
	}
	est := func(get func(f *replicationFigures) float64) Estimate {
		xs := make([]float64, n)
		for i := range fs {
			xs[i] = get(&fs[i])
		}
		iv := stats.MeanCI(xs, level)
		return Estimate{Mean: iv.Mean, Lo: max(iv.Lo, 0), Hi: iv.Hi}
	}
	return &Confidence{
		PerReplication: PerReplication{
			LatencyMax:      est(func(f *replicationFigures) float64 { return f.lat.Max }),
			Arrived:         est(func(f *replicationFigures) float64 { return f.arrived }),
			Completed:       est(func(f *replicationFigures) float64 { return f.completed }),
			Attempts:        est(func(f *replicationFigures) float64 { return f.attempts }),
			PeakAttemptRate: est(func(f *replicationFigures) float64 { return f.peakRate }),
			PeakInSystem:    est(func(f *replicationFigures) float64 { return f.peakIn }),
		},
		Level:           level,
		Replications:    n,
		SuccessRate:     ciIn(func(f *replicationFigures) float64 { return f.success }, 1),
		Latency:         pci(func(f *replicationFigures) *Percentiles { return &f.lat }, &s.Latency),
		Wait:            pci(func(f *replicationFigures) *Percentiles { return &f.wait }, &s.Wait),
		TimeAvgInSystem: ci(func(f *replicationFigures) float64 { return f.tavg }),
		LambdaW:         ci(func(f *replicationFigures) float64 { return f.lw }),
		Throughput:      ci(func(f *replicationFigures) float64 { return f.thru }),
		AttemptsPerRun:  ci(func(f *replicationFigures) float64 { return f.perRun }),
	}
}

// warnings returns the footnotes a reader of the summary must see.
func warnings(cfg *system.Config, s *Summary) []string {
	var w []string
	if s.Runs.Arrived == 0 && !s.Partial {
		if cfg.WarmupTime > 0 || cfg.WarmupRuns > 0 {
			w = append(w, fmt.Sprintf("no run was measured: none arrived after the warm-up (%s); shorten the warm-up or add runs", warmupText(cfg)))
		} else {
			w = append(w, "no run arrived: the arrival process produced none in the simulated time")
		}
	}
	rho, ok := system.OfferedUtilisation(cfg)
	if m, mok := measuredWorkerLoad(cfg, s); mok && m >= 1 && (!ok || rho < 1) {
		// The plan misses an overload that happened (retries, backoffs,
		// hedges or waits for a limit held the workers): say so from the
		// measured load. When the plan already warns, its figure stands:
		// in a queue that grew, the measured one also counts the warm-up
		// runs served late in the window, and overstates the load.
		rho, ok = m, true
	}
	if ok && rho >= 1 {
		switch {
		case cfg.QueueCapacity != system.Unbounded:
			w = append(w, fmt.Sprintf("utilisation %s ≥ 1: the queue stays full and the rejection rate is set by capacity", load(rho)))
		case cfg.EveryRunHasDeadline():
			// A run whose deadline passes in the queue is dropped when
			// it reaches its head: no run waits longer than its deadline,
			// so the queue stays bounded and a steady state exists.
			dl := fmt.Sprintf("the %v deadline keeps", cfg.Deadline)
			if len(cfg.Classes) > 0 {
				dl = "the classes' deadlines keep"
			}
			w = append(w, fmt.Sprintf("utilisation %s ≥ 1, but %s the queue bounded by shedding work: %s", load(rho), dl, shed(cfg, s)))
		default:
			w = append(w, fmt.Sprintf("utilisation %s ≥ 1 with an unbounded queue: the system is unstable; waiting times grow with the run length and no steady state exists", load(rho)))
		}
	}
	if o, l := s.Rates.OfferedPerSecond, s.Little.ArrivalRate; o > 0 && l < 0.95*o {
		w = append(w, fmt.Sprintf("runs were still queued when the arrivals stopped: the measured window runs %s s past the last arrival while they drain, so Little's λ (%s/s over the window) is below the offered rate (%s/s over the arrivals' span)", load(s.Rates.Window-s.Rates.ArrivalSpan), load(l), load(o)))
	}
	w = append(w, schedulingWarnings(cfg)...)
	w = append(w, appliesWarnings(cfg)...)
	if b := cfg.Arrivals; b.Process == system.Batch && b.Count > int64(cfg.Workers) {
		msg := fmt.Sprintf("a batch of %d arrivals at once with %s: %s for a worker from the start, so waits and completion times are those of the batch draining, not of a steady state", b.Count, plural(int64(cfg.Workers), "worker", "workers"), plural(b.Count-int64(cfg.Workers), "run queues", "runs queue"))
		if cfg.QueueCapacity != system.Unbounded && b.Count > int64(cfg.Workers+cfg.QueueCapacity) {
			msg += fmt.Sprintf("; the queue holds %d, so %d are rejected at once", cfg.QueueCapacity, b.Count-int64(cfg.Workers+cfg.QueueCapacity))
		}
		w = append(w, msg)
	}
	w = append(w, toolWarnings(cfg, s)...)
	w = append(w, tailWarnings(cfg)...)
	if a := s.Attempts; a.Attempts > 0 && 2*a.FirstTokenTimeouts >= a.Attempts {
		w = append(w, fmt.Sprintf("%s of the attempts were cut by a first_token_timeout before their first token: the timeout counts the time a call waits at its tool, and at a saturated tool the cut calls' retries and the work they leave behind keep the queue long (docs/agents.md, Streaming)", pct(float64(a.FirstTokenTimeouts)/float64(a.Attempts))))
	}
	if n := s.Latency.N; n > 0 && n < 10000 {
		runs := "runs"
		if n == 1 {
			runs = "run"
		}
		w = append(w, fmt.Sprintf("only %d completed %s: p99.9 rests on fewer than 10 samples above it; simulate ≥ 10000 completions", n, runs))
	}
	if cfg.WarmupRuns == 0 && cfg.WarmupTime == 0 && cfg.Arrivals.Process != system.Batch && cfg.Arrivals.Process != system.Closed {
		w = append(w, "no warm-up discarded: the first runs met an empty system, which biases waits low")
	}
	for _, st := range cfg.PlanSteps() {
		if p := st.Retry; p.Attempts > 1 && !p.MayRetry() {
			w = append(w, fmt.Sprintf("step %s: retry.attempts is %d but the step is not declared idempotent (nor sends an idempotency key), so it is never retried; say idempotent: true if repeating it is harmless", st.Name, p.Attempts))
		}
	}
	if s.Runs.InFlight > 0 {
		w = append(w, fmt.Sprintf("%d runs were still in flight at the end (hung attempts without a timeout, or a stopped simulation)", s.Runs.InFlight))
	}
	if err := s.Runs.Check(); err != nil {
		w = append(w, err.Error())
	}
	return w
}

// shed says what share of the measured work was shed and where: runs
// that expired waiting for a worker, were refused before a call or ran
// out of deadline in one, and calls that deadline-aware tools dropped.
func shed(cfg *system.Config, s *Summary) string {
	r := s.Runs
	var parts []string
	if r.Arrived > 0 {
		for _, c := range []struct {
			n     int64
			where string
		}{
			{r.Expired, "expired waiting for a worker"},
			{r.Refused, "were refused before a call (see the attempts table for why)"},
			{r.DeadlineExceeded, "ran out of deadline in a call or a backoff"},
		} {
			if c.n > 0 {
				parts = append(parts, fmt.Sprintf("%s of the measured runs %s", pct(float64(c.n)/float64(r.Arrived)), c.where))
			}
		}
	}
	for _, t := range s.Tools {
		if t.Dropped > 0 && t.Calls > 0 {
			parts = append(parts, fmt.Sprintf("tool %s dropped %s of its calls at dequeue (deadline-aware)", t.Name, pct(float64(t.Dropped)/float64(t.Calls))))
		}
	}
	if len(parts) == 0 {
		return "no measured run was shed"
	}
	return strings.Join(parts, "; ")
}

// plural writes n with the singular or plural form that agrees with it.
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// pct formats a share as a percentage with 3 significant digits.
func pct(x float64) string { return strconv.FormatFloat(100*x, 'g', 3, 64) + "%" }

// tailWarnings flags the tools whose latency has a power-law tail heavy
// enough that the figures built on means cannot be trusted: infinite
// variance (tail index α ≤ 2, exact for a Pareto, Hill's estimate for an
// empirical distribution), or an infinite mean (α ≤ 1).
func tailWarnings(cfg *system.Config) []string {
	var w []string
	used := make([]bool, len(cfg.Tools))
	for _, st := range cfg.PlanSteps() {
		used[st.Tool] = true
		for _, f := range st.Fallbacks {
			used[f] = true
		}
	}
	for i, t := range cfg.Tools {
		if !used[i] {
			continue
		}
		alpha, estimated, ok := dist.TailIndex(t.Latency)
		if !ok || alpha > 2 {
			continue
		}
		index := fmt.Sprintf("its tail index α = %s", load(alpha))
		if estimated {
			index = fmt.Sprintf("its tail looks like a power law: Hill's estimate of its index is α ≈ %s", load(alpha))
		}
		if alpha <= 1 {
			w = append(w, fmt.Sprintf("tool %s: latency %s has an infinite mean (%s ≤ 1): the mean time in system and wait, λW, the time-average in system, utilisation and throughput have no steady state and grow with the run length; only the success rate and the percentiles are meaningful", t.Name, t.Latency, index))
			continue
		}
		w = append(w, fmt.Sprintf("tool %s: latency %s has infinite variance (%s ≤ 2): where calls queue, the mean wait is infinite (Pollaczek–Khinchine needs E[S²]) and grows with the run length; the mean time in system and mean wait, λW and the time-average in system do not settle, and their confidence intervals cover the true value less often than stated; the success rate and the percentiles are not affected", t.Name, t.Latency, index))
	}
	return w
}

// load formats a utilisation or a ratio of rates with 4 significant
// digits (a rate of 1e300/s must not print 300 of them).
func load(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

// toolWarnings flags the tools the offered load alone makes unstable, as
// OfferedUtilisation does for the workers: a tool with server-side
// concurrency and an unbounded queue offered at least as much work as it
// serves, and a client-side rate limit slower than the calls the arrivals
// need (the callers waiting for its tokens pile up until their deadlines
// refuse them, or for ever without one). Both count one call per step
// (retries only add to it) and leave out cache hits. An overloaded tool
// that is deadline-aware, with a bounded lease on every call, drops at
// dequeue what it can no longer finish, so its queue stays bounded: its
// warning gives the share it dropped instead.
func toolWarnings(cfg *system.Config, s *Summary) []string {
	var w []string
	plans := make(map[int]system.ToolOffer)
	for _, o := range system.OfferedToolLoads(cfg) {
		plans[o.Tool] = o
	}
	times := system.CallTimes(cfg)
	for i := range cfg.Tools {
		t := &cfg.Tools[i]
		o, planned := plans[i]
		if t.Concurrency > 0 && t.QueueCapacity == system.Unbounded {
			rho, rate, whose := o.Utilisation, o.CallRate, "calls/s"
			if m, r, ok := measuredToolLoad(t, i, times[i], s); ok && m > rho {
				rho, rate, whose = m, r, "calls/s reached it, retries and hedges included,"
			}
			if rho >= 1 {
				offer := fmt.Sprintf("%s %s of %s s each on %d slots", load(rate), whose, load(times[i].Mean), t.Concurrency)
				if t.DeadlineAware && leaseBounded(cfg, i) {
					// It drops at dequeue what it can no longer finish inside
					// the caller's lease, and every lease is bounded: no call
					// waits longer than its lease, so the queue is bounded.
					dropped := "no call"
					if ts := s.Tools[i]; ts.Calls > 0 {
						dropped = pct(float64(ts.Dropped)/float64(ts.Calls)) + " of its calls"
					}
					w = append(w, fmt.Sprintf("tool %s: utilisation %s ≥ 1 (%s), but it is deadline-aware and every call has a bounded lease, so its queue stays bounded: it dropped %s at dequeue", t.Name, load(rho), offer, dropped))
				} else {
					w = append(w, fmt.Sprintf("tool %s: utilisation %s ≥ 1 (%s) with an unbounded queue: its queue grows with the run length and no steady state exists", t.Name, load(rho), offer))
				}
			}
		}
		if planned && o.RateLimited {
			fate := "the callers waiting for its tokens pile up until their deadlines refuse them"
			if !cfg.EveryRunHasDeadline() {
				fate = "with no deadline to refuse the callers waiting for its tokens, the wait grows with the run length and no steady state exists"
			}
			w = append(w, fmt.Sprintf("tool %s: the arrivals need %s calls/s and its client-side rate limit allows %s/s: %s", t.Name, load(o.CallRate), load(t.RateLimit.Rate), fate))
		}
	}
	return w
}

// measuredWorkerLoad is the load the runs offered the workers, from what
// happened rather than from the plan: the runs' arrival rate times the
// worker time a started run held on average (the workers' busy time over
// the runs that got a worker: retries, backoffs and hedges included), over
// the workers. A queue that grew shows in it: the busy time then spans a
// window longer than the arrivals (the queue draining after they stop),
// or the runs still waiting, rejected or expired never got a worker. ok is
// false when no measured run got a worker or the arrivals have no rate.
func measuredWorkerLoad(cfg *system.Config, s *Summary) (rho float64, ok bool) {
	if s.Wait.N == 0 || s.Rates.OfferedPerSecond <= 0 || cfg.Workers <= 0 {
		return 0, false
	}
	busy := s.Workers.Utilisation * float64(cfg.Workers) * s.Rates.Window
	return s.Rates.OfferedPerSecond * busy / float64(s.Wait.N) / float64(cfg.Workers), true
}

// zLower is the standard normal quantile of 0.975: a one-sided 97.5 %
// lower confidence bound is the estimate less zLower standard errors.
const zLower = 1.959963984540054

// measuredToolLoad is the load tool t (Config.Tools[i]) was offered, from what happened
// rather than from the plan: the calls that reached it per measured run
// (every attempt dialed, retries and hedges included; cache hits and
// local refusals not), times the runs' arrival rate, each at its mean call
// time ct, over its slots. rate is those calls per second. ok is false
// unless even the lower bound of a 97.5 % confidence interval is at least
// 1. The calls' true mean service time is what is uncertain: their sum
// has a relative standard error of sqrt(SCV/calls), so a saturated tool
// behind a bounded set of callers, whose calls times their measured mean
// time is its busy time, is not mistaken for an overloaded one.
func measuredToolLoad(t *system.Tool, i int, ct system.CallTime, s *Summary) (rho, rate float64, ok bool) {
	if i >= len(s.Tools) || t.Concurrency <= 0 || s.Runs.Arrived <= 0 || ct.Mean <= 0 || math.IsInf(ct.SCV, 0) {
		return 0, 0, false
	}
	calls := float64(s.Tools[i].Calls)
	if calls <= 0 {
		return 0, 0, false
	}
	rate = calls / float64(s.Runs.Arrived) * s.Rates.OfferedPerSecond
	rho = rate * ct.Mean / float64(t.Concurrency)
	lo := rho * (1 - float64(zLower*math.Sqrt(ct.SCV/calls)))
	return rho, rate, lo >= 1
}

// leaseBounded reports whether every call to tool t has a bounded lease:
// the runs have a deadline, or every step that calls t (as its tool or a
// fallback) has a timeout.
func leaseBounded(cfg *system.Config, t int) bool {
	if cfg.EveryRunHasDeadline() {
		return true
	}
	for j, st := range cfg.PlanSteps() {
		calls := st.Tool == t
		for _, f := range st.Fallbacks {
			calls = calls || f == t
		}
		if calls && st.Timeout <= 0 && !cfg.StepHasDeadline(j) {
			return false
		}
	}
	return true
}

func appendOnce(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// Pool merges the replications' latency and wait histograms.
func Pool(results []*system.Result) (latency, wait *stats.Histogram) {
	latency, wait = stats.NewHistogram(), stats.NewHistogram()
	for _, r := range results {
		latency.Merge(r.Latency)
		wait.Merge(r.Wait)
	}
	return latency, wait
}

// warmupText describes cfg's warm-up for a warning.
func warmupText(cfg *system.Config) string {
	switch {
	case cfg.WarmupTime > 0 && cfg.WarmupRuns > 0:
		return fmt.Sprintf("the first %d runs and %v", cfg.WarmupRuns, cfg.WarmupTime)
	case cfg.WarmupTime > 0:
		return fmt.Sprintf("the first %v", cfg.WarmupTime)
	default:
		return fmt.Sprintf("the first %d runs", cfg.WarmupRuns)
	}
}
