package charts

import (
	"fmt"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// LimitChart draws each tool's adaptive concurrency limit over virtual
// time from limits.csv, as step lines: colours tell tools apart, dash
// patterns variants ("variant · tool" in the legend); with one tool,
// colours tell the variants apart. It shows how the
// limit backs off when the tool slows down or fails, and how it recovers.
func LimitChart(samples []LimitSample) (*Chart, error) {
	if len(samples) == 0 {
		return nil, fmt.Errorf("limits: %w: no samples", ErrNoData)
	}
	vi, ti, order, lines := toolLines(samples, func(s LimitSample) (string, string) { return s.Variant, s.Tool })
	short, vkey := shortLabels(vi.Names)
	ch := &Chart{Name: "concurrency_limit", Title: "Adaptive concurrency limit"}
	if vkey != "" {
		ch.Title += " by " + vkey
	}
	p := newPlot("simulated time", "limit (calls in flight)")
	ch.Plot = p
	from, to, top := time.Duration(-1), time.Duration(0), 1.0
	for _, k := range order {
		for _, s := range lines[k] {
			if from < 0 || s.Start < from {
				from = s.Start
			}
			to = max(to, s.Start+s.Width)
			top = max(top, s.Limit)
		}
	}
	for _, k := range order {
		var starts, ends, vals []float64
		for _, s := range lines[k] {
			starts = append(starts, s.Start.Seconds())
			ends = append(ends, (s.Start + s.Width).Seconds())
			vals = append(vals, s.Limit)
		}
		xs, ys := stepXY(starts, ends, vals)
		// Colours tell tools apart, dashes variants; with one tool, the
		// colours tell the variants apart.
		sty := seriesLine(k.t)
		if len(ti.Names) == 1 {
			sty = seriesLine(k.v)
		}
		sty.Width = vg.Points(1.2)
		if len(vi.Names) > 1 && len(ti.Names) > 1 {
			sty.Dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}[k.v%4]
		}
		p.Add(xyLine(xs, ys, sty, plotter.PostStep))
		label := ti.Names[k.t]
		if len(vi.Names) > 1 {
			label = short[k.v] + " · " + label
		}
		ch.addLegend(label, lineThumb(sty))
	}
	p.X.Tick.Marker = linearSecondsTicks{}
	p.X.Min, p.X.Max = from.Seconds(), to.Seconds()
	p.Y.Min, p.Y.Max = 0, top*1.05
	ch.Notes = append(ch.Notes, "From limits.csv: the limit's time-average over each bin (replication 0).")
	return ch, nil
}
