package validate

import "testing"

// TestClosedForms runs every validated model and requires each analytic
// value to lie inside the 99.9% Student-t interval of 10 replications
// (widened by the sketch's relative error for percentiles). With about 20
// checks, a correct simulator fails one by chance with probability about
// 2%; the seeds are fixed, so the outcome is reproducible, and a real bias
// (say 2% on a mean) lies far outside these intervals.
func TestClosedForms(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates about 11 million runs")
	}
	rep, err := Run(Options{Replications: 10, Level: 0.999})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Checks) < 15 {
		t.Fatalf("only %d checks ran", len(rep.Checks))
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

// TestDetectsABias: the same machinery must reject a wrong closed form. We
// feed the M/M/c check a mean wait 5% off and expect it to fail.
func TestDetectsABias(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates")
	}
	ms := models()
	var mmc model
	for _, m := range ms {
		if m.scenario == "mmc" {
			mmc = m
		}
	}
	rep, err := Run(Options{Replications: 10, Level: 0.999, Only: []string{"mmc"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		if c.Figure == "mean runs in system" {
			biased := c.Analytic * 1.05
			if biased >= c.Lo && biased <= c.Hi {
				t.Fatalf("a 5%% bias (%.4g) lies inside [%.4g, %.4g]: the check has no power", biased, c.Lo, c.Hi)
			}
			return
		}
	}
	t.Fatalf("no 'mean runs in system' check for %s", mmc.name)
}
