package charts

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FrontierPoint is one configuration of a grid plan (simulate plan
// --minimize cost) on the cost–latency chart: its figures with their
// intervals, its place against the frontier, and whether it meets every
// objective.
type FrontierPoint struct {
	// Label names the point on the chart ("#3").
	Label string
	// Cost is the cost per successful run and P99 the completion-time p99
	// (seconds), each with its interval (NaN bounds when there is none).
	Cost, CostLo, CostHi float64
	P99, P99Lo, P99Hi    float64
	// State is "frontier", "within noise" or "dominated".
	State string
	// Feasible: the configuration meets every objective; Cheapest: it is
	// the cheapest that does.
	Feasible, Cheapest bool
}

// The frontier states FrontierChart tells apart.
const (
	FrontierOn     = "frontier"
	FrontierNoise  = "within noise"
	FrontierBeaten = "dominated"
	// FrontierUnplaced is a configuration that misses a success objective:
	// drawn, hollow and pale, but not placed against the others.
	FrontierUnplaced = "misses success"
)

// FrontierChart draws cost per successful run against p99 for every
// configuration of a grid plan, with each figure's interval as a bar, the
// frontier as a line through its points (by increasing p99), the points
// within noise and the dominated ones in their own colours, a filled
// marker for a configuration that meets every objective and a hollow one
// for one that misses a time objective, a pale ring for one that misses a
// success objective (not placed), and a ring round the cheapest. unit labels the
// cost axis (a currency, or "units"). Points without a cost or a p99 are
// left out; none left is ErrNoData.
func FrontierChart(points []FrontierPoint, unit string) (*Chart, error) {
	var ps []FrontierPoint
	for _, q := range points {
		if !math.IsNaN(q.Cost) && !math.IsNaN(q.P99) && !math.IsInf(q.P99, 0) && !math.IsInf(q.Cost, 0) {
			ps = append(ps, q)
		}
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("frontier: %w: no configuration has both a cost and a p99", ErrNoData)
	}
	ch := &Chart{Name: "frontier", Title: "Cost per successful run vs p99, every configuration"}
	p := newPlot("p99 completion time (completed runs)", "cost per successful run ("+unit+")")
	ch.Plot = p
	p.X.Tick.Marker = linearSecondsTicks{}
	p.Y.Tick.Marker = numberTicks{}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, q := range ps {
		for _, x := range []float64{q.P99, q.P99Lo, q.P99Hi} {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				xmin, xmax = min(xmin, x), max(xmax, x)
			}
		}
		for _, y := range []float64{q.Cost, q.CostLo, q.CostHi} {
			if !math.IsNaN(y) && !math.IsInf(y, 0) {
				ymin, ymax = min(ymin, y), max(ymax, y)
			}
		}
	}
	// float64(): each product rounded before it is added, so that no
	// fused multiply-add moves the axes between machines.
	padX, padY := float64(0.08*(xmax-xmin)), float64(0.1*(ymax-ymin))
	if padX == 0 {
		padX = float64(0.05 * max(math.Abs(xmax), 1))
	}
	if padY == 0 {
		padY = float64(0.05 * max(math.Abs(ymax), 1e-9))
	}
	p.X.Min, p.X.Max = max(0, xmin-padX), xmax+padX
	p.Y.Min, p.Y.Max = max(0, ymin-padY), ymax+padY

	colours := map[string]color.Color{FrontierOn: seriesColor(0), FrontierNoise: seriesColor(4), FrontierBeaten: color.Gray{Y: 0x99}, FrontierUnplaced: color.Gray{Y: 0xA8}}
	colourOf := func(q FrontierPoint) color.Color {
		if c, ok := colours[q.State]; ok {
			return c
		}
		return colours[FrontierBeaten]
	}
	// Interval bars first, under the markers.
	bar := func(x0, y0, x1, y1 float64, c color.Color) {
		if math.IsNaN(x0) || math.IsNaN(x1) || math.IsNaN(y0) || math.IsNaN(y1) || math.IsInf(x1, 0) || math.IsInf(y1, 0) {
			return
		}
		p.Add(xyLine([]float64{x0, x1}, []float64{y0, y1}, draw.LineStyle{Color: lighten(c, 0.35), Width: vg.Points(1)}, plotter.NoStep))
	}
	for _, q := range ps {
		c := colourOf(q)
		bar(q.P99Lo, q.Cost, q.P99Hi, q.Cost, c)
		bar(q.P99, q.CostLo, q.P99, q.CostHi, c)
	}
	// The frontier line, by increasing p99.
	var front []FrontierPoint
	for _, q := range ps {
		if q.State == FrontierOn {
			front = append(front, q)
		}
	}
	sort.SliceStable(front, func(i, j int) bool { return front[i].P99 < front[j].P99 })
	frontStyle := draw.LineStyle{Color: colours[FrontierOn], Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	if len(front) > 1 {
		var xs, ys []float64
		for _, q := range front {
			xs, ys = append(xs, q.P99), append(ys, q.Cost)
		}
		p.Add(xyLine(xs, ys, frontStyle, plotter.NoStep))
	}
	var labels plotter.XYLabels
	hollow, unplaced := false, false
	for _, q := range ps {
		c := colourOf(q)
		g := draw.GlyphStyle{Color: c, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
		switch {
		case q.State == FrontierUnplaced:
			g.Shape, unplaced = draw.RingGlyph{}, true
		case !q.Feasible:
			g.Shape, hollow = draw.RingGlyph{}, true
		}
		s, _ := plotter.NewScatter(plotter.XYs{{X: q.P99, Y: q.Cost}})
		s.GlyphStyle = g
		p.Add(s)
		if q.Cheapest {
			r, _ := plotter.NewScatter(plotter.XYs{{X: q.P99, Y: q.Cost}})
			r.GlyphStyle = draw.GlyphStyle{Color: seriesColor(1), Radius: vg.Points(7), Shape: draw.RingGlyph{}}
			p.Add(r)
		}
		// Configurations with the same figures (a knob that changes
		// nothing) share one label, "#5 #9", instead of overprinting.
		merged := false
		for k, at := range labels.XYs {
			if math.Abs(at.X-q.P99) <= 0.015*(p.X.Max-p.X.Min) && math.Abs(at.Y-q.Cost) <= 0.015*(p.Y.Max-p.Y.Min) {
				labels.Labels[k] += " " + q.Label
				merged = true
				break
			}
		}
		if !merged {
			labels.XYs = append(labels.XYs, plotter.XY{X: q.P99, Y: q.Cost})
			labels.Labels = append(labels.Labels, q.Label)
		}
	}
	if l, err := plotter.NewLabels(labels); err == nil {
		for i := range l.TextStyle {
			l.TextStyle[i] = textStyle(8, color.Gray{Y: 0x33})
		}
		l.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(3)}
		p.Add(l)
	}
	ch.addLegend("frontier", lineThumb(frontStyle), glyphThumb{Color: colours[FrontierOn], Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}})
	ch.addLegend("within noise", glyphThumb{Color: colours[FrontierNoise], Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}})
	ch.addLegend("dominated", glyphThumb{Color: colours[FrontierBeaten], Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}})
	if hollow {
		ch.addLegend("hollow: misses a time objective", glyphThumb{Color: color.Gray{Y: 0x55}, Radius: vg.Points(3.5), Shape: draw.RingGlyph{}})
	}
	if unplaced {
		ch.addLegend("misses a success objective (not placed)", glyphThumb{Color: colours[FrontierUnplaced], Radius: vg.Points(3.5), Shape: draw.RingGlyph{}})
	}
	for _, q := range ps {
		if q.Cheapest {
			ch.addLegend("cheapest meeting every objective", glyphThumb{Color: seriesColor(1), Radius: vg.Points(7), Shape: draw.RingGlyph{}})
			break
		}
	}
	ch.Notes = append(ch.Notes,
		"Bars: each figure's interval over the replications (by sectioning). Dominated: another configuration is cheaper or faster beyond its paired interval, and no worse on the other; within noise: beaten only by the point estimates.",
		"p99 is over completed runs: a configuration that fails many runs can look fast, so one that misses a success objective is drawn pale and not placed.")
	if len(ps) < len(points) {
		ch.Notes = append(ch.Notes, fmt.Sprintf("%d configurations without a cost or a p99 (none completed, or not comparable) are left out.", len(points)-len(ps)))
	}
	return ch, nil
}
