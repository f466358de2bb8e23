package calibrate_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/calibrate"
	"github.com/budgetsim/budgetsim/calibrate/internal/synth"
	"github.com/budgetsim/budgetsim/calibrate/observe"
)

func traceFile(t *testing.T, a synth.Agent) string {
	t.Helper()
	data, _, err := synth.Trace(a)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The calibrated scenario loads with the normal loader, marks every value
// with its provenance, and reproduces the trace it came from: every
// per-call quantity within its interval (relative error interval holding
// 0 or within 10%).
func TestScenarioLoadsAndReplays(t *testing.T) {
	p := traceFile(t, synth.Default(1500, 21))
	r, err := calibrate.Calibrate([]string{p}, calibrate.Options{Observe: observe.Options{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	sc := r.Scenario("calibrated")
	text := string(sc.YAML)
	for _, want := range []string{"# MEASURED: the runs in the trace", "ttft: {dist: lognormal", "# FITTED: lognormal by maximum likelihood", "workers: ", "# ASSUMED: confirm", "errors: {transient: ", "rate_limited: ", "retry_after: {dist: constant, value: 2s}", "# Not a steps[].loop: ", "tokens:"} {
		if !strings.Contains(text, want) {
			t.Errorf("scenario lacks %q:\n%s", want, text)
		}
	}
	// Every value line (a key with a scalar or flow value) has a comment.
	for i, line := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(line)
		if trim == "" || strings.HasPrefix(trim, "#") || strings.HasSuffix(trim, ":") || strings.HasPrefix(trim, "name:") || strings.HasPrefix(trim, "description:") || strings.HasPrefix(trim, "seed:") || strings.HasPrefix(trim, "process:") {
			continue
		}
		if !strings.Contains(line, "  # ") {
			t.Errorf("line %d has no provenance: %q", i+1, line)
		}
	}
	loaded, err := sc.Load("calibrated.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	cal, err := r.Replay(loaded, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(cal.Rows) < 10 {
		t.Fatalf("%d rows", len(cal.Rows))
	}
	for _, row := range cal.Rows {
		if strings.HasPrefix(row.Metric, "run time") || math.IsNaN(row.RelErr) {
			continue
		}
		// The simulated tool latency, error and token rates come from the
		// fitted distributions of the same trace: their relative error's
		// interval holds 0, or the error is small.
		if !(row.RelErrCI.Lo <= 0.1 && row.RelErrCI.Hi >= -0.1) {
			t.Errorf("%s: observed %.4g, simulated %.4g [%.4g, %.4g]: relative error %+.1f%%", row.Metric, row.Observed, row.Simulated.Mean, row.Simulated.Lo, row.Simulated.Hi, 100*row.RelErr)
		}
	}
}
