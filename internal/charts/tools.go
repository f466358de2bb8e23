package charts

import (
	"fmt"
	"image/color"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/budgetsim/budgetsim/internal/outputs"
)

// UtilisationChart draws each tool's utilisation over virtual time from
// tools.csv, as step lines on a percentage axis with a grey line at 100 %:
// a tool pinned at 100 % is the bottleneck. Colours tell tools apart; with
// several variants, dash patterns tell variants apart and the legend says
// "variant · tool". Lines keep the file's bins.
func UtilisationChart(samples []ToolSample) (*Chart, error) {
	if len(samples) == 0 {
		return nil, fmt.Errorf("tools: %w: no samples", ErrNoData)
	}
	vi, ti, order, lines := toolLines(samples, func(s ToolSample) (string, string) { return s.Variant, s.Tool })
	short, vkey := shortLabels(vi.Names)
	ch := &Chart{Name: "utilisation", Title: "Tool utilisation"}
	if vkey != "" {
		ch.Title += " by " + vkey
	}
	p := newPlot("simulated time", "utilisation (of capacity or rate limit)")
	ch.Plot = p
	from, to, top := time.Duration(-1), time.Duration(0), 1.0
	for _, k := range order {
		for _, s := range lines[k] {
			if from < 0 || s.Start < from {
				from = s.Start
			}
			to = max(to, s.Start+s.Width)
		}
	}
	merged := 1
	for _, k := range order {
		// A line of more than maxFlowBins samples is averaged k samples
		// at a time (weighted by their widths): raw bins of a second or
		// so swing from 20% to 100% and fill the chart.
		ss := lines[k]
		m := max(1, (len(ss)+maxFlowBins-1)/maxFlowBins)
		merged = max(merged, m)
		var starts, ends, vals []float64
		for i := 0; i < len(ss); i += m {
			group := ss[i:min(i+m, len(ss))]
			var busy, width float64
			for _, s := range group {
				busy += s.Utilisation * s.Width.Seconds()
				width += s.Width.Seconds()
			}
			last := group[len(group)-1]
			starts = append(starts, group[0].Start.Seconds())
			ends = append(ends, (last.Start + last.Width).Seconds())
			vals = append(vals, busy/max(width, 1e-12))
			top = max(top, vals[len(vals)-1]) // the axis fits what is drawn
		}
		xs, ys := stepXY(starts, ends, vals)
		sty := seriesLine(k.t)
		sty.Width = vg.Points(1.2)
		if len(ti.Names) == 1 {
			sty = seriesLine(k.v) // one tool: a colour per variant
			sty.Width = vg.Points(1.2)
		} else if len(vi.Names) > 1 {
			sty.Dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}[k.v%4]
		}
		p.Add(xyLine(xs, ys, sty, plotter.PostStep))
		label := ti.Names[k.t]
		if len(vi.Names) > 1 {
			label = short[k.v] + " · " + label
		}
		ch.addLegend(label, lineThumb(sty))
	}
	p.Add(refLine{At: 1, Style: referenceLine(color.Gray{Y: 0x99})})
	p.X.Tick.Marker = linearSecondsTicks{}
	p.X.Min, p.X.Max = from.Seconds(), to.Seconds()
	p.Y.Tick.Marker = percentTicks{}
	p.Y.Min, p.Y.Max = 0, top*1.05
	ch.Notes = append(ch.Notes, "From tools.csv, per bin: busy time / (concurrency × bin width), or calls / (rate limit × bin width) for a rate-limited tool; the dashed line is 100%.")
	if merged > 1 {
		ch.Notes = append(ch.Notes, fmt.Sprintf("Each step is the mean of up to %d of the file's bins (at most %d steps a line); plot --window draws a span with its own bins.", merged, maxFlowBins))
	}
	return ch, nil
}

// toolLine is one line of a per-tool time series chart: a variant's and a
// tool's index.
type toolLine struct{ v, t int }

// toolLines groups the samples of a per-tool time series (tools.csv,
// breakers.csv, limits.csv) into lines, one per variant and tool, in the
// order each first appears; vi and ti index the variants' and tools' names.
func toolLines[S any](samples []S, names func(S) (variant, tool string)) (vi, ti outputs.VariantIndex, order []toolLine, lines map[toolLine][]S) {
	lines = map[toolLine][]S{}
	for _, s := range samples {
		variant, tool := names(s)
		v, _ := vi.Of(variant)
		t, _ := ti.Of(tool)
		k := toolLine{v, t}
		if _, ok := lines[k]; !ok {
			order = append(order, k)
		}
		lines[k] = append(lines[k], s)
	}
	return vi, ti, order, lines
}
