package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// simulate run --otlp writes spans that simulate calibrate reads back into
// a scenario that loads and runs; both files are written only when whole.
func TestCalibrateRoundTripCLI(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "gen.yaml")
	os.WriteFile(scen, []byte(`name: gen
seed: 3
runs: 600
arrivals: {rate: 4/s}
workers: 100
steps:
  - {name: search, tool: search}
tools:
  search:
    latency: {dist: lognormal, median: 200ms, sigma: 0.4}
    errors: {transient: 0.05}
`), 0o644)
	otlp := filepath.Join(dir, "sim.otlp.jsonl")
	if _, stderr, code := runCLI(t, dir, "run", scen, "--otlp", otlp, "--trace-runs", "600"); code != 0 {
		t.Fatalf("run --otlp: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "cal.yaml")
	stdout, stderr, code := runCLI(t, dir, "calibrate", otlp, "--out", out, "--replications", "2", "--report", filepath.Join(dir, "report"))
	if code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"600 runs", "search latency p50", "search 5xx rate", "relative error"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"report/fit.json", "report/qq.csv", "report/calibration.csv", "report/e2e.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if _, stderr, code := runCLI(t, dir, "run", out, "--runs", "200"); code != 0 {
		t.Fatalf("the calibrated scenario does not run: exit %d: %s", code, stderr)
	}
}

// Bad input is an error naming the file and line, with a non-zero exit.
func TestCalibrateBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "calls.jsonl")
	os.WriteFile(bad, []byte(`{"run": "a", "tool": "t", "start": 1, "end": 2}`+"\n"+`{"run": "a", "tool": "t", "start": 3}`+"\n"), 0o644)
	_, stderr, code := runCLI(t, dir, "calibrate", bad)
	if code == 0 || !strings.Contains(stderr, "calls.jsonl:2: end: missing") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, dir, "calibrate"); code != 2 || !strings.Contains(stderr, "needs at least one trace file") {
		t.Errorf("no file: exit %d, %q", code, stderr)
	}
}

// The bundled coding agent, exported and calibrated as a user runs it:
// the scenario's run is a fitted agent loop (the model answers each turn
// with a fitted chance; the system prompt comes back from the cached
// tokens), and the calibration table compares turns and calls per turn.
func TestCalibrateAgentLoopCLI(t *testing.T) {
	dir := t.TempDir()
	scen, err := filepath.Abs(filepath.Join("..", "..", "scenarios", "coding-agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	otlp := filepath.Join(dir, "agent.otlp.jsonl")
	if _, stderr, code := runCLI(t, dir, "run", scen, "--runs", "800", "--otlp", otlp, "--trace-runs", "800"); code != 0 {
		t.Fatalf("run --otlp: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "agent.yaml")
	stdout, stderr, code := runCLI(t, dir, "calibrate", otlp, "--out", out, "--replications", "2", "--report", filepath.Join(dir, "fit"))
	if code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "fit", "turns.csv")); err != nil || !strings.HasPrefix(string(b), "rule,turn,at_risk,ends,") || !strings.Contains(string(b), "\nanswer,1,800,") {
		t.Errorf("turns.csv: %v\n%s", err, b)
	}
	for _, want := range []string{"turns per run", "tool calls per turn", "model cached input share"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"    loop:", "      answer: 0.", "        system: 6000  # MEASURED", "choose: [{tool: read_file", "prompt_cache: {ttl: 5m"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the scenario lacks %q:\n%s", want, b)
		}
	}
}
