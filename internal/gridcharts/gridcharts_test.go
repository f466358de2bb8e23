package gridcharts

import (
	"os"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/internal/outputs"
)

// gridJSON is a grid.json of three configurations: the cheapest, one
// dominated by it, and one that cannot be compared.
const gridJSON = `{"provenance": null, "knobs": [{"key": "tools.model.concurrency", "settings": [{"label": "8", "sets": ["tools.model.concurrency=8"]}, {"label": "16", "sets": ["tools.model.concurrency=16"]}, {"label": "32", "sets": ["tools.model.concurrency=32"]}]}],
"slos": ["success>=0.99"], "minimize": "cost per successful run", "currency": "EUR", "level": 0.95, "look_level": 0.95, "replications": 4, "max_replications": 4, "method": "exhaustive",
"candidates": [
 {"index": 0, "labels": ["8"], "sets": [], "positions": [0], "replications": 4, "cost_per_successful_run": {"estimate": 0.1, "ci": [0.09, 0.11]}, "p99_s": {"estimate": 10, "ci": [9, 11]}, "success": {"estimate": 1, "ci": [1, 1]}, "feasible": true, "frontier": "frontier"},
 {"index": 1, "labels": ["16"], "sets": [], "positions": [1], "replications": 4, "cost_per_successful_run": {"estimate": 0.2, "ci": [0.19, 0.21]}, "p99_s": {"estimate": 12, "ci": [11, 13]}, "success": {"estimate": 1, "ci": [1, 1]}, "feasible": true, "frontier": "dominated", "dominated_by": 0},
 {"index": 2, "labels": ["32"], "sets": [], "positions": [2], "replications": 4, "cost_per_successful_run": {"estimate": null, "ci": [null, null]}, "p99_s": {"estimate": null, "ci": [null, null]}, "success": {"estimate": 0, "ci": [0, 0]}, "feasible": false, "frontier": "not compared"}],
"found": true, "cheapest": 0, "ties": [], "frontier": [0], "note": "", "interrupted": false, "warnings": []}`

// TestRead: a directory without grid.json reads as nil and draws nothing;
// with one, the chart's points leave out what cannot be compared, mark the
// cheapest, and the cost axis carries the currency.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	g, err := Read(dir)
	if err != nil || g != nil || len(g.Builds()) != 0 {
		t.Fatalf("empty directory: %v, %v", g, err)
	}
	if err := os.WriteFile(outputs.GridJSON.Path(dir), []byte(gridJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if g, err = Read(dir); err != nil {
		t.Fatal(err)
	}
	pts := Points(g.File.GridAnswer)
	if len(pts) != 2 || !pts[0].Cheapest || pts[1].Cheapest || pts[1].State != "dominated" || pts[1].Label != "#2" {
		t.Fatalf("points %+v", pts)
	}
	bs := g.Builds()
	if len(bs) != 1 {
		t.Fatalf("%d builds, want 1", len(bs))
	}
	ch, err := bs[0].Build()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ch.Plot.Y.Label.Text, "EUR") || ch.Name != "frontier" {
		t.Errorf("chart %q, y label %q", ch.Name, ch.Plot.Y.Label.Text)
	}
	if err := os.WriteFile(outputs.GridJSON.Path(dir), []byte(`{"knobs": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "no knobs") {
		t.Errorf("a grid.json without knobs read as %v", err)
	}
}
