package charts

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/internal/provenance"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SplitSweep groups sweep points by parameter, in order of first
// appearance, for files that sweep several parameters one after another.
func SplitSweep(points []SweepPoint) [][]SweepPoint {
	var vi outputs.VariantIndex
	var out [][]SweepPoint
	for _, p := range points {
		i, isNew := vi.Of(p.Parameter)
		if isNew {
			out = append(out, nil)
		}
		out[i] = append(out[i], p)
	}
	return out
}

// sortedSweep checks that the points sweep one parameter and returns them
// sorted by value.
func sortedSweep(points []SweepPoint) ([]SweepPoint, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("sweep: %w: no points", ErrNoData)
	}
	for _, p := range points[1:] {
		if p.Parameter != points[0].Parameter {
			return nil, fmt.Errorf("sweep: points of several parameters (%q, %q): split them with SplitSweep", points[0].Parameter, p.Parameter)
		}
	}
	ps := slices.Clone(points)
	slices.SortStableFunc(ps, func(a, b SweepPoint) int {
		switch {
		case a.Value < b.Value:
			return -1
		case a.Value > b.Value:
			return 1
		}
		return 0
	})
	return ps, nil
}

// sweepXAxis sets up the swept parameter's axis: linear, or logarithmic
// when every value is positive and they span a factor of 50 or more
// (rates, timeouts swept by doubling).
func sweepXAxis(p *plot.Plot, ps []SweepPoint) {
	lo, hi := ps[0].Value, ps[len(ps)-1].Value
	if lo > 0 && hi/lo >= 50 {
		p.X.Scale = logScale{}
		p.X.Tick.Marker = logTicks{format: trimNumber}
		p.X.Min, p.X.Max = lo/1.15, hi*1.15
		return
	}
	p.X.Tick.Marker = numberTicks{}
	pad := (hi - lo) * 0.04
	if pad == 0 {
		pad = math.Max(math.Abs(lo)*0.1, 1)
	}
	p.X.Min, p.X.Max = lo-pad, hi+pad
}

func replicationsNote(ps []SweepPoint) string {
	lo, hi := ps[0].Replications, ps[0].Replications
	for _, p := range ps {
		lo, hi = min(lo, p.Replications), max(hi, p.Replications)
	}
	if lo == hi {
		return fmt.Sprintf("%d replication(s) per point", lo)
	}
	return fmt.Sprintf("%d to %d replications per point", lo, hi)
}

// SweepLatencyChart draws p99 completion time against the swept parameter
// (the knee), with the p99's confidence interval as a shaded band from
// latency_p99_lo_s/latency_p99_hi_s, and p50 and p99.9 as thinner lines
// for context. The points must sweep one parameter (see SplitSweep).
//
// The time axis turns logarithmic when the values span a factor of 20 or
// more (an overloaded point would otherwise flatten the rest). A log axis
// never receives a value ≤ 0: such percentiles are left out, and an
// interval bound ≤ 0 (a Student-t interval over few replications can dip
// below zero) is drawn at the bottom edge; a footnote says so.
//
// With a target (plan.json's, or objectives given to cmd/plot; may be
// nil), the objectives on p50, p99 and p99.9 are drawn as red lines at
// their thresholds and the plan's answer as a vertical line.
func SweepLatencyChart(points []SweepPoint, target *Target) (*Chart, error) {
	ps, err := sortedSweep(points)
	if err != nil {
		return nil, err
	}
	param := ps[0].Parameter
	ch := &Chart{Name: "sweep_latency", Title: "Completion time vs " + param}
	p := newPlot(param, "completion time (completed runs)")
	ch.Plot = p
	sweepXAxis(p, ps)

	minPos, maxY := math.Inf(1), 0.0
	for _, q := range ps {
		for _, v := range []float64{q.P50, q.P99, q.P99Lo, q.P99Hi, q.P999} {
			if v > 0 {
				minPos = min(minPos, v)
			}
			maxY = max(maxY, v)
		}
	}
	if math.IsInf(minPos, 1) {
		return nil, fmt.Errorf("sweep: %w: every completion-time percentile is 0", ErrNoData)
	}
	objs := target.objectives(func(f string) bool { return f == "p50" || f == "p99" || f == "p999" })
	for _, o := range objs {
		minPos, maxY = min(minPos, o.Threshold), max(maxY, o.Threshold)
	}
	logY := maxY/minPos >= 20
	floor := 0.0
	if logY {
		floor = minPos / 1.3
		p.Y.Scale = logScale{}
		p.Y.Tick.Marker = logTicks{format: FormatSeconds}
		p.Y.Min, p.Y.Max = floor, maxY*1.3
	} else {
		p.Y.Tick.Marker = linearSecondsTicks{}
		p.Y.Min, p.Y.Max = 0, maxY*1.05
	}

	blue := seriesColor(0)
	clamped := false
	var band plotter.XYs
	for _, q := range ps {
		lo := q.P99Lo
		if logY && lo <= 0 {
			lo, clamped = floor, true
		}
		band = append(band, plotter.XY{X: q.Value, Y: max(lo, p.Y.Min)})
	}
	for i := len(ps) - 1; i >= 0; i-- {
		band = append(band, plotter.XY{X: ps[i].Value, Y: ps[i].P99Hi})
	}
	poly, _ := plotter.NewPolygon(band)
	poly.Color = lighten(blue, 0.8)
	poly.LineStyle.Width = 0
	p.Add(poly)

	line := func(get func(SweepPoint) float64, sty draw.LineStyle, glyph draw.GlyphDrawer) (*plotter.Line, *plotter.Scatter) {
		var xs, ys []float64
		for _, q := range ps {
			if v := get(q); v > 0 || !logY {
				xs, ys = append(xs, q.Value), append(ys, v)
			}
		}
		l := xyLine(xs, ys, sty, plotter.NoStep)
		p.Add(l)
		if glyph == nil {
			return l, nil
		}
		s, _ := plotter.NewScatter(l.XYs)
		s.GlyphStyle = draw.GlyphStyle{Color: sty.Color, Radius: vg.Points(3), Shape: glyph}
		p.Add(s)
		return l, s
	}
	grey := color.Gray{Y: 0x66}
	l50, _ := line(func(q SweepPoint) float64 { return q.P50 }, draw.LineStyle{Color: grey, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}, nil)
	l999, _ := line(func(q SweepPoint) float64 { return q.P999 }, draw.LineStyle{Color: grey, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}, nil)
	l99, s99 := line(func(q SweepPoint) float64 { return q.P99 }, draw.LineStyle{Color: blue, Width: vg.Points(2)}, draw.CircleGlyph{})

	ch.addLegend("p99", l99, s99)
	ch.addLegend("p99 confidence interval", swatch{fill: poly.Color})
	ch.addLegend("p50", l50)
	ch.addLegend("p99.9", l999)
	target.draw(ch, objs, ps, func(q SweepPoint) float64 { return q.P99 })
	ch.Notes = append(ch.Notes, "Percentiles pool all replications; the band is the interval sweep.csv gives for p99 (Student-t over per-replication p99s, "+replicationsNote(ps)+").")
	if clamped {
		ch.Notes = append(ch.Notes, "Interval bounds ≤ 0 are drawn at the bottom edge of the log axis.")
	}
	return ch, nil
}

// SweepSuccessChart draws the success rate (completed / arrived) against
// the swept parameter, with its confidence interval (success_lo,
// success_hi) as a shaded band clipped to [0 %, 100 %]. The y axis zooms
// in on the range the data covers, up to 100 %, so 99 % and 99.9 % are
// told apart; its labels are percentages. With a target (may be nil), a
// success objective is drawn as a red line and the plan's answer as a
// vertical line.
func SweepSuccessChart(points []SweepPoint, target *Target) (*Chart, error) {
	ps, err := sortedSweep(points)
	if err != nil {
		return nil, err
	}
	param := ps[0].Parameter
	ch := &Chart{Name: "sweep_success", Title: "Success rate vs " + param}
	p := newPlot(param, "success rate (completed / arrived)")
	ch.Plot = p
	sweepXAxis(p, ps)

	ymin := 1.0
	clip := func(v float64) float64 { return min(max(v, 0), 1) }
	var band plotter.XYs
	var xs, ys []float64
	for _, q := range ps {
		lo := clip(q.SuccessLo)
		ymin = min(ymin, lo, q.SuccessRate)
		band = append(band, plotter.XY{X: q.Value, Y: lo})
		xs, ys = append(xs, q.Value), append(ys, q.SuccessRate)
	}
	for i := len(ps) - 1; i >= 0; i-- {
		band = append(band, plotter.XY{X: ps[i].Value, Y: clip(ps[i].SuccessHi)})
	}
	objs := target.objectives(func(f string) bool { return f == "success" })
	for _, o := range objs {
		ymin = min(ymin, o.Threshold)
	}
	ymin = min(ymin, 0.99)
	p.Y.Min, p.Y.Max = max(0, ymin-0.06*(1-ymin)), 1+0.02*(1-ymin)
	p.Y.Tick.Marker = percentTicks{}

	green := seriesColor(2)
	poly, _ := plotter.NewPolygon(band)
	poly.Color = lighten(green, 0.8)
	poly.LineStyle.Width = 0
	p.Add(poly)
	l := xyLine(xs, ys, draw.LineStyle{Color: green, Width: vg.Points(2)}, plotter.NoStep)
	s, _ := plotter.NewScatter(l.XYs)
	s.GlyphStyle = draw.GlyphStyle{Color: green, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	p.Add(l, s, refLine{At: 1, Style: referenceLine(lightGrey)})
	ch.addLegend("success rate", l, s)
	ch.addLegend("confidence interval", swatch{fill: poly.Color})
	target.draw(ch, objs, ps, func(q SweepPoint) float64 { return q.SuccessRate })
	ch.Notes = append(ch.Notes, "Band: the interval sweep.csv gives (success_lo, success_hi; "+replicationsNote(ps)+"), clipped to [0%, 100%].")
	return ch, nil
}

// Objective is a service-level objective a sweep chart can draw
// (outputs.Objective): a line at Threshold on the chart of its Figure.
type Objective = outputs.Objective

// Target is what a capacity plan looked for, drawn on the sweep charts of
// its probes: the objectives and, when one was found, the answer. Without
// a plan (objectives given for a plain sweep), the points whose estimates
// meet every objective are circled instead.
type Target struct {
	Objectives []Objective
	// Plan reports a plan's target (plan.json): Answer is the parameter's
	// value the plan answered, and Found is false when no value met every
	// objective.
	Plan   bool
	Answer float64
	Found  bool
	// Provenance is the plan's scenario (plan.json's provenance: the
	// overrides every probe shares; each probe adds its value); nil
	// without.
	Provenance *provenance.Record
}

// meets reports whether point q's estimates meet every objective, and
// whether sweep.csv has the figures to tell (an objective on a mean or a
// wait does not).
func (t *Target) meets(q SweepPoint) (meets, known bool) {
	meets = true
	for _, o := range t.Objectives {
		var v float64
		switch o.Figure {
		case "p50":
			v = q.P50
		case "p99":
			v = q.P99
		case "p999":
			v = q.P999
		case "success":
			meets = meets && q.SuccessRate >= o.Threshold
			continue
		default:
			return false, false
		}
		meets = meets && v <= o.Threshold
	}
	return meets, true
}

// objectives returns the target's objectives whose figure the chart
// draws (keep); none for a nil target.
func (t *Target) objectives(keep func(string) bool) []Objective {
	if t == nil {
		return nil
	}
	var out []Objective
	for _, o := range t.Objectives {
		if keep(o.Figure) {
			out = append(out, o)
		}
	}
	return out
}

// objectiveRed is the colour of objectives and the answer: the one thing
// on a sweep chart a reviewer checks first.
var objectiveRed = color.RGBA{R: 0xD5, G: 0x1E, B: 0x1E, A: 0xFF}

// draw adds the objectives objs as horizontal lines and the answer as a
// vertical one, with their legend entries, and a note when the plan found
// no answer.
func (t *Target) draw(ch *Chart, objs []Objective, ps []SweepPoint, yOf func(SweepPoint) float64) {
	if t == nil {
		return
	}
	p := ch.Plot
	for _, o := range objs {
		sty := draw.LineStyle{Color: objectiveRed, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
		p.Add(refLine{At: o.Threshold, Style: sty})
		ch.addLegend("objective "+strings.NewReplacer("<=", " ≤ ", ">=", " ≥ ").Replace(o.Text), lineThumb(sty))
	}
	switch {
	case t.Plan && t.Found:
		sty := draw.LineStyle{Color: objectiveRed, Width: vg.Points(2)}
		p.Add(refLine{At: t.Answer, Vertical: true, Style: sty})
		p.X.Min, p.X.Max = min(p.X.Min, t.Answer), max(p.X.Max, t.Answer)
		ch.addLegend(fmt.Sprintf("answer: %s = %s", ps[0].Parameter, trimNumber(t.Answer)), vlineThumb(sty))
	case t.Plan && len(t.Objectives) > 0:
		ch.Notes = append(ch.Notes, "No value in the range met every objective.")
	case len(t.Objectives) > 0:
		var ring plotter.XYs
		for _, q := range ps {
			m, known := t.meets(q)
			if !known {
				ch.Notes = append(ch.Notes, "sweep.csv has no figure for some objective (a mean, a wait or a class's figure): the points meeting them are not marked.")
				return
			}
			if m {
				ring = append(ring, plotter.XY{X: q.Value, Y: yOf(q)})
			}
		}
		if len(ring) == 0 {
			ch.Notes = append(ch.Notes, "No swept value meets every objective (point estimates).")
			return
		}
		sc, _ := plotter.NewScatter(ring)
		sc.GlyphStyle = draw.GlyphStyle{Color: objectiveRed, Radius: vg.Points(6), Shape: draw.RingGlyph{}}
		p.Add(sc)
		ch.addLegend("meets every objective (point estimates)", glyphThumb(sc.GlyphStyle))
	}
}
