package recommend_test

import (
	"testing"

	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/recommend"
	"github.com/budgetsim/budgetsim/scenarios"
)

// TestBundledScenarioReplay: on the bundled launch-day scenario (three
// steps, errors, Retry-After, a daily schedule), the recommended ceilings,
// attempts, min_lease and deadline, applied back with --set and replayed on
// fresh random numbers (another seed), meet the 99% success target.
func TestBundledScenarioReplay(t *testing.T) {
	sc, err := scenarios.Load("launch-day", []string{"horizon=6h"})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := recommend.FromResults(sc.Config, replicate.All(sc.Config, 2, 0, system.Options{}), recommend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sets := append([]string{"horizon=6h", "seed=99"}, plan.Sets()...)
	replay, err := scenarios.Load("launch-day", sets)
	if err != nil {
		t.Fatalf("applying %v: %v", sets, err)
	}
	s := summary.Summarize(replay.Config, replicate.All(replay.Config, 2, 0, system.Options{}), 0.95)
	if s.SuccessRate < 0.99 {
		t.Fatalf("replayed success %.4f with %v, want ≥ 0.99 (runs %+v)", s.SuccessRate, plan.Sets(), s.Runs)
	}
}
