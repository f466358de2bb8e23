package charts

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/budgetsim/budgetsim/internal/atomicfile"
)

// Default figure size and raster resolution. 7 × 4.5 in at 150 DPI is a
// 1050 × 675 pixel PNG: sharp in a design document, readable on a screen.
// gonum/plot's own default is 96 DPI, which blurs text when scaled.
const (
	DefaultWidth  = 7 * vg.Inch
	DefaultHeight = 4.5 * vg.Inch
	DPI           = 150
)

// Chart is one figure: a gonum plot plus a title, a legend and footnotes
// drawn outside the data area, so that the legend never covers data (gonum
// draws its own legend inside the axes; Chart leaves it empty). Build one
// with the chart functions of this package, then Render or WriteFiles it.
// Drawing draws a copy of the plot and does not modify the Chart.
type Chart struct {
	// Name is the file name without extension, e.g. "latency_cdf".
	Name string
	// Title is drawn above the legend, in bold.
	Title string
	// Plot holds the axes and the data.
	Plot *plot.Plot
	// Legend entries are laid out between the title and the plot, left
	// to right, wrapping to new rows.
	Legend []LegendEntry
	// Notes are footnotes drawn under the plot in small grey type: the
	// caveats a reviewer must know (approximations, clipped data).
	Notes []string
	// Width and Height are the figure size; zero means DefaultWidth and
	// DefaultHeight.
	Width, Height vg.Length
}

// LegendEntry is one line of a Chart's legend: a label and the thumbnails
// (line, glyph or swatch) drawn before it, superimposed.
type LegendEntry struct {
	Label  string
	Thumbs []plot.Thumbnailer
}

func (c *Chart) addLegend(label string, thumbs ...plot.Thumbnailer) {
	c.Legend = append(c.Legend, LegendEntry{Label: label, Thumbs: thumbs})
}

// size returns the figure's size: Width and Height, or the defaults. The
// figure grows to keep the data area at least minPlotHeight tall when the
// title, the legend (many or long entries) and the notes need the room,
// so that they never squeeze or hide the data.
func (c *Chart) size() (w, h vg.Length) {
	w, h = c.Width, c.Height
	if w <= 0 {
		w = DefaultWidth
	}
	least := minPlotHeight
	if h <= 0 {
		h = DefaultHeight
	} else {
		least = minSetPlotHeight // a chart that chose its height (a few bars) needs less
	}
	if need := c.chromeHeight(w-2*margin) + least + 2*margin; need > h {
		h = vg.Length(math.Ceil(float64(need)))
	}
	return w, h
}

// minPlotHeight is the least height left for the axes and the data, tick
// labels and axis labels included.
const minPlotHeight = 2.6 * vg.Inch

// minSetPlotHeight is minPlotHeight for a chart that sets its own Height.
const minSetPlotHeight = 1.2 * vg.Inch

// chromeHeight is the height the title, legend and notes take in a figure
// whose inner width is w.
func (c *Chart) chromeHeight(w vg.Length) vg.Length {
	var h vg.Length
	if c.Title != "" {
		sty := boldStyle(13)
		for _, l := range wrap(sty, c.Title, w) {
			h += sty.Height(l)
		}
		h += 4
	}
	if len(c.Legend) > 0 {
		_, lh := c.layoutLegend(w)
		h += lh + 6
	}
	if len(c.Notes) > 0 {
		sty := textStyle(8.5, noteGrey)
		for _, n := range c.Notes {
			for _, l := range wrap(sty, n, w) {
				h += sty.Height(l) + 1
			}
		}
		h += 4
	}
	return h
}

const (
	margin       = vg.Length(8)
	legendThumb  = vg.Length(22)
	legendGap    = vg.Length(14) // between legend columns
	legendRowGap = vg.Length(2)
)

// Draw draws the chart on c: white background, title, legend, plot and
// notes from top to bottom.
func (ch *Chart) Draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	inner := draw.Crop(c, margin, -margin, margin, -margin)
	top := inner.Max.Y

	if ch.Title != "" {
		sty := boldStyle(13)
		sty.XAlign = draw.XLeft
		sty.YAlign = draw.YTop
		for _, l := range wrap(sty, ch.Title, inner.Max.X-inner.Min.X) {
			inner.FillText(sty, vg.Point{X: inner.Min.X, Y: top}, l)
			top -= sty.Height(l)
		}
		top -= 4
	}
	if len(ch.Legend) > 0 {
		top -= ch.drawLegend(inner, top) + 6
	}
	bottom := inner.Min.Y
	if len(ch.Notes) > 0 {
		sty := textStyle(8.5, noteGrey)
		sty.XAlign = draw.XLeft
		sty.YAlign = draw.YBottom
		var lines []string
		for _, n := range ch.Notes {
			lines = append(lines, wrap(sty, n, inner.Max.X-inner.Min.X)...)
		}
		for i := len(lines) - 1; i >= 0; i-- {
			inner.FillText(sty, vg.Point{X: inner.Min.X, Y: bottom}, lines[i])
			bottom += sty.Height(lines[i]) + 1
		}
		bottom += 4
	}
	pc := inner
	pc.Min.Y, pc.Max.Y = bottom, top

	// The axis labels are drawn here, centred on the data area: gonum
	// centres them on the arithmetic mean of the axis range, which on a
	// log axis lies near one end and makes it shrink the plot to fit.
	p := *ch.Plot
	p.Title.Text = ""
	p.BackgroundColor = nil
	p.Legend = plot.NewLegend() // empty: the chart's legend is outside
	p.X.Label.Text, p.Y.Label.Text = "", ""
	xl, yl := ch.Plot.X.Label, ch.Plot.Y.Label
	if xl.Text != "" {
		pc.Min.Y += xl.TextStyle.Height(xl.Text) + xl.Padding
	}
	if yl.Text != "" {
		pc.Min.X += yl.TextStyle.Height(yl.Text) + yl.Padding
	}
	if pc.Max.Y-pc.Min.Y < 60 {
		panic(fmt.Sprintf("charts: %s: no room left for the plot (%d legend entries, %d notes)", ch.Name, len(ch.Legend), len(ch.Notes)))
	}
	da := p.DataCanvas(pc)
	if xl.Text != "" {
		sty := xl.TextStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
		c.FillText(sty, vg.Point{X: da.Center().X, Y: pc.Min.Y - xl.TextStyle.Height(xl.Text) - xl.Padding}, xl.Text)
	}
	if yl.Text != "" {
		sty := yl.TextStyle
		sty.Rotation = math.Pi / 2
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		c.FillText(sty, vg.Point{X: inner.Min.X, Y: da.Center().Y}, yl.Text)
	}
	p.Draw(pc)
}

// wrap breaks s into lines no wider than w at spaces, and a word wider
// than w (a long YAML value, say) between its characters, so that no line
// runs off the page.
func wrap(sty text.Style, s string, w vg.Length) []string {
	words := strings.Fields(s)
	var lines []string
	cur := ""
	for _, word := range words {
		next := word
		if cur != "" {
			next = cur + " " + word
		}
		if cur != "" && sty.Width(next) > w {
			lines = append(lines, cur)
			next = word
		}
		for sty.Width(next) > w && len([]rune(next)) > 1 {
			// Break the word at the last character that fits.
			r := []rune(next)
			n := 1
			for n < len(r) && sty.Width(string(r[:n+1])) <= w {
				n++
			}
			lines = append(lines, string(r[:n]))
			next = string(r[n:])
		}
		cur = next
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// legendStyle is the legend's text style.
func legendStyle() text.Style {
	sty := textStyle(10, color.Black)
	sty.XAlign = draw.XLeft
	sty.YAlign = draw.YCenter
	return sty
}

// legendItem is a legend entry placed: its offset from the legend's top
// left corner and its label's lines.
type legendItem struct {
	dx, dy vg.Length // dy downwards from the top
	lines  []string
}

// layoutLegend places the entries left to right in a legend of width w,
// starting a new row when the next entry does not fit; an entry wider than
// a whole row has its label wrapped onto several lines. It returns the
// places and the legend's height.
func (ch *Chart) layoutLegend(w vg.Length) ([]legendItem, vg.Length) {
	sty := legendStyle()
	lineH := max(vg.Length(10), sty.Height("Ag"))
	textW := w - legendThumb - 4
	var items []legendItem
	var x, y, rowH vg.Length
	for _, e := range ch.Legend {
		lines := []string{e.Label}
		if sty.Width(e.Label) > textW {
			lines = wrap(sty, e.Label, textW)
		}
		ew := legendThumb + 4
		for _, l := range lines {
			ew = max(ew, legendThumb+4+sty.Width(l))
		}
		eh := vg.Length(len(lines))*lineH + vg.Length(len(lines)-1)*legendRowGap
		if x > 0 && x+ew > w {
			x, y, rowH = 0, y+rowH+legendRowGap, 0
		}
		items = append(items, legendItem{dx: x, dy: y, lines: lines})
		rowH = max(rowH, eh)
		x += ew + legendGap
	}
	return items, y + rowH
}

// drawLegend draws the legend with its top edge at top and returns its
// height.
func (ch *Chart) drawLegend(c draw.Canvas, top vg.Length) vg.Length {
	sty := legendStyle()
	lineH := max(vg.Length(10), sty.Height("Ag"))
	items, h := ch.layoutLegend(c.Max.X - c.Min.X)
	for i, it := range items {
		x, y := c.Min.X+it.dx, top-it.dy
		icon := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: y - lineH},
			Max: vg.Point{X: x + legendThumb, Y: y},
		}}
		for _, t := range ch.Legend[i].Thumbs {
			t.Thumbnail(&icon)
		}
		for j, l := range it.lines {
			ly := y - vg.Length(j)*(lineH+legendRowGap) - lineH/2
			c.FillText(sty, vg.Point{X: x + legendThumb + 4, Y: ly}, l)
		}
	}
	return h
}

// Render draws the chart and writes it to w as "png" (at DPI dots per
// inch) or "svg" (fonts named, not embedded: Liberation Sans, then the
// metric-compatible Arial and Helvetica). Drawing happens before
// anything is written, and a panic inside gonum/plot (a bad value on a log
// axis, say) is returned as an error, so a failure writes nothing to w.
// Output is byte-identical for identical charts.
func (ch *Chart) Render(w io.Writer, format string) (err error) {
	wd, ht := ch.size()
	var out io.WriterTo
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("charts: drawing %s.%s: %v", ch.Name, format, r)
		}
	}()
	switch format {
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(wd, ht), vgimg.UseDPI(DPI))
		ch.Draw(draw.New(c))
		out = vgimg.PngCanvas{Canvas: c}
	case "svg":
		c := vgsvg.New(wd, ht)
		ch.Draw(draw.New(c))
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			return err
		}
		// Name fallbacks: Arial and Helvetica have Liberation Sans's
		// metrics, so the layout computed for it holds where it is not
		// installed.
		out = bytes.NewReader(bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")))
	default:
		return fmt.Errorf("format: must be png or svg, got %q", format)
	}
	_, err = out.WriteTo(w)
	return err
}

// WriteFiles writes the chart into dir as Name.FORMAT for each format,
// each file atomically (internal/atomicfile: a temporary file renamed into
// place on success, removed on failure), and returns the paths written.
// On error the files already written stay; none is left truncated.
func (ch *Chart) WriteFiles(dir string, formats []string) ([]string, error) {
	var paths []string
	for _, f := range formats {
		path := filepath.Join(dir, ch.Name+"."+f)
		af, err := atomicfile.Create(path)
		if err != nil {
			return paths, err
		}
		if err := ch.Render(af, f); err != nil {
			af.Abort()
			return paths, err
		}
		if err := af.Commit(); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
