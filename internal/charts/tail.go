package charts

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/budgetsim/budgetsim/internal/outputs"
)

// TailStage is one stage of the p99 run's time in system: Seconds spent
// in Stage ("queue", "step:search", "backoff", …) by variant Variant (""
// for a single run).
type TailStage struct {
	Variant string
	Stage   string
	Seconds float64
}

// TailFromSummaries returns the tail breakdown the summaries carry
// (summary.json's "tail": mean seconds per stage of the runs in the 1 %
// band around the p99), one group per summary labelled by its Label, for
// when there is no tail.csv. Summaries without stages are skipped.
func TailFromSummaries(sums []Summary) []TailStage {
	var out []TailStage
	for _, s := range sums {
		for _, st := range s.Tail.Stages {
			v := s.Label
			if len(sums) == 1 {
				v = ""
			}
			out = append(out, TailStage{Variant: v, Stage: st.Stage, Seconds: st.Seconds})
		}
	}
	return out
}

// stageColor colours a stage: the queue grey, backoff sky blue (as in the
// timeline), steps in palette order without the blues, which would be
// mistaken for backoff.
func stageColor(stage string, step int) color.Color {
	switch stage {
	case "queue":
		return queueColor
	case "backoff":
		return backoffColor
	}
	p := [...]int{1, 2, 3, 4, 6} // vermillion, green, purple, orange, black
	return seriesColor(p[step%len(p)])
}

// TailChart draws where the p99 run's time went as one horizontal stacked
// bar per variant (in order of first appearance, top to bottom): a segment
// per stage ("queue", "step:search", "backoff", …, in order of first
// appearance), with the total at the bar's end. Stages that are zero in
// every variant are left out of the legend. Rows without a variant
// (tail.csv without the column) are labelled "p99 run". With the
// variants' summaries (sums, optional) and more than one variant, each
// total is followed by the variant's success rate: the p99 run of a
// variant that completes few runs can be fast.
func TailChart(stages []TailStage, sums ...Summary) (*Chart, error) {
	if len(stages) == 0 {
		return nil, fmt.Errorf("tail: %w: no stages", ErrNoData)
	}
	var vi, si outputs.VariantIndex
	for _, s := range stages {
		vi.Of(s.Variant)
		si.Of(s.Stage)
	}
	var match map[string]*Summary
	if len(vi.Names) > 1 { // a comparison: one run's chart needs no ranking
		match = matchSummaries(vi.Names, sums)
	}
	short, key := shortLabels(vi.Names)
	for i, v := range short {
		if v == "" {
			short[i] = "p99 run"
		}
	}
	short, keyNote := keyLongLabels(short)
	total := make([]float64, len(vi.Names))
	used := make([]bool, len(si.Names))
	for _, s := range stages {
		total[vi.Index[s.Variant]] += s.Seconds
		if s.Seconds > 0 {
			used[si.Index[s.Stage]] = true
		}
	}
	maxTotal := 0.0
	for _, t := range total {
		maxTotal = max(maxTotal, t)
	}
	if !(maxTotal > 0) {
		return nil, fmt.Errorf("tail: %w: every stage is 0 s", ErrNoData)
	}

	ch := &Chart{Name: "tail", Title: "Where the p99 run's time went"}
	if key != "" {
		ch.Title += ", by " + key
	}
	n := len(vi.Names)
	ch.Height = vg.Length(max(2.8, min(11, 2.2+0.45*float64(n)))) * vg.Inch
	p := newPlot("time in system", "")
	ch.Plot = p
	y := func(i int) float64 { return float64(n - 1 - i) }

	colors := make([]color.Color, len(si.Names))
	step := 0
	for i, st := range si.Names {
		colors[i] = stageColor(st, step)
		if st != "queue" && st != "backoff" {
			step++
		}
	}
	bars := &spans{}
	left := make([]float64, n)
	for _, s := range stages {
		if s.Seconds <= 0 {
			continue
		}
		v, k := vi.Index[s.Variant], si.Index[s.Stage]
		bars.items = append(bars.items, span{X0: left[v], X1: left[v] + s.Seconds, Y: y(v), H: 0.6, Fill: colors[k], Line: color.White})
		left[v] += s.Seconds
	}
	var labels notes
	sty := textStyle(9, color.Black)
	sty.YAlign = draw.YCenter
	for v := range vi.Names {
		txt := FormatSeconds(total[v])
		if total[v] == 0 {
			txt = "no data (no run near the p99)"
		}
		if s := match[vi.Names[v]]; s != nil {
			txt += fmt.Sprintf(" · %.1f%% succeeded", math.Floor(1000*s.SuccessRate)/10) // floored, as the CDF's legend
		}
		labels = append(labels, note{X: total[v], Y: y(v), Text: txt, Style: sty, Offset: vg.Point{X: 4}})
	}
	p.Add(bars, labels)
	for k, st := range si.Names {
		if used[k] {
			ch.addLegend(strings.TrimPrefix(st, "step:"), swatch{fill: colors[k]})
		}
	}
	p.X.Tick.Marker = linearSecondsTicks{}
	p.X.Min, p.X.Max = 0, maxTotal*1.12
	if len(match) > 0 {
		p.X.Max = maxTotal * 1.55 // room for the success rates after the totals
	}
	ticks := make(plot.ConstantTicks, n)
	for v := range vi.Names {
		ticks[v] = plot.Tick{Value: y(v), Label: short[v]}
	}
	p.Y.Tick.Marker = ticks
	p.Y.Tick.Length = 0
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	ch.Notes = append(ch.Notes, "Stages: queue (waiting for a worker), each step's attempts (named by step), backoff (sleeps between attempts). The summary's breakdown is the mean over the runs that completed within 1% of the p99.")
	if keyNote != "" {
		ch.Notes = append(ch.Notes, keyNote)
	}
	return ch, nil
}
