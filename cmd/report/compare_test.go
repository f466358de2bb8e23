package main

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/internal/render/comparison"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/compare"
)

// compareDir runs a small comparison of retry attempts through an outage
// and writes its files as simulate compare --out does; it returns the
// directory and the variants' summaries.
func compareDir(t *testing.T) (string, []compare.Summary) {
	t.Helper()
	return writeComparison(t, "outage", "retry.attempts=once=1,three=3,six=6", compare.Spec{Scenario: "agent-service", Replications: 4, Level: 0.95,
		Sets: []string{"runs=2500", "warmup=250", "tools.model.concurrency=10", "tools.model.outages=[{start: 5m, end: 5m30s, mode: transient}]"}})
}

// writeComparison runs spec with the variants of the --vary flag vary and
// writes its files, as simulate compare --out does, to a directory name
// under a temporary one; it returns the directory and the summaries.
func writeComparison(t *testing.T, name, vary string, spec compare.Spec) (string, []compare.Summary) {
	t.Helper()
	axis, err := compare.ParseVary(vary)
	if err != nil {
		t.Fatal(err)
	}
	variants, err := compare.Grid([]compare.Axis{axis})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), name)
	files, err := outputs.NewCompareFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer files.Abort()
	spec.Variants = variants
	res, err := compare.Run(spec, compare.Options{Each: func(v compare.Variant, cfg *system.Config, acc *summary.Accumulator, first *system.Result) error {
		return files.Add(v.Label, cfg, acc.Latency(), first.Series)
	}})
	if err != nil {
		t.Fatal(err)
	}
	sums, names := compare.Figures(res.Variants)
	if err := files.Commit(res.Variants, sums, names); err != nil {
		t.Fatal(err)
	}
	return dir, res.Variants
}

// TestReportCompareDecides: the page of a comparison carries every figure
// compare prints with its paired difference and interval, as compare.json
// holds them (nothing recomputed), a verdict per figure in words, the
// reviewer's title and note, and the scenario once with each variant's
// own overrides.
func TestReportCompareDecides(t *testing.T) {
	dir, out := compareDir(t)
	page := filepath.Join(t.TempDir(), "page.html")
	if _, stderr, code := runCLI(t, dir, "--out", page, "--title", "Retry policy for launch", "--note", "Pick the attempts; the model API had a 30 s outage."); code != 0 {
		t.Fatalf("report DIR: exit %d: %s", code, stderr)
	}
	text := html.UnescapeString(string(readFileT(t, page)))
	want := []string{"<title>Retry policy for launch</title>", "<h1>Retry policy for launch</h1>", "Pick the attempts; the model API had a 30 s outage.",
		"<h2>Verdict</h2>", "<strong>success:</strong>", "<strong>recovery after outage:</strong>", "<h2>Differences from once</h2>",
		"Δ success", "Δ p99", "Δ attempts/run", "Δ peak attempt rate", "Δ recovery after outage", "recovery after outage", "peak attempt rate",
		"six − three", "What each variant changes", "--set retry.attempts=6"}
	for i, v := range out[1:] {
		d := v.Difference
		if d == nil || d.SuccessRate == nil || d.PeakAttemptRate == nil || d.AttemptsPerRun == nil || d.RecoveryAfter == nil && d.RecoveryUnpaired == 0 {
			t.Fatalf("variant %s: paired difference %+v lacks a figure", v.Name, d)
		}
		// The page shows compare.json's figures with their intervals.
		want = append(want,
			comparison.Signed(d.SuccessRate.Mean, render.Percent),
			"["+comparison.Signed(d.SuccessRate.Lo, render.Percent)+", "+comparison.Signed(d.SuccessRate.Hi, render.Percent)+"]",
			"["+comparison.Signed(d.AttemptsPerRun.Lo, render.Number)+", "+comparison.Signed(d.AttemptsPerRun.Hi, render.Number)+"]")
		if p := compare.Previous(out, i+1); p != nil {
			want = append(want, "Δ success "+comparison.SignedInterval(p.SuccessRate, render.Percent))
		}
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("comparison page lacks %q", w)
		}
	}
	if n := strings.Count(text, "name: agent-service"); n != 1 {
		t.Errorf("the scenario's text appears %d times, want once", n)
	}
	for _, bad := range []string{"sim.", "recommend.", "Summary{"} {
		if strings.Contains(text, bad) {
			t.Errorf("the page shows the Go identifier %q", bad)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "compare.json")); err != nil {
		t.Fatal(err)
	}
}

// TestReportSaysVariantsLeftOut: a comparison of more variants than the
// charts keep says on its page how many its per-variant charts leave out.
func TestReportSaysVariantsLeftOut(t *testing.T) {
	dir, _ := writeComparison(t, "many", "seed=1..40", compare.Spec{Scenario: "mm1", Replications: 1, Level: 0.95, Sets: []string{"runs=300", "warmup=0"}})
	page := filepath.Join(t.TempDir(), "page.html")
	if _, stderr, code := runCLI(t, dir, "--out", page); code != 0 {
		t.Fatalf("report DIR: exit %d: %s", code, stderr)
	}
	text := html.UnescapeString(string(readFileT(t, page)))
	if want := "the other 8 are left out of them"; !strings.Contains(text, want) {
		t.Errorf("the page of 40 variants does not say %q", want)
	}
}
