package main

import (
	"encoding/json"
	"testing"
)

// TestPlanFindsTheBindingConstraint: on the bundled tool-bottleneck
// scenario no number of workers meets 99% success, and plan names the
// rate-limited search tool as the binding constraint; searching the tool's
// rate limit instead finds a value a little above the 5 runs/s that arrive.
func TestPlanFindsTheBindingConstraint(t *testing.T) {
	base := []string{"plan", "tool-bottleneck", "--slo", "success>=0.99", "--runs", "6000", "--set", "warmup=500", "--replications", "4", "--format", "json"}
	out, errOut, code := runCLI(t, "", append(base, "--search", "workers=1..200")...)
	if code != 1 {
		t.Fatalf("workers: exit %d, want 1 (nothing meets the SLO): %s", code, errOut)
	}
	var ans struct {
		Found      bool    `json:"found"`
		Value      float64 `json:"value"`
		Bottleneck string  `json:"bottleneck"`
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatal(err)
	}
	if ans.Found || ans.Bottleneck != "search" {
		t.Fatalf("workers: found %v, bottleneck %q; want none found and search named", ans.Found, ans.Bottleneck)
	}
	out, errOut, code = runCLI(t, "", append(base, "--search", "tools.search.rate_limit.rate=1/s..20/s")...)
	if code != 0 {
		t.Fatalf("rate: exit %d: %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatal(err)
	}
	if !ans.Found || ans.Value < 5 || ans.Value > 7 {
		t.Fatalf("rate: found %v at %v/s; want a limit a little above the 5 runs/s arriving", ans.Found, ans.Value)
	}
}
