package charts

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// span is a filled rectangle [X0, X1] × [Y−H/2, Y+H/2] in data
// coordinates, at least minWidth wide on the canvas so that a zero-length
// event (a 429 answered at once, a local refusal) stays visible.
type span struct {
	X0, X1, Y, H float64
	Fill         color.Color
	Line         color.Color // outline; nil for none
	Dashed       bool
}

// spans draws rectangles; it is the building block of the timeline and the
// stacked tail bars.
type spans struct {
	items    []span
	minWidth vg.Length
}

func (s *spans) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, it := range s.items {
		x0, x1 := trX(it.X0), trX(it.X1)
		if x1-x0 < s.minWidth {
			x1 = x0 + s.minWidth
		}
		y0, y1 := trY(it.Y-it.H/2), trY(it.Y+it.H/2)
		pts := c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		if len(pts) == 0 {
			continue
		}
		if it.Fill != nil {
			c.FillPolygon(it.Fill, pts)
		}
		if it.Line != nil {
			sty := draw.LineStyle{Color: it.Line, Width: vg.Points(0.8)}
			if it.Dashed {
				sty.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
			}
			c.StrokeLines(sty, append(pts, pts[0]))
		}
	}
}

func (s *spans) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, it := range s.items {
		xmin, xmax = min(xmin, it.X0), max(xmax, it.X1)
		ymin, ymax = min(ymin, it.Y-it.H/2), max(ymax, it.Y+it.H/2)
	}
	return
}

// swatch is a legend thumbnail: a filled box with an optional outline.
type swatch struct {
	fill, line color.Color
	dashed     bool
}

func (s swatch) Thumbnail(c *draw.Canvas) {
	h := (c.Max.Y - c.Min.Y) * 0.7
	y0 := c.Min.Y + (c.Max.Y-c.Min.Y-h)/2
	pts := []vg.Point{{X: c.Min.X, Y: y0}, {X: c.Max.X, Y: y0}, {X: c.Max.X, Y: y0 + h}, {X: c.Min.X, Y: y0 + h}}
	if s.fill != nil {
		c.FillPolygon(s.fill, pts)
	}
	if s.line != nil {
		sty := draw.LineStyle{Color: s.line, Width: vg.Points(0.8)}
		if s.dashed {
			sty.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		}
		c.StrokeLines(sty, append(pts, pts[0]))
	}
}

// lineThumb is a legend thumbnail for a line style.
type lineThumb draw.LineStyle

func (l lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle(l), c.Min.X, y, c.Max.X, y)
}

// vlineThumb is a legend thumbnail for a vertical reference line.
type vlineThumb draw.LineStyle

func (l vlineThumb) Thumbnail(c *draw.Canvas) {
	x := c.Center().X
	c.StrokeLine2(draw.LineStyle(l), x, c.Min.Y, x, c.Max.Y)
}

// glyphThumb is a legend thumbnail for a glyph.
type glyphThumb draw.GlyphStyle

func (g glyphThumb) Thumbnail(c *draw.Canvas) { c.DrawGlyph(draw.GlyphStyle(g), c.Center()) }

// refLine is a horizontal (or vertical) reference line across the whole
// data area at At, e.g. Little's λW or a deadline. It widens the axis
// range to include At.
type refLine struct {
	At       float64
	Vertical bool
	Style    draw.LineStyle
}

func (r refLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	if r.Vertical {
		x := trX(r.At)
		if c.ContainsX(x) {
			c.StrokeLine2(r.Style, x, c.Min.Y, x, c.Max.Y)
		}
		return
	}
	y := trY(r.At)
	if c.ContainsY(y) {
		c.StrokeLine2(r.Style, c.Min.X, y, c.Max.X, y)
	}
}

func (r refLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	if r.Vertical {
		return r.At, r.At, math.Inf(1), math.Inf(-1)
	}
	return math.Inf(1), math.Inf(-1), r.At, r.At
}

// note is a text placed at a data point, offset in canvas units. A note
// that would leave the data area on the right is drawn instead ending
// 4 pt left of AltX (if HasAlt), else moved back inside.
type note struct {
	X, Y   float64
	Text   string
	Style  text.Style
	Offset vg.Point
	AltX   float64
	HasAlt bool
}

type notes []note

func (ns notes) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, n := range ns {
		pt := vg.Point{X: trX(n.X) + n.Offset.X, Y: trY(n.Y) + n.Offset.Y}
		r := n.Style.Rectangle(n.Text)
		// Keep the text inside the canvas horizontally.
		if pt.X+r.Max.X > c.Max.X && n.HasAlt {
			pt.X = trX(n.AltX) - 4 - r.Max.X
		}
		if pt.X+r.Max.X > c.Max.X {
			pt.X = c.Max.X - r.Max.X
		}
		if pt.X+r.Min.X < c.Min.X {
			pt.X = c.Min.X - r.Min.X
		}
		c.FillText(n.Style, pt, n.Text)
	}
}

// xyLine returns a line through the points in the given style.
func xyLine(xs, ys []float64, sty draw.LineStyle, step plotter.StepKind) *plotter.Line {
	xy := make(plotter.XYs, len(xs))
	for i := range xs {
		xy[i] = plotter.XY{X: xs[i], Y: ys[i]}
	}
	return &plotter.Line{XYs: xy, LineStyle: sty, StepStyle: step}
}

// shortLabels drops a common "key=" from variant labels: compare's labels
// are "retry.backoff.jitter=none", "retry.backoff.jitter=full", …; the
// legend says "none", "full" and the title names the key. Labels of
// several keys, or of different keys, are returned unchanged with key "".
func shortLabels(labels []string) (short []string, key string) {
	short = append([]string(nil), labels...)
	if len(labels) < 2 {
		return short, ""
	}
	for i, l := range labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || strings.ContainsAny(k, " ") || strings.Contains(v, " ") && strings.Contains(v, "=") {
			return append([]string(nil), labels...), ""
		}
		if i == 0 {
			key = k
		} else if k != key {
			return append([]string(nil), labels...), ""
		}
		short[i] = v
	}
	return short, key
}

// maxAxisLabel is the most characters a category label on an axis (a
// variant on the tail chart's y axis) may have: longer ones would take the
// width from the bars.
const maxAxisLabel = 28

// keyLongLabels returns labels fit for an axis: unchanged when every one
// is at most maxAxisLabel characters, else keys "V1", "V2", … in order and
// a footnote saying what each key stands for.
func keyLongLabels(labels []string) (shown []string, note string) {
	long := false
	for _, l := range labels {
		long = long || len([]rune(l)) > maxAxisLabel
	}
	if !long {
		return labels, ""
	}
	shown = make([]string, len(labels))
	parts := make([]string, len(labels))
	for i, l := range labels {
		shown[i] = fmt.Sprintf("V%d", i+1)
		parts[i] = shown[i] + " = " + l
	}
	return shown, "Variants: " + strings.Join(parts, "; ") + "."
}
