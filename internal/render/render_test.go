package render

import (
	"bytes"
	"strings"
	"testing"
)

func TestSeconds(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {0.000850, "850µs"}, {0.0123, "12.3ms"}, {0.25, "250ms"}, {1.2345, "1.234s"}, {1.5, "1.5s"},
		{125, "2m05s"}, {-0.5, "-500ms"},
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
