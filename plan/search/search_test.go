package search_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/budgetsim/budgetsim/model/analytic"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/plan/search"
	"github.com/budgetsim/budgetsim/scenarios"
)

func TestParseSLO(t *testing.T) {
	tests := []struct {
		in   string
		want search.SLO
		text string
	}{
		{"p99<=2s", search.SLO{Figure: search.LatencyP99, Threshold: 2}, "p99<=2s"},
		{" p99.9 <= 1500ms ", search.SLO{Figure: search.LatencyP999, Threshold: 1.5}, "p999<=1.5s"},
		{"latency_p50<=100ms", search.SLO{Figure: search.LatencyP50, Threshold: 0.1}, "p50<=100ms"},
		{"mean<=1s", search.SLO{Figure: search.LatencyMean, Threshold: 1}, "mean<=1s"},
		{"wait_p99<=500ms", search.SLO{Figure: search.WaitP99, Threshold: 0.5}, "wait_p99<=500ms"},
		{"wait_mean<=0", search.SLO{Figure: search.WaitMean, Threshold: 0}, "wait_mean<=0s"},
		{"success>=0.99", search.SLO{Figure: search.Success, Threshold: 0.99}, "success>=0.99"},
		{"success >= 99.9%", search.SLO{Figure: search.Success, Threshold: 0.999}, "success>=0.999"},
	}
	for _, tt := range tests {
		got, err := search.ParseSLO(tt.in)
		if err != nil || got != tt.want || got.String() != tt.text {
			t.Errorf("ParseSLO(%q) = %+v (%q), %v; want %+v (%q)", tt.in, got, got.String(), err, tt.want, tt.text)
		}
	}
	errs := []struct{ in, want string }{
		{"p99", "must be FIGURE<=DURATION"},
		{"p98<=2s", `unknown figure "p98"`},
		{"p99>=2s", "bounded with <="},
		{"p99<2s", `got "<"`},
		{"p99<=2", "has no unit"},
		{"p99<=0", "cannot be met"},
		{"success<=0.9", "bounded with >="},
		{"success>=1.5", "fraction in (0, 1]"},
		{"success>=abc", "fraction in (0, 1]"},
	}
	for _, tt := range errs {
		_, err := search.ParseSLO(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.in)) {
			t.Errorf("ParseSLO(%q) = %v, want an error quoting the objective and containing %q", tt.in, err, tt.want)
		}
	}
}

func TestParseRange(t *testing.T) {
	tests := []struct {
		in   string
		want search.Range
		at   float64
		text string
	}{
		{"workers=1..200", search.Range{Key: "workers", Lo: 1, Hi: 200, Integer: true}, 17, "17"},
		{"queue.capacity=0..1000", search.Range{Key: "queue.capacity", Lo: 0, Hi: 1000, Integer: true}, 3, "3"},
		{"tools.api.rate_limit.rate=1/s..100/s", search.Range{Key: "tools.api.rate_limit.rate", Lo: 1, Hi: 100, Rate: true}, 12.5, "12.5/s"},
		{"tools.api.rate_limit.rate=60/m..120/m", search.Range{Key: "tools.api.rate_limit.rate", Lo: 1, Hi: 2, Rate: true}, 1.5, "1.5/s"},
		{"x=0.5..2", search.Range{Key: "x", Lo: 0.5, Hi: 2}, 0.75, "0.75"},
	}
	for _, tt := range tests {
		got, err := search.ParseRange(tt.in)
		if err != nil || got != tt.want || got.Format(tt.at) != tt.text {
			t.Errorf("ParseRange(%q) = %+v, %v (Format(%v) = %q); want %+v (%q)", tt.in, got, err, tt.at, got.Format(tt.at), tt.want, tt.text)
		}
	}
	errs := []struct{ in, want string }{
		{"workers", "must be key=lo..hi"},
		{"workers=1-200", "must be key=lo..hi"},
		{"workers=1.5..20", "workers takes integers"},
		{"tools.db.concurrency=1..2.5", "takes integers"},
		{"workers=20..1", "need 0 ≤ lo < hi"},
		{"x=1/s..5", "both ends need the same unit"},
		{"workers=a..5", `range start: "a" is not a number`},
		{"workers=1..5:3", "a search range has no point count"},
		{"deadline=1s..5s", "not durations"},
	}
	for _, tt := range errs {
		_, err := search.ParseRange(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseRange(%q) = %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
}

// fakeSummary is a summary whose p99 has the given per-replication mean
// and interval half-width (and 100% success).
func fakeSummary(p99, half float64, n int) *summary.Summary {
	s := &summary.Summary{Replications: n, SuccessRate: 1}
	s.Runs.Arrived, s.Runs.Completed = 1000, 1000
	s.Latency = summary.Percentiles{N: 1000, P99: p99}
	s.Confidence = &summary.Confidence{Level: 0.95, Replications: n, SuccessRate: summary.Interval{Lo: 1, Hi: 1}}
	s.Confidence.Latency.P99 = summary.Interval{Lo: p99 - half, Hi: p99 + half}
	return s
}

// TestSearchFindsTheMinimum is a property test: for any monotone p99(v)
// with intervals clear of the threshold, any range and any start, Search
// returns exactly the smallest passing value (found by brute force), with
// a failing probe just below it, and never probes outside the range.
func TestSearchFindsTheMinimum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.IntRange(0, 50).Draw(t, "lo")
		hi := rapid.IntRange(lo+1, lo+300).Draw(t, "hi")
		scale := rapid.Float64Range(1, 1000).Draw(t, "scale")
		threshold := rapid.Float64Range(0.5, 50).Draw(t, "threshold")
		p99 := func(v float64) float64 { return scale / (v + 1) } // decreasing in v
		want := -1
		for v := lo; v <= hi; v++ {
			if p99(float64(v)) <= threshold {
				want = v
				break
			}
		}
		// Intervals so narrow that no probe near the boundary straddles,
		// unless the boundary is within 1e-9: then skip the case.
		if want >= 0 && math.Abs(p99(float64(want))-threshold) < 1e-9 {
			t.Skip("boundary exactly on a value")
		}
		// A precision finer than one step: the search goes to the exact
		// integer (TestSearchPrecision checks the relative stop).
		prob := search.Problem{SLOs: []search.SLO{{Figure: search.LatencyP99, Threshold: threshold}}, Tolerance: 1e-9,
			Range: search.Range{Key: "workers", Lo: float64(lo), Hi: float64(hi), Integer: true}, Level: 0.95}
		if rapid.Bool().Draw(t, "hasStart") {
			prob.Start, prob.HasStart = float64(rapid.IntRange(lo-5, hi+5).Draw(t, "start")), true
		}
		probed := 0
		ans, err := search.Search(prob, func(v float64, n int) (*summary.Summary, error) {
			probed++
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
		if !ans.Found || float64(ans.Value) != float64(want) {
			t.Fatalf("Search = %v (found %v), want %d", ans.Value, ans.Found, want)
		}
		if want > lo && (ans.Confidence.Below == nil || ans.Confidence.Below.Value != float64(want-1)) {
			t.Fatalf("Confidence.Below = %+v, want the probe at %d", ans.Confidence.Below, want-1)
		}
		if !ans.Confidence.Resolved {
			t.Fatalf("Confidence.Resolved = false with clear intervals")
		}
		if bound := 2*math.Log2(float64(hi-lo+1)) + 4; float64(probed) > bound {
			t.Fatalf("%d probes for a range of %d, want ≤ %.0f", probed, hi-lo+1, bound)
		}
	})
}

// TestSearchMonotoneInThreshold: a stricter objective never needs less
// capacity (the search is monotone), and the analytic start only saves
// probes.
func TestSearchMonotoneInThreshold(t *testing.T) {
	prev := 0.0
	for _, d := range []float64{10, 5, 2, 1, 0.5, 0.2, 0.1} {
		prob := search.Problem{SLOs: []search.SLO{{Figure: search.LatencyP99, Threshold: d}}, Tolerance: 1e-9,
			Range: search.Range{Key: "workers", Lo: 1, Hi: 1000, Integer: true}, Level: 0.95}
		probe := func(v float64, n int) (*summary.Summary, error) { return fakeSummary(20/v, 0.01, n), nil }
		ans, err := search.Search(prob, probe)
		if err != nil {
			t.Fatal(err)
		}
		if v := float64(ans.Value); v < prev {
			t.Errorf("Search(p99<=%v) = %v, below %v for a looser objective", d, v, prev)
		}
		prev = float64(ans.Value)
		// Values with 20/v + 0.01 ≤ d pass outright; a value whose
		// interval straddles d (20/v within 0.01 of it) stays unresolved at
		// the cap and is never the answer. So the answer is the smallest v
		// with 20/v + 0.01 ≤ d.
		if want := math.Ceil(20 / (d - 0.01)); float64(ans.Value) != want {
			t.Errorf("Search(p99<=%v) = %v, want %v", d, ans.Value, want)
		}
		prob.Start, prob.HasStart = float64(ans.Value), true
		hinted, _ := search.Search(prob, probe)
		if hinted.Value != ans.Value || len(hinted.Probes) != 2 {
			t.Errorf("Search(p99<=%v, start at the answer) = %v with %d probes, want %v with 2", d, hinted.Value, len(hinted.Probes), ans.Value)
		}
	}
}

// TestSearchDoublesUnresolvedProbes: a probe whose interval straddles the
// threshold is re-run with 8, 16, 32, 64 replications (half-width ∝ 1/√n);
// if it still straddles at the cap it is not the answer, even though its
// midpoint meets the objective: the answer is the smallest value whose
// interval clears it, and the note says the value below is unresolved.
func TestSearchDoublesUnresolvedProbes(t *testing.T) {
	calls := map[float64][]int{}
	probe := func(v float64, n int) (*summary.Summary, error) {
		calls[v] = append(calls[v], n)
		// p99 = 2 s at v = 10 exactly on the threshold; 1.9 s at 11.
		return fakeSummary(2+0.1*(10-v), 0.4/math.Sqrt(float64(n)), n), nil
	}
	prob := search.Problem{SLOs: []search.SLO{{Figure: search.LatencyP99, Threshold: 2}},
		Range: search.Range{Key: "workers", Lo: 1, Hi: 20, Integer: true}, Replications: 8, MaxReplications: 64, Level: 0.95,
		Start: 10, HasStart: true}
	ans, err := search.Search(prob, probe)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(calls[10]); got != "[8 16 32 64]" {
		t.Errorf("replications at the boundary value 10 = %s, want [8 16 32 64]", got)
	}
	// At v = 11 the margin 0.1 s clears the half-width 0.4/√n once
	// 0.4/√n ≤ 0.1, i.e. n = 16.
	if got := fmt.Sprint(calls[11]); got != "[8 16]" {
		t.Errorf("replications at 11 = %s, want [8 16]", got)
	}
	// 10's midpoint is exactly 2 s ≤ 2 s, but its interval never cleared
	// the threshold: 11 is the answer.
	if float64(ans.Value) != 11 || ans.Confidence.Below == nil || ans.Confidence.Below.Value != 10 {
		t.Errorf("answer %v (below %+v), want 11 with 10 below", ans.Value, ans.Confidence.Below)
	}
	if ans.Confidence.Resolved || !ans.Confidence.At.Resolved || ans.Confidence.Below.Resolved || !strings.Contains(ans.Confidence.Note, "workers=10 is UNRESOLVED") {
		t.Errorf("Confidence = %+v, want resolved at 11, unresolved at 10, and a note", ans.Confidence)
	}
	if len(calls[9]) != 0 {
		t.Errorf("probed 9 (%v): below an unresolved value there is nothing to learn", calls[9])
	}
}

// TestAnswerJSON pins the JSON shape other tools read.
func TestAnswerJSON(t *testing.T) {
	prob := search.Problem{SLOs: []search.SLO{{Figure: search.LatencyP99, Threshold: 2}, {Figure: search.Success, Threshold: 0.99}},
		Range: search.Range{Key: "workers", Lo: 1, Hi: 40, Integer: true}, Level: 0.95}
	ans, err := search.Search(prob, func(v float64, n int) (*summary.Summary, error) { return fakeSummary(31/v, 0.05, n), nil })
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ans)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Parameter  *string
		Value      *float64
		Confidence map[string]any
		Probes     []map[string]any
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Parameter == nil || *got.Parameter != "workers" || got.Value == nil || *got.Value != 16 {
		t.Errorf("parameter, value = %v, %v; want workers, 16 (31/16 + 0.05 ≤ 2 < 31/15 − 0.05)\n%s", got.Parameter, got.Value, b)
	}
	for _, k := range []string{"level", "at", "below", "resolved", "note"} {
		if _, ok := got.Confidence[k]; !ok {
			t.Errorf("confidence lacks %q: %v", k, got.Confidence)
		}
	}
	if len(got.Probes) < 2 {
		t.Fatalf("probes = %v, want at least 2", got.Probes)
	}
	for _, p := range got.Probes {
		for _, k := range []string{"value", "p99_s", "success", "ci", "replications", "verdict", "deciding"} {
			if _, ok := p[k]; !ok {
				t.Errorf("probe lacks %q: %v", k, p)
			}
		}
		if ci, ok := p["ci"].([]any); !ok || len(ci) != 2 {
			t.Errorf("probe ci = %v, want [lo, hi]", p["ci"])
		}
	}
}

// mmcScenario is an M/M/c with the given arrival rate, μ = 1/s, and a
// fixed warm-up.
func mmcScenario(t *testing.T, lambda float64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mmc.yaml")
	src := fmt.Sprintf(`name: mmc-plan
seed: 11
runs: 10000
warmup: 1000
arrivals: {rate: %g/s}
workers: 1
steps:
  - {name: serve, tool: server}
tools:
  server:
    latency: {dist: exponential, mean: 1s}
`, lambda)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPlanMatchesErlangC: on M/M/c with μ = 1/s and the objective
// wait_p99 <= 500ms, the plan found by simulation alone (no analytic start,
// bisection over 1..64) equals the exact Erlang C minimum
// analytic.MinServersForWait(λ, 1, 0.99, 0.5) — 10, 14 and 26 servers for
// λ = 5, 9, 20 — or, when the exact boundary is within the simulation's
// noise, is within one server and the answer says it is unresolved.
//
// Why that tolerance is honest: the exact p99 waits at (c*−1, c*) are
// (0.52 s, 0.26 s), (0.69 s, 0.44 s) and (0.61 s, 0.44 s) (analytic
// WaitQuantile). Each probe's verdict comes from a 95% Student-t interval
// over 8–64 replications of 9000 measured runs; a verdict is wrong only if
// an interval that cleared the threshold misses the true p99 on the wrong
// side (≤ 2.5% per probe), and a boundary within the interval is reported
// as unresolved rather than decided. λ = 5 is the close call: 0.52 s is 4%
// above the 500 ms threshold.
func TestPlanMatchesErlangC(t *testing.T) {
	if raceEnabled {
		t.Skip("about 60 s under the race detector; TestSimulatorReusesReplications covers the parallel code")
	}
	slo := search.SLO{Figure: search.WaitP99, Threshold: 0.5}
	for _, lambda := range []float64{5, 9, 20} {
		t.Run(fmt.Sprintf("lambda=%g", lambda), func(t *testing.T) {
			want, err := analytic.MinServersForWait(lambda, 1, 0.99, 0.5)
			if err != nil {
				t.Fatal(err)
			}
			rng := search.Range{Key: "workers", Lo: 1, Hi: 64, Integer: true}
			simr := &search.Simulator{Scenario: mmcScenario(t, lambda), Range: rng, Level: 0.95}
			ans, err := search.Search(search.Problem{SLOs: []search.SLO{slo}, Range: rng, Replications: 8, MaxReplications: 64, Level: 0.95}, simr.Probe)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("λ=%g: %s", lambda, ans.Confidence.Note)
			got := float64(ans.Value)
			switch {
			case got == float64(want):
			case math.Abs(got-float64(want)) == 1 && !ans.Confidence.Resolved:
				t.Logf("λ=%g: simulated %v, Erlang C %d, flagged unresolved: %s", lambda, got, want, ans.Confidence.Note)
			default:
				t.Errorf("plan(λ=%g) = %v workers (resolved %v), want Erlang C's %d: %s", lambda, got, ans.Confidence.Resolved, want, ans.Confidence.Note)
			}
			// The analytic start agrees with Erlang C and, given as the
			// start, leads to the same answer.
			sc, err := scenarios.Load(simr.Scenario, nil)
			if err != nil {
				t.Fatal(err)
			}
			a, ok := search.AnalyticStart(sc.Config, "workers", []search.SLO{slo})
			if !ok || a.Value != float64(want) {
				t.Errorf("AnalyticStart(λ=%g) = %+v, %v; want %d", lambda, a, ok, want)
			}
		})
	}
}

// TestSimulatorReusesReplications: doubling a probe's replications runs
// only the new ones and gives the summary a fresh run of all of them gives,
// whatever the parallelism; moving to another value starts afresh.
func TestSimulatorReusesReplications(t *testing.T) {
	path := mmcScenario(t, 9)
	rng := search.Range{Key: "workers", Lo: 1, Hi: 64, Integer: true}
	summary := func(s *summary.Summary) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	grown := &search.Simulator{Scenario: path, Sets: []string{"runs=2000", "warmup=200"}, Range: rng, Level: 0.95, Parallel: 2}
	if _, err := grown.Probe(12, 3); err != nil {
		t.Fatal(err)
	}
	got, err := grown.Probe(12, 6)
	if err != nil {
		t.Fatal(err)
	}
	fresh := &search.Simulator{Scenario: path, Sets: []string{"runs=2000", "warmup=200"}, Range: rng, Level: 0.95, Parallel: 1}
	want, err := fresh.Probe(12, 6)
	if err != nil {
		t.Fatal(err)
	}
	if summary(got) != summary(want) {
		t.Errorf("Probe(12, 3) then Probe(12, 6) differs from Probe(12, 6)")
	}
	if got.Replications != 6 || got.Confidence == nil {
		t.Errorf("Probe(12, 6): %d replications, confidence %v; want 6 and intervals", got.Replications, got.Confidence)
	}
	other, err := grown.Probe(13, 6)
	if err != nil {
		t.Fatal(err)
	}
	if other.Wait.P99 >= got.Wait.P99 {
		t.Errorf("Probe(13).wait_p99 = %v ≥ Probe(12).wait_p99 = %v: more workers must wait less on common random numbers", other.Wait.P99, got.Wait.P99)
	}
}

func TestAnalyticStart(t *testing.T) {
	mmc, _ := scenarios.Load("mmc", nil) // λ = 9/s, μ = 1/s
	slos := func(s ...string) []search.SLO {
		var out []search.SLO
		for _, x := range s {
			o, err := search.ParseSLO(x)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, o)
		}
		return out
	}
	wq, _ := analytic.MinServersForMeanWait(9, 1, 0.1)
	tests := []struct {
		name string
		slos []search.SLO
		want float64
	}{
		{"success only: the smallest stable c", slos("success>=0.99"), 10},
		{"mean wait", slos("wait_mean<=100ms"), float64(wq)},
		// p99 of the sojourn: a scan of MMc.SojournQuantile; 4.605 s is
		// the service time's own p99, so 6 s needs only a little queueing.
		{"p99 completion", slos("p99<=6s"), firstC(t, 9, func(q analytic.MMc) (float64, error) { return q.SojournQuantile(0.99) }, 6)},
		{"mean completion", slos("mean<=1.1s"), firstC(t, 9, analytic.MMc.MeanSojourn, 1.1)},
	}
	for _, tt := range tests {
		a, ok := search.AnalyticStart(mmc.Config, "workers", tt.slos)
		if !ok || a.Value != tt.want {
			t.Errorf("AnalyticStart(mmc, %s) = %+v, %v; want %v", tt.name, a, ok, tt.want)
		}
	}
	if _, ok := search.AnalyticStart(mmc.Config, "workers", slos("p99<=4s")); ok {
		t.Errorf("AnalyticStart(p99<=4s, below the service time's p99) ok, want no start")
	}
	mmck, _ := scenarios.Load("mmck", nil)
	if _, ok := search.AnalyticStart(mmck.Config, "workers", slos("p99<=6s")); ok {
		t.Errorf("AnalyticStart(mmck) ok, want false: a bounded queue is not M/M/c")
	}
	if _, ok := search.AnalyticStart(mmc.Config, "queue.capacity", slos("p99<=6s")); ok {
		t.Errorf("AnalyticStart(key queue.capacity) ok, want false")
	}
}

// firstC scans c upward for the first M/M/c (λ, μ = 1) whose figure is ≤
// threshold.
func firstC(t *testing.T, lambda float64, f func(analytic.MMc) (float64, error), threshold float64) float64 {
	for c := 1; c < 1000; c++ {
		if x, err := f(analytic.MMc{Lambda: lambda, Mu: 1, C: c}); err == nil && x <= threshold {
			return float64(c)
		}
	}
	t.Fatal("no c found")
	return 0
}

func ExampleParseSLO() {
	for _, s := range []string{"p99<=2s", "wait_p99 <= 500ms", "success>=99%"} {
		o, err := search.ParseSLO(s)
		fmt.Println(o, o.Figure.IsTime(), err)
	}
	_, err := search.ParseSLO("p99<2s")
	fmt.Println(err)
	// Output:
	// p99<=2s true <nil>
	// wait_p99<=500ms true <nil>
	// success>=0.99 false <nil>
	// "p99<2s": p99 is a time and is bounded with <=, got "<"
}

// ExampleSearch sizes a pool whose p99 is 30 s / workers (with a ±50 ms
// interval) against p99 ≤ 2 s; a real caller passes (&Simulator{…}).Probe.
func ExampleSearch() {
	prob := search.Problem{
		SLOs:  []search.SLO{{Figure: search.LatencyP99, Threshold: 2}},
		Range: search.Range{Key: "workers", Lo: 1, Hi: 100, Integer: true},
		Level: 0.95,
	}
	ans, err := search.Search(prob, func(v float64, n int) (*summary.Summary, error) {
		p99 := 31 / v
		s := &summary.Summary{Replications: n, SuccessRate: 1, Latency: summary.Percentiles{N: 1000, P99: p99}}
		s.Confidence = &summary.Confidence{Level: 0.95, Replications: n}
		s.Confidence.Latency.P99 = summary.Interval{Lo: p99 - 0.05, Hi: p99 + 0.05}
		return s, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("workers:", ans.Value, "probes:", len(ans.Probes))
	fmt.Println(ans.Confidence.Note)
	// Output:
	// workers: 16 probes: 9
	// workers=16 meets every objective, its intervals clear every threshold (p99 = 1.938s, CI [1.887s, 1.988s] vs ≤ 2s, 8 replications); workers=15 fails (p99 = 2.067s, CI [2.017s, 2.117s] vs ≤ 2s, 8 replications)
}

// TestSearchInterrupted: a search stopped by Ctrl-C says so, and never
// presents what it has as the answer: Found false must not read as "no
// value in the range meets the objectives".
func TestSearchInterrupted(t *testing.T) {
	// p99 = 20/v ± 0.01 clears 1.02 from v = 20 up.
	prob := search.Problem{SLOs: []search.SLO{{Figure: search.LatencyP99, Threshold: 1.02}},
		Range: search.Range{Key: "workers", Lo: 1, Hi: 1000, Integer: true}, Level: 0.95}
	for _, allowed := range []int{0, 1, 3, 100} {
		calls := 0
		ans, err := search.Search(prob, func(v float64, n int) (*summary.Summary, error) {
			if calls == allowed {
				return nil, search.ErrInterrupted
			}
			calls++
			return fakeSummary(20/v, 0.01, n), nil
		})
		if allowed == 100 {
			// Enough probes to finish: no interruption.
			if err != nil || ans.Interrupted || !ans.Found || ans.Value != 20 {
				t.Fatalf("uninterrupted: err %v, interrupted %v, found %v at %v; want 20", err, ans.Interrupted, ans.Found, ans.Value)
			}
			continue
		}
		if !errors.Is(err, search.ErrInterrupted) || ans == nil || !ans.Interrupted {
			t.Fatalf("interrupted after %d probes: err %v, answer %+v; want ErrInterrupted and Interrupted", allowed, err, ans)
		}
		if len(ans.Probes) != allowed {
			t.Errorf("interrupted after %d probes: %d probes reported", allowed, len(ans.Probes))
		}
		if !strings.HasPrefix(ans.Confidence.Note, "interrupted") {
			t.Errorf("interrupted after %d probes: note %q does not say so", allowed, ans.Confidence.Note)
		}
	}
}

// TestSearchKeyThatHurts: over a key that gets worse as it grows (p99
// rises with v; values up to 5 meet the objective), nothing at the top of
// the range passes but the low end does: the answer is not "none", it says
// the key hurts as it grows, shows the low end's evidence and points to
// sweep. When even the low end fails, the answer stays "none".
func TestSearchKeyThatHurts(t *testing.T) {
	prob := search.Problem{SLOs: []search.SLO{{Figure: search.LatencyP99, Threshold: 5.5}},
		Range: search.Range{Key: "arrivals.rate", Lo: 1, Hi: 40, Integer: true}, Level: 0.95}
	ans, err := search.Search(prob, func(v float64, n int) (*summary.Summary, error) { return fakeSummary(v, 1e-9, n), nil })
	if err != nil {
		t.Fatal(err)
	}
	if ans.Found || !ans.HurtsAsItGrows || ans.Confidence.At == nil || ans.Confidence.At.Value != 1 ||
		!strings.Contains(ans.Confidence.Note, "arrivals.rate hurts as it grows") || !strings.Contains(ans.Confidence.Note, "use --maximize arrivals.rate=1..40") {
		t.Errorf("answer %+v; want not found, hurts as it grows, evidence at 1 and --maximize to run", ans)
	}
	prob.SLOs[0].Threshold = 0.5 // nothing passes, not even 1
	ans, err = search.Search(prob, func(v float64, n int) (*summary.Summary, error) { return fakeSummary(v, 1e-9, n), nil })
	if err != nil {
		t.Fatal(err)
	}
	if ans.Found || ans.HurtsAsItGrows || !strings.HasPrefix(ans.Confidence.Note, "no value up to 40 meets every objective") {
		t.Errorf("answer %+v; want none, not hurts-as-it-grows", ans)
	}
}

// TestLookLevel: a probe judged after 8, 16, 32 and 64 replications has
// four looks, so a 95 % verdict needs 98.75 % intervals; one look keeps the
// level; a last doubling cut short by the maximum still counts.
func TestLookLevel(t *testing.T) {
	for _, tc := range []struct {
		reps, max, looks int
		level, want      float64
	}{
		{8, 64, 4, 0.95, 0.9875},
		{8, 8, 1, 0.95, 0.95},
		{3, 10, 3, 0.99, 1 - 0.01/3},
		{0, 0, 4, 0.9, 0.975}, // the defaults: 8 to 8 × DefaultMaxFactor
	} {
		p := search.Problem{Replications: tc.reps, MaxReplications: tc.max, Level: tc.level}
		if got := p.Looks(); got != tc.looks {
			t.Errorf("Looks(%d..%d) = %d, want %d", tc.reps, tc.max, got, tc.looks)
		}
		if got := p.LookLevel(); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("LookLevel(%d..%d, %v) = %v, want %v", tc.reps, tc.max, tc.level, got, tc.want)
		}
	}
}

// TestSearchNotMonotone: a p99 that is good only in the middle of the
// range (both ends fail) is not "none": the scan finds the passing middle
// and bisects to its smallest value, and the answer says it is not a
// proven minimum.
func TestSearchNotMonotone(t *testing.T) {
	prob := search.Problem{SLOs: []search.SLO{{Figure: search.LatencyP99, Threshold: 4.05}},
		Range: search.Range{Key: "workers", Lo: 1, Hi: 200, Integer: true}, Level: 0.95}
	// p99 ≤ 4.05 exactly for 20 ≤ v ≤ 80.
	ans, err := search.Search(prob, func(v float64, n int) (*summary.Summary, error) {
		return fakeSummary(math.Abs(v-50)/10+1, 1e-9, n), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Found || ans.Value != 20 || !ans.NotMonotone || ans.Confidence.Resolved {
		t.Fatalf("Search = %v (found %v, not monotone %v, resolved %v), want 20, found, not monotone, unresolved",
			ans.Value, ans.Found, ans.NotMonotone, ans.Confidence.Resolved)
	}
	if !strings.HasPrefix(ans.Confidence.Note, "not monotone: workers=1 and workers=200 both fail, but workers=20 meets every objective") {
		t.Errorf("note %q", ans.Confidence.Note)
	}
	// A window the scan's eight probes all miss stays "none".
	prob.SLOs[0].Threshold = 1.5 // 45 ≤ v ≤ 55
	ans, err = search.Search(prob, func(v float64, n int) (*summary.Summary, error) {
		return fakeSummary(math.Abs(v-50)/10+1, 1e-9, n), nil
	})
	if err != nil || ans.Found || ans.NotMonotone {
		t.Fatalf("narrow window: found %v, not monotone %v, err %v; want neither (the scan's probes miss it)", ans.Found, ans.NotMonotone, err)
	}
}

// TestSimulatorReportsProgress: Progress hears of every replication of a
// probe as it is pooled, counting those pooled earlier at the same value,
// and starts from 0 at a new value; the summaries are those of a
// Simulator without it.
func TestSimulatorReportsProgress(t *testing.T) {
	path := mmcScenario(t, 9)
	rng := search.Range{Key: "workers", Lo: 1, Hi: 64, Integer: true}
	sets := []string{"runs=2000", "warmup=200"}
	var got []string
	watched := &search.Simulator{Scenario: path, Sets: sets, Range: rng, Level: 0.95, Parallel: 2,
		Progress: func(v float64, done, n int) { got = append(got, fmt.Sprintf("%g:%d/%d", v, done, n)) }}
	plain := &search.Simulator{Scenario: path, Sets: sets, Range: rng, Level: 0.95, Parallel: 2}
	for _, p := range []struct {
		v float64
		n int
	}{{12, 3}, {12, 5}, {13, 2}} {
		a, err := watched.Probe(p.v, p.n)
		if err != nil {
			t.Fatal(err)
		}
		b, err := plain.Probe(p.v, p.n)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("Probe(%g, %d) with Progress differs from without", p.v, p.n)
		}
	}
	want := "12:0/3 12:1/3 12:2/3 12:3/3 12:3/5 12:4/5 12:5/5 13:0/2 13:1/2 13:2/2"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("Progress calls %s, want %s", s, want)
	}
}
