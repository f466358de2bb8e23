package main

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/internal/atomicfile"
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
	// Two probes as plan writes them: 10 fails on its p99, 11 passes.
	probe := func(v int, p99, lo, hi float64, verdict string) string {
		return fmt.Sprintf(`{"order": 1, "value": %d, "replications": 8, "p99_s": %g, "ci": [%g, %g], "success": 1, "verdict": %q, "resolved": true,
"deciding": {"slo": "p99<=7s", "estimate": %g, "mean": %g, "ci": [%g, %g], "verdict": %q},
"slos": [{"slo": "p99<=7s", "estimate": %g, "mean": %g, "ci": [%g, %g], "verdict": %q}, {"slo": "success>=0.99", "estimate": 1, "mean": 1, "ci": [1, 1], "verdict": "pass"}],
"utilisation": 0.8, "peak_utilisation": 0.8, "peak_at": "workers", "bottleneck": "", "bottleneck_load": null, "warnings": []}`,
			v, p99, lo, hi, verdict, p99, p99, lo, hi, verdict, p99, p99, lo, hi, verdict)
	}
	plan := `{"parameter": "workers", "value": 11, "found": true, "slos": ["p99<=7s", "success>=0.99"], "range": "workers=1..30",
"confidence": {"level": 0.95, "look_level": 0.9875, "note": "workers=11 meets every objective; workers=10 fails", "below": {"value": 10}},
"probes": [` + probe(10, 7.5, 7.2, 7.8, "fail") + `, ` + probe(11, 6.5, 6.2, 6.8, "pass") + `]}`
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
	// With an outage the page also zooms the time series on it.
	storm := filepath.Join(t.TempDir(), "storm")
	if err := os.CopyFS(storm, os.DirFS("../../internal/charts/testdata/storm")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(storm, "outages.csv"), []byte("variant,tool,start_s,end_s,mode\nretry.attempts=1,backend,60,70,stall\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, storm, "--out", out); code != 0 {
		t.Fatalf("report DIR (compare with an outage): exit %d: %s", code, stderr)
	}
	page = string(readFileT(t, out))
	if n := strings.Count(page, "<svg "); n != 5 || !strings.Contains(page, "0 to 3m10s") {
		t.Errorf("comparison report with an outage has %d charts, want the 3 and the flow and attempt rate zoomed on the outage (0 to 3m10s)", n)
	}
	out = filepath.Join(t.TempDir(), "plan.html")
	if _, stderr, code := runCLI(t, planDir(t), "--out", out); code != 0 {
		t.Fatalf("report DIR (plan): exit %d: %s", code, stderr)
	}
	page = string(readFileT(t, out))
	for _, want := range []string{"<dd>workers = 11</dd>", "<dd>p99 ≤ 7s, success ≥ 0.99</dd>", "Evidence: every value probed, by workers", `<tr class="hl"><th scope="row">11</th>`, "workers=11 meets every objective; workers=10 fails", "the evidence beside it", "[7.2s, 7.8s] fail", "objective p99 ≤ 7s", "answer: workers = 11"} {
		if !strings.Contains(page, want) {
			t.Errorf("plan report lacks %q", want)
		}
	}
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Error("plan report has a <script>")
	}
	if _, stderr, code := runCLI(t, t.TempDir(), "--out", out); code != 1 || !strings.Contains(stderr, "neither a comparison (compare.json), a plan (plan.json and sweep.csv) nor a sweep") {
		t.Errorf("report of an empty directory: exit %d, stderr %q", code, stderr)
	}
}

// TestReportSweepDir: the page of a sweep's directory decides: the point
// with the highest success, and among those no measurably worse the
// lowest p99 and the lowest cost, with every point's figures, intervals,
// bottleneck and cost from sweep.csv.
func TestReportSweepDir(t *testing.T) {
	dir := t.TempDir()
	csv := "parameter,value,replications,success_rate,success_lo,success_hi,latency_p50_s,latency_p99_s,latency_p99_lo_s,latency_p99_hi_s,latency_p999_s,throughput,time_avg_in_system,lambda_w,attempts_per_run,partial,bottleneck,peak_load,binding_limit,limit_use,cost_per_success,cost_per_success_lo,cost_per_success_hi\n" +
		"tpm,100000,4,0.8,0.78,0.82,20,45,44,46,50,0.2,5,5,5.9,false,llm,0.99,llm tpm,0.99,0.034,0.033,0.035\n" +
		"tpm,300000,4,0.999,0.998,1,19,43,42,44,48,0.25,5,5,4,false,,0.41,llm tpm,0.41,0.0333,0.0331,0.0335\n" +
		"tpm,600000,4,0.9985,0.997,1,18,40,39,41,47,0.25,5,5,4,false,,0.2,llm tpm,0.2,0.0336,0.0334,0.0338\n"
	if err := os.WriteFile(filepath.Join(dir, "sweep.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "sweep.html")
	if _, stderr, code := runCLI(t, dir, "--out", out); code != 0 {
		t.Fatalf("report DIR (sweep): exit %d: %s", code, stderr)
	}
	page := html.UnescapeString(string(readFileT(t, out)))
	for _, want := range []string{"<h2>Decision</h2>", "highest at tpm = 300000, 99.90% [99.80%, 100.00%]",
		"the lowest p99 is at tpm = 600000: 40s [39s, 41s]", "the lowest cost per successful run is at tpm = 300000: 0.0333 [0.0331, 0.0335]",
		"Evidence: every point", "most loaded: 99.00%", "llm tpm", "cost/successful run"} {
		if !strings.Contains(page, want) {
			t.Errorf("sweep page lacks %q", want)
		}
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

// TestReportDirShowsWhatRan: the report of a results directory shows what
// produced it, from the provenance that compare.json (per variant) and
// plan.json record: the scenario file, the overrides every variant shares,
// the baseline's scenario text once, and what each variant changes (its
// own overrides and SHA-256), not the whole text again; a plan's page is named after its scenario and shows the
// text its probes shared.
func TestReportDirShowsWhatRan(t *testing.T) {
	prov := func(over []string, sha, text string) string {
		b, err := json.Marshal(map[string]any{"scenario": "svc", "file": "scenarios/svc.yaml", "format_version": 1,
			"overrides": over, "sha256": sha, "effective": text, "budgetsim": "test"})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	dir := t.TempDir()
	compare := `[{"name": "once", "variant": {"retry.attempts": "1"}, "provenance": ` + prov([]string{"workers=4", "retry.attempts=1"}, "aaa111", "name: svc\nworkers: 4\nretry: {attempts: 1}\n") + `, "scenario": "svc"},
{"name": "three", "variant": {"retry.attempts": "3"}, "provenance": ` + prov([]string{"workers=4", "retry.attempts=3"}, "bbb333", "name: svc\nworkers: 4\nretry: {attempts: 3}\n") + `, "scenario": "svc"}]`
	if err := os.WriteFile(filepath.Join(dir, "compare.json"), []byte(compare), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "compare.html")
	if _, stderr, code := runCLI(t, dir, "--out", out); code != 0 {
		t.Fatalf("report DIR (compare): exit %d: %s", code, stderr)
	}
	page := html.UnescapeString(string(readFileT(t, out)))
	for _, want := range []string{"Read from <code>scenarios/svc.yaml</code> with the overrides every variant or point shares <code>--set workers=4</code>",
		"as the baseline, once, simulated it (SHA-256 aaa111)",
		">name: svc\nworkers: 4\nretry: {attempts: 1}\n</pre>",
		`<th scope="row">three</th><td>--set retry.attempts=3</td><td>bbb333</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("comparison report lacks %q", want)
		}
	}
	if strings.Contains(page, "retry: {attempts: 3}") {
		t.Error("comparison report repeats the scenario text of a variant other than the baseline")
	}
	if strings.Contains(page, "records no scenario text") {
		t.Error("comparison report says it has no scenario text")
	}

	dir = planDir(t)
	plan := `{"provenance": ` + prov([]string{"runs=5000"}, "ccc555", "name: svc\nruns: 5000\n") + `, "parameter": "workers", "value": 11, "found": true, "slos": ["p99<=7s"]}`
	if err := os.WriteFile(filepath.Join(dir, "plan.json"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(t.TempDir(), "plan.html")
	if _, stderr, code := runCLI(t, dir, "--out", out); code != 0 {
		t.Fatalf("report DIR (plan): exit %d: %s", code, stderr)
	}
	page = html.UnescapeString(string(readFileT(t, out)))
	for _, want := range []string{"budgetsim plan · svc", "<code>--set runs=5000</code>", "SHA-256 <code>ccc555</code>", "name: svc\nruns: 5000\n"} {
		if !strings.Contains(page, want) {
			t.Errorf("plan report lacks %q", want)
		}
	}
}

// TestReportRefusesInterruptedOutput: a results directory whose last
// write was interrupted between its files' renames (the marker
// atomicfile.Publishing is there) is refused, not reported as a mix.
func TestReportRefusesInterruptedOutput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "storm")
	if err := os.CopyFS(dir, os.DirFS("../../internal/charts/testdata/storm")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, atomicfile.Publishing), []byte("compare.json\nseries.csv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, dir, "--out", filepath.Join(t.TempDir(), "r.html"))
	if code == 0 || !strings.Contains(stderr, "interrupted") || !strings.Contains(stderr, "compare.json, series.csv") {
		t.Errorf("report of an interrupted directory: exit %d, stderr %s; want it refused, naming the files", code, stderr)
	}
}
