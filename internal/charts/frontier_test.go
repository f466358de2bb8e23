package charts

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestFrontierChart: the chart labels its cost axis with the unit, its
// legend names the states present (and the hollow markers and the
// cheapest only when there are some), configurations with the same
// figures share one label, points without a cost or a p99 are left out
// with a note, and none left is ErrNoData.
func TestFrontierChart(t *testing.T) {
	nan := math.NaN()
	pts := []FrontierPoint{
		{Label: "#1", Cost: 0.145, CostLo: 0.144, CostHi: 0.146, P99: 265, P99Lo: 259, P99Hi: 271, State: FrontierOn, Feasible: true, Cheapest: true},
		{Label: "#2", Cost: 0.145, CostLo: 0.144, CostHi: 0.146, P99: 265, P99Lo: 259, P99Hi: 271, State: FrontierNoise, Feasible: true},
		{Label: "#3", Cost: 0.155, CostLo: 0.147, CostHi: 0.163, P99: 194, P99Lo: 163, P99Hi: 224, State: FrontierOn},
		{Label: "#4", Cost: 0.195, CostLo: nan, CostHi: nan, P99: 289, P99Lo: nan, P99Hi: nan, State: FrontierBeaten},
		{Label: "#5", Cost: nan, P99: 100, State: FrontierOn},
	}
	ch, err := FrontierChart(pts, "USD")
	if err != nil {
		t.Fatal(err)
	}
	if got := legendLabels(ch); got != "frontier | within noise | dominated | hollow: misses a time objective | cheapest meeting every objective" {
		t.Errorf("legend = %q", got)
	}
	if !strings.Contains(ch.Plot.Y.Label.Text, "(USD)") {
		t.Errorf("y label %q lacks the unit", ch.Plot.Y.Label.Text)
	}
	if notes := strings.Join(ch.Notes, " "); !strings.Contains(notes, "1 configurations without a cost or a p99") {
		t.Errorf("notes %q do not count the point left out", notes)
	}
	var svg bytes.Buffer
	if err := ch.Render(&svg, "svg"); err != nil {
		t.Fatal(err)
	}
	if s := svg.String(); !strings.Contains(s, "#1 #2") || strings.Contains(s, ">#5<") {
		t.Error("the SVG does not share one label between #1 and #2, or labels the point left out")
	}
	if _, err := FrontierChart([]FrontierPoint{{Label: "#1", Cost: nan, P99: 1}}, "units"); !errors.Is(err, ErrNoData) {
		t.Errorf("no drawable point: error %v, want ErrNoData", err)
	}
}
