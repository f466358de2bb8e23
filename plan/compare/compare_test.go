package compare

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// TestPairedDiff: by hand, per-replication p99s of 4, 6, 5 against a
// baseline of 5, 6, 4 differ by −1, 0, +1. The p99's interval is centred
// on the pooled p99s' difference, here 0.5, with S² = (1.5² + 0.5² +
// 0.5²)/2 = 1.375: a 95 % half-width of t₂·S/√3 = 4.302653·1.172604/1.732051
// = 2.912910. The means' is the plain paired interval (mean 0, half-width
// t₂/√3 = 2.484138). A replication in which either side completed nothing
// is left out of the latency differences only; too few replications give
// no figure (nil, never a NaN the JSON encoder refuses).
func TestPairedDiff(t *testing.T) {
	fig := func(success, p99 float64, completed uint64) summary.ReplicationFigure {
		return summary.ReplicationFigure{SuccessRate: success, LatencyMean: p99 / 2, LatencyP99: p99, Completed: completed}
	}
	base := []summary.ReplicationFigure{fig(1, 5, 10), fig(1, 6, 10), fig(1, 4, 10), fig(0, 0, 0)}
	b := []summary.ReplicationFigure{fig(1, 4, 10), fig(1, 6, 10), fig(1, 5, 10), fig(0.5, 3, 5)}
	d := pairedDiff("base", base, b, 5, 5.5, 0.95, false)
	if d.Replications != 4 || d.LatencyP99 == nil || d.LatencyP99.N != 3 || d.SuccessRate.N != 4 {
		t.Fatalf("%+v: want 4 replications, p99 over 3, success over 4", d)
	}
	tol := 3.0 / (1 << 16) // t is rounded to 16 bits
	if p := d.LatencyP99; p.Mean != 0.5 || math.Abs(p.Hi-0.5-2.912910) > tol || math.Abs(p.Lo-0.5+2.912910) > tol {
		t.Errorf("Δ p99 = %+v, want 0.5 ± 2.912910", *p)
	}
	if m := d.LatencyMean; m.Mean != 0 || math.Abs(m.Hi-2.484138/2) > tol {
		t.Errorf("Δ mean = %+v, want 0 ± 2.484138/2 (the means are half the p99s)", *m)
	}
	if math.Abs(d.SuccessRate.Mean-0.125) > 1e-15 {
		t.Errorf("Δ success mean = %v, want (0+0+0+0.5)/4", d.SuccessRate.Mean)
	}
	if pairedDiff("base", base[:1], b[:1], 5, 5.5, 0.95, false) != nil {
		t.Errorf("one replication gave a paired difference")
	}
	// Only one replication completes anything on both sides: no latency
	// differences, and the JSON has none of them.
	d = pairedDiff("base", []summary.ReplicationFigure{fig(1, 5, 10), fig(0, 0, 0)}, []summary.ReplicationFigure{fig(1, 4, 10), fig(1, 4, 10)}, 5, 4, 0.95, false)
	if d.LatencyMean != nil || d.LatencyP99 != nil || d.SuccessRate == nil {
		t.Errorf("%+v: want a success difference and no latency ones", d)
	}
	if _, err := json.Marshal(d); err != nil {
		t.Errorf("JSON: %v", err)
	}
}

// TestPairedDiffFigures: attempts, the peak attempt rate, the cost per
// successful run and the recovery are differenced over the replications
// in which both variants have them; a recovery that never came back (NaN)
// is counted as unpaired, and a scenario without outages has no recovery
// difference at all.
func TestPairedDiffFigures(t *testing.T) {
	nan := math.NaN()
	fig := func(perRun, peak, cost, rec float64) summary.ReplicationFigure {
		return summary.ReplicationFigure{SuccessRate: 1, LatencyMean: 1, LatencyP99: 1, Completed: 5,
			AttemptsPerRun: perRun, PeakAttemptRate: peak, CostPerSuccess: cost, RecoveryAfter: rec}
	}
	base := []summary.ReplicationFigure{fig(2, 10, 1, 5), fig(2, 12, 1, nan), fig(3, 11, 2, 7)}
	b := []summary.ReplicationFigure{fig(1, 5, 0.5, 1), fig(1, 6, 0.5, 2), fig(1, 4, 1, 3)}
	d := pairedDiff("base", base, b, 1, 1, 0.95, true)
	if a := d.AttemptsPerRun; a == nil || a.N != 3 || math.Abs(a.Mean-(-4.0/3)) > 1e-12 {
		t.Errorf("Δ attempts/run = %+v, want mean −4/3 over 3", a)
	}
	if p := d.PeakAttemptRate; p == nil || p.Mean != -6 || !(p.Lo < -6 && p.Hi > -6) {
		t.Errorf("Δ peak = %+v, want −6 inside its interval", p)
	}
	if c := d.CostPerSuccess; c == nil || math.Abs(c.Mean-(-2.0/3)) > 1e-12 {
		t.Errorf("Δ cost = %+v, want −2/3", c)
	}
	if r := d.RecoveryAfter; r == nil || r.N != 2 || r.Mean != -4 || d.RecoveryUnpaired != 1 {
		t.Errorf("Δ recovery = %+v, unpaired %d: want −4 over 2, 1 unpaired", r, d.RecoveryUnpaired)
	}
	if d := pairedDiff("base", base, b, 1, 1, 0.95, false); d.RecoveryAfter != nil || d.RecoveryUnpaired != 0 {
		t.Errorf("without outages: recovery %+v, unpaired %d", d.RecoveryAfter, d.RecoveryUnpaired)
	}
	unmetered := []summary.ReplicationFigure{fig(1, 1, nan, nan), fig(1, 1, nan, nan)}
	if d := pairedDiff("base", unmetered, unmetered, 1, 1, 0.95, false); d.CostPerSuccess != nil {
		t.Errorf("unmetered: cost difference %+v", d.CostPerSuccess)
	}
}

// budgetScenario has a retry budget that a variant removes.
const budgetScenario = `name: budget
seed: 3
runs: 400
arrivals: {rate: 20/s}
workers: 50
retry:
  attempts: 4
  idempotent: true
  budget: {kind: token_bucket}
steps:
  - {name: call, tool: api, timeout: 200ms}
tools:
  api:
    latency: {dist: exponential, mean: 100ms}
    errors: {transient: 0.5}
`

// TestRunRemovesAKey: a variant that unsets the retry budget runs without
// one while its baseline keeps it, on the same random numbers; the names
// label the summaries and the paired difference.
func TestRunRemovesAKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "budget.yaml")
	if err := os.WriteFile(path, []byte(budgetScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := ParseVariants("v.yaml", []byte("- name: budgeted\n- name: unbudgeted\n  unset: [retry.budget]\n"))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := Grid([]Axis{a})
	if err != nil {
		t.Fatal(err)
	}
	var budgets []bool
	var progress [][4]int
	res, err := Run(Spec{Scenario: path, Variants: vs, Replications: 2, Level: 0.95, Parallel: 1}, Options{
		Each: func(v Variant, cfg *system.Config, acc *summary.Accumulator, first *system.Result) error {
			budgets = append(budgets, cfg.Steps[0].Budget != nil)
			return nil
		},
		Progress: func(vd, v, rd, r int) { progress = append(progress, [4]int{vd, v, rd, r}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(budgets, []bool{true, false}) {
		t.Errorf("budgets %v, want the first variant's alone", budgets)
	}
	if len(res.Variants) != 2 || res.Variants[0].Name != "budgeted" || res.Variants[1].Name != "unbudgeted" ||
		!slices.Equal(res.Variants[1].Unset, []string{"retry.budget"}) || res.Variants[1].Difference.Baseline != "budgeted" {
		t.Errorf("result %+v", res.Variants)
	}
	// Without a budget every failed call is retried: more attempts per run.
	if !(res.Variants[1].Attempts.PerRun > res.Variants[0].Attempts.PerRun) {
		t.Errorf("attempts/run %v without a budget, %v with: want more without", res.Variants[1].Attempts.PerRun, res.Variants[0].Attempts.PerRun)
	}
	if last := progress[len(progress)-1]; last != [4]int{2, 2, 4, 4} {
		t.Errorf("last progress %v, want 2 of 2 variants, 4 of 4 replications", last)
	}
	if _, err := Run(Spec{Scenario: path, Variants: []Variant{{Label: "bad", Choices: []Choice{{Unset: []string{"retry.budgett"}}}}}, Replications: 1, Level: 0.95}, Options{}); err == nil ||
		!strings.Contains(err.Error(), `variant bad: --unset retry.budgett: retry: has no key "budgett" to remove (did you mean "budget"?)`) {
		t.Errorf("bad unset: %v", err)
	}
}
