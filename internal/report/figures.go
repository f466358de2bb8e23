package report

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"math"
	"time"

	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/model/system"
)

// figure is one chart to draw: its name and title for when it cannot be
// drawn, what its data is, and how to build it.
type figure struct {
	name, title, caption string
	build                func() (*charts.Chart, error)
}

// figures draws the report's charts in a fixed order: completion-time
// CDF, attempt rate, runs in system, tool utilisation (when a tool has a
// concurrency or a rate limit), circuit breakers' state (when a tool has
// one), adaptive concurrency limits (likewise), the model APIs' per-minute
// limits (when a tool has tokens and limits), the slowest run's timeline
// and the p99 run's tail breakdown.
func figures(in *Input) []Figure {
	name := in.Scenario.Config.Name
	lat, n := in.Pooled.Latency(), in.Pooled.Replications()
	cdf := charts.CDF{Variant: name}
	for _, p := range lat.CDFPoints(nil) {
		cdf.Points = append(cdf.Points, charts.CDFPoint{Value: p.Value, Fraction: p.Fraction})
	}
	rep0 := in.First
	var series []charts.Series
	if rep0.Series != nil {
		series = []charts.Series{seriesOf(name, rep0.Series)}
	}
	sums := []charts.Summary{{Label: name, Summary: in.Summary}}
	reps := "replication 0"
	if n > 1 {
		reps = fmt.Sprintf("replication 0 of %d (one replication's time series: bins do not pool)", n)
	}

	fs := []figure{
		{"latency_cdf", "Completion time of completed runs",
			fmt.Sprintf("%s completed runs of %d replication(s), pooled; the markers are the summary's p50, p99 and p99.9.", render.Number(float64(lat.Count())), n),
			func() (*charts.Chart, error) { return charts.CDFChart([]charts.CDF{cdf}, sums) }},
		{"attempt_rate", "Attempts dialed per second",
			"Attempts against arrivals over virtual time, " + reps + ": retries are the gap between the lines; synchronised retries show as spikes.",
			func() (*charts.Chart, error) { return charts.AttemptRateChart(series) }},
		{"in_system", "Runs in the system",
			"Runs in the system over virtual time, " + reps + ", against Little's law's λW of all replications.",
			func() (*charts.Chart, error) { return charts.InSystemChart(series, sums) }},
	}
	if names, hists := in.Pooled.ClassLatencies(); len(names) > 0 {
		classCDFs := make([]charts.CDF, len(names))
		for i, h := range hists {
			classCDFs[i] = charts.CDF{Variant: names[i]}
			for _, p := range h.CDFPoints(nil) {
				classCDFs[i].Points = append(classCDFs[i].Points, charts.CDFPoint{Value: p.Value, Fraction: p.Fraction})
			}
		}
		// Second, beside the pooled CDF.
		cf := figure{"class_latency_cdf", "Completion time of completed runs, per class of work",
			"Each class's completed runs, all replications pooled; the markers are its p50, p99 and p99.9 (the per-class table's).",
			func() (*charts.Chart, error) { return charts.ClassCDFChart(classCDFs, sums, false) }}
		fs = append(fs[:1], append([]figure{cf}, fs[1:]...)...)
	}
	if outputs.HasLimitedTools(in.Scenario.Config) && rep0.Series != nil {
		samples := toolSamplesOf(in.Scenario.Config, name, rep0.Series)
		fs = append(fs, figure{"utilisation", "Tool utilisation",
			"Each tool with a concurrency or a rate limit over virtual time, " + reps + ": busy servers / concurrency, or calls / rate limit (bins grouped to 50 calls at the limit); a tool pinned at 100% is the bottleneck, and more workers will not move it.",
			func() (*charts.Chart, error) { return charts.UtilisationChart(samples) }})
	}
	if outputs.HasBreakers(in.Scenario.Config) && rep0.Series != nil {
		var samples []charts.BreakerSample
		w := rep0.Series.Width
		for _, b := range outputs.BreakerBins(in.Scenario.Config, rep0.Series) {
			samples = append(samples, charts.BreakerSample{Variant: name, Tool: b.Tool, Start: time.Duration(b.Bin) * w, Width: w,
				Open: b.Open, HalfOpen: b.HalfOpen, Refused: b.Refused})
		}
		fs = append(fs, figure{"breakers", "Circuit breaker state",
			"Each tool's circuit breaker over virtual time, " + reps + ": closed, half-open or open (a bin it changed state in sits between).",
			func() (*charts.Chart, error) { return charts.BreakerChart(samples) }})
	}
	if outputs.HasAdaptive(in.Scenario.Config) && rep0.Series != nil {
		fs = append(fs, limitFigure(in.Scenario.Config, name, rep0.Series, reps))
	}
	if charts.HasTokenLimits(sums) {
		fs = append(fs, figure{"tokens", "Model API limits",
			"Each model API's per-minute limits, all replications pooled: what each counted per second as a share of its allowance; the binding limit is marked.",
			func() (*charts.Chart, error) { return charts.TokenChart(sums) }})
	}
	if in.Trace != nil {
		run, attempts, ok := in.Trace.Slowest()
		caption := "No traced run of replication 0 ended."
		if ok {
			caption = fmt.Sprintf("Run %d of replication 0, the slowest of the %s runs that ended (warm-up included): %s after %s in the system, %d attempt(s).",
				run.ID, render.Number(float64(in.Trace.Runs())), run.Outcome, render.Seconds((run.Ended - run.Arrived).Seconds()), len(attempts))
		}
		fs = append(fs, figure{"timeline", "Timeline of the slowest run", caption,
			func() (*charts.Chart, error) {
				if !ok {
					return nil, fmt.Errorf("timeline: no traced run ended: %w", charts.ErrNoData)
				}
				return charts.TimelineChart(run, attempts)
			}})
	}
	fs = append(fs, figure{"tail", "Where the p99 run's time went",
		"Mean time per stage of the completed runs in the 1% band around the p99, all replications pooled (the capacity section's table).",
		func() (*charts.Chart, error) { return charts.TailChart(charts.TailFromSummaries(sums)) }})

	out := make([]Figure, 0, len(fs))
	for _, f := range fs {
		out = append(out, draw(f))
	}
	return out
}

// seriesOf converts a replication's time series to the charts' bins.
func seriesOf(name string, s *system.Series) charts.Series {
	cs := charts.Series{Variant: name, Bins: make([]charts.Bin, len(s.Bins))}
	for k, b := range s.Bins {
		cs.Bins[k] = charts.Bin{Start: time.Duration(k) * s.Width, Width: s.Width,
			Arrivals: b.Arrivals, Attempts: b.Attempts, Completed: b.Completed, Ended: b.Ended, InSystem: math.NaN()}
	}
	return cs
}

// toolSamplesOf converts a replication's tool utilisation (the rows of
// tools.csv) to the charts' samples.
func toolSamplesOf(cfg *system.Config, name string, s *system.Series) []charts.ToolSample {
	var out []charts.ToolSample
	for _, b := range outputs.ToolUtilisation(cfg, s) {
		out = append(out, charts.ToolSample{Variant: name, Tool: b.Tool,
			Start: time.Duration(b.First) * s.Width, Width: time.Duration(b.Bins) * s.Width, Utilisation: b.Utilisation})
	}
	return out
}

// draw builds and renders one chart; a failure becomes Figure.Skipped.
func draw(f figure) Figure {
	fig := Figure{Name: f.name, Title: f.title, Caption: f.caption}
	ch, err := f.build()
	if err != nil {
		fig.Skipped = err.Error() // charts.ErrNoData's say "no data to draw" and why
		return fig
	}
	fig.Name, fig.Title = ch.Name, ch.Title
	var buf bytes.Buffer
	if err := ch.Render(&buf, "svg"); err != nil {
		fig.Skipped = err.Error()
		return fig
	}
	svg, err := inlineSVG(buf.Bytes(), ch.Title)
	if err != nil {
		fig.Skipped = err.Error()
		return fig
	}
	fig.SVG = svg
	return fig
}

// inlineSVG strips the XML prolog and comments before the <svg> element
// (they are not allowed inside HTML) and labels the element for screen
// readers with title.
func inlineSVG(doc []byte, title string) ([]byte, error) {
	i := bytes.Index(doc, []byte("<svg "))
	if i < 0 {
		return nil, errors.New("svg: no <svg> element in the chart's output")
	}
	var b bytes.Buffer
	b.WriteString(`<svg role="img" aria-label="`)
	b.WriteString(html.EscapeString(title))
	b.WriteString(`" `)
	b.Write(bytes.TrimSpace(doc[i+len("<svg "):]))
	return b.Bytes(), nil
}
