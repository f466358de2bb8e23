// Package compare runs variants of one scenario on common random numbers
// and compares them: each variant's summary and its paired differences
// from the first and from the one before it, returned as data (Result);
// internal/outputs writes the files (CompareFiles) and
// internal/render/comparison the tables and verdicts. A variant is a set of
// overrides, from --vary axes (ParseVary) or a variants file
// (ParseVariants), and may carry a short name that tables, JSON and chart
// legends show instead of its overrides.
//
// Every variant uses the same seed and the same named random streams, so
// replication i of every variant sees the same arrivals and draws:
// differences come from the policy, not luck, and the paired differences
// are far narrower than the difference of two independent intervals.
package compare

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
	"github.com/budgetsim/budgetsim/sim"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Spec is a comparison: a scenario, the overrides every variant shares,
// the variants and the replications of each.
type Spec struct {
	Scenario     string   // a path or a bundled scenario's name
	Sets         []string // overrides applied to every variant before its own
	Variants     []Variant
	Replications int     // ≥ 1
	Level        float64 // of the confidence intervals, in (0, 1)
	Parallel     int     // goroutines (0: all cores); results do not depend on it
}

// Options are what a caller watches a comparison with.
type Options struct {
	// Interrupt, when set, stops the comparison early: the variants that
	// completed are kept.
	Interrupt *atomic.Bool
	// Progress, when set, is called with the variants and replications
	// done so far, from any goroutine.
	Progress func(variantsDone, variants, reps, repsTotal int)
	// Each, when set, is called with each kept variant in order, on the
	// caller's goroutine, as it completes: its scenario, pooled figures
	// and replication 0's result (the series files and charts show). The
	// output files are written from it, so that memory holds one variant's
	// histograms and series at a time. An error stops the comparison.
	Each func(v Variant, cfg *system.Config, acc *summary.Accumulator, first *system.Result) error
}

// Summary is one variant's result: its label, overrides and summary, and
// its paired difference from the first variant.
type Summary struct {
	Name    string            `json:"name"`
	Variant map[string]string `json:"variant"`
	Unset   []string          `json:"unset,omitempty"`
	// Provenance is the variant's scenario as simulated: the
	// comparison's overrides, then the variant's.
	Provenance provenance.Record `json:"provenance"`
	summary.Summary
	// Difference is this variant minus the first, paired replication by
	// replication (every variant's replication i sees the same random
	// numbers); absent for the first variant and with fewer than two
	// replications.
	Difference *PairedDifference `json:"difference_from_first,omitempty"`
	// Step is this variant minus the one before it, paired the same way:
	// what each step along the variants (1, 3, 6 attempts) adds; present
	// from the third variant on (the second's is Difference).
	Step *PairedDifference `json:"difference_from_previous,omitempty"`
}

// Previous returns variant i's paired difference from the variant before
// it (Difference for the second, Step from the third on); nil for the
// first and without replications.
func Previous(out []Summary, i int) *PairedDifference {
	switch {
	case i == 1:
		return out[1].Difference
	case i >= 2:
		return out[i].Step
	}
	return nil
}

// Figures returns the variants' summaries and names, in order: the rows
// of summary.csv.
func Figures(out []Summary) (sums []summary.Summary, names []string) {
	sums, names = make([]summary.Summary, len(out)), make([]string, len(out))
	for i, v := range out {
		sums[i], names[i] = v.Summary, v.Name
	}
	return sums, names
}

// Result is a comparison's outcome.
type Result struct {
	Scenario string
	// Provenance is the scenario with the overrides every variant shares.
	Provenance   provenance.Record
	Replications int
	Level        float64
	// Variants are the variants that completed, in order: all of them
	// unless Interrupted.
	Variants []Summary
	// Missing are the labels of the variants an interrupt left without a
	// result.
	Missing     []string
	Interrupted bool
}

// PairedDifference is a variant's figures minus the first variant's over
// the replications they share, with intervals from the per-replication
// differences: common random numbers make them far narrower than the
// difference of two independent intervals. A figure is absent (nil) when
// fewer than two replications give it.
type PairedDifference struct {
	Baseline     string        `json:"baseline"`
	Replications int           `json:"replications"`
	SuccessRate  *DiffInterval `json:"success_rate,omitempty"`
	LatencyMean  *DiffInterval `json:"latency_mean_s,omitempty"`
	LatencyP99   *DiffInterval `json:"latency_p99_s,omitempty"`
	// AttemptsPerRun and PeakAttemptRate are the differences in attempts
	// dialed per arrival and in a replication's peak attempts per second.
	AttemptsPerRun  *DiffInterval `json:"attempts_per_run,omitempty"`
	PeakAttemptRate *DiffInterval `json:"peak_attempt_rate,omitempty"`
	// CostPerSuccess is the difference in cost per successful run, when
	// a tool is metered, over the replications in which both variants
	// completed a run.
	CostPerSuccess *DiffInterval `json:"cost_per_successful_run,omitempty"`
	// RecoveryAfter is the difference in the time goodput took to come
	// back after the last outage, over the replications in which both
	// variants recovered; RecoveryUnpaired counts the replications in
	// which one or both never did (absent without outages).
	RecoveryAfter    *DiffInterval `json:"recovery_after_s,omitempty"`
	RecoveryUnpaired int           `json:"recovery_unpaired,omitempty"`
}

// DiffInterval is a difference and its confidence interval; N is the
// replications behind it (a latency difference leaves out replications in
// which either variant completed no run).
type DiffInterval struct {
	Mean float64 `json:"mean"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	N    int     `json:"n"`
}

// Run loads every variant's scenario first, in order, so that a bad
// variant is reported ("variant budgeted: …") before anything runs; then
// runs them. With fewer replications than cores the variants run side by
// side (each on one goroutine), else one after another with their
// replications spread over the cores; either way each is handed on in
// order, and its figures do not depend on which.
func Run(spec Spec, opt Options) (*Result, error) {
	n := len(spec.Variants)
	if n == 0 {
		return nil, fmt.Errorf("no variants to compare")
	}
	cfgs := make([]*system.Config, n)
	provs := make([]provenance.Record, n)
	var loader scenarios.Variants // the first variant reads the file, the others parse its text
	for i, v := range spec.Variants {
		sc, err := loader.Load(spec.Scenario, append(slices.Clip(spec.Sets), v.Overrides()...))
		if err != nil {
			return nil, fmt.Errorf("variant %s: %w", v.Label, err)
		}
		cfgs[i], provs[i] = sc.Config, provenance.Of(sc)
	}
	base, err := loader.Load(spec.Scenario, spec.Sets)
	if err != nil {
		return nil, err
	}
	interrupt := opt.Interrupt
	if interrupt == nil {
		interrupt = new(atomic.Bool)
	}
	workers := spec.Parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	outer, inner := 1, spec.Parallel
	if spec.Replications < workers && n > 1 {
		outer, inner = workers, 1
	}
	var repsDone, variantsDone atomic.Int64
	progress := func() {
		if opt.Progress != nil {
			opt.Progress(int(variantsDone.Load()), n, int(repsDone.Load()), n*spec.Replications)
		}
	}
	type done struct {
		acc   *summary.Accumulator
		first *system.Result
	}
	res := &Result{Scenario: spec.Scenario, Provenance: provenance.Of(base), Replications: spec.Replications, Level: spec.Level}
	var figs [][]summary.ReplicationFigure // each kept variant's, for the paired differences
	stopped := false
	sim.ParallelEach(n, outer, 2*outer, func(i int) done {
		if outer == 1 && stopped { // sequential: each has run for i-1 on this goroutine
			return done{}
		}
		acc, first := replicate.PooledEach(cfgs[i], spec.Replications, inner, system.Options{Interrupt: interrupt}, spec.Level, func(int) {
			repsDone.Add(1)
			progress()
		})
		return done{acc, first}
	}, func(i int, d done) {
		if stopped || err != nil || d.acc == nil {
			return
		}
		v := spec.Variants[i]
		res.Variants = append(res.Variants, Summary{Name: v.Label, Variant: v.Values, Unset: v.Unset, Provenance: provs[i], Summary: d.acc.Summary()})
		figs = append(figs, d.acc.Figures())
		if opt.Each != nil {
			err = opt.Each(v, cfgs[i], d.acc, d.first)
		}
		variantsDone.Add(1)
		progress()
		// A variant that completed after an interrupt is the last one kept.
		stopped = interrupt.Load()
	})
	if err != nil {
		return nil, err
	}
	res.Interrupted = interrupt.Load()
	// Paired differences need whole replications: an interrupt may have
	// cut the last one of a variant short.
	if spec.Replications >= 2 && !res.Interrupted {
		out := res.Variants
		for i := 1; i < len(out); i++ {
			out[i].Difference = pairedDiff(out[0].Name, figs[0], figs[i], out[0].Latency.P99, out[i].Latency.P99, spec.Level,
				out[0].Recovery != nil && out[i].Recovery != nil)
			if i >= 2 {
				out[i].Step = pairedDiff(out[i-1].Name, figs[i-1], figs[i], out[i-1].Latency.P99, out[i].Latency.P99, spec.Level,
					out[i-1].Recovery != nil && out[i].Recovery != nil)
			}
		}
	}
	for _, v := range spec.Variants[len(res.Variants):] {
		res.Missing = append(res.Missing, v.Label)
	}
	return res, nil
}

// pairedDiff differences b from base replication by replication. The
// success and mean-latency differences are the mean of the
// per-replication differences with a Student-t interval. The p99's is
// centred on the difference of the pooled p99s (basePooledP99,
// bPooledP99) by sectioning, like each variant's own p99 interval: a
// replication's p99 is biased low by its length, by different amounts in
// different variants, so the mean of their differences is too.
func pairedDiff(baseLabel string, base, b []summary.ReplicationFigure, basePooledP99, bPooledP99, level float64, hasOutage bool) *PairedDifference {
	n := min(len(base), len(b))
	if n < 2 {
		return nil
	}
	diffs := func(get func(f summary.ReplicationFigure) float64, latency bool) []float64 {
		var ds []float64
		for i := range n {
			if latency && (base[i].Completed == 0 || b[i].Completed == 0) {
				continue
			}
			ds = append(ds, get(b[i])-get(base[i]))
		}
		return ds
	}
	mean := func(ds []float64, _ int) *DiffInterval {
		if len(ds) < 2 {
			return nil
		}
		ci := stats.MeanCI(ds, level)
		return &DiffInterval{Mean: ci.Mean, Lo: ci.Lo, Hi: ci.Hi, N: len(ds)}
	}
	d := &PairedDifference{
		Baseline:     baseLabel,
		Replications: n,
		SuccessRate:  mean(diffs(func(f summary.ReplicationFigure) float64 { return f.SuccessRate }, false), 0),
		LatencyMean:  mean(diffs(func(f summary.ReplicationFigure) float64 { return f.LatencyMean }, true), 0),
	}
	// figure differences get over the replications in which both
	// variants have it (not NaN).
	figure := func(get func(f summary.ReplicationFigure) float64) (ds []float64, unpaired int) {
		for i := range n {
			x, y := get(base[i]), get(b[i])
			if math.IsNaN(x) || math.IsNaN(y) {
				unpaired++
				continue
			}
			ds = append(ds, y-x)
		}
		return ds, unpaired
	}
	d.AttemptsPerRun = mean(figure(func(f summary.ReplicationFigure) float64 { return f.AttemptsPerRun }))
	d.PeakAttemptRate = mean(figure(func(f summary.ReplicationFigure) float64 { return f.PeakAttemptRate }))
	if ds, unpaired := figure(func(f summary.ReplicationFigure) float64 { return f.CostPerSuccess }); unpaired < n {
		d.CostPerSuccess = mean(ds, 0)
	}
	if ds, unpaired := figure(func(f summary.ReplicationFigure) float64 { return f.RecoveryAfter }); hasOutage {
		d.RecoveryAfter, d.RecoveryUnpaired = mean(ds, 0), unpaired
	}
	if ds := diffs(func(f summary.ReplicationFigure) float64 { return f.LatencyP99 }, true); len(ds) >= 2 {
		ci := stats.SectionCI(ds, bPooledP99-basePooledP99, level)
		d.LatencyP99 = &DiffInterval{Mean: ci.Mean, Lo: ci.Lo, Hi: ci.Hi, N: len(ds)}
	}
	return d
}
