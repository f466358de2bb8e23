package search_test

import (
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/search"
)

// TestClassSLO: a class-prefixed objective is checked against that class's
// figures, an unprefixed one against the pooled figures, and an objective
// naming a class the scenario lacks is an error naming it.
func TestClassSLO(t *testing.T) {
	o, err := search.ParseSLO("premium: p99<=5s")
	if err != nil || o.Class != "premium" || o.Figure != search.LatencyP99 || o.Threshold != 5 || o.String() != "premium: p99<=5s" {
		t.Fatalf("ParseSLO = %+v, %v", o, err)
	}
	sum := &summary.Summary{
		Runs: system.Counts{Arrived: 10, Completed: 10}, SuccessRate: 1,
		Latency: summary.Percentiles{N: 10, P99: 3},
		Classes: map[string]summary.ClassSummary{
			"premium": {Runs: system.Counts{Arrived: 4, Completed: 4}, SuccessRate: 1, Latency: summary.Percentiles{N: 4, P99: 6}},
			"free":    {Runs: system.Counts{Arrived: 6, Completed: 3}, SuccessRate: 0.5, Latency: summary.Percentiles{N: 3, P99: 1}},
		},
	}
	for _, c := range []struct {
		slo    string
		est    float64
		passes bool
	}{
		{"p99<=5s", 3, true},
		{"premium: p99<=5s", 6, false},
		{"free: p99<=5s", 1, true},
		{"free: success>=0.95", 0.5, false},
		{"premium:success>=0.95", 1, true},
	} {
		o, err := search.ParseSLO(c.slo)
		if err != nil {
			t.Fatal(err)
		}
		ch := o.Check(sum)
		if float64(ch.Estimate) != c.est || (ch.Margin >= 0) != c.passes {
			t.Errorf("%s: estimate %v margin %v, want estimate %v passing %v", c.slo, ch.Estimate, ch.Margin, c.est, c.passes)
		}
	}
	if err := search.CheckClasses([]search.SLO{o}, []string{"free", "premium"}); err != nil {
		t.Error(err)
	}
	err = search.CheckClasses([]search.SLO{{Figure: search.Success, Threshold: 0.9, Class: "gold"}}, []string{"free", "premium"})
	if err == nil || !strings.Contains(err.Error(), `unknown class "gold"`) || !strings.Contains(err.Error(), "free, premium") {
		t.Errorf("an unknown class: %v", err)
	}
	if err := search.CheckClasses([]search.SLO{o}, nil); err == nil || !strings.Contains(err.Error(), "no classes") {
		t.Errorf("a class in a scenario without classes: %v", err)
	}
}
