// Package render turns budgetsim's summaries and results into text
// (SummaryTable; the summary, CDF, series and tools CSV files) and holds the
// primitives the plan packages write their own tables with: aligned
// tables via tablewriter, number, duration and percentage formats, JSON
// and CSV. It is the edge of the program: nothing in sim/ or model/
// imports it.
package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// ANSI escape sequences for a table on a terminal that shows colour.
const (
	ansiBold  = "\033[1m"
	ansiDim   = "\033[2m"
	ansiReset = "\033[0m"
)

// Table writes a table with a header row. Cells are strings already
// formatted by the caller. A column whose cells all start like a number
// ("12", "-3", "1.5s", "±", "[") is right-aligned; others are left-aligned.
//
// Written to an *Out, the table takes its layout: fitted to the Out's
// width (see fitTable: headers and prose wrapped, a table of few rows
// transposed, or its columns split over several tables that repeat the
// columns naming a row), as Markdown, or with its header in bold and
// empty cells ("–") dimmed on a terminal that shows colour. Written to
// anything else, it is an ASCII table as wide as its contents.
func Table(w io.Writer, header []string, rows [][]string) error {
	align := columnAlign(header, rows)
	width, markdown, colour := layoutOf(w)
	if markdown {
		return markdownTable(w, header, rows, align)
	}
	parts := []tablePart{{header: header, rows: rows, align: align}}
	if width > 0 {
		parts = fitTable(header, rows, align, width)
	}
	for i, p := range parts {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := asciiTable(w, p, colour); err != nil {
			return err
		}
	}
	return nil
}

// columnAlign right-aligns the columns whose cells all look numeric.
func columnAlign(header []string, rows [][]string) []tw.Align {
	align := make([]tw.Align, len(header))
	for i := range align {
		align[i] = tw.AlignRight
		for _, r := range rows {
			if i < len(r) && !numeric(r[i]) {
				align[i] = tw.AlignLeft
				break
			}
		}
	}
	return align
}

// asciiTable writes one table with tablewriter.
func asciiTable(w io.Writer, p tablePart, colour bool) error {
	header, rows := p.header, p.rows
	if colour {
		header = slices.Clone(header)
		for i, h := range header {
			// Line by line: tablewriter pads each line of a cell apart.
			header[i] = ansiBold + strings.ReplaceAll(h, "\n", ansiReset+"\n"+ansiBold) + ansiReset
		}
		coloured := make([][]string, len(rows))
		for i, r := range rows {
			coloured[i] = slices.Clone(r)
			for j, c := range r {
				if c == "–" {
					coloured[i][j] = ansiDim + c + ansiReset
				}
			}
		}
		rows = coloured
	}
	opts := []tablewriter.Option{
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignCenter),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: p.align}),
	}
	if p.lined {
		opts = append(opts, tablewriter.WithRendition(tw.Rendition{Settings: tw.Settings{Separators: tw.Separators{BetweenRows: tw.On}}}))
	}
	t := tablewriter.NewTable(w, opts...)
	t.Header(anySlice(header)...)
	for _, r := range rows {
		if err := t.Append(anySlice(r)...); err != nil {
			return err
		}
	}
	return t.Render()
}

// markdownTable writes a GitHub-flavoured Markdown table: numeric columns
// right-aligned, a cell's "|" escaped and its line breaks as <br>.
func markdownTable(w io.Writer, header []string, rows [][]string, align []tw.Align) error {
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i := range header {
			c := strings.ReplaceAll(cell(cells, i), "|", "\\|")
			c = strings.ReplaceAll(c, "\n", "<br>")
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	line(header)
	b.WriteString("|")
	for _, a := range align {
		if a == tw.AlignRight {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func numeric(s string) bool {
	if s == "" || s == "–" || s == "n/a" || s == "∞" {
		return true
	}
	c := s[0]
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '[' || c == '.' || strings.HasPrefix(s, "±") || strings.HasPrefix(s, "−")
}

func anySlice(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// JSON writes v as indented JSON followed by a newline. encoding/json
// formats floats deterministically, so equal values give equal bytes.
// It is the format of the results directory's JSON files
// (outputs.WriteJSON).
func JSON(w io.Writer, v any) error { return outputs.WriteJSON(w, v) }

// Seconds formats a time in seconds with a unit chosen for readability:
// "850µs", "12.3ms", "1.234s", "2m05s", "16h48m53s" (whole seconds from 2 min on).
func Seconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "n/a"
	case math.IsInf(s, 0):
		return "∞"
	case s == 0:
		return "0"
	case s < 0:
		return "-" + Seconds(-s)
	case s < 1e-3:
		return trim(s*1e6, 3) + "µs"
	case s < 1:
		return trim(s*1e3, 3) + "ms"
	case s < 120:
		return trim(s, 4) + "s"
	case s < 3600-0.5:
		t := math.Round(s) // whole seconds first: 179.7 s is 3m00s, not 2m60s
		return fmt.Sprintf("%.0fm%02.0fs", math.Floor(t/60), math.Mod(t, 60))
	default:
		t := math.Round(s)
		return fmt.Sprintf("%.0fh%02.0fm%02.0fs", math.Floor(t/3600), math.Floor(math.Mod(t, 3600)/60), math.Mod(t, 60))
	}
}

// trim formats x with sig significant digits, without trailing zeros.
func trim(x float64, sig int) string {
	if x != 0 && math.Abs(x) < 1e-4 {
		return strconv.FormatFloat(x, 'e', sig-1, 64)
	}
	s := strconv.FormatFloat(x, 'g', sig, 64)
	if strings.ContainsAny(s, "e") {
		s = strconv.FormatFloat(x, 'f', 1, 64)
	}
	return s
}

// Number formats a plain number with up to 4 significant digits.
func Number(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return trim(x, 4)
}

// Percent formats a fraction as a percentage with 2 decimals. A fraction
// that is not 0 (or not 1) never prints as 0.00 % (or 100.00 %): 16 failures
// in 800 000 runs read "<0.01%", and the success rate beside them ">99.99%".
func Percent(x float64) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case x > 0 && x < 0.00005:
		return "<0.01%"
	case x >= 0.99995 && x < 1:
		return ">99.99%"
	}
	return strconv.FormatFloat(100*x, 'f', 2, 64) + "%"
}

// PercentFine formats a probability as a percentage with 4 significant
// digits ("2.966%", "0.1%"), and near 100 % with enough decimals to show 2
// significant digits of the complement ("99.910%", "99.9970%", never
// "100%" for less than 1): for success targets and predictions, where the
// digits after 99 % are the point.
func PercentFine(x float64) string {
	switch {
	case x == 0 || x == 1:
		return strconv.FormatFloat(100*x, 'f', -1, 64) + "%"
	case x > 0.99 && x < 1:
		decimals := int(math.Ceil(-math.Log10(100*(1-x)))) + 1
		return strconv.FormatFloat(100*x, 'f', decimals, 64) + "%"
	}
	return strconv.FormatFloat(100*x, 'g', 4, 64) + "%"
}

// PlusMinus formats "value ±halfwidth" with the same unit formatter.
func PlusMinus(value, lo, hi float64, f func(float64) string) string {
	return f(value) + " ±" + f((hi-lo)/2)
}

// WarningsByLabel lists the warnings of several summaries under a
// table, as run lists one summary's: each distinct warning once, in order
// of first appearance, with the labels it applies to ("all <noun>" when
// shared; the first few of a large grid; at most 20 distinct warnings).
// --format json keeps each summary's own.
func WarningsByLabel(w io.Writer, noun string, labels []string, warns [][]string) {
	const shown = 10
	var order []string
	who := map[string][]string{}
	for i, ws := range warns {
		for _, warn := range ws {
			if _, ok := who[warn]; !ok {
				order = append(order, warn)
			}
			who[warn] = append(who[warn], labels[i])
		}
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, "\nWarnings:")
	for i, warn := range order {
		if i == 2*shown {
			fmt.Fprintf(w, "  … and %d more distinct warnings (--format json has each of the %s' own)\n", len(order)-i, noun)
			break
		}
		vs := "all " + noun
		if len(who[warn]) < len(labels) {
			vs = FirstFew(who[warn], shown)
		}
		fmt.Fprintf(w, "  %d. %s (%s)\n", i+1, warn, vs)
	}
}

// FirstFew joins up to n of labels with "; " and says how many it left
// out.
func FirstFew(labels []string, n int) string {
	if len(labels) <= n {
		return strings.Join(labels, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(labels[:n], "; "), len(labels)-n)
}
