package search_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/internal/render/plans"
	"github.com/budgetsim/budgetsim/plan/search"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestGridTableGolden fixes the layout of plan --minimize cost's table in
// a pipe (100 columns): a grid of 2 × 3 configurations of the fake
// evaluator, one tie, one dominated, one that misses the success
// objective. go test ./plan/search -run TestGridTableGolden -update
// rewrites it.
func TestGridTableGolden(t *testing.T) {
	truths := []truth{
		{cost: 0.145, p99: 265, success: 0.993, noise: 0.01},
		{cost: 0.1451, p99: 262, success: 0.993, noise: 0.01, own: 0.02}, // a tie
		{cost: 0.195, p99: 265, success: 0.993, noise: 0.01},             // the price only: dominated
		{cost: 0.160, p99: 200, success: 0.994, noise: 0.01},             // dearer and faster: frontier
		{cost: 0.150, p99: 190, success: 0.70, noise: 0.01},              // misses success
		{cost: 0.170, p99: 180, success: 0.995, noise: 0.01},
	}
	knobs := twoKnobs(2, 3)
	knobs[1].Key = search.TierKey
	g := search.Grid{SLOs: []search.SLO{{Figure: search.Success, Threshold: 0.99}}, Knobs: knobs, Replications: 4, MaxReplications: 8, Level: 0.95, Currency: "USD"}
	ans, err := search.SearchGrid(g, fakeEval(truths, map[int]int{}))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	o := render.NewOut(&b, 100, false) // as simulate writes to a pipe
	o.SetFormat("table", false)
	if err := plans.WriteGridTable(o, "agent", "scenario agent.yaml · sha256 0123456789ab · format 1", ans); err != nil {
		t.Fatal(err)
	}
	if err := o.Flush(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "grid_table.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./plan/search -run TestGridTableGolden -update creates it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("the table differs from %s:\n%s", path, b.String())
	}
}
