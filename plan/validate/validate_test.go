package validate

import "testing"

// TestClosedForms runs every validated model and requires each analytic
// value to lie inside its Student-t interval over 10 replications, at a
// family-wise level of 99.9% (Bonferroni over the 44 checks; percentiles
// widened by the sketch's relative error). A correct simulator fails by
// chance with probability below 0.1%; the seeds are fixed, so the outcome
// is reproducible, and TestDetectsABias shows a 5% bias falls outside.
func TestClosedForms(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates about 12 million runs")
	}
	rep, err := Run(Options{Replications: 10, Level: 0.999})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Checks) < 15 {
		t.Fatalf("only %d checks ran", len(rep.Checks))
	}
	utilisation := 0
	for _, c := range rep.Checks {
		if c.Figure == "worker utilisation" {
			utilisation++
		}
	}
	if utilisation != 8 {
		t.Errorf("%d worker-utilisation checks, want one per model but the tool queue (8)", utilisation)
	}
	for _, c := range rep.Checks {
		if !c.Pass {
			t.Errorf("%s %s: analytic %.6g outside [%.6g, %.6g] ± %.3g (%s)", c.Model, c.Figure, c.Analytic, c.Lo, c.Hi, c.Allowance, c.Formula)
		}
		if c.Hi-c.Lo <= 0 && c.Allowance == 0 {
			t.Errorf("%s %s: empty interval", c.Model, c.Figure)
		}
	}
}

// TestDetectsABias: the checks must have power: on the M/D/1, M/M/c/K,
// priority M/G/1 and token-limit models a value 5% off the closed form must fall outside
// every interval
// (Little's identity excluded: its analytic value is 0).
func TestDetectsABias(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates")
	}
	rep, err := Run(Options{Replications: 10, Level: 0.999, Only: []string{"md1", "mmck", "priority-mg1", "token-limit", "token-queue"}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range rep.Checks {
		if c.Analytic == 0 {
			continue
		}
		n++
		for _, biased := range []float64{c.Analytic * 1.05, c.Analytic * 0.95} {
			if biased >= c.Lo-c.Allowance && biased <= c.Hi+c.Allowance {
				t.Errorf("%s %s: a 5%% bias (%.4g) lies inside [%.4g, %.4g]: the check has no power", c.Model, c.Figure, biased, c.Lo, c.Hi)
			}
		}
	}
	if n < 4 {
		t.Fatalf("only %d checks", n)
	}
}

// TestSeedReplacesScenarioSeeds: Options.Seed reaches the simulations (the
// simulated figures move) and leaves the closed forms alone.
func TestSeedReplacesScenarioSeeds(t *testing.T) {
	run := func(opt Options) Report {
		opt.Only, opt.Replications = []string{"mm1"}, 3
		rep, err := Run(opt)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	own, seeded := run(Options{}), run(Options{Seed: 12345, HasSeed: true})
	if len(own.Checks) == 0 || len(own.Checks) != len(seeded.Checks) {
		t.Fatalf("%d and %d checks", len(own.Checks), len(seeded.Checks))
	}
	moved := 0
	for i := range own.Checks {
		if own.Checks[i].Analytic != seeded.Checks[i].Analytic {
			t.Errorf("%s: analytic %v vs %v: a seed changed a closed form", own.Checks[i].Figure, own.Checks[i].Analytic, seeded.Checks[i].Analytic)
		}
		if own.Checks[i].Simulated != seeded.Checks[i].Simulated {
			moved++
		}
	}
	if moved == 0 {
		t.Errorf("no simulated figure moved with another seed: the seed did not reach the simulations")
	}
}

// TestClosedPopulationsAgainstMVA: the closed cases run agent-fleet with
// their overrides (recorded in each check), and a throughput 2% off exact
// MVA, about what measuring through the population's wind-down cost,
// falls outside the interval.
func TestClosedPopulationsAgainstMVA(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates")
	}
	rep, err := Run(Options{Replications: 10, Level: 0.999, Only: []string{"closed-mm1", "closed-mmc"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Checks) != 10 {
		t.Fatalf("%d checks, want 5 per closed case", len(rep.Checks))
	}
	for _, c := range rep.Checks {
		if c.Base != "agent-fleet" || len(c.Sets) == 0 {
			t.Errorf("%s %s: base %q, sets %q: a check must say what it ran", c.Model, c.Figure, c.Base, c.Sets)
		}
		if !c.Pass {
			t.Errorf("%s %s: analytic %.6g outside [%.6g, %.6g]", c.Model, c.Figure, c.Analytic, c.Lo, c.Hi)
		}
		if c.Figure == "throughput (runs/s)" {
			if low := c.Analytic * 0.98; low >= c.Lo && low <= c.Hi {
				t.Errorf("%s: a throughput 2%% low (%.4g) lies inside [%.4g, %.4g]: the check has no power", c.Model, low, c.Lo, c.Hi)
			}
		}
	}
}
