package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planDir writes a plan's results directory: internal/charts' sweep.csv
// and a plan.json that answers workers=11 for p99<=7s.
func planDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	sweep, err := os.ReadFile("../../internal/charts/testdata/sweep.csv")
	if err != nil {
		t.Fatal(err)
	}
	plan := `{"parameter": "workers", "value": 11, "found": true, "slos": ["p99<=7s", "success>=0.99"]}`
	if err := os.WriteFile(filepath.Join(dir, "sweep.csv"), sweep, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.json"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReportDir: given the directory a comparison or a plan wrote, report
// renders it without simulating: the variants by name with their success
// rates and charts, or the plan's answer, objectives and probes with the
// objectives drawn; a directory of neither is an error.
func TestReportDir(t *testing.T) {
	out := filepath.Join(t.TempDir(), "compare.html")
	if _, stderr, code := runCLI(t, "../../internal/charts/testdata/storm", "--out", out); code != 0 {
		t.Fatalf("report DIR (compare): exit %d: %s", code, stderr)
	}
	page := string(readFileT(t, out))
	for _, want := range []string{"<h2>Variants</h2>", "Variants, in the order compared", "common random numbers", "Attempts dialed per second", "Where the p99 run"} {
		if !strings.Contains(page, want) {
			t.Errorf("comparison report lacks %q", want)
		}
	}
	if n := strings.Count(page, "<svg "); n != 3 {
		t.Errorf("comparison report has %d charts, want the directory's flow, attempt-rate and tail charts", n)
	}
	out = filepath.Join(t.TempDir(), "plan.html")
	if _, stderr, code := runCLI(t, planDir(t), "--out", out); code != 0 {
		t.Fatalf("report DIR (plan): exit %d: %s", code, stderr)
	}
	page = string(readFileT(t, out))
	for _, want := range []string{"<dd>workers = 11</dd>", "<dd>p99 ≤ 7s, success ≥ 0.99</dd>", "Probes, by workers", `<tr class="hl"><th scope="row">11</th>`, "objective p99 ≤ 7s", "answer: workers = 11"} {
		if !strings.Contains(page, want) {
			t.Errorf("plan report lacks %q", want)
		}
	}
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Error("plan report has a <script>")
	}
	if _, stderr, code := runCLI(t, t.TempDir(), "--out", out); code != 1 || !strings.Contains(stderr, "neither a comparison (compare.json) nor a plan") {
		t.Errorf("report of an empty directory: exit %d, stderr %q", code, stderr)
	}
}

func readFileT(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
