package calibrate_test

import (
	"flag"
	"os"
	"testing"

	"github.com/budgetsim/budgetsim/calibrate"
	"github.com/budgetsim/budgetsim/calibrate/internal/synth"
	"github.com/budgetsim/budgetsim/calibrate/observe"
)

var update = flag.Bool("update", false, "rewrite the bundled example trace, scenarios/traces/agent.otlp.jsonl, with the OpenTelemetry SDK")

const exampleTrace = "../scenarios/traces/agent.otlp.jsonl"

// TestExampleTrace regenerates (with -update) the example trace that
// docs/calibration.md walks through: 400 runs of the default agent made by
// the OpenTelemetry SDK, arriving in bursts (hyperexponential gaps), its
// search tool slowing down by 5% per run in flight. The calibration must
// say both.
func TestExampleTrace(t *testing.T) {
	if *update {
		a := synth.Default(400, 2026)
		a.Interarrival = hyperexp(t)
		a.LoadFactor = 0.05
		data, _, err := synth.Trace(a)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exampleTrace, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := calibrate.Calibrate([]string{exampleTrace}, calibrate.Options{Observe: observe.Options{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Arrivals.Process != "renewal" {
		t.Errorf("arrivals fitted as %s (%s), want renewal", r.Arrivals.Process, r.Arrivals.Why)
	}
	if len(r.Obs.Runs) != 400 {
		t.Fatalf("%d runs", len(r.Obs.Runs))
	}
	lc := r.Tool(synth.ToolName).Latency.LoadCorr
	if !(lc.CI.Lo > 0.1) {
		t.Errorf("load correlation %v %v: the example's load-dependent latency is not detected", lc.Value, lc.CI)
	}
	m := r.Tool(synth.ModelName).Latency.LoadCorr
	if m.CI.Lo > 0.1 {
		t.Errorf("model load correlation %v %v: a load-independent latency flagged", m.Value, m.CI)
	}
}
