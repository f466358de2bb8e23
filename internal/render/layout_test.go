package render

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// widest returns the widest line of s, in runes (the test's cells are
// one column per rune).
func widest(s string) int {
	w := 0
	for l := range strings.SplitSeq(s, "\n") {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}

// tableOut renders a table through an Out of the given width and format.
func tableOut(t *testing.T, width int, format string, wide bool, header []string, rows [][]string) string {
	t.Helper()
	var b bytes.Buffer
	o := NewOut(&b, width, false)
	o.SetFormat(format, wide)
	if err := Table(o, header, rows); err != nil {
		t.Fatal(err)
	}
	if err := o.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// wideRows is a table of three variants and ten figures, about 150
// columns wide as it is.
func wideRows() ([]string, [][]string) {
	header := []string{"variant", "success rate", "p50 latency", "p99 latency", "p99.9 latency", "attempts per run", "peak attempt rate", "not completed", "recovery after outage", "cost per successful run"}
	var rows [][]string
	for _, v := range []string{"once", "three", "six"} {
		rows = append(rows, []string{v, "99.49%", "2.102s", "9.969s", "18.81s", "2.047", "20.31/s", "92", "6.8s", "0.0307"})
	}
	return header, rows
}

// TestTableFitsByTransposing: a table of three rows too wide for 80
// columns is transposed: each figure a row, each variant a column.
func TestTableFitsByTransposing(t *testing.T) {
	header, rows := wideRows()
	wide := tableOut(t, 80, "table", true, header, rows)
	if widest(wide) <= 80 {
		t.Fatalf("the test table is only %d columns wide as it is", widest(wide))
	}
	got := tableOut(t, 80, "table", false, header, rows)
	if w := widest(got); w > 80 {
		t.Errorf("fitted table is %d columns wide, want ≤ 80:\n%s", w, got)
	}
	lines := strings.Split(got, "\n")
	if len(lines) < 14 || !strings.Contains(got, "\n| cost per successful run |  0.0307 |") {
		t.Fatalf("want the figures as rows:\n%s", got)
	}
	if f := strings.Fields(strings.ReplaceAll(lines[1], "|", " ")); strings.Join(f, " ") != "variant once three six" {
		t.Errorf("transposed header %q, want the variants as columns", lines[1])
	}
}

// TestTableFitsBySplitting: a table of many rows too wide for the width
// is split into tables that each fit and each repeat the variant column,
// with every cell kept.
func TestTableFitsBySplitting(t *testing.T) {
	header, rows := wideRows()
	for i := range 8 {
		rows = append(rows, []string{"variant-" + string(rune('a'+i)), "90.00%", "1s", "2s", "3s", "1", "1/s", "0", "0", "1"})
	}
	got := tableOut(t, 70, "table", false, header, rows)
	if w := widest(got); w > 70 {
		t.Errorf("fitted table is %d columns wide, want ≤ 70:\n%s", w, got)
	}
	parts := strings.Split(strings.TrimSpace(got), "\n\n")
	if len(parts) < 2 {
		t.Fatalf("want the table split in parts, got:\n%s", got)
	}
	for i, p := range parts {
		if !strings.Contains(p, "variant-h") || !strings.Contains(p, "|  variant") && !strings.Contains(p, "| variant") {
			t.Errorf("part %d does not repeat the variant column:\n%s", i, p)
		}
	}
	for _, h := range []string{"success", "cost per", "recovery"} {
		if !strings.Contains(got, h) {
			t.Errorf("split tables lost the column %q:\n%s", h, got)
		}
	}
}

// TestTableWrapsProse: a column of sentences is wrapped to fit rather
// than split off, and the rows are ruled apart.
func TestTableWrapsProse(t *testing.T) {
	header := []string{"scenario", "description"}
	rows := [][]string{
		{"mmc", "M/M/c: Poisson arrivals at 9/s, 10 workers, exponential 1 s service (ρ = 0.9); validated against Erlang C"},
		{"mm1", "short"},
	}
	got := tableOut(t, 60, "table", false, header, rows)
	if w := widest(got); w > 60 {
		t.Errorf("fitted table is %d columns wide, want ≤ 60:\n%s", w, got)
	}
	if strings.Count(got, "| mmc ") != 1 || !strings.Contains(got, "Erlang C") || strings.Count(got, "+---") < 4 {
		t.Errorf("want the description wrapped within one row, rows ruled apart:\n%s", got)
	}
}

// TestTableWideAndUnfitted: --wide, and a writer that is not an Out,
// print the table whole.
func TestTableWideAndUnfitted(t *testing.T) {
	header, rows := wideRows()
	var plain bytes.Buffer
	if err := Table(&plain, header, rows); err != nil {
		t.Fatal(err)
	}
	if got := tableOut(t, 80, "table", true, header, rows); got != plain.String() {
		t.Errorf("--wide table differs from the plain one:\n%s\nwant:\n%s", got, plain.String())
	}
	if strings.Count(plain.String(), "\n") != 7 {
		t.Errorf("plain table is not one header and three rows:\n%s", plain.String())
	}
}

// TestTableMarkdown: --format markdown writes a GitHub table, numbers
// right-aligned, "|" escaped, whatever the width.
func TestTableMarkdown(t *testing.T) {
	got := tableOut(t, 20, "markdown", false, []string{"variant", "success"}, [][]string{{"a|b", "99.5%"}, {"c", "1%"}})
	want := "| variant | success |\n| --- | ---: |\n| a\\|b | 99.5% |\n| c | 1% |\n"
	if got != want {
		t.Errorf("markdown table:\n%s\nwant:\n%s", got, want)
	}
}

// TestOutWrapsText: a long line of text is wrapped at spaces, the lines
// after the first indented under it (past a list marker); table lines
// and lines of a json format pass through.
func TestOutWrapsText(t *testing.T) {
	var b bytes.Buffer
	o := NewOut(&b, 30, false)
	o.SetFormat("table", false)
	o.Write([]byte("warning: the system is unstable and waiting times grow\n  1. a numbered item that is long enough to wrap\n| a table line that is wider than thirty columns |\nno newline"))
	o.Flush()
	want := "warning: the system is\n  unstable and waiting times\n  grow\n  1. a numbered item that is\n     long enough to wrap\n| a table line that is wider than thirty columns |\nno newline"
	if b.String() != want {
		t.Errorf("wrapped:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	o.SetFormat("json", false)
	long := `{"warning": "the system is unstable and waiting times grow"}` + "\n"
	o.Write([]byte(long))
	if b.String() != long {
		t.Errorf("json was rewritten: %q", b.String())
	}
}

// TestOutMarkdownParagraphs: with --format markdown each line of text is
// a paragraph and a table is set apart from the text around it.
func TestOutMarkdownParagraphs(t *testing.T) {
	var b bytes.Buffer
	o := NewOut(&b, 30, false)
	o.SetFormat("markdown", false)
	o.Write([]byte("title\n    scenario line\n| a |\n| --- |\nafter\n"))
	want := "title\n\nscenario line\n\n| a |\n| --- |\n\nafter\n"
	if b.String() != want {
		t.Errorf("markdown:\n%q\nwant:\n%q", b.String(), want)
	}
}
