package charts

import (
	"fmt"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// BreakerChart draws each tool's circuit breaker over virtual time from
// breakers.csv, as a step line between three levels: closed, half-open and
// open. A bin's level is its time-weighted state (open counts 1,
// half-open ½), so a bin the breaker changed state in sits between two
// levels. With several variants the legend says "variant · tool".
func BreakerChart(samples []BreakerSample) (*Chart, error) {
	if len(samples) == 0 {
		return nil, fmt.Errorf("breakers: %w: no samples", ErrNoData)
	}
	vi, ti, order, lines := toolLines(samples, func(s BreakerSample) (string, string) { return s.Variant, s.Tool })
	var refused int64
	for _, s := range samples {
		refused += s.Refused
	}
	short, vkey := shortLabels(vi.Names)
	ch := &Chart{Name: "breakers", Title: "Circuit breaker state"}
	if vkey != "" {
		ch.Title += " by " + vkey
	}
	p := newPlot("simulated time", "breaker state")
	ch.Plot = p
	from, to := time.Duration(-1), time.Duration(0)
	for i, k := range order {
		var starts, ends, level []float64
		for _, s := range lines[k] {
			if from < 0 || s.Start < from {
				from = s.Start
			}
			to = max(to, s.Start+s.Width)
			starts = append(starts, s.Start.Seconds())
			ends = append(ends, (s.Start + s.Width).Seconds())
			level = append(level, min(1, s.Open+float64(0.5*s.HalfOpen)))
		}
		label := ti.Names[k.t]
		if len(vi.Names) > 1 {
			label = short[k.v] + " · " + label
		}
		sty := seriesLine(i)
		sty.Width = vg.Points(1.2)
		xs, ys := stepXY(starts, ends, level)
		p.Add(xyLine(xs, ys, sty, plotter.PostStep))
		ch.addLegend(label, lineThumb(sty))
	}
	p.X.Tick.Marker = linearSecondsTicks{}
	p.X.Min, p.X.Max = from.Seconds(), to.Seconds()
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "closed"}, {Value: 0.5, Label: "half-open"}, {Value: 1, Label: "open"}})
	p.Y.Min, p.Y.Max = -0.05, 1.05
	ch.Notes = append(ch.Notes, fmt.Sprintf("From breakers.csv, per bin: the share of the bin the breaker spent open, plus half the share it spent half-open. Open, it refuses calls locally: %d calls of measured runs in all.", refused))
	return ch, nil
}
