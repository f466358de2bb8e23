package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPlanPerClass: plan holds each class of two-classes to its own
// objective. Chat turns wait for workers behind research runs, and their
// p99 objective decides the answer: the smallest worker count whose
// checks all pass, each check named with its class; a class the scenario
// does not have is a usage error naming the classes it has.
func TestPlanPerClass(t *testing.T) {
	base := []string{"plan", "two-classes", "--slo", "chat: p99<=7s", "--slo", "research: success>=0.99", "--runs", "8000", "--replications", "4", "--format", "json"}
	out, errOut, code := runCLI(t, "", append(base, "--search", "workers=6..30")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var ans struct {
		Found  bool    `json:"found"`
		Value  float64 `json:"value"`
		Probes []struct {
			Value  float64 `json:"value"`
			Checks []struct {
				SLO     string `json:"slo"`
				Verdict string `json:"verdict"`
			} `json:"slos"`
		} `json:"probes"`
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatal(err)
	}
	// 8 workers are saturated (offered load 0.98), and chat's p99 then
	// passes 7 s; 14 leave them mostly idle (load 0.56).
	if !ans.Found || ans.Value < 9 || ans.Value > 14 {
		t.Fatalf("found %v at workers=%v; want an answer in 9..14", ans.Found, ans.Value)
	}
	named := false
	for _, p := range ans.Probes {
		for _, c := range p.Checks {
			named = named || c.SLO == "chat: p99<=7s"
			if p.Value == ans.Value && c.Verdict != "pass" {
				t.Errorf("at the answer %v, %s: %s", p.Value, c.SLO, c.Verdict)
			}
		}
	}
	if !named {
		t.Errorf("no check named %q in %s", "chat: p99<=7s", out)
	}
	_, errOut, code = runCLI(t, "", "plan", "two-classes", "--slo", "premium: p99<=7s", "--search", "workers=6..30")
	if code != 2 || !strings.Contains(errOut, `unknown class "premium" (the scenario's classes: chat, research)`) {
		t.Errorf("an unknown class: exit %d, %s", code, errOut)
	}
}
