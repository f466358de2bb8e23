package charts

import (
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/internal/outputs"
)

// TestOutageWindows: one window per distinct outage (the same window in
// two variants is one), from a minute before to two minutes after, or
// wider for a longer outage, never before 0.
func TestOutageWindows(t *testing.T) {
	got := OutageWindows([]Outage{
		{Variant: "a", Tool: "llm", Start: 30 * time.Minute, End: 30*time.Minute + 30*time.Second},
		{Variant: "b", Tool: "llm", Start: 30 * time.Minute, End: 30*time.Minute + 30*time.Second},
		{Variant: "a", Tool: "db", Start: 10 * time.Second, End: 70 * time.Minute},
	})
	want := []Window{
		{From: 29 * time.Minute, To: 32*time.Minute + 30*time.Second},
		{From: 0, To: 70*time.Minute + 4*(70*time.Minute-10*time.Second)},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("OutageWindows = %v, want %v", got, want)
	}
	if s := want[0].String(); s != "29m00s-32m30s" {
		t.Errorf("Window.String() = %q", s)
	}
}

// TestWindowBuildsClip: a windowed attempt-rate chart keeps only the bins
// in the window, its axis is the window, and its name takes the suffix.
func TestWindowBuildsClip(t *testing.T) {
	var bins []Bin
	for i := range 100 {
		bins = append(bins, Bin{Start: time.Duration(i) * time.Second, Width: time.Second, Arrivals: 1, Attempts: int64(i), Completed: 1, Ended: 1})
	}
	d := &Dir{Path: "x", Series: []Series{{Variant: "v", Bins: bins}}, has: map[*outputs.File]bool{outputs.SeriesCSV: true}}
	bs := d.WindowBuilds(Window{From: 40 * time.Second, To: 60 * time.Second}, "_w")
	if len(bs) != 2 {
		t.Fatalf("%d builds, want runs in the system and attempt rates", len(bs))
	}
	ch, err := bs[1].Build()
	if err != nil {
		t.Fatal(err)
	}
	if ch.Name != "attempt_rate_w" || ch.Plot.X.Min != 40 || ch.Plot.X.Max != 60 {
		t.Errorf("chart %q with x axis [%g, %g], want attempt_rate_w over [40, 60]", ch.Name, ch.Plot.X.Min, ch.Plot.X.Max)
	}
	// The attempts per second peak at bin 59's 59/s, not the whole run's 99/s.
	if ch.Plot.Y.Max < 59 || ch.Plot.Y.Max >= 99 {
		t.Errorf("y axis up to %g: want the window's rates only (59/s at most)", ch.Plot.Y.Max)
	}
}

// TestUtilisationReadable: a long tools.csv line is averaged into at most
// maxFlowBins steps, and with more than maxUtilisationLines lines each
// variant also gets a chart of its own.
func TestUtilisationReadable(t *testing.T) {
	var samples []ToolSample
	for _, v := range []string{"once", "three", "six"} {
		for _, tool := range []string{"search", "model"} {
			for i := range 1080 {
				samples = append(samples, ToolSample{Variant: v, Tool: tool, Start: time.Duration(i) * time.Second, Width: time.Second, Utilisation: float64(i%2) * 2})
			}
		}
	}
	d := &Dir{Path: "x", Tools: samples, has: map[*outputs.File]bool{outputs.ToolsCSV: true}}
	var names []string
	for _, b := range d.Builds() {
		ch, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, ch.Name)
		if ch.Name == "utilisation" {
			// Alternating 0 and 200% averages to 100%: the steps are
			// means (of 9 bins: at most 10/9), and the axis fits them.
			if ch.Plot.Y.Max > 1.2 {
				t.Errorf("utilisation y axis up to %g: the raw 200%% swings were drawn, not their means", ch.Plot.Y.Max)
			}
		}
	}
	want := "utilisation utilisation_once utilisation_three utilisation_six"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("charts %q, want %q", got, want)
	}
}
