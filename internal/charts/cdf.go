package charts

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// markedPercentiles are the percentiles CDFChart marks, with their glyphs.
var markedPercentiles = [...]struct {
	p     float64
	name  string
	glyph draw.GlyphDrawer
}{
	{0.50, "p50", draw.CircleGlyph{}},
	{0.99, "p99", draw.PyramidGlyph{}},
	{0.999, "p99.9", draw.BoxGlyph{}},
}

// CDFChart draws the completion-time distribution of each variant as a
// step line: x is the completion time (arrival → done) on a log axis, y
// the fraction of completed runs done by then on a tail-stretched axis
// (−log10(1 − F): 50 %, 90 %, 99 %, 99.9 % equally spaced, so the tail
// the percentiles describe is visible). p50, p99 and p99.9 are marked on
// each line (●, ▲, ■) and printed in the legend; they are nearest-rank
// on the same histogram as the summary (CDF.Quantile), so they agree with
// summary.json.
//
// The log axis never receives a value ≤ 0: zero completion times are left
// out and counted in a footnote. The x axis starts at the smallest p1 of
// the variants (the lowest 1 % of runs, squeezed into the bottom of the
// tail-stretched axis, would otherwise take most of the width); a
// footnote says so when that hides points. The y axis ends one nine past
// the data's resolution and the last step (the maximum, F = 1) is drawn
// at the top edge.
//
// The times are those of completed runs only, so a variant that completes
// few runs can look fastest: with sums (summary.json or compare.json; may
// be nil), each variant's legend entry starts with its success rate, and
// a footnote says so.
//
// It returns an error wrapping ErrNoData if no variant has a value > 0.
func CDFChart(cdfs []CDF, sums []Summary) (*Chart, error) {
	labels := make([]string, len(cdfs))
	for i, d := range cdfs {
		labels[i] = d.Variant
	}
	match := matchSummaries(labels, sums)
	short, key := shortLabels(labels)
	ch := &Chart{Name: "latency_cdf", Title: "Completion time of completed runs"}
	if key != "" {
		ch.Title += " by " + key
	}
	p := newPlot("completion time: arrival → done (log scale)", "completed within t (tail-stretched)")
	ch.Plot = p

	zeros := 0
	xlo, xhi := math.Inf(1), math.Inf(-1)
	topNines := 2.0
	hidden := false
	type prepared struct {
		xs, ys []float64
		q      [len(markedPercentiles)]float64
	}
	var lines []prepared
	for _, d := range cdfs {
		var pr prepared
		for j, pt := range d.Points {
			if pt.Value <= 0 {
				zeros++
				continue
			}
			if len(pr.xs) == 0 {
				// Start the step at the fraction below this point (0 for
				// the first one), so that a single point still draws its
				// rise and the percentile marks sit on the line.
				prev := 0.0
				if j > 0 {
					prev = d.Points[j-1].Fraction
				}
				pr.xs = append(pr.xs, pt.Value)
				pr.ys = append(pr.ys, prev)
			}
			pr.xs = append(pr.xs, pt.Value)
			pr.ys = append(pr.ys, pt.Fraction)
			if pt.Fraction < 1 {
				topNines = max(topNines, math.Floor(-math.Log10(1-pt.Fraction)+1e-9)+1)
			}
		}
		for k, m := range markedPercentiles {
			pr.q[k] = d.Quantile(m.p)
		}
		lines = append(lines, pr)
		if len(pr.xs) == 0 {
			continue
		}
		p1 := d.Quantile(0.01)
		if p1 <= 0 {
			p1 = pr.xs[0]
		}
		xlo = min(xlo, p1)
		xhi = max(xhi, pr.xs[len(pr.xs)-1])
	}
	if math.IsInf(xlo, 1) {
		return nil, fmt.Errorf("latency CDF: %w: no completion time > 0 to draw on a log axis", ErrNoData)
	}
	topNines = min(topNines, 6)
	xlo, xhi = widenLog(xlo, xhi)
	for _, pr := range lines {
		if len(pr.xs) > 0 && pr.xs[0] < xlo {
			hidden = true
		}
	}

	withSuccess := false
	for i, pr := range lines {
		sty := seriesLine(i)
		label := short[i]
		if s := match[labels[i]]; s != nil {
			label += fmt.Sprintf(" · %.1f%% succeeded", math.Floor(1000*s.SuccessRate)/10) // floored: never overstated
			withSuccess = true
		}
		if len(pr.xs) > 0 {
			p.Add(xyLine(pr.xs, pr.ys, sty, plotter.PostStep))
			for k, m := range markedPercentiles {
				q := pr.q[k]
				if !(q > 0) {
					continue
				}
				s, _ := plotter.NewScatter(plotter.XYs{{X: q, Y: m.p}})
				s.GlyphStyle = draw.GlyphStyle{Color: seriesColor(i), Radius: vg.Points(3.5), Shape: m.glyph}
				p.Add(s)
			}
			label += fmt.Sprintf(" — p50 %s · p99 %s · p99.9 %s", FormatSeconds(pr.q[0]), FormatSeconds(pr.q[1]), FormatSeconds(pr.q[2]))
		} else {
			label += " — no completion time > 0"
		}
		ch.addLegend(label, lineThumb(sty))
	}
	for _, m := range markedPercentiles {
		ch.addLegend(m.name, glyphThumb{Color: noteGrey, Radius: vg.Points(3.5), Shape: m.glyph})
	}

	p.X.Scale = logScale{}
	p.X.Tick.Marker = logTicks{format: FormatSeconds}
	p.X.Min, p.X.Max = xlo, xhi
	p.Y.Scale = ninesScale{}
	p.Y.Tick.Marker = ninesTicks{}
	p.Y.Min, p.Y.Max = 0, 1-math.Pow10(-int(topNines))

	ch.Notes = append(ch.Notes, "Percentiles: nearest-rank on the simulator's log-linear histogram (relative error ≤ 0.39%), as in summary.json. The slowest run (100%) is drawn on the top edge.")
	if withSuccess && len(lines) > 1 {
		ch.Notes = append(ch.Notes, "The lines are the completed runs only: a variant that completes few runs (see its success rate) can look fast.")
	}
	if hidden {
		ch.Notes = append(ch.Notes, fmt.Sprintf("The x axis starts at the smallest p1 (%s): the fastest 1%% of runs are off the left edge.", FormatSeconds(xlo)))
	}
	if zeros > 0 {
		ch.Notes = append(ch.Notes, fmt.Sprintf("%d CDF point(s) at 0 s are not drawn on the log axis.", zeros))
	}
	return ch, nil
}

// widenLog returns a log-axis range around [lo, hi] (both > 0) spanning at
// least a factor of 6, so that a single value or a narrow distribution
// still gets labelled ticks, with a little room beyond the data.
func widenLog(lo, hi float64) (float64, float64) {
	if hi/lo < 6 {
		g := math.Sqrt(lo * hi)
		return g / 2.5, g * 2.5
	}
	return lo, hi * 1.1
}

// logScale is gonum's LogScale that cannot panic: a value ≤ 0 (which the
// chart functions filter out; this is the last line of defence) is placed
// at the axis minimum instead of aborting the whole figure.
type logScale struct{}

func (logScale) Normalize(lo, hi, x float64) float64 {
	if !(lo > 0) || !(hi > lo) {
		return 0
	}
	if !(x > 0) {
		x = lo
	}
	return (math.Log(x) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
}
