package sweep

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/budgetsim/budgetsim/model/summary"
)

// TestCSVDecisionColumns: sweep.csv names the bottleneck, the load of the
// most loaded resource (even below the bottleneck's 0.85), the most used
// per-minute limit of a model API and its use, and the cost per
// successful run with its interval; unmetered points leave the cost empty.
func TestCSVDecisionColumns(t *testing.T) {
	metered := &summary.Summary{Replications: 2, Bottleneck: "llm",
		Runs:    summary.Summary{}.Runs,
		Workers: summary.WorkersSummary{Utilisation: 0.4},
		Tools: []summary.ToolSummary{{Name: "search", Load: 0.3},
			{Name: "llm", Load: 0.97, Tokens: &summary.TokenSummary{Limits: []summary.LimitUse{{Limit: "rpm", Utilisation: 0.5}, {Limit: "tpm", Utilisation: 0.97}}}}},
		Cost:       &summary.CostSummary{PerSuccess: 0.25},
		Confidence: &summary.Confidence{CostPerSuccess: &summary.Interval{Lo: 0.2, Hi: 0.3}},
	}
	metered.Runs.Completed = 10
	plain := &summary.Summary{Replications: 1, Workers: summary.WorkersSummary{Utilisation: 0.6}, Tools: []summary.ToolSummary{{Name: "api", Load: 0.5}}}
	var b bytes.Buffer
	if err := WriteCSV(&b, []Row{{Parameter: "tpm", Value: 1, Summary: metered}, {Parameter: "tpm", Value: 2, Summary: plain}}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	get := func(row int, col string) string {
		for i, h := range recs[0] {
			if h == col {
				return recs[row][i]
			}
		}
		t.Fatalf("no column %q in %v", col, recs[0])
		return ""
	}
	for _, c := range []struct {
		row       int
		col, want string
	}{
		{1, "bottleneck", "llm"}, {1, "peak_load", "0.97"}, {1, "binding_limit", "llm tpm"}, {1, "limit_use", "0.97"},
		{1, "cost_per_success", "0.25"}, {1, "cost_per_success_lo", "0.2"}, {1, "cost_per_success_hi", "0.3"},
		{2, "bottleneck", ""}, {2, "peak_load", "0.6"}, {2, "binding_limit", ""}, {2, "limit_use", ""}, {2, "cost_per_success", ""},
	} {
		if got := get(c.row, c.col); got != c.want {
			t.Errorf("row %d %s = %q, want %q", c.row, c.col, got, c.want)
		}
	}
}
