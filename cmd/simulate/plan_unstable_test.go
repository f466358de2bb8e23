package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanNeverAnswersUnstable: M/M/c at λ = 9/s with 1 s service and no
// deadline "succeeds" 100 % at any number of workers, because every run
// completes eventually, however late: at 5 workers (ρ = 1.8) the p99 is
// hours. plan must not answer such a value: the answer is 10, the smallest
// stable one, and the table and plan.json show the offered utilisation,
// the bottleneck, the figure at the next lower value and why it is not an
// answer.
func TestPlanNeverAnswersUnstable(t *testing.T) {
	dir := t.TempDir()
	args := []string{"plan", "mmc", "--slo", "success>=0.99", "--search", "workers=1..40", "--runs", "50000"}
	out, errOut, code := runCLI(t, "", append(args, "--out", dir, "--wide")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"peak offered load", "bottleneck (load)", "workers (", "not an answer (unstable)",
		"answer: workers=10, the smallest value whose intervals clear every objective",
		"  at workers=10: success>=0.99: 100.00% [100.00%, 100.00%] (8 replications): its interval clears the threshold",
		"  at workers=9: success>=0.99:",
		"warning: workers=9 is not an answer: offered utilisation 1 ≥ 1 at the workers: the system is unstable"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ans struct {
		Value    float64  `json:"value"`
		Found    bool     `json:"found"`
		Warnings []string `json:"warnings"`
		Probes   []struct {
			Value       float64  `json:"value"`
			Utilisation float64  `json:"utilisation"`
			Bottleneck  string   `json:"bottleneck"`
			NotAnAnswer string   `json:"not_an_answer"`
			Warnings    []string `json:"warnings"`
		} `json:"probes"`
	}
	if err := json.Unmarshal(b, &ans); err != nil {
		t.Fatal(err)
	}
	if !ans.Found || ans.Value != 10 || len(ans.Warnings) == 0 {
		t.Fatalf("plan.json: found %v at %v with warnings %q; want 10 and warnings", ans.Found, ans.Value, ans.Warnings)
	}
	for _, p := range ans.Probes {
		if p.Value < 10 && (p.NotAnAnswer == "" || p.Utilisation < 1 || len(p.Warnings) == 0 || p.Bottleneck != "workers") {
			t.Errorf("plan.json probe %+v: want not an answer, utilisation ≥ 1, the summary's warnings and workers as bottleneck", p)
		}
	}
}
