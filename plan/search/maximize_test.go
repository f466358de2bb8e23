package search_test

import (
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/plan/search"
)

// TestSearchMaximize is TestSearchFindsTheMinimum turned around: for any
// p99 that grows with the key (an arrival rate), Maximize returns exactly
// the largest passing value, with a failing probe just above it, and
// never probes outside the range.
func TestSearchMaximize(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.IntRange(0, 50).Draw(t, "lo")
		hi := rapid.IntRange(lo+1, lo+300).Draw(t, "hi")
		scale := rapid.Float64Range(0.01, 10).Draw(t, "scale")
		threshold := rapid.Float64Range(0.5, 50).Draw(t, "threshold")
		p99 := func(v float64) float64 { return float64(scale*v) + 0.1 } // increasing in v
		want := -1
		for v := hi; v >= lo; v-- {
			if p99(float64(v)) <= threshold {
				want = v
				break
			}
		}
		if want >= 0 && math.Abs(p99(float64(want))-threshold) < 1e-9 {
			t.Skip("boundary exactly on a value")
		}
		prob := search.Problem{SLOs: []search.SLO{{Figure: search.LatencyP99, Threshold: threshold}}, Maximize: true, Tolerance: 1e-9,
			Range: search.Range{Key: "arrivals.rate", Lo: float64(lo), Hi: float64(hi), Integer: true}, Level: 0.95}
		ans, err := search.Search(prob, func(v float64, n int) (*summary.Summary, error) {
			if v < float64(lo) || v > float64(hi) || v != math.Trunc(v) {
				t.Fatalf("probed %v outside the integers of [%d, %d]", v, lo, hi)
			}
			return fakeSummary(p99(v), 1e-12, n), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want < 0 {
			if ans.Found {
				t.Fatalf("Search = %v, want not found", ans.Value)
			}
			return
		}
		if !ans.Found || float64(ans.Value) != float64(want) || !ans.Maximize {
			t.Fatalf("Search = %v (found %v), want %d", ans.Value, ans.Found, want)
		}
		if want < hi && (ans.Confidence.Below == nil || ans.Confidence.Below.Value != float64(want+1)) {
			t.Fatalf("Confidence.Below = %+v, want the probe at %d", ans.Confidence.Below, want+1)
		}
	})
}

// TestSearchPrecision: a continuous range stops at the relative
// precision asked, with round values to read (no 4.748046875/s), and a
// large integer range (tokens per minute) is not bisected to one token.
func TestSearchPrecision(t *testing.T) {
	const boundary = 4.7321
	probe := func(values *[]float64) search.Prober {
		return func(v float64, n int) (*summary.Summary, error) {
			*values = append(*values, v)
			return fakeSummary(v/boundary, 1e-12, n), nil // p99 ≤ 1 below the boundary
		}
	}
	for _, tol := range []float64{0.01, 0.05} {
		var values []float64
		prob := search.Problem{SLOs: []search.SLO{{Figure: search.LatencyP99, Threshold: 1}}, Maximize: true, Tolerance: tol,
			Range: search.Range{Key: "arrivals.rate", Lo: 1, Hi: 20, Rate: true}, Level: 0.95}
		ans, err := search.Search(prob, probe(&values))
		if err != nil {
			t.Fatal(err)
		}
		v := float64(ans.Value)
		if !ans.Found || v > boundary || boundary-v > tol*v {
			t.Errorf("tolerance %g: answer %v, want within %g of %v below it", tol, v, tol, boundary)
		}
		for _, x := range values {
			if s := prob.Range.Format(x); len(s) > len("4.7321/s") {
				t.Errorf("tolerance %g: probed %s, want round values", tol, s)
			}
		}
	}
	var values []float64
	prob := search.Problem{SLOs: []search.SLO{{Figure: search.LatencyP99, Threshold: 1}}, Tolerance: 0.02,
		Range: search.Range{Key: "tools.llm.rate_limit.tpm", Lo: 100000, Hi: 2000000, Integer: true}, Level: 0.95}
	ans, err := search.Search(prob, func(v float64, n int) (*summary.Summary, error) {
		values = append(values, v)
		return fakeSummary(654321/v, 1e-12, n), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if v := float64(ans.Value); !ans.Found || v < 654321 || v-654321 > 0.02*v {
		t.Errorf("tpm answer %v, want within 2%% above 654321", v)
	}
	if len(values) > 10 {
		t.Errorf("%d probes for tpm to 2%%: %v", len(values), values)
	}
}

// TestSearchSaysWhy: when no value meets a success objective because the
// deadline caps it, the answer says which objective, the value it levels
// off at, and what caps it.
func TestSearchSaysWhy(t *testing.T) {
	capped := func(v float64, n int) (*summary.Summary, error) {
		s := fakeSummary(1, 1e-9, n)
		// Success rises to 97.3 % and stays there: 2.7 % of runs end past
		// their deadline whatever the capacity.
		rate := 0.973 - 0.5/(v*v*v)
		s.SuccessRate = rate
		s.Confidence.SuccessRate = summary.Interval{Lo: rate - 0.001, Hi: rate + 0.001}
		s.Runs.Completed = int64(math.Round(1000 * rate))
		s.Runs.DeadlineExceeded = 1000 - s.Runs.Completed
		return s, nil
	}
	prob := search.Problem{SLOs: []search.SLO{{Figure: search.Success, Threshold: 0.99}},
		Range: search.Range{Key: "workers", Lo: 1, Hi: 64, Integer: true}, Level: 0.95}
	ans, err := search.Search(prob, capped)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"success reaches 97.30 %", "at workers=64", "it has levelled off, so no value of workers will meet it", "what caps it: the deadline (2.70 % of runs end past it)"} {
		if ans.Found || !strings.Contains(ans.Why, want) {
			t.Errorf("why = %q, want it to say %q", ans.Why, want)
		}
	}
}
