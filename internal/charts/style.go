package charts

import (
	"image/color"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// sansFont is Liberation Sans, compiled into gonum/plot (no system fonts
// needed). Sans-serif reads better than the default serif at small sizes.
var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// textStyle returns a plain-text style in Liberation Sans of the given size.
func textStyle(size vg.Length, c color.Color) text.Style {
	return text.Style{
		Color:   c,
		Font:    font.From(sansFont, size),
		Handler: plot.DefaultTextHandler,
	}
}

func boldStyle(size vg.Length) text.Style {
	f := sansFont
	f.Weight = xfont.WeightBold
	return text.Style{Color: color.Black, Font: font.From(f, size), Handler: plot.DefaultTextHandler}
}

var (
	gridGrey  = color.Gray{Y: 0xDD}
	noteGrey  = color.Gray{Y: 0x55}
	lightGrey = color.Gray{Y: 0xCC}
)

// seriesColor returns the i-th line colour: the Okabe–Ito palette
// (Okabe & Ito 2008, "Color Universal Design"), which stays distinct for
// the common forms of colour blindness, ordered so that the first colours
// contrast most on white. Yellow is left out: it is unreadable as a line.
func seriesColor(i int) color.Color {
	p := [...]color.RGBA{
		{0x00, 0x72, 0xB2, 0xFF}, // blue
		{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
		{0x00, 0x9E, 0x73, 0xFF}, // bluish green
		{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
		{0xE6, 0x9F, 0x00, 0xFF}, // orange
		{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
		{0x00, 0x00, 0x00, 0xFF}, // black
	}
	return p[i%len(p)]
}

// seriesDashes returns the dash pattern of the i-th series: solid for the
// first round of colours, then dashed, so that more than seven series stay
// distinguishable.
func seriesDashes(i int) []vg.Length {
	switch (i / 7) % 3 {
	case 1:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case 2:
		return []vg.Length{vg.Points(2), vg.Points(2)}
	}
	return nil
}

func seriesLine(i int) draw.LineStyle {
	return draw.LineStyle{Color: seriesColor(i), Width: vg.Points(1.5), Dashes: seriesDashes(i)}
}

// referenceLine is the style of a horizontal or vertical reference (λW,
// the deadline): dashed, thinner than data.
func referenceLine(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
}

// lighten mixes c with white: f = 0 keeps c, f = 1 gives white. Used
// instead of transparency so that overlaps and PNG/SVG output look alike.
func lighten(c color.Color, f float64) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8(float64(v>>8)*(1-f) + 255*f + 0.5) }
	return color.RGBA{mix(r), mix(g), mix(b), 0xFF}
}

// newPlot returns a plot with the house style: Liberation Sans, light grid
// at the major ticks, no title (the Chart draws it) and no legend (the
// Chart draws it outside the data area).
func newPlot(xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, 11)
		a.Tick.Label.Font = font.From(sansFont, 10)
		a.Label.Padding = vg.Points(4)
		a.Tick.Length = vg.Points(5)
		a.Padding = vg.Points(3)
	}
	g := plotter.NewGrid()
	g.Vertical = draw.LineStyle{Color: gridGrey, Width: vg.Points(0.5)}
	g.Horizontal = g.Vertical
	p.Add(g)
	return p
}
