package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sweepScenario is a small M/M/c; it fixes no warm-up, so the sweep
// chooses one per point.
const sweepScenario = `name: sweep-mmc
seed: 5
runs: 800
arrivals: {rate: 4/s}
workers: 5
steps:
  - {name: serve, tool: server}
tools:
  server:
    latency: {dist: exponential, mean: 1s}
`

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("simulate %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSweepShardsMergeByteIdentical: running the sweep in n = 1, 2, 3
// shards and merging them writes sweep.csv and sweep.json byte-identical to
// the unsharded run, which itself does not depend on --parallel.
func TestSweepShardsMergeByteIdentical(t *testing.T) {
	scen := writeTemp(t, "mmc.yaml", sweepScenario)
	tmp := t.TempDir()
	common := []string{scen, "--vary", "arrivals.rate=2/s..4/s:3", "--vary", "workers=5,6", "--replications", "3"}
	whole := filepath.Join(tmp, "whole")
	mustRun(t, append([]string{"sweep", "--parallel", "1", "--out", whole}, common...)...)
	wantCSV, wantJSON := readFile(t, filepath.Join(whole, "sweep.csv")), readFile(t, filepath.Join(whole, "sweep.json"))

	par := filepath.Join(tmp, "par")
	mustRun(t, append([]string{"sweep", "--parallel", "2", "--out", par}, common...)...)
	if !bytes.Equal(readFile(t, filepath.Join(par, "sweep.csv")), wantCSV) || !bytes.Equal(readFile(t, filepath.Join(par, "sweep.json")), wantJSON) {
		t.Errorf("sweep --parallel 2 output differs from --parallel 1")
	}
	for _, n := range []int{1, 2, 3} {
		shards := filepath.Join(tmp, fmt.Sprintf("shards-%d", n))
		for i := range n {
			mustRun(t, append([]string{"sweep", "--shard", fmt.Sprintf("%d/%d", i, n), "--out", shards}, common...)...)
		}
		merged := filepath.Join(tmp, fmt.Sprintf("merged-%d", n))
		mustRun(t, "merge", shards, "--out", merged)
		if got := readFile(t, filepath.Join(merged, "sweep.csv")); !bytes.Equal(got, wantCSV) {
			t.Errorf("%d shards + merge: sweep.csv differs:\n%s\nwant\n%s", n, got, wantCSV)
		}
		if got := readFile(t, filepath.Join(merged, "sweep.json")); !bytes.Equal(got, wantJSON) {
			t.Errorf("%d shards + merge: sweep.json differs", n)
		}
	}
	lines := strings.Split(strings.TrimSpace(string(wantCSV)), "\n")
	const header = "parameter,value,replications,success_rate,success_lo,success_hi,latency_p50_s,latency_p99_s,latency_p99_lo_s,latency_p99_hi_s,latency_p999_s,throughput,time_avg_in_system,lambda_w,attempts_per_run,partial,bottleneck,peak_load,binding_limit,limit_use,cost_per_success,cost_per_success_lo,cost_per_success_hi"
	if lines[0] != header {
		t.Errorf("sweep.csv header = %q, want %q", lines[0], header)
	}
	// Row-major grid, last --vary fastest; parameter names the other keys.
	if len(lines) != 7 || !strings.HasPrefix(lines[1], "arrivals.rate=2/s;workers,5,3,") || !strings.HasPrefix(lines[6], "arrivals.rate=4/s;workers,6,3,") {
		t.Errorf("sweep.csv rows:\n%s\nwant 6 rows from arrivals.rate=2/s;workers,5 to arrivals.rate=4/s;workers,6", strings.Join(lines[1:], "\n"))
	}
	var points []struct {
		Point   map[string]string
		Warmup  struct{ Source string }
		Summary struct{ Replications int }
	}
	if err := json.Unmarshal(wantJSON, &points); err != nil {
		t.Fatal(err)
	}
	if len(points) != 6 || points[5].Point["workers"] != "6" || points[5].Point["arrivals.rate"] != "4/s" || points[0].Warmup.Source != "mser5" || points[0].Summary.Replications != 3 {
		t.Errorf("sweep.json = %+v, want 6 points with their keys, mser5 warm-ups and 3 replications", points)
	}
}

func TestSweepAndMergeErrors(t *testing.T) {
	scen := writeTemp(t, "mmc.yaml", sweepScenario)
	dir := t.TempDir()
	mustRun(t, "sweep", scen, "--set", "warmup=10", "--vary", "workers=5,6", "--shard", "0/2", "--out", dir)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sweep", scen}, 2, "--vary: at least one"},
		{[]string{"sweep", scen, "--vary", "arrivals.rate=1/s..5/s"}, 2, "needs a point count"},
		{[]string{"sweep", scen, "--vary", "workers=1.5..5:3"}, 2, "workers takes integers"},
		{[]string{"sweep", scen, "--vary", "workers=5,6", "--shard", "2/2", "--out", dir}, 2, "--shard \"2/2\": must be i/n with 0 ≤ i < n"},
		{[]string{"sweep", scen, "--vary", "workers=5,6", "--shard", "0/2"}, 2, "--shard needs --out"},
		{[]string{"sweep", scen, "--vary", "workers=5,6", "--rel-error", "1.5"}, 2, "--rel-error: must be in (0, 1)"},
		{[]string{"sweep", scen, "--vary", "workers=5,6", "--rel-error", "0.1", "--max-replications", "2"}, 2, "--max-replications"},
		{[]string{"sweep", scen, "--vary", "workers=0,1"}, 1, "workers"},
		{[]string{"merge", dir, "--out", t.TempDir()}, 1, "missing shard(s) 1 of 2"},
		{[]string{"merge", dir}, 2, "needs --out"},
		{[]string{"merge", t.TempDir(), "--out", t.TempDir()}, 2, "no shard-i-of-n.json files"},
	}
	for _, tt := range tests {
		_, errOut, code := runCLI(t, "", tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("simulate %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tt.args, " "), code, errOut, tt.code, tt.want)
		}
	}
}

// TestSweepStopRuleAndWarnings: --rel-error adds replications in batches
// and the table says so; thin p99.9 estimates are warned about on stderr.
func TestSweepStopRuleAndWarnings(t *testing.T) {
	scen := writeTemp(t, "mmc.yaml", sweepScenario)
	out, errOut, code := runCLI(t, "", "sweep", scen, "--set", "warmup=50", "--vary", "arrivals.rate=2/s,3/s", "--replications", "4", "--rel-error", "0.5", "--max-replications", "8", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var points []struct {
		Summary struct {
			Replications int
			Warnings     []string
		}
	}
	if err := json.Unmarshal([]byte(out), &points); err != nil {
		t.Fatalf("--format json output is not JSON: %v\n%s", err, out)
	}
	for i, p := range points {
		if r := p.Summary.Replications; r != 4 && r != 8 {
			t.Errorf("point %d: %d replications, want a whole batch of 4 (4 or 8)", i, r)
		}
	}
	if !strings.Contains(errOut, "fewer than 10000 completed runs") {
		t.Errorf("stderr %q lacks the p99.9 warning", errOut)
	}
}

// TestPlanCLI: the JSON answer has the documented shape, --out writes the
// knee as sweep.csv, and bad objectives are usage errors naming the flag.
func TestPlanCLI(t *testing.T) {
	scen := writeTemp(t, "mmc.yaml", strings.Replace(sweepScenario, "runs: 800", "runs: 3000\nwarmup: 300", 1))
	dir := t.TempDir()
	out := mustRun(t, "plan", scen, "--slo", "wait_p99<=1s", "--slo", "success>=0.99", "--search", "workers=1..30", "--replications", "4", "--format", "json", "--out", dir)
	var ans struct {
		Parameter  string
		Value      *float64
		Analytic   *struct{ Value float64 }
		Confidence struct {
			At       map[string]any
			Resolved *bool
		}
		Probes []struct {
			Value   *float64
			P99     *float64 `json:"p99_s"`
			Success *float64
			CI      []float64
		}
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("plan --format json: %v\n%s", err, out)
	}
	if ans.Parameter != "workers" || ans.Value == nil || ans.Analytic == nil || ans.Confidence.At == nil || ans.Confidence.Resolved == nil || len(ans.Probes) < 2 {
		t.Fatalf("plan JSON = %s, want parameter, value, analytic start, confidence and probes", out)
	}
	for _, p := range ans.Probes {
		if p.Value == nil || p.P99 == nil || p.Success == nil || len(p.CI) != 2 {
			t.Errorf("probe %+v lacks value, p99_s, success or ci", p)
		}
	}
	csv := string(readFile(t, filepath.Join(dir, "sweep.csv")))
	if !strings.HasPrefix(csv, "parameter,value,replications,") || strings.Count(csv, "\nworkers,") != len(ans.Probes) {
		t.Errorf("plan --out sweep.csv = %q, want one workers row per probe", csv)
	}
	table := mustRun(t, "plan", scen, "--slo", "wait_p99<=1s", "--search", "workers=1..30", "--replications", "4")
	if !strings.Contains(table, fmt.Sprintf("answer: workers=%g", *ans.Value)) || !strings.Contains(table, "confidence: ") {
		t.Errorf("plan table lacks the answer workers=%g or the confidence:\n%s", *ans.Value, table)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", scen, "--slo", "p99<2s", "--search", "workers=1..30"}, `--slo "p99<2s"`},
		{[]string{"plan", scen, "--slo", "p99<=2s", "--search", "workers=1..x"}, `--search "workers=1..x"`},
		{[]string{"plan", scen, "--search", "workers=1..30"}, "at least one --slo"},
		{[]string{"plan", scen, "--slo", "p99<=2s"}, "needs --search"},
		{[]string{"plan", scen, "--slo", "p99<=2s", "--search", "workers=1..3", "--replications", "1"}, "at least 2"},
		{[]string{"plan", scen, "--slo", "p99<=2s", "--search", "workers=1..3", "--precision", "1.5"}, "--precision: invalid value \"1.5\": must be a fraction in (0, 1) or a percentage"},
		{[]string{"plan", scen, "--slo", "p99<=2s", "--search", "workers=1..3", "--precision", "120%"}, "must be a fraction in (0, 1)"},
		{[]string{"plan", scen, "--slo", "p99<=2s", "--maximize", "arrivals.rate"}, "--maximize arrivals.rate: give the range to search, e.g. --maximize arrivals.rate=1/s..50/s"},
		{[]string{"plan", scen, "--slo", "p99<=2s", "--maximize", "arrivals.rate=1/s..9/s", "--search", "workers=1..3"}, "--search and --maximize ask different questions"},
		{[]string{"run", scen, "--seed", "-5"}, "--seed: must be ≥ 0"},
	} {
		_, errOut, code := runCLI(t, "", tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("simulate %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tt.args, " "), code, errOut, tt.want)
		}
	}
}

// TestPlanTolerance: over a non-integer key, --tolerance sets how narrow the
// final bracket is: the value below the answer that is not one is within that
// fraction of the range's top.
func TestPlanTolerance(t *testing.T) {
	probes := map[float64]int{}
	for _, tol := range []float64{0.2, 0.002} {
		out := mustRun(t, "plan", "tool-bottleneck", "--slo", "success>=0.95", "--search", "tools.search.rate_limit.rate=1/s..20/s",
			"--runs", "4000", "--set", "warmup=500", "--replications", "4", "--max-replications", "4", "--tolerance", fmt.Sprint(tol), "--format", "json")
		var ans struct {
			Value  float64 `json:"value"`
			Found  bool    `json:"found"`
			Probes []struct {
				Value       float64 `json:"value"`
				Verdict     string  `json:"verdict"`
				Resolved    bool    `json:"resolved"`
				NotAnAnswer string  `json:"not_an_answer"`
			} `json:"probes"`
		}
		if err := json.Unmarshal([]byte(out), &ans); err != nil {
			t.Fatal(err)
		}
		below := math.Inf(-1)
		for _, p := range ans.Probes {
			answers := p.Verdict == "pass" && p.Resolved && p.NotAnAnswer == ""
			if !answers && p.Value < ans.Value {
				below = max(below, p.Value)
			}
		}
		if !ans.Found || ans.Value-below > tol*20 {
			t.Errorf("--tolerance %g: answer %v (found %v), largest value below it that is not an answer %v: bracket wider than %g", tol, ans.Value, ans.Found, below, tol*20)
		}
		probes[tol] = len(ans.Probes)
	}
	if probes[0.2] >= probes[0.002] {
		t.Errorf("probes: %d at --tolerance 0.2, %d at 0.002; a coarser tolerance must stop sooner", probes[0.2], probes[0.002])
	}
}

// TestSweepTableWarnings: the sweep table lists its points' warnings under
// it, each with the points it concerns: an unstable point (M/M/1 at
// utilisation 2) is named on its own, not hidden in sweep.json.
func TestSweepTableWarnings(t *testing.T) {
	out := mustRun(t, "sweep", "mm1", "--runs", "20000", "--vary", "arrivals.rate=0.5/s,2/s", "--wide")
	if !strings.Contains(out, "\nWarnings:\n  1. utilisation 2 ≥ 1 with an unbounded queue: the system is unstable; waiting times grow with the run length and no steady state exists (arrivals.rate=2/s)\n") {
		t.Errorf("sweep table does not name the unstable point under it:\n%s", out)
	}
}

// TestMergeSaysWhereTheScenarioIs: shards name their scenario as the sweep
// was given it; merged from another directory, the error says so and
// points at --scenario, and a --scenario with other text is named as the
// culprit.
func TestMergeSaysWhereTheScenarioIs(t *testing.T) {
	work := t.TempDir()
	t.Chdir(work)
	if err := os.WriteFile("s.yaml", []byte(sweepScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	shards := filepath.Join(work, "shards")
	for i := range 2 {
		mustRun(t, "sweep", "s.yaml", "--set", "warmup=10", "--vary", "workers=5,6", "--shard", fmt.Sprintf("%d/2", i), "--out", shards)
	}
	t.Chdir(t.TempDir())
	_, stderr, code := runCLI(t, "", "merge", shards, "--out", "merged")
	if code != 1 || !strings.Contains(stderr, `the shards name the scenario "s.yaml"`) || !strings.Contains(stderr, "--scenario PATH") {
		t.Errorf("merge elsewhere: exit %d, stderr %q; want the recorded path and --scenario suggested", code, stderr)
	}
	_, stderr, code = runCLI(t, "", "merge", shards, "--out", "merged", "--scenario", "mm1")
	if code != 1 || !strings.Contains(stderr, "--scenario mm1 is not the scenario the sweep ran") {
		t.Errorf("merge --scenario mm1: exit %d, stderr %q; want --scenario named", code, stderr)
	}
	if _, stderr, code = runCLI(t, "", "merge", shards, "--out", "merged", "--scenario", filepath.Join(work, "s.yaml")); code != 0 {
		t.Errorf("merge --scenario with the right file: exit %d, stderr %q", code, stderr)
	}
}

// TestPlanMaximize: plan --maximize finds the highest arrival rate an
// M/M/5 queue holds under a wait objective: below its capacity of 5/s,
// with the next probe above it failing or overloaded, at the precision
// asked, and says in the table that it is the largest.
func TestPlanMaximize(t *testing.T) {
	scen := writeTemp(t, "mmc.yaml", strings.Replace(sweepScenario, "runs: 800", "runs: 3000\nwarmup: 300", 1))
	out := mustRun(t, "plan", scen, "--slo", "wait_p99<=1s", "--maximize", "arrivals.rate=0.5/s..10/s", "--precision", "5%", "--replications", "4", "--format", "json")
	var ans struct {
		Value    *float64
		Found    bool
		Maximize bool
		Probes   []struct {
			Value       float64
			Verdict     string
			NotAnAnswer string `json:"not_an_answer"`
		}
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("plan --format json: %v\n%s", err, out)
	}
	if !ans.Found || !ans.Maximize || ans.Value == nil || !(*ans.Value > 0.5 && *ans.Value < 5) {
		t.Fatalf("plan --maximize = %s; want a rate found below the capacity of 5/s", out)
	}
	above := math.Inf(1)
	for _, p := range ans.Probes {
		if p.Value > *ans.Value {
			above = math.Min(above, p.Value)
		}
	}
	if above-*ans.Value > 0.05*above {
		t.Errorf("answer %v/s, next probe above it %v/s: want them within 5%%", *ans.Value, above)
	}
	table := mustRun(t, "plan", scen, "--slo", "wait_p99<=1s", "--maximize", "arrivals.rate=0.5/s..10/s", "--precision", "5%", "--replications", "4")
	if !strings.Contains(table, "largest arrivals.rate in 0.5/s..10/s") || !strings.Contains(table, "the largest value whose intervals clear every objective") {
		t.Errorf("plan --maximize table:\n%s\nwant it to say it finds the largest rate", table)
	}
}
