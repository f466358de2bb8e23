package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/internal/buildinfo"
	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/scenarios"
)

// The goldens and these tests record the build as "test": outputs take it
// from $BUDGETSIM_VERSION (buildinfo.Stamp), which a developer may have
// set, and a test binary has no version of its own.
func init() { os.Setenv(buildinfo.EnvVersion, "test") }

// record is the provenance block of every JSON output, as read back.
type record provenance.Record

// check asserts that r describes mmc with overrides sets: the effective
// text says workers: N as the overrides do, and the SHA-256 is its own.
func (r record) check(t *testing.T, what string, workers string, sets ...string) {
	t.Helper()
	h := sha256.Sum256([]byte(r.Effective))
	if r.Scenario != "mmc" || r.FormatVersion != scenarios.FormatVersion || r.Budgetsim != "test" || r.SHA256 != hex.EncodeToString(h[:]) {
		t.Errorf("%s: provenance %+v", what, r)
	}
	if strings.Join(r.Overrides, " ") != strings.Join(sets, " ") {
		t.Errorf("%s: overrides %q, want %q", what, r.Overrides, sets)
	}
	if !strings.Contains(r.Effective, "\nworkers: "+workers+"\n") {
		t.Errorf("%s: effective scenario lacks workers: %s:\n%s", what, workers, r.Effective)
	}
	for _, s := range sets {
		if strings.HasPrefix(s, "retry.budget.") && !strings.Contains(r.Effective, "budget:") {
			t.Errorf("%s: effective scenario lacks the retry budget set by %s:\n%s", what, s, r.Effective)
		}
	}
}

// TestOutputsRecordProvenance: run, plan, sweep and compare record in
// their JSON (stdout and --out) and their table's header the overrides,
// the scenario as simulated after them, its SHA-256, the scenario
// format's version and the build, so that an output can be traced to what
// produced it.
func TestOutputsRecordProvenance(t *testing.T) {
	// --wide: the header lines checked below whole, not wrapped.
	sets := []string{"--set", "workers=19", "--set", "retry.budget.kind=ratio", "--set", "retry.budget.ratio=0.1", "--runs", "20000", "--wide"}
	want := []string{"workers=19", "retry.budget.kind=ratio", "retry.budget.ratio=0.1", "runs=20000"}
	dir := t.TempDir()

	out := mustRun(t, append([]string{"run", "mmc", "--out", filepath.Join(dir, "run")}, sets...)...)
	if !strings.Contains(out, "\nscenario scenarios/mmc.yaml --set workers=19 --set retry.budget.kind=ratio --set retry.budget.ratio=0.1 --set runs=20000 · sha256 ") ||
		!strings.Contains(out, " · format 1 · budgetsim test\n") {
		t.Errorf("run's table header does not say what ran:\n%s", out[:min(len(out), 600)])
	}
	var sum struct {
		Provenance record `json:"provenance"`
		Workers    struct {
			Count int `json:"count"`
		} `json:"workers"`
	}
	readJSON(t, filepath.Join(dir, "run", "summary.json"), &sum)
	sum.Provenance.check(t, "summary.json", "19", want...)
	if sum.Workers.Count != 19 {
		t.Errorf("summary.json: workers %d, want 19", sum.Workers.Count)
	}
	if err := json.Unmarshal([]byte(mustRun(t, append([]string{"run", "mmc", "--format", "json"}, sets...)...)), &sum); err != nil {
		t.Fatal(err)
	}
	sum.Provenance.check(t, "run --format json", "19", want...)

	out = mustRun(t, append([]string{"plan", "mmc", "--slo", "p99<=6s", "--search", "workers=10..14", "--out", filepath.Join(dir, "plan")}, sets...)...)
	if !strings.Contains(out, "\nscenario scenarios/mmc.yaml --set workers=19 ") {
		t.Errorf("plan's table header does not say what ran:\n%s", out)
	}
	var plan struct {
		Provenance record `json:"provenance"`
		Found      bool   `json:"found"`
	}
	readJSON(t, filepath.Join(dir, "plan", "plan.json"), &plan)
	plan.Provenance.check(t, "plan.json", "19", want...)

	out = mustRun(t, append([]string{"sweep", "mmc", "--vary", "workers=11,12", "--out", filepath.Join(dir, "sweep")}, sets...)...)
	if !strings.Contains(out, "\nscenario scenarios/mmc.yaml --set workers=19 ") {
		t.Errorf("sweep's table header does not say what ran:\n%s", out)
	}
	var points []struct {
		Provenance record `json:"provenance"`
	}
	readJSON(t, filepath.Join(dir, "sweep", "sweep.json"), &points)
	for i, w := range []string{"11", "12"} {
		points[i].Provenance.check(t, "sweep.json point "+w, w, append(want, "workers="+w)...)
	}

	out = mustRun(t, append([]string{"compare", "mmc", "--vary", "workers=11,12", "--out", filepath.Join(dir, "compare")}, sets...)...)
	if !strings.Contains(out, "\nscenario scenarios/mmc.yaml --set workers=19 ") {
		t.Errorf("compare's table header does not say what ran:\n%s", out)
	}
	readJSON(t, filepath.Join(dir, "compare", "compare.json"), &points)
	for i, w := range []string{"11", "12"} {
		points[i].Provenance.check(t, "compare.json variant "+w, w, append(want, "workers="+w)...)
	}
}

// TestVersion: --version names the build and the scenario format, with
// or without a command around it.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"-v"}, {"version"}, {"run", "mmc", "--version"}} {
		out, errOut, code := runCLI(t, "", args...)
		if code != 0 || !strings.HasPrefix(out, "simulate ") || !strings.Contains(out, "scenario format 1\n") || errOut != "" {
			t.Errorf("simulate %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errOut)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestSchemaCommand: simulate schema prints scenarios/schema.json byte
// for byte.
func TestSchemaCommand(t *testing.T) {
	out, errOut, code := runCLI(t, "", "schema")
	want, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 || out != string(want) || errOut != "" {
		t.Errorf("simulate schema: exit %d, stderr %q; stdout is %d bytes, want the %d of scenarios/schema.json", code, errOut, len(out), len(want))
	}
}
