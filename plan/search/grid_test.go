package search_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/internal/render/plans"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/plan/search"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// truth is a configuration's figures in a fake grid: each replication i
// sees them plus noise × z(i), the same z(i) in every configuration
// (common random numbers), plus own × w(i, configuration) of its own.
type truth struct {
	cost, p99, success float64
	noise, own         float64
}

// z is a fixed standard-ish deviate of replication i, shared by every
// configuration.
func z(i int) float64 { return math.Sin(float64(3*i) + 0.5) }

// w is a deviate of replication i of configuration c alone.
func w(i, c int) float64 { return math.Cos(float64(7*i+13*c) + 0.3) }

// fakeEval is an Evaluator over truths indexed by configuration; it
// records each configuration's largest n.
func fakeEval(truths []truth, asked map[int]int) search.Evaluator {
	return func(c search.Configuration, n int) (search.Evaluation, error) {
		tr := truths[c.Index]
		asked[c.Index] = max(asked[c.Index], n)
		figs := make([]summary.ReplicationFigure, n)
		var cs, ps, ss []float64
		for i := range figs {
			d := float64(tr.noise*z(i)) + float64(tr.own*w(i, c.Index))
			f := summary.ReplicationFigure{CostPerSuccess: tr.cost * (1 + d), LatencyP99: tr.p99 * (1 + d), SuccessRate: math.Min(1, tr.success*(1+d/100)), Completed: 100}
			figs[i] = f
			cs, ps, ss = append(cs, f.CostPerSuccess), append(ps, f.LatencyP99), append(ss, f.SuccessRate)
		}
		mean := func(xs []float64) float64 { return stats.MeanCI(xs, 0.95).Mean }
		sum := &summary.Summary{Replications: n, SuccessRate: mean(ss)}
		sum.Runs.Arrived, sum.Runs.Completed = 1000, 1000
		sum.Latency = summary.Percentiles{N: 1000, P99: mean(ps)}
		sum.Cost = &summary.CostSummary{PerSuccess: mean(cs)}
		level := 0.999 // any look level: the verdicts only need to be consistent
		si, pi := stats.MeanCI(ss, level), stats.SectionCI(ps, sum.Latency.P99, level)
		sum.Confidence = &summary.Confidence{Level: level, Replications: n, SuccessRate: summary.Interval{Lo: si.Lo, Hi: si.Hi}}
		sum.Confidence.Latency.P99 = summary.Interval{Lo: pi.Lo, Hi: pi.Hi}
		return search.Evaluation{Summary: sum, Figures: figs, Offered: search.Offered{Utilisation: math.NaN(), Peak: math.NaN()}}, nil
	}
}

func twoKnobs(a, b int) []search.Knob {
	k := func(key string, n int) search.Knob {
		kn := search.Knob{Key: key}
		for i := range n {
			l := string(rune('a' + i))
			kn.Settings = append(kn.Settings, search.Setting{Label: l, Sets: []string{key + "=" + l}})
		}
		return kn
	}
	return []search.Knob{k("tools.model.concurrency", a), k("tools.model.tokens.max_output", b)}
}

// TestGridCheapest is a property test: whatever the figures, SearchGrid
// simulates every configuration, and its cheapest is the feasible one
// (every objective's interval clear of its threshold) with the lowest
// cost (of equal costs, the lowest p99), found by brute force; every other feasible configuration is a tie
// exactly when its paired cost difference's interval reaches 0.
func TestGridCheapest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := rapid.IntRange(1, 4).Draw(t, "a"), rapid.IntRange(2, 4).Draw(t, "b")
		truths := make([]truth, a*b)
		for i := range truths {
			truths[i] = truth{
				cost:    rapid.Float64Range(0.01, 1).Draw(t, "cost"),
				p99:     rapid.Float64Range(1, 100).Draw(t, "p99"),
				success: rapid.Float64Range(0.95, 1).Draw(t, "success"),
				noise:   rapid.Float64Range(0, 0.05).Draw(t, "noise"),
				own:     rapid.Float64Range(0, 0.02).Draw(t, "own"),
			}
		}
		slos := []search.SLO{{Figure: search.LatencyP99, Threshold: 50}, {Figure: search.Success, Threshold: 0.97}}
		asked := map[int]int{}
		g := search.Grid{SLOs: slos, Knobs: twoKnobs(a, b), Replications: 4, MaxReplications: 16, Level: 0.95}
		ans, err := search.SearchGrid(g, fakeEval(truths, asked))
		if err != nil {
			t.Fatal(err)
		}
		if len(asked) != a*b || len(ans.Candidates) != a*b {
			t.Fatalf("evaluated %d configurations, answer lists %d; the grid has %d", len(asked), len(ans.Candidates), a*b)
		}
		want := -1
		for i, c := range ans.Candidates {
			feasible := true
			for _, ch := range c.Checks {
				feasible = feasible && ch.Verdict == search.Pass
			}
			if feasible != c.Feasible {
				t.Fatalf("#%d: feasible %v, but its checks say %v", i, c.Feasible, feasible)
			}
			if feasible && (want < 0 || c.Cost.Estimate < ans.Candidates[want].Cost.Estimate ||
				c.Cost.Estimate == ans.Candidates[want].Cost.Estimate && c.P99.Estimate < ans.Candidates[want].P99.Estimate) {
				want = i
			}
		}
		if want < 0 {
			if ans.Found || ans.Why == "" {
				t.Fatalf("nothing is feasible, but Found = %v, Why = %q", ans.Found, ans.Why)
			}
			return
		}
		if !ans.Found || ans.Cheapest != want {
			t.Fatalf("cheapest = %d (found %v), want %d", ans.Cheapest, ans.Found, want)
		}
		ties := map[int]bool{}
		for _, i := range ans.Ties {
			ties[i] = true
		}
		for i, c := range ans.Candidates {
			if i == want || !c.Feasible {
				if ties[i] {
					t.Fatalf("#%d is a tie but is the cheapest or infeasible", i)
				}
				continue
			}
			d := c.CostVsCheapest
			if d == nil || d.Replications != min(c.Replications, ans.Candidates[want].Replications) {
				t.Fatalf("#%d: paired difference %+v, want one over the %d replications both ran", i, d, min(c.Replications, ans.Candidates[want].Replications))
			}
			if ties[i] != (float64(d.CI[0]) <= 0) {
				t.Fatalf("#%d: tie %v with paired difference %+v", i, ties[i], d)
			}
		}
	})
}

// TestGridPairingNarrowsTheDifference: two configurations whose costs move
// together replication by replication (common random numbers) are told
// apart by the paired difference even when their separate intervals
// overlap; with noise of their own they are a tie.
func TestGridPairingNarrowsTheDifference(t *testing.T) {
	for _, tc := range []struct {
		own float64
		tie bool
	}{{0, false}, {0.2, true}} {
		truths := []truth{
			{cost: 1.00, p99: 10, success: 1, noise: 0.1, own: tc.own},
			{cost: 1.02, p99: 10, success: 1, noise: 0.1, own: tc.own},
		}
		g := search.Grid{SLOs: []search.SLO{{Figure: search.Success, Threshold: 0.5}}, Knobs: twoKnobs(1, 2), Replications: 8, MaxReplications: 8, Level: 0.95}
		ans, err := search.SearchGrid(g, fakeEval(truths, map[int]int{}))
		if err != nil {
			t.Fatal(err)
		}
		c0, c1 := ans.Candidates[0], ans.Candidates[1]
		if overlap := c1.Cost.CI[0] <= c0.Cost.CI[1]; !overlap {
			t.Fatalf("the separate intervals %v and %v should overlap for this test to mean anything", c0.Cost.CI, c1.Cost.CI)
		}
		if ans.Cheapest != 0 || (len(ans.Ties) == 1) != tc.tie {
			t.Fatalf("own noise %g: cheapest %d, ties %v; want 0 with tie %v", tc.own, ans.Cheapest, ans.Ties, tc.tie)
		}
		var buf bytes.Buffer
		if err := plans.WriteGridTable(&buf, "s", "prov", ans); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(buf.String(), "not distinguishable: #2"); got != tc.tie {
			t.Fatalf("table says not distinguishable %v, want %v:\n%s", got, tc.tie, buf.String())
		}
	}
}

// TestGridFrontier: a configuration beaten on cost and p99 beyond the
// paired intervals is dominated (by the one that beats it), one beaten
// only by the point estimates is within noise, and the frontier is the
// rest, by increasing p99.
func TestGridFrontier(t *testing.T) {
	truths := []truth{
		{cost: 1.0, p99: 30, success: 1, noise: 0.05},              // cheap, slow: frontier
		{cost: 2.0, p99: 10, success: 1, noise: 0.05},              // dear, fast: frontier
		{cost: 2.5, p99: 40, success: 1, noise: 0.05},              // worse than #0 on both, clearly
		{cost: 1.06, p99: 31.8, success: 1, noise: 0.05, own: 0.3}, // a little worse than #0, much noisier
	}
	g := search.Grid{SLOs: []search.SLO{{Figure: search.Success, Threshold: 0.5}}, Knobs: twoKnobs(2, 2), Replications: 8, MaxReplications: 8, Level: 0.95}
	ans, err := search.SearchGrid(g, fakeEval(truths, map[int]int{}))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{search.OnFrontier, search.OnFrontier, search.Dominated, search.WithinNoise}
	for i, c := range ans.Candidates {
		if c.Frontier != want[i] {
			t.Errorf("#%d: %s, want %s (cost %v, p99 %v)", i, c.Frontier, want[i], c.Cost, c.P99)
		}
	}
	if c := ans.Candidates[2]; c.DominatedBy == nil || !c.CostDiff.Above() || !c.P99Diff.Above() {
		t.Errorf("#2: dominated by %v with differences %+v, %+v: want a dominating candidate and both differences above 0", c.DominatedBy, c.CostDiff, c.P99Diff)
	}
	if len(ans.Frontier) != 2 || ans.Frontier[0] != 1 || ans.Frontier[1] != 0 {
		t.Errorf("frontier %v, want [1 0] (by increasing p99)", ans.Frontier)
	}
}

// TestGridWhy: when no configuration meets an objective, the answer says
// the best value it reaches and where, and whether it has levelled off
// (the neighbouring settings reach the same within their intervals) or
// still moves with a knob.
func TestGridWhy(t *testing.T) {
	for _, tc := range []struct {
		successes []float64
		want      string
	}{
		{[]float64{0.90, 0.90, 0.90, 0.90}, "has levelled off"},
		{[]float64{0.50, 0.60, 0.70, 0.90}, "still moves with concurrency"},
	} {
		truths := make([]truth, 4)
		for i, s := range tc.successes {
			truths[i] = truth{cost: 1, p99: 10, success: s, noise: 0.01}
		}
		g := search.Grid{SLOs: []search.SLO{{Figure: search.Success, Threshold: 0.99}}, Knobs: twoKnobs(2, 2), Replications: 4, MaxReplications: 4, Level: 0.95}
		ans, err := search.SearchGrid(g, fakeEval(truths, map[int]int{}))
		if err != nil {
			t.Fatal(err)
		}
		if ans.Found || !strings.Contains(ans.Why, "success reaches at best 90") || !strings.Contains(ans.Why, tc.want) {
			t.Errorf("successes %v: found %v, why %q; want the best (90 %%) and %q", tc.successes, ans.Found, ans.Why, tc.want)
		}
	}
}

// TestGridReplicationsDouble: a configuration whose objective interval
// straddles its threshold gets more replications, up to the cap; one
// clear of it keeps the first batch.
func TestGridReplicationsDouble(t *testing.T) {
	truths := []truth{
		{cost: 1, p99: 10, success: 1, noise: 0.01},
		{cost: 1, p99: 49.9, success: 1, noise: 0.3}, // on the threshold
	}
	asked := map[int]int{}
	g := search.Grid{SLOs: []search.SLO{{Figure: search.LatencyP99, Threshold: 50}}, Knobs: twoKnobs(1, 2), Replications: 4, MaxReplications: 32, Level: 0.95}
	ans, err := search.SearchGrid(g, fakeEval(truths, asked))
	if err != nil {
		t.Fatal(err)
	}
	if asked[0] != 4 || asked[1] != 32 || ans.Candidates[1].Replications != 32 || ans.Candidates[1].Resolved {
		t.Fatalf("replications asked %v, candidate #1 %d resolved %v: want 4 and 32, unresolved", asked, ans.Candidates[1].Replications, ans.Candidates[1].Resolved)
	}
	if ans.Candidates[1].Feasible {
		t.Fatal("an unresolved configuration is never feasible")
	}
}

// TestGridFileRoundTrip: grid.json reads back as written, and the reader
// refuses a file whose indices point outside its candidates.
func TestGridFileRoundTrip(t *testing.T) {
	truths := []truth{{cost: 1, p99: 10, success: 1, noise: 0.01}, {cost: 2, p99: 5, success: 1, noise: 0.01}}
	g := search.Grid{SLOs: []search.SLO{{Figure: search.Success, Threshold: 0.5}}, Knobs: twoKnobs(1, 2), Replications: 4, Level: 0.95, Currency: "USD"}
	ans, err := search.SearchGrid(g, fakeEval(truths, map[int]int{}))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := render.JSON(&buf, search.GridPlanFile{GridAnswer: ans}); err != nil {
		t.Fatal(err)
	}
	pf, err := search.ReadGridPlanFile(bytes.NewReader(buf.Bytes()), outputs.GridJSON.Name)
	if err != nil {
		t.Fatal(err)
	}
	if pf.Cheapest != 0 || pf.CostLabel() != "USD" || len(pf.Candidates) != 2 || pf.Candidates[1].Cost.Estimate != ans.Candidates[1].Cost.Estimate || len(pf.Frontier) != 2 {
		t.Fatalf("read back %+v", pf.GridAnswer)
	}
	var raw map[string]any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	raw["frontier"] = []int{7}
	bad, _ := json.Marshal(raw)
	if _, err := search.ReadGridPlanFile(bytes.NewReader(bad), "grid.json"); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("an index out of range read as %v", err)
	}
}

func TestShortNames(t *testing.T) {
	knobs := []search.Knob{{Key: "tools.model.concurrency"}, {Key: "tools.search.concurrency"}, {Key: "tools.model.prompt_cache.ttl"}, {Key: "tier"}}
	got := strings.Join(search.ShortNames(knobs), " ")
	if want := "model.concurrency search.concurrency ttl tier"; got != want {
		t.Fatalf("ShortNames = %q, want %q", got, want)
	}
}

func TestGridRefuses(t *testing.T) {
	knobs := twoKnobs(2, 2)
	knobs[1].Settings[0].Sets = []string{"tools.model.concurrency=9"}
	if _, err := search.SearchGrid(search.Grid{Knobs: knobs, Replications: 4, Level: 0.95}, nil); err == nil || !strings.Contains(err.Error(), "set by two knobs") {
		t.Errorf("two knobs setting one key: %v", err)
	}
	big := twoKnobs(1, 1)
	for i := range 3 {
		k := search.Knob{Key: "k" + string(rune('0'+i))}
		for j := range 9 {
			k.Settings = append(k.Settings, search.Setting{Label: string(rune('a' + j)), Sets: []string{k.Key + "=" + string(rune('a'+j))}})
		}
		big = append(big, k)
	}
	if _, err := search.SearchGrid(search.Grid{Knobs: big, Replications: 4, Level: 0.95}, nil); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("a grid of 729 configurations: %v", err)
	}
}

// TestGridFrontierNeedsSuccess: a configuration that misses a success
// objective is not placed and dominates nothing, however cheap and fast
// the runs it completes are.
func TestGridFrontierNeedsSuccess(t *testing.T) {
	truths := []truth{
		{cost: 0.5, p99: 5, success: 0.6, noise: 0.01}, // cheap and fast, but fails 40 % of runs
		{cost: 1.0, p99: 10, success: 1, noise: 0.01},
	}
	g := search.Grid{SLOs: []search.SLO{{Figure: search.Success, Threshold: 0.9}}, Knobs: twoKnobs(1, 2), Replications: 4, MaxReplications: 4, Level: 0.95}
	ans, err := search.SearchGrid(g, fakeEval(truths, map[int]int{}))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := ans.Candidates[0].Frontier, ans.Candidates[1].Frontier; a != search.MissesSuccess || b != search.OnFrontier {
		t.Fatalf("places %q, %q; want %q, %q", a, b, search.MissesSuccess, search.OnFrontier)
	}
	if !ans.Found || ans.Cheapest != 1 || len(ans.Frontier) != 1 || ans.Frontier[0] != 1 {
		t.Fatalf("cheapest %d, frontier %v; want 1 and [1]", ans.Cheapest, ans.Frontier)
	}
}

// TestGridWhyUnresolved: an objective whose best interval still straddles
// its threshold at the replication cap is said to be unresolved there,
// not unreachable.
func TestGridWhyUnresolved(t *testing.T) {
	truths := []truth{
		{cost: 1, p99: 10, success: 0.9, noise: 0.01},
		{cost: 1, p99: 49.5, success: 1, noise: 0.3}, // p99 on the threshold, noisy
	}
	g := search.Grid{SLOs: []search.SLO{{Figure: search.LatencyP99, Threshold: 50}, {Figure: search.Success, Threshold: 0.95}}, Knobs: twoKnobs(1, 2), Replications: 4, MaxReplications: 8, Level: 0.95}
	ans, err := search.SearchGrid(g, fakeEval(truths, map[int]int{}))
	if err != nil {
		t.Fatal(err)
	}
	// Each objective is met somewhere (#1 meets p99, #2 success), and #2
	// fails none: it might meet both with more replications.
	if ans.Found || !strings.Contains(ans.Why, "all together") || !strings.Contains(ans.Why, "#2 ") || !strings.Contains(ans.Why, "raise --max-replications") {
		t.Fatalf("found %v, why %q: want #2 named as open", ans.Found, ans.Why)
	}
	truths[0].p99, truths[0].noise = 49.5, 0.3 // now neither resolves p99
	ans, err = search.SearchGrid(g, fakeEval(truths, map[int]int{}))
	if err != nil {
		t.Fatal(err)
	}
	// Its best mean is at #1, which stopped at 4 replications because its
	// success fails.
	if !strings.Contains(ans.Why, "p99<=50s is unresolved at its best") || !strings.Contains(ans.Why, "after 4 replications") || !strings.Contains(ans.Why, "another objective fails") {
		t.Fatalf("why %q: want p99 unresolved after 4 replications, stopped by the failing objective", ans.Why)
	}
}
