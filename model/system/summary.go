package system

import (
	"fmt"
	"math"

	"github.com/budgetsim/budgetsim/sim"
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
	Runs Counts `json:"runs"`
	// SuccessRate is completed / arrived.
	SuccessRate float64 `json:"success_rate"`
	// Latency is arrival → completion of completed runs; Wait is arrival →
	// start of service. Percentiles pool every replication's sketch.
	Latency Percentiles `json:"latency_s"`
	Wait    Percentiles `json:"wait_s"`
	// Little is the Little's-law check: time_avg_in_system (integrated) and
	// lambda_w (arrival rate × mean time in system) should agree.
	Little   Little          `json:"littles_law"`
	Attempts AttemptsSummary `json:"attempts"`
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

// Little holds the figures of Little's law, L = λW.
type Little struct {
	// ArrivalRate is measured arrivals per second of the measured window.
	ArrivalRate float64 `json:"arrival_rate"`
	// Throughput is completions per second.
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

// AttemptsSummary adds per-run ratios and the peak rate to AttemptCounts.
type AttemptsSummary struct {
	AttemptCounts
	// PerRun is attempts dialed per measured arrival.
	PerRun float64 `json:"per_run"`
	// PeakRate is the highest attempts per second over one bin of
	// PeakWindow seconds.
	PeakRate   float64 `json:"peak_rate"`
	PeakWindow float64 `json:"peak_window_s"`
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
}

func figures(r *Result) replicationFigures {
	var f replicationFigures
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
	return f
}

// Summarize pools the results of a scenario's replications into a Summary.
// level is the confidence level of the intervals (e.g. 0.95), used when
// there are two or more results.
func Summarize(cfg *Config, results []*Result, level float64) Summary {
	s := Summary{
		Scenario:     cfg.Name,
		Seed:         cfg.Seed,
		Replications: len(results),
		Estimator:    QuantileEstimator,
		Warnings:     []string{},
	}
	lat, wait := stats.NewHistogram(), stats.NewHistogram()
	series := newSeries()
	var window, sojourn, tavgW float64
	for _, r := range results {
		s.Runs.Merge(r.Runs)
		s.Attempts.AttemptCounts.Merge(r.Attempts)
		lat.Merge(r.Latency)
		wait.Merge(r.Wait)
		series.Merge(r.Series)
		w := r.Window.Seconds()
		window += w
		sojourn += r.SojournSum
		tavgW += r.TimeAvgInSystem * w
		s.Events += r.Events
		s.Little.PeakInSystem = max(s.Little.PeakInSystem, r.PeakInSystem)
		if r.Stopped != "" {
			s.Partial = true
			s.Warnings = appendOnce(s.Warnings, "partial result: "+r.Stopped)
		}
	}
	s.Latency = percentiles(lat)
	s.Wait = percentiles(wait)
	if s.Runs.Arrived > 0 {
		s.SuccessRate = float64(s.Runs.Completed) / float64(s.Runs.Arrived)
		s.Attempts.PerRun = float64(s.Attempts.Attempts) / float64(s.Runs.Arrived)
	}
	if window > 0 {
		s.Little.ArrivalRate = float64(s.Runs.Arrived) / window
		s.Little.Throughput = float64(s.Runs.Completed) / window
		s.Little.TimeAvgInSystem = tavgW / window
	}
	if n := s.Runs.Ended(); n > 0 {
		s.Little.MeanInSystem = sojourn / float64(n)
	}
	s.Little.LambdaW = s.Little.ArrivalRate * s.Little.MeanInSystem
	// Peak attempt rate: per replication (the runs of different
	// replications never overlap in reality), so take the maximum.
	for _, r := range results {
		if p := r.Series.PeakAttemptRate(); p > s.Attempts.PeakRate {
			s.Attempts.PeakRate = p
			s.Attempts.PeakWindow = r.Series.Width.Seconds()
		}
	}
	if len(results) >= 2 {
		s.Confidence = confidence(results, level)
	}
	s.Warnings = append(s.Warnings, warnings(cfg, &s)...)
	return s
}

func confidence(results []*Result, level float64) *Confidence {
	n := len(results)
	fs := make([]replicationFigures, n)
	for i, r := range results {
		fs[i] = figures(r)
	}
	ci := func(get func(f *replicationFigures) float64) Interval {
		xs := make([]float64, n)
		for i := range fs {
			xs[i] = get(&fs[i])
		}
		iv := stats.MeanCI(xs, level)
		return Interval{Lo: iv.Lo, Hi: iv.Hi}
	}
	pci := func(get func(f *replicationFigures) *Percentiles) PercentileIntervals {
		return PercentileIntervals{
			Mean: ci(func(f *replicationFigures) float64 { return get(f).Mean }),
			P50:  ci(func(f *replicationFigures) float64 { return get(f).P50 }),
			P90:  ci(func(f *replicationFigures) float64 { return get(f).P90 }),
			P99:  ci(func(f *replicationFigures) float64 { return get(f).P99 }),
			P999: ci(func(f *replicationFigures) float64 { return get(f).P999 }),
		}
	}
	return &Confidence{
		Level:           level,
		Replications:    n,
		SuccessRate:     ci(func(f *replicationFigures) float64 { return f.success }),
		Latency:         pci(func(f *replicationFigures) *Percentiles { return &f.lat }),
		Wait:            pci(func(f *replicationFigures) *Percentiles { return &f.wait }),
		TimeAvgInSystem: ci(func(f *replicationFigures) float64 { return f.tavg }),
		LambdaW:         ci(func(f *replicationFigures) float64 { return f.lw }),
		Throughput:      ci(func(f *replicationFigures) float64 { return f.thru }),
		AttemptsPerRun:  ci(func(f *replicationFigures) float64 { return f.perRun }),
	}
}

// warnings returns the footnotes a reader of the summary must see.
func warnings(cfg *Config, s *Summary) []string {
	var w []string
	if rho, ok := OfferedUtilisation(cfg); ok && rho >= 1 {
		if cfg.QueueCapacity == Unbounded {
			w = append(w, fmt.Sprintf("utilisation %.3f ≥ 1 with an unbounded queue: the system is unstable; waiting times grow with the run length and no steady state exists", rho))
		} else {
			w = append(w, fmt.Sprintf("utilisation %.3f ≥ 1: the queue stays full and the rejection rate is set by capacity", rho))
		}
	}
	if n := s.Latency.N; n > 0 && n < 10000 {
		w = append(w, fmt.Sprintf("only %d completed runs: p99.9 rests on fewer than 10 samples above it; simulate ≥ 10000 completions", n))
	}
	if cfg.WarmupRuns == 0 && cfg.WarmupTime == 0 && cfg.Arrivals.Process != Batch {
		w = append(w, "no warm-up discarded: the first runs met an empty system, which biases waits low")
	}
	if s.Runs.InFlight > 0 {
		w = append(w, fmt.Sprintf("%d runs were still in flight at the end (hung attempts without a timeout, or a stopped simulation)", s.Runs.InFlight))
	}
	if err := s.Runs.Check(); err != nil {
		w = append(w, err.Error())
	}
	return w
}

// OfferedUtilisation estimates ρ = λ·E[service per run]/workers from the
// scenario's own numbers, counting one attempt per step (retries only add to
// it). ok is false when the arrival process has no rate.
func OfferedUtilisation(cfg *Config) (rho float64, ok bool) {
	if cfg.Arrivals.Process == Batch || cfg.Arrivals.Rate <= 0 {
		return 0, false
	}
	var service float64
	for _, st := range cfg.Steps {
		mean := cfg.Tools[st.Tool].Latency.Mean()
		if st.Timeout > 0 {
			mean = math.Min(mean, st.Timeout.Seconds())
		}
		service += mean
	}
	return cfg.Arrivals.Rate * service / float64(cfg.Workers), true
}

func appendOnce(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// Replicate runs n replications of cfg on up to workers goroutines (0 means
// GOMAXPROCS) and returns their results in replication order. Only
// replication 0 is traced.
func Replicate(cfg *Config, n, workers int, opt Options) []*Result {
	return parallel(n, workers, func(i int) *Result {
		o := opt
		o.Replication = i
		if i > 0 {
			o.Tracer = nil
		}
		return New(cfg, o).Run()
	})
}

func parallel(n, workers int, fn func(i int) *Result) []*Result {
	return sim.Parallel(n, workers, fn)
}

// Pool merges the replications' latency and wait histograms.
func Pool(results []*Result) (latency, wait *stats.Histogram) {
	latency, wait = stats.NewHistogram(), stats.NewHistogram()
	for _, r := range results {
		latency.Merge(r.Latency)
		wait.Merge(r.Wait)
	}
	return latency, wait
}
