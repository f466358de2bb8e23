package render

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

func TestSeconds(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {0.000850, "850µs"}, {0.0123, "12.3ms"}, {0.25, "250ms"}, {1.2345, "1.234s"}, {1.5, "1.5s"},
		{125, "2m05s"}, {-0.5, "-500ms"},
		{179.7, "3m00s"}, {3599.4, "59m59s"}, {3599.6, "1h00m00s"}, {60533, "16h48m53s"}, {90061, "25h01m01s"},
	}
	for _, c := range cases {
		if got := Seconds(c.in); got != c.want {
			t.Errorf("Seconds(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNumberAndPercent(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{{12, "12"}, {8.99612, "8.996"}, {1.1e-12, "1.100e-12"}, {-3, "-3"}} {
		if got := Number(c.in); got != c.want {
			t.Errorf("Number(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Percent(0.12345); got != "12.35%" {
		t.Errorf("Percent(0.12345) = %q, want 12.35%%", got)
	}
}

// TestTableAlignment: numeric columns are right-aligned, text left.
func TestTableAlignment(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, []string{"name", "n"}, [][]string{{"a", "1"}, {"longer", "100"}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	var row string
	for _, l := range lines {
		if strings.Contains(l, "| a ") {
			row = l
		}
	}
	if !strings.Contains(row, "| a      |   1 |") {
		t.Fatalf("row %q: want the name left-aligned and the number right-aligned\n%s", row, b.String())
	}
}

func TestToolLoad(t *testing.T) {
	for _, c := range []struct {
		tool summary.ToolSummary
		want string
	}{
		// No capacity to share: what the tool contributes is its calls in service.
		{summary.ToolSummary{ToolStats: system.ToolStats{MeanBusy: 8.955}}, "8.955 in service"},
		{summary.ToolSummary{Concurrency: 10, Load: 0.8966, ToolStats: system.ToolStats{MeanBusy: 8.966}}, "89.66%"},
		{summary.ToolSummary{RateLimit: 2, Load: 1}, "100.00%"},
	} {
		if got := ToolLoad(c.tool); got != c.want {
			t.Errorf("ToolLoad(%+v) = %q, want %q", c.tool, got, c.want)
		}
	}
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "0.00%"}, {1, "100.00%"}, {0.5, "50.00%"}, {0.8966, "89.66%"}, {1.0028, "100.28%"},
		// Not zero, not one: never printed as if it were.
		{16.0 / 812291, "<0.01%"}, {812275.0 / 812291, ">99.99%"},
		{0.00005, "0.01%"}, {0.99994, "99.99%"},
	} {
		if got := Percent(c.in); got != c.want {
			t.Errorf("Percent(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPercentFine(t *testing.T) {
	cases := []struct {
		x    float64
		want string
	}{
		{0, "0%"}, {1, "100%"}, {0.5, "50%"}, {0.1494, "14.94%"}, {0.9991, "99.910%"}, {0.99997, "99.9970%"},
	}
	for _, c := range cases {
		if got := PercentFine(c.x); got != c.want {
			t.Errorf("PercentFine(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}

// TestTableColour: written to an Out that may use colour, the table has a bold header and
// dimmed empty cells, and with the escape codes taken out it is the plain
// table byte for byte (the widths count what is seen); written to anything
// else it has no escape code.
func TestTableColour(t *testing.T) {
	header := []string{"variant", "success", "bottleneck"}
	rows := [][]string{{"naive", "91.2%", "–"}, {"budgeted", "99.5%", "backend"}}
	var plain, coloured bytes.Buffer
	if err := Table(&plain, header, rows); err != nil {
		t.Fatal(err)
	}
	out := NewOut(&coloured, 80, true)
	out.SetFormat("table", false)
	if err := Table(out, header, rows); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\033[") {
		t.Errorf("plain table has escape codes:\n%q", plain.String())
	}
	for _, want := range []string{"\033[1mvariant\033[0m", "\033[2m–\033[0m"} {
		if !strings.Contains(coloured.String(), want) {
			t.Errorf("coloured table lacks %q:\n%s", want, coloured.String())
		}
	}
	stripped := regexp.MustCompile("\033\\[[0-9]*m").ReplaceAllString(coloured.String(), "")
	if stripped != plain.String() {
		t.Errorf("coloured table without its escapes:\n%s\nwant the plain table:\n%s", stripped, plain.String())
	}
}

// TestWarningsByLabel: a warning every variant shares says "all
// variants"; one shared by 11 of 12 names the first 10 and counts the
// rest; past 20 distinct warnings the list says how many it left out.
func TestWarningsByLabel(t *testing.T) {
	var labels []string
	var out [][]string
	for i := range 12 {
		labels = append(labels, fmt.Sprintf("v%d", i))
		w := []string{"shared"}
		if i > 0 {
			w = append(w, "most")
		}
		out = append(out, w)
	}
	for i := range 25 {
		out[0] = append(out[0], fmt.Sprintf("only v0, #%d", i))
	}
	var b strings.Builder
	WarningsByLabel(&b, "variants", labels, out)
	got := b.String()
	for _, want := range []string{
		"\nWarnings:\n  1. shared (all variants)\n",
		"  2. only v0, #0 (v0)\n",
		"  20. only v0, #18 (v0)\n  … and 7 more distinct warnings (--format json has each of the variants' own)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
	out[0] = []string{"shared"}
	b.Reset()
	WarningsByLabel(&b, "variants", labels, out)
	if want := "  2. most (v1; v2; v3; v4; v5; v6; v7; v8; v9; v10; and 1 more)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("warnings lack %q:\n%s", want, b.String())
	}
}

// TestToolCapacity: a tool's size as configured; a model API limited only
// by tokens shows its limit, not "unlimited".
func TestToolCapacity(t *testing.T) {
	for _, c := range []struct {
		tool summary.ToolSummary
		want string
	}{
		{summary.ToolSummary{}, "unlimited"},
		{summary.ToolSummary{Concurrency: 8}, "8"},
		{summary.ToolSummary{RateLimit: 6}, "unlimited, 6/s"},
		{summary.ToolSummary{Tokens: &summary.TokenSummary{Limits: []summary.LimitUse{{Limit: "tpm", PerMinute: 120000}}}}, "tpm 120000"},
		{summary.ToolSummary{Concurrency: 4, Tokens: &summary.TokenSummary{Limits: []summary.LimitUse{{Limit: "rpm", PerMinute: 500}, {Limit: "tpm", PerMinute: 30000}}}}, "4, rpm 500, tpm 30000"},
	} {
		if got := ToolCapacity(c.tool); got != c.want {
			t.Errorf("ToolCapacity(%+v) = %q, want %q", c.tool, got, c.want)
		}
	}
}
