package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/internal/report"
	"github.com/budgetsim/budgetsim/plan/search"
)

// gridArgs is a small cheapest-configuration question on the bundled
// coding agent: its two providers' tiers (docs/examples) × two model
// concurrencies, 2,000 runs, 4 to 8 replications.
func gridArgs(extra ...string) []string {
	return append([]string{"plan", "coding-agent", "--slo", "success>=0.99", "--minimize", "cost",
		"--tiers", "../../docs/examples/coding-agent-providers.yaml", "--over", "tools.model.concurrency=24,48",
		"--set", "runs=2000", "--set", "warmup=200", "--replications", "4", "--max-replications", "8"}, extra...)
}

// TestPlanGrid runs plan --minimize cost end to end: every configuration is
// simulated; the cheapest meets the objective and is the Anthropic tier
// with the 5-minute cache (the 1-hour cache costs more for the same runs,
// and OpenAI's TPM counting turns calls away, as docs/case-studies.md
// explains); the file it writes reads back, renders as a page with the
// frontier chart, and is the same bytes on a second run; costs are
// labelled with the scenario's currency.
func TestPlanGrid(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCLI(t, "", gridArgs("--out", dir)...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"cost/success (USD)", "exhaustive: each of the 8 configurations simulated", "cheapest: #", "tier=anthropic-5m", "frontier (p99, cost per successful run)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(outputs.GridJSON.Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	pf, err := search.ReadGridPlanFile(bytes.NewReader(data), outputs.GridJSON.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(pf.Candidates) != 8 || !pf.Found || pf.Currency != "USD" {
		t.Fatalf("%d candidates, found %v, currency %q: want 8, found, USD", len(pf.Candidates), pf.Found, pf.Currency)
	}
	best := pf.Candidates[pf.Cheapest]
	if best.Labels[1] != "anthropic-5m" || !best.Feasible {
		t.Fatalf("cheapest %v (feasible %v), want an anthropic-5m configuration", best.Labels, best.Feasible)
	}
	for i, c := range pf.Candidates {
		if strings.HasPrefix(c.Labels[1], "openai") && (c.Feasible || c.Success.Estimate > 0.9) {
			t.Errorf("#%d %v: success %v, feasible %v; OpenAI's TPM should cap success well below 99%%", i+1, c.Labels, c.Success.Estimate, c.Feasible)
		}
		// The 1-hour cache runs the same calls (the same p99 within its
		// interval) at a higher cache-write price: dearer beyond the
		// paired interval than the 5-minute cache at the same concurrency.
		if c.Labels[1] == "anthropic-1h" && c.Labels[0] == best.Labels[0] {
			if d := c.CostVsCheapest; c.Feasible && (d == nil || !d.Above()) {
				t.Errorf("#%d %v: paired cost difference %+v, want above 0", i+1, c.Labels, d)
			}
		}
	}
	if len(pf.Frontier) == 0 {
		t.Error("no frontier")
	}
	// Same scenario and seed: the same bytes, and the JSON on stdout is
	// the file.
	js, errOut, code := runCLI(t, "", gridArgs("--format", "json")...)
	if code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errOut)
	}
	if js != string(data) {
		t.Error("plan --format json differs from the grid.json of the same scenario and seed")
	}
	// The page: the decision, the table and the frontier chart.
	d, err := charts.ReadDir(dir, search.ParseObjective)
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.FromDir(d, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := r.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{"Configurations and the cost–latency frontier", "cost/success (USD)", "CHEAPEST", "anthropic-5m", "Cost per successful run vs p99", "<svg"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(html, ">Charts<") {
		t.Error("the page has an empty Charts section")
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(js), &raw); err != nil || raw["minimize"] != "cost per successful run" {
		t.Errorf("JSON: %v, minimize %v", err, raw["minimize"])
	}
}

// TestPlanGridNothingFeasible: when no configuration meets an objective,
// plan exits 1 and says which objective, the best it reaches, and what
// caps it.
func TestPlanGridNothingFeasible(t *testing.T) {
	args := gridArgs()
	args[3] = "success>=0.999"
	out, _, code := runCLI(t, "", args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	for _, want := range []string{"cheapest: none of the configurations meets every objective", "why: success reaches at best", "what caps it:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestPlanGridUsage: the flags' mistakes are usage errors (exit 2) that
// name the flag.
func TestPlanGridUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "coding-agent", "--slo", "success>=0.99", "--over", "tools.model.concurrency=8,16"}, "add --minimize cost"},
		{[]string{"plan", "coding-agent", "--slo", "success>=0.99", "--minimize", "latency", "--over", "tools.model.concurrency=8,16"}, "only cost"},
		{[]string{"plan", "coding-agent", "--slo", "success>=0.99", "--minimize", "cost"}, "needs knobs"},
		{[]string{"plan", "coding-agent", "--slo", "success>=0.99", "--minimize", "cost", "--over", "tools.model.concurrency=8"}, "at least two values"},
		{[]string{"plan", "coding-agent", "--slo", "success>=0.99", "--minimize", "cost", "--over", "tools.model.concurrency=8,0"}, "tools.model.concurrency=0"},
		{[]string{"plan", "coding-agent", "--slo", "success>=0.99", "--minimize", "cost", "--over", "tools.model.concurrency=8,16", "--search", "workers=1..10"}, "give one"},
	} {
		_, errOut, code := runCLI(t, "", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// A scenario without prices has no cost to minimize.
	_, errOut, code := runCLI(t, "", "plan", "tool-bottleneck", "--slo", "success>=0.9", "--minimize", "cost", "--over", "workers=4,8")
	if code == 0 || !strings.Contains(errOut, "no tool has a cost") {
		t.Errorf("unmetered scenario: exit %d, %q", code, errOut)
	}
}
