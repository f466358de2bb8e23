package system_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// audited runs cfg with Options.Audit and fails the test on a bookkeeping
// violation.
func audited(t *testing.T, cfg *system.Config) *system.Result {
	t.Helper()
	m := system.New(cfg, system.Options{Audit: true})
	res := m.Run()
	if err := m.Audit(); err != nil {
		t.Fatalf("audit: %v", err)
	}
	if err := res.Runs.Check(); err != nil {
		t.Fatalf("runs: %v (%+v)", err, res.Runs)
	}
	return res
}

// TestHedgeOnClientTokenLimit is the composition that panicked: a hedged
// model call waiting for its client-side token reservation is cancelled
// when the other attempt wins, and its wake must not dial a freed slot
// (with two attempts it indexed past a group's members; with three it
// reached hedgeNow on a freed group).
func TestHedgeOnClientTokenLimit(t *testing.T) {
	for _, attempts := range []string{"2", "3"} {
		t.Run(attempts, func(t *testing.T) {
			cfg := load(t, "model-api", "runs=3000", "warmup=0", "tools.llm.rate_limit.enforce=client",
				"steps.answer.hedge={delay: 2s, max_attempts: "+attempts+"}")
			res := audited(t, cfg)
			if res.Groups[0].Hedges == 0 || res.Groups[0].Cancelled == 0 {
				t.Fatalf("no hedge launched or cancelled (%+v): the test does not reach the composition", res.Groups[0])
			}
		})
	}
}

// TestCancelledMemberGivesBackItsTokens: a member of a parallel `first`
// group that is cancelled while it holds its client-side token
// reservation gives it back, so every call that reaches the model API has
// reserved its own tokens. With the reservation leaked, the next run in
// the member's slot skipped its wait: calls outnumbered reservations.
func TestCancelledMemberGivesBackItsTokens(t *testing.T) {
	for name, set := range map[string]string{
		"hedge": "steps.answer.hedge={delay: 2s, max_attempts: 3}",
		"first": "steps=[{name: plan, parallel: [{name: a, tool: llm}, {name: b, tool: llm}], wait: {first: 1}}]",
	} {
		t.Run(name, func(t *testing.T) {
			cfg := load(t, "model-api", "runs=3000", "warmup=0", "tools.llm.rate_limit.enforce=client", set)
			res := audited(t, cfg)
			tk := res.Tokens[1]
			if tk.Calls > tk.Reserve {
				t.Fatalf("%d calls reached the model API on %d client-side reservations: a reservation was used twice", tk.Calls, tk.Reserve)
			}
			if res.Attempts.Cancelled == 0 {
				t.Fatal("no call was cancelled: the test does not reach the composition")
			}
		})
	}
}

// TestHedgeThatCannotFireChangesNothing: a hedge whose delay is longer
// than any call can take, on a tool that never fails (a failed hedged
// attempt launches the next at once), never launches, and the run's
// figures are those of the same scenario without it.
func TestHedgeThatCannotFireChangesNothing(t *testing.T) {
	base := []string{"runs=2000", "warmup=0", "tools.llm.rate_limit.enforce=client", "tools.llm.errors.transient=0", "deadline=10m"}
	plain := audited(t, load(t, "model-api", base...))
	hedged := audited(t, load(t, "model-api", append(base, "steps.answer.hedge={delay: 10m, max_attempts: 2}")...))
	if hedged.Groups[0].Hedges != 0 {
		t.Fatalf("%d hedges launched with a 10-minute delay", hedged.Groups[0].Hedges)
	}
	if plain.Runs != hedged.Runs {
		t.Fatalf("runs: %+v without the hedge, %+v with it", plain.Runs, hedged.Runs)
	}
	if plain.Attempts != hedged.Attempts {
		t.Fatalf("attempts: %+v without the hedge, %+v with it", plain.Attempts, hedged.Attempts)
	}
	if plain.Tokens[1] != hedged.Tokens[1] {
		t.Fatalf("tokens: %+v without the hedge, %+v with it", plain.Tokens[1], hedged.Tokens[1])
	}
	if plain.Cost.Spent != hedged.Cost.Spent {
		t.Fatalf("cost: %v without the hedge, %v with it", plain.Cost.Spent, hedged.Cost.Spent)
	}
}

// TestComposedScenarios runs the scenarios under testdata/compose, each a
// combination of features the key-table generator drew that once crashed
// or broke a conservation law (the file's first line says how), with the
// bookkeeping audited.
func TestComposedScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/compose/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios under testdata/compose (%v)", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			sc, err := scenarios.Load(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			res := audited(t, sc.Config)
			if res.Runs.InFlight != 0 || res.Stopped != "" {
				t.Fatalf("%d runs in flight, stopped %q", res.Runs.InFlight, res.Stopped)
			}
			for i, ts := range res.Tools {
				// Wasted work is part of the busy time, in the same window.
				if ts.WastedSeconds > ts.BusySeconds*(1+1e-9) {
					t.Errorf("tool %s: %v s wasted of %v s busy", sc.Config.Tools[i].Name, ts.WastedSeconds, ts.BusySeconds)
				}
			}
		})
	}
}

// TestTokenCostIsCappedAtItsReservation: a call whose output outruns the
// tokens it reserved (reserve_output, no max_output) settles at most its
// reservation, counted as an overrun, as usage is ("the maximum is the
// contract"); the ledger refused such a settlement with a panic.
func TestTokenCostIsCappedAtItsReservation(t *testing.T) {
	sc, err := scenarios.Load("testdata/compose/token-cost-above-reservation.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	res := audited(t, sc.Config)
	if res.Cost.Overrun == 0 {
		t.Fatal("no call overran its reservation: the test does not reach the case")
	}
	if res.Cost.Spent <= 0 {
		t.Fatalf("spent %v", res.Cost.Spent)
	}
}
