package charts

import (
	"fmt"
	"image/color"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Shading colours: translucent, so the lines stay visible through them.
var (
	warmupShade = color.NRGBA{R: 0x99, G: 0x99, B: 0x99, A: 0x38}
	outageShade = color.NRGBA{R: 0xD5, G: 0x1E, B: 0x1E, A: 0x30}
)

// timeBands fills vertical bands [X0, X1] of the data area, the full
// height.
type timeBands struct {
	bands []span // X0, X1 and Fill used
}

func (b timeBands) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, s := range b.bands {
		x0, x1 := max(trX(s.X0), c.Min.X), min(trX(s.X1), c.Max.X)
		if x1 <= x0 {
			continue
		}
		c.FillPolygon(s.Fill, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
	}
}

// ShadeTimeSeries shades, on a chart whose x axis is simulated time in
// seconds (in_system, attempt_rate, utilisation), the warm-up (from 0 to
// the first measured activity of series, whose runs are not counted; the
// axis is widened to start at 0) in grey and each distinct outage window
// of outages in red, with a legend entry for each. A reviewer then sees
// what the lines respond to.
func ShadeTimeSeries(ch *Chart, series []Series, outages []Outage) {
	p := ch.Plot
	var b timeBands
	if start, ok := commonStart(series); ok && start > 0 {
		b.bands = append(b.bands, span{X0: 0, X1: start.Seconds(), Fill: warmupShade})
		p.X.Min = 0
		ch.addLegend("warm-up (not measured)", swatch{fill: warmupShade})
	}
	type window struct {
		tool, mode string
		start, end time.Duration
	}
	seen := map[window]bool{}
	var legend []string
	for _, o := range outages {
		w := window{o.Tool, o.Mode, o.Start, o.End}
		if seen[w] {
			continue
		}
		seen[w] = true
		if o.End.Seconds() <= p.X.Min || o.Start.Seconds() >= p.X.Max {
			continue // outside the chart's time axis
		}
		b.bands = append(b.bands, span{X0: o.Start.Seconds(), X1: o.End.Seconds(), Fill: outageShade})
		legend = append(legend, fmt.Sprintf("outage: %s %s, %s–%s", o.Tool, o.Mode, FormatSeconds(o.Start.Seconds()), FormatSeconds(o.End.Seconds())))
	}
	if len(b.bands) == 0 {
		return
	}
	p.Add(b)
	const shown = 4
	for i, l := range legend {
		if i == shown {
			ch.addLegend(fmt.Sprintf("and %d more outages", len(legend)-shown), swatch{fill: outageShade})
			break
		}
		ch.addLegend(l, swatch{fill: outageShade})
	}
}

// DataRange implements plot.DataRanger: the bands fix no range.
func (b timeBands) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
}
