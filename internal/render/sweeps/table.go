// Package sweeps renders the results plan/sweep returns: the table sweep
// prints (a row per point, with its bottleneck, binding model-API limit
// and cost) and the warnings a reader of sweep.json alone must not miss.
// plan/sweep computes; this package only formats, through internal/render.
package sweeps

import (
	"fmt"
	"io"
	"strconv"

	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/plan/sweep"
)

// WriteTable writes a sweep's summaries as text: what was swept (the
// scenario, its seed, the stop rule and provenance, the provenance line
// of the scenario every point shares), a row per point (with its most
// loaded resource, its model APIs' most used limit and its cost per
// successful run, when it has them), then the points' warnings grouped by
// label.
func WriteTable(w io.Writer, rec *sweep.Record, provenance string, sums []sweep.PointSummary) error {
	spec := rec.Spec
	mode := fmt.Sprintf("%d replication(s) per point", spec.Replications)
	if spec.RelError > 0 {
		mode = fmt.Sprintf("replications until ±%g relative error (batches of %d, at most %d)", spec.RelError, max(spec.Replications, 4), spec.MaxReplications)
	}
	seed := "" // the scenario's, once a point has a summary to say it
	if len(sums) > 0 {
		seed = fmt.Sprintf(" (seed %d)", sums[0].Summary.Seed)
	}
	fmt.Fprintf(w, "%s: %d points on common random numbers%s, %s\n", spec.Scenario, len(sums), seed, mode)
	fmt.Fprintln(w, provenance)
	if rec.Partial {
		fmt.Fprintf(w, "interrupted: %d of the %d points have results (a point cut short says partial in its warnings); rerun for the rest\n", len(sums), len(spec.Points()))
	}
	withLimits, withCost := false, false
	for _, p := range sums {
		limit, _ := sweep.BindingLimit(&p.Summary)
		withLimits = withLimits || limit != ""
		withCost = withCost || p.Summary.Cost != nil
	}
	var rows [][]string
	for _, p := range sums {
		s := &p.Summary
		success, p99 := render.Percent(s.SuccessRate), render.Seconds(s.Latency.P99)
		if c := s.Confidence; c != nil {
			success = render.PlusMinus(s.SuccessRate, c.SuccessRate.Lo, c.SuccessRate.Hi, render.Percent)
			p99 = render.PlusMinus(s.Latency.P99, c.Latency.P99.Lo, c.Latency.P99.Hi, render.Seconds)
		}
		warm := p.Warmup.Source
		switch p.Warmup.Source {
		case sweep.WarmupMSER5, sweep.WarmupDefault:
			warm = fmt.Sprintf("%d runs (%s)", p.Warmup.Runs, p.Warmup.Source)
		}
		name, load := sweep.PeakLoad(s)
		bottleneck := "– (" + name + " " + render.Percent(load) + ")"
		if s.Bottleneck != "" {
			bottleneck = name + " " + render.Percent(load)
		}
		row := []string{p.Label, strconv.Itoa(s.Replications), success,
			render.Seconds(s.Latency.P50), p99, render.Seconds(s.Latency.P999),
			render.Number(s.Little.Throughput) + "/s", render.Number(s.Little.TimeAvgInSystem), render.Number(s.Attempts.PerRun), bottleneck}
		if withLimits {
			cell := "–"
			if limit, use := sweep.BindingLimit(s); limit != "" {
				cell = limit + " " + render.Percent(use)
			}
			row = append(row, cell)
		}
		if withCost {
			cell := "–"
			if c := s.Cost; c != nil && s.Runs.Completed > 0 {
				cell = render.Number(c.PerSuccess)
				if ci := s.Confidence; ci != nil && ci.CostPerSuccess != nil {
					cell = render.PlusMinus(c.PerSuccess, ci.CostPerSuccess.Lo, ci.CostPerSuccess.Hi, render.Number)
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, append(row, warm))
	}
	header := []string{"point", "replications", "success", "p50", "p99", "p99.9", "throughput", "in system (L)", "attempts/run", "bottleneck (load)"}
	if withLimits {
		header = append(header, "limit use")
	}
	if withCost {
		header = append(header, "cost/successful run")
	}
	if err := render.Table(w, append(header, "warm-up"), rows); err != nil {
		return err
	}
	labels := make([]string, len(sums))
	warns := make([][]string, len(sums))
	for i, p := range sums {
		labels[i], warns[i] = p.Label, p.Summary.Warnings
	}
	render.WarningsByLabel(w, "points", labels, warns)
	return nil
}

// WriteWarnings writes the caveats a reader of the JSON must not miss,
// one line each after prefix ("simulate: warning: "): thin p99.9
// estimates and warm-up notes. A command writes them on stderr when
// stdout holds the JSON alone (the table shows every point's warnings).
func WriteWarnings(w io.Writer, prefix string, sums []sweep.PointSummary) {
	// p99.9 needs 10 samples above it: n ≥ 10/(1−0.999) completions.
	const need = 10000
	// A grid of thousands of points names the first few on stderr;
	// sweep.json has every point's warnings.
	const shown = 10
	var thin []string
	notes := 0
	for _, s := range sums {
		if n := s.Summary.Latency.N; n > 0 && n < need {
			thin = append(thin, s.Label)
		}
		if s.Warmup.Note != "" {
			if notes < shown {
				fmt.Fprintf(w, "%s%s: %s\n", prefix, s.Label, s.Warmup.Note)
			}
			notes++
		}
	}
	if notes > shown {
		fmt.Fprintf(w, "%s%d more points have warm-up notes (each point's warnings are in sweep.json)\n", prefix, notes-shown)
	}
	if len(thin) > 0 {
		fmt.Fprintf(w, "%s%d of %d points have fewer than %d completed runs, so their p99.9 rests on fewer than 10 samples (add --runs or --replications): %s\n",
			prefix, len(thin), len(sums), need, render.FirstFew(thin, shown))
	}
}
