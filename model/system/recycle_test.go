package system_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// A simulation that reuses a recycled result's memory gives exactly what
// it gives on fresh memory.
func TestRecycleLeavesResultsUnchanged(t *testing.T) {
	for _, name := range []string{"mmc", "retry-storm", "tool-bottleneck"} {
		cfg := load(t, name, "runs=3000", "warmup=100")
		fresh := system.New(cfg, system.Options{Replication: 1}).Run()
		want := summary.Summarize(cfg, []*system.Result{fresh}, 0.95)
		for range 3 {
			// Another replication fills histograms and series, then hands
			// them back for the next simulation to reuse.
			system.New(cfg, system.Options{Replication: 2}).Run().Recycle()
			got := system.New(cfg, system.Options{Replication: 1}).Run()
			if *got.Latency != *fresh.Latency || *got.Wait != *fresh.Wait {
				t.Fatalf("%s: latency or wait histogram differs on recycled memory", name)
			}
			for i := range got.StepLatency {
				if *got.StepLatency[i] != *fresh.StepLatency[i] {
					t.Fatalf("%s: step %d latency differs on recycled memory", name, i)
				}
			}
			if !seriesEqual(got.Series, fresh.Series) {
				t.Fatalf("%s: series differs on recycled memory", name)
			}
			s := summary.Summarize(cfg, []*system.Result{got}, 0.95)
			if !summariesEqual(t, s, want) {
				t.Fatalf("%s: summary differs on recycled memory", name)
			}
		}
	}
}

func TestRecycleClearsWhatItHandsBack(t *testing.T) {
	cfg := load(t, "mmc", "runs=500", "warmup=0")
	r := system.New(cfg, system.Options{}).Run()
	arrived := r.Runs.Arrived
	r.Recycle()
	if r.Latency != nil || r.Wait != nil || r.Series != nil || r.StepLatency[0] != nil {
		t.Fatal("Recycle left a histogram or the series reachable from the result")
	}
	if r.Runs.Arrived != arrived {
		t.Fatalf("Recycle changed the counters: %d arrived, want %d", r.Runs.Arrived, arrived)
	}
}

func seriesEqual(a, b *system.Series) bool {
	if a.Width != b.Width || !slices.Equal(a.Bins, b.Bins) || len(a.ToolBusy) != len(b.ToolBusy) || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolBusy {
		if !slices.Equal(a.ToolBusy[i], b.ToolBusy[i]) {
			return false
		}
	}
	for i := range a.ToolCalls {
		if !slices.Equal(a.ToolCalls[i], b.ToolCalls[i]) || (a.ToolCalls[i] == nil) != (b.ToolCalls[i] == nil) {
			return false
		}
	}
	return true
}

// summariesEqual compares two summaries by their JSON, as the CLI writes
// them.
func summariesEqual(t *testing.T, a, b summary.Summary) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(ja, jb)
}
