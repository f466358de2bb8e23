package search_test

import (
	"math"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/plan/search"
	"github.com/budgetsim/budgetsim/scenarios"
)

// unstableBelow10 is an M/M/c-like pool at λ = 9/s, μ = 1/s, as a system
// with no deadline shows it: below 10 workers the queue grows without
// bound, yet every run completes eventually, so the success rate is 100 %
// everywhere and only the p99 (hours) gives it away.
func unstableBelow10(v float64, n int) (*summary.Summary, error) {
	s := fakeSummary(5, 0.1, n)
	if v < 10 {
		s.Latency.P99 = 3600 * (10 - v)
		s.Confidence.Latency.P99 = summary.Interval{Lo: s.Latency.P99 - 60, Hi: s.Latency.P99 + 60}
	}
	return s, nil
}

// offeredMMc is Problem.Offered for unstableBelow10: ρ = 9/v.
func offeredMMc(v float64) (search.Offered, error) {
	rho := 9 / v
	off := search.Offered{Utilisation: rho}
	if rho >= 1 {
		off.Overload = "offered utilisation ≥ 1 at the workers"
	}
	return off, nil
}

// TestSearchNeverAnswersOverloaded: a value whose offered load exceeds a
// capacity is not the answer, however well its success rate does: from
// any start and with or without bisection the answer is 10, the smallest
// stable value, and the value below it is reported as not an answer, in
// the confidence note and the warnings.
func TestSearchNeverAnswersOverloaded(t *testing.T) {
	for _, start := range []float64{0, 3, 5, 10, 30} {
		prob := search.Problem{SLOs: []search.SLO{{Figure: search.Success, Threshold: 0.99}},
			Range: search.Range{Key: "workers", Lo: 1, Hi: 40, Integer: true}, Level: 0.95, Offered: offeredMMc}
		prob.Start, prob.HasStart = start, start > 0
		ans, err := search.Search(prob, unstableBelow10)
		if err != nil {
			t.Fatal(err)
		}
		if !ans.Found || ans.Value != 10 {
			t.Fatalf("start %v: Search = %v (found %v), want 10: %s", start, ans.Value, ans.Found, ans.Confidence.Note)
		}
		below := ans.Confidence.Below
		if below == nil || below.Value != 9 || below.NotAnAnswer == "" {
			t.Fatalf("start %v: Confidence.Below = %+v, want workers=9, not an answer", start, below)
		}
		if !strings.Contains(ans.Confidence.Note, "workers=9 is not an answer: offered utilisation ≥ 1") {
			t.Errorf("start %v: note %q does not say why 9 is not the answer", start, ans.Confidence.Note)
		}
		found := false
		for _, w := range ans.Warnings {
			found = found || strings.HasPrefix(w, "workers=9 is not an answer")
		}
		if !found {
			t.Errorf("start %v: warnings %q do not name workers=9", start, ans.Warnings)
		}
		for _, pr := range ans.Probes {
			if want := 9 / pr.Value; float64(pr.Utilisation) != want {
				t.Errorf("start %v: probe %v utilisation %v, want %v", start, pr.Value, pr.Utilisation, want)
			}
			if (pr.Value < 10) != (pr.NotAnAnswer != "") || (pr.Value < 10 && pr.Answers()) {
				t.Errorf("start %v: probe %v NotAnAnswer %q, Answers %v", start, pr.Value, pr.NotAnAnswer, pr.Answers())
			}
		}
	}
}

// TestSearchSkipsUntrustedFigures: without Offered, a summary that a guard
// stopped (Partial) or that left runs in flight cannot be the answer
// either, and more replications are not spent on it.
func TestSearchSkipsUntrustedFigures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(s *summary.Summary)
		why   string
	}{
		{"partial", func(s *summary.Summary) { s.Partial = true }, "a guard stopped its simulations"},
		{"in flight", func(s *summary.Summary) { s.Runs.Arrived, s.Runs.InFlight = 1007, 7 }, "7 runs were still in flight"},
	} {
		calls := map[float64]int{}
		prob := search.Problem{SLOs: []search.SLO{{Figure: search.LatencyP99, Threshold: 2}},
			Range: search.Range{Key: "workers", Lo: 1, Hi: 40, Integer: true}, Level: 0.95}
		ans, err := search.Search(prob, func(v float64, n int) (*summary.Summary, error) {
			calls[v]++
			s := fakeSummary(1, 2, n) // straddles 2 s: would be re-run
			if v >= 12 {
				s = fakeSummary(1, 0.1, n)
			} else if v <= 5 {
				tc.spoil(s)
			}
			return s, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !ans.Found || ans.Value != 12 {
			t.Fatalf("%s: Search = %v (found %v), want 12", tc.name, ans.Value, ans.Found)
		}
		for _, pr := range ans.Probes {
			if pr.Value <= 5 {
				if !strings.Contains(pr.NotAnAnswer, tc.why) {
					t.Errorf("%s: probe %v NotAnAnswer %q, want %q", tc.name, pr.Value, pr.NotAnAnswer, tc.why)
				}
				if calls[pr.Value] != 1 {
					t.Errorf("%s: probe %v run %d times, want once (more replications cannot make it an answer)", tc.name, pr.Value, calls[pr.Value])
				}
			}
		}
	}
}

// TestOfferedLoad: the offered load of bundled scenarios, by the formulas
// system.OfferedUtilisation and system.OfferedToolLoads use: M/M/c at
// λ = 9/s and 1 s service on 5 workers is ρ = 1.8 (unstable with no
// bound; with a bounded queue at least 1 − 1/1.8 = 44.4 % is shed); the
// tool-bottleneck scenario needs 5 search calls/s from a 2/s client-side
// limit (60 % cannot be made) whatever its workers.
func TestOfferedLoad(t *testing.T) {
	load := func(name string, sets ...string) search.Offered {
		t.Helper()
		sc, err := scenarios.Load(name, sets)
		if err != nil {
			t.Fatal(err)
		}
		return search.OfferedLoad(sc.Config)
	}
	for _, tc := range []struct {
		name string
		sets []string
		rho  float64
		want string // in Overload; "" for none
	}{
		{"mmc", nil, 0.9, ""},
		{"mmc", []string{"workers=5"}, 1.8, "offered utilisation 1.8 ≥ 1 at the workers: the system is unstable"},
		{"mmc", []string{"workers=9"}, 1, "offered utilisation 1 ≥ 1 at the workers: the system is unstable"},
		{"mmc", []string{"workers=5", "queue.capacity=10"}, 1.8, "overloaded: at least 44.4% of the work cannot be served"},
		{"tool-bottleneck", []string{"workers=200"}, math.NaN(), "tool search: the arrivals need 5 calls/s and its client-side rate limit allows 2/s, so at least 60% of the calls cannot be made"},
		{"tool-bottleneck", []string{"tools.search.rate_limit.rate=6/s"}, math.NaN(), ""},
		{"mmc", []string{"tools.server.latency={dist: pareto, min: 400ms, alpha: 1.5}"}, 1.08, "offered utilisation 1.08 ≥ 1 at the workers: the system is unstable"},
	} {
		off := load(tc.name, tc.sets...)
		if !math.IsNaN(tc.rho) && math.Abs(off.Utilisation-tc.rho) > 1e-12 {
			t.Errorf("%s %v: utilisation %v, want %v", tc.name, tc.sets, off.Utilisation, tc.rho)
		}
		if (tc.want == "") != (off.Overload == "") || !strings.Contains(off.Overload, tc.want) {
			t.Errorf("%s %v: overload %q, want %q", tc.name, tc.sets, off.Overload, tc.want)
		}
		// Unstable: overloaded with nothing to bound the queue.
		if want := strings.Contains(tc.want, "unstable"); off.Unstable != want {
			t.Errorf("%s %v: Unstable %v, want %v", tc.name, tc.sets, off.Unstable, want)
		}
	}
}

// TestMeansOfHeavyTails: with Pareto latency of tail index 1.5 (infinite
// variance) the intervals of mean figures cover the true mean less often
// than stated, so a value checked against a mean objective is not an
// answer; a percentile objective is unaffected.
func TestMeansOfHeavyTails(t *testing.T) {
	sc, err := scenarios.Load("mmc", []string{"workers=20", "tools.server.latency={dist: pareto, min: 400ms, alpha: 1.5}"})
	if err != nil {
		t.Fatal(err)
	}
	off := search.OfferedLoad(sc.Config)
	if off.Overload != "" || !strings.Contains(off.MeansUnreliable, "tool server's latency has infinite variance (tail index 1.5 ≤ 2)") {
		t.Fatalf("OfferedLoad = %+v", off)
	}
	for _, tc := range []struct {
		slo    search.SLO
		answer bool
	}{
		{search.SLO{Figure: search.LatencyMean, Threshold: 5}, false},
		{search.SLO{Figure: search.WaitMean, Threshold: 5}, false},
		{search.SLO{Figure: search.LatencyP99, Threshold: 5}, true},
	} {
		prob := search.Problem{SLOs: []search.SLO{tc.slo}, Range: search.Range{Key: "workers", Lo: 1, Hi: 40, Integer: true}, Level: 0.95,
			Offered: func(float64) (search.Offered, error) { return off, nil }}
		ans, err := search.Search(prob, func(v float64, n int) (*summary.Summary, error) {
			s := fakeSummary(1, 0.1, n)
			s.Latency.Mean, s.Wait.Mean = 1, 1
			s.Confidence.Latency.Mean = summary.Interval{Lo: 0.9, Hi: 1.1}
			s.Confidence.Wait.Mean = summary.Interval{Lo: 0.9, Hi: 1.1}
			return s, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if ans.Found != tc.answer {
			t.Errorf("%s: found %v, want %v: %s", tc.slo, ans.Found, tc.answer, ans.Confidence.Note)
		}
		if !tc.answer && !strings.Contains(ans.Confidence.Note, tc.slo.String()+" cannot be checked: tool server's latency has infinite variance") {
			t.Errorf("%s: note %q does not say why", tc.slo, ans.Confidence.Note)
		}
	}
}

// TestOfferedPeak: the peak offered load is the resource that saturates
// first, which need not be the workers. In agent-service (4 runs/s, each
// one search call and one model call of mean latency 1.79 s, 32 workers):
// with 4 model slots the model is offered 4 × 1.79 / 4 = 1.79; with 32 it
// is 0.22, and search's server-enforced limit of 6 calls/s, asked for 4,
// is the most loaded at 4/6.
func TestOfferedPeak(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		at   string
		peak float64
	}{
		{[]string{"tools.model.concurrency=4"}, "model", 4 * 1.79 / 4},
		{[]string{"tools.model.concurrency=32"}, "search", 4.0 / 6},
		{[]string{"tools.model.concurrency=32", "tools.search.rate_limit.rate=600/s", "workers=8"}, "workers", math.NaN()},
	} {
		sc, err := scenarios.Load("agent-service", tc.sets)
		if err != nil {
			t.Fatal(err)
		}
		off := search.OfferedLoad(sc.Config)
		if off.PeakAt != tc.at {
			t.Errorf("%v: peak at %q, want %q", tc.sets, off.PeakAt, tc.at)
		}
		want := tc.peak
		if math.IsNaN(want) {
			want = off.Utilisation // at the workers: their offered utilisation
		}
		if math.Abs(off.Peak-want) > 0.01*want {
			t.Errorf("%v: peak %v, want %v", tc.sets, off.Peak, want)
		}
	}
}
