package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/budgetsim/budgetsim/plan/compare"
)

// TestCompareOutFiles: compare --out writes its per-variant CSVs as the
// variants complete. Every variant has its rows in latency_cdf.csv and
// series.csv; tools.csv holds only the variant whose tool has a capacity
// (a rate limit would count too)
// (the file is started when the first such variant completes); nothing
// temporary is left behind.
func TestCompareOutFiles(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "compare", "mmc", "--runs", "500", "--set", "warmup=10",
		"--vary", "tools.server={latency: {dist: exponential, mean: 1s}},{concurrency: 8, latency: {dist: exponential, mean: 1s}}", "--out", dir)
	variantsIn := func(name string) map[string]int {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := map[string]int{}
		for _, r := range rows[1:] {
			n[r[0]]++
		}
		return n
	}
	const unlimited, limited = "tools.server={latency: {dist: exponential, mean: 1s}}", "tools.server={concurrency: 8, latency: {dist: exponential, mean: 1s}}"
	for _, name := range []string{"latency_cdf.csv", "series.csv"} {
		if n := variantsIn(name); n[unlimited] == 0 || n[limited] == 0 || len(n) != 2 {
			t.Errorf("%s: rows per variant %v, want both variants", name, n)
		}
	}
	if n := variantsIn("tools.csv"); n[limited] == 0 || len(n) != 1 {
		t.Errorf("tools.csv: rows per variant %v, want only %s", n, limited)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "compare.json latency_cdf.csv series.csv summary.csv tools.csv" {
		t.Errorf("files %q, want the five outputs and nothing temporary", got)
	}
}

// TestCompareWarnings: the table names each variant's warnings under it,
// each distinct warning once with the variants it concerns: an unstable
// M/M/1 (utilisation 2) is reported for its variant only.
func TestCompareWarnings(t *testing.T) {
	out := mustRun(t, "compare", "mm1", "--runs", "20000", "--vary", "arrivals.rate=0.5/s,2/s", "--wide")
	if !strings.Contains(out, "\nWarnings:\n  1. utilisation 2 ≥ 1 with an unbounded queue: the system is unstable; waiting times grow with the run length and no steady state exists (arrivals.rate=2/s)\n") {
		t.Errorf("compare of a stable and an unstable M/M/1 does not warn about the unstable one alone:\n%s", out)
	}
}

// TestCompareVariantsSideBySide: with fewer replications than goroutines
// the variants run in parallel; the table, the JSON and the --out files
// are the same bytes as one after another.
func TestCompareVariantsSideBySide(t *testing.T) {
	args := []string{"compare", "retry-storm", "--runs", "1500", "--vary", "workers=20,40", "--vary", "steps.call.attempts=1,3"}
	outputs := map[string]string{}
	for _, parallel := range []string{"1", "3"} {
		dir := t.TempDir()
		table := mustRun(t, append(args, "--parallel", parallel)...)
		js := mustRun(t, append(args, "--parallel", parallel, "--format", "json", "--out", dir)...)
		var files []string
		for _, name := range []string{"compare.json", "summary.csv", "latency_cdf.csv", "series.csv"} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, string(b))
		}
		outputs[parallel] = table + js + strings.Join(files, "\x00")
	}
	if outputs["1"] != outputs["3"] {
		t.Error("compare --parallel 3 (variants side by side) differs from --parallel 1")
	}
}

// TestCompareRefusesABadVariantFirst: every variant is parsed before any
// runs, and the first bad one in grid order is named.
func TestCompareRefusesABadVariantFirst(t *testing.T) {
	_, errOut, code := runCLI(t, "", "compare", "mmc", "--vary", "workers=10,0,-1")
	if code == 0 || !strings.Contains(errOut, "variant workers=0: ") {
		t.Errorf("exit %d, stderr %q; want an error naming variant workers=0", code, errOut)
	}
}

// TestCompareInterrupted: an interrupt keeps the variants handed on up to
// the first that completed after it, names the others missing, marks the
// output partial and exits 130, whether the variants run side by side or
// one after another.
func TestCompareInterrupted(t *testing.T) {
	for _, parallel := range []string{"1", "2"} {
		var interrupted atomic.Bool
		interrupted.Store(true)
		var out, errb bytes.Buffer
		err := runWith(&out, &errb, []string{"compare", "mmc", "--runs", "200000", "--vary", "workers=10,11,12", "--parallel", parallel}, &interrupted)
		if code := exitCode(err, &errb); code != 130 {
			t.Fatalf("parallel %s: exit %d, want 130; stderr %s", parallel, code, errb.String())
		}
		// The table has the first variant's row alone, and says which
		// variants it lacks, as stderr does.
		if !strings.Contains(out.String(), "mmc: 1 of 3 variants (interrupted before workers=11; workers=12 finished) on") || strings.Contains(out.String(), "| workers=11") {
			t.Errorf("parallel %s: want only the first variant, and the others named missing, got:\n%s", parallel, out.String())
		}
		if !strings.Contains(errb.String(), "compare interrupted: 2 of 3 variants have no result (workers=11; workers=12)") {
			t.Errorf("parallel %s: stderr does not name the missing variants:\n%s", parallel, errb.String())
		}
	}
}

// TestCompareShowsIntervals: with replications, compare's table gives the
// success rate and the p99 with their half-widths, and says what ± is.
func TestCompareShowsIntervals(t *testing.T) {
	out := mustRun(t, "compare", "mmc", "--runs", "20000", "--vary", "workers=10,11", "--replications", "3", "--wide")
	for _, want := range []string{"| workers=10 | 100.00% ±0.00% |", "± is the half-width of a 95% Student-t interval over 3 replications"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare --replications 3 lacks %q:\n%s", want, out)
		}
	}
	// Two p99 cells and two makespans per replication carry a half-width.
	if n := strings.Count(out, "s ±"); n != 4 {
		t.Errorf("%d time cells with a half-width, want 4 (p99 and makespan per replication):\n%s", n, out)
	}
}

// TestComparePairedTable: with replications, compare prints each variant's
// paired difference from the first, and the JSON carries it.
func TestComparePairedTable(t *testing.T) {
	out := mustRun(t, "compare", "mmc", "--runs", "20000", "--vary", "workers=10,11", "--replications", "3", "--wide")
	if !strings.Contains(out, "Minus workers=10, paired replication by replication") || !strings.Contains(out, "| workers=11 |") {
		t.Errorf("no paired table:\n%s", out)
	}
	var got []struct {
		Difference *compare.PairedDifference `json:"difference_from_first"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "compare", "mmc", "--runs", "20000", "--vary", "workers=10,11", "--replications", "3", "--format", "json")), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Difference != nil || got[1].Difference == nil || got[1].Difference.Baseline != "workers=10" ||
		!(got[1].Difference.LatencyMean.Hi < 0) {
		t.Errorf("JSON differences %+v: want none for the first, and 11 workers surely faster than 10", got)
	}
}

// TestCompareOutHoldsOneComparison: compare --out into a directory an
// earlier comparison with a rate-limited tool filled leaves no tools.csv
// of it behind; and a variant that completes nothing (every call fails)
// still gives valid JSON, with no latency difference.
func TestCompareOutHoldsOneComparison(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "compare", "tool-bottleneck", "--runs", "3000", "--vary", "workers=20,40", "--out", dir)
	if _, err := os.Stat(filepath.Join(dir, "tools.csv")); err != nil {
		t.Fatalf("the first comparison wrote no tools.csv: %v", err)
	}
	mustRun(t, "compare", "mm1", "--runs", "2000", "--set", "warmup=0", "--vary", "tools.server.errors.transient=0,1", "--replications", "3", "--out", dir)
	if _, err := os.Stat(filepath.Join(dir, "tools.csv")); !os.IsNotExist(err) {
		t.Errorf("tools.csv of the first comparison is still there (%v)", err)
	}
	var got []struct {
		Difference *compare.PairedDifference `json:"difference_from_first"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "compare.json")), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Difference == nil || got[1].Difference.LatencyP99 != nil || got[1].Difference.SuccessRate == nil || got[1].Difference.SuccessRate.Mean != -1 {
		t.Errorf("differences %+v: want success −100 %% and no latency difference", got)
	}
}

// TestOutagesFile: run and compare --out write outages.csv (one row per
// variant and window) when the scenario has outages, for the charts to
// shade, and remove an earlier one when it has none.
func TestOutagesFile(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "compare", "retry-storm", "--runs", "2000", "--vary", "retry.attempts=one=1,three=3", "--out", dir)
	if got, want := string(readFile(t, filepath.Join(dir, "outages.csv"))), "variant,tool,start_s,end_s,mode\none,backend,60,70,stall\nthree,backend,60,70,stall\n"; got != want {
		t.Errorf("compare outages.csv:\n%s\nwant\n%s", got, want)
	}
	mustRun(t, "compare", "mm1", "--runs", "2000", "--set", "warmup=0", "--vary", "workers=1,2", "--out", dir)
	if _, err := os.Stat(filepath.Join(dir, "outages.csv")); !os.IsNotExist(err) {
		t.Errorf("outages.csv of the earlier comparison is still there (%v)", err)
	}
	run := t.TempDir()
	mustRun(t, "run", "retry-storm", "--runs", "2000", "--out", run)
	if got, want := string(readFile(t, filepath.Join(run, "outages.csv"))), "variant,tool,start_s,end_s,mode\nretry-storm,backend,60,70,stall\n"; got != want {
		t.Errorf("run outages.csv:\n%s\nwant\n%s", got, want)
	}
	mustRun(t, "run", "mm1", "--runs", "2000", "--set", "warmup=0", "--out", run)
	if _, err := os.Stat(filepath.Join(run, "outages.csv")); !os.IsNotExist(err) {
		t.Errorf("outages.csv of the earlier run is still there (%v)", err)
	}
}

// TestBreakersFile: run and compare --out write breakers.csv for the
// variants with a circuit breaker, run prints the breakers' table, compare
// its column, and an earlier breakers.csv goes when no variant has one.
func TestBreakersFile(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, "compare", "circuit-breaker", "--vary", "tools.llm.circuit_breaker.enabled=off=false,on=true", "--out", dir)
	if !strings.Contains(out, "breaker refused (would fail / would succeed)") {
		t.Errorf("compare output lacks the breaker column:\n%s", out)
	}
	csv := string(readFile(t, filepath.Join(dir, "breakers.csv")))
	if !strings.HasPrefix(csv, "variant,tool,t_s,width_s,open,half_open,refused\non,llm,0,") || strings.Contains(csv, "\noff,") {
		t.Errorf("compare breakers.csv starts %.200q: want the header, then only variant on's rows", csv)
	}
	if !strings.Contains(csv, ",1,0,") {
		t.Errorf("breakers.csv has no bin the breaker spent open")
	}
	mustRun(t, "compare", "circuit-breaker", "--vary", "tools.llm.circuit_breaker.enabled=false", "--out", dir)
	if _, err := os.Stat(filepath.Join(dir, "breakers.csv")); !os.IsNotExist(err) {
		t.Errorf("breakers.csv of the earlier comparison is still there (%v)", err)
	}
	run := t.TempDir()
	out = mustRun(t, "run", "circuit-breaker", "--out", run)
	if !strings.Contains(out, "would have succeeded (cost)") || !strings.Contains(out, "circuit breaker ") {
		t.Errorf("run output lacks the breakers' table or the refusals' reason:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(run, "breakers.csv")); err != nil {
		t.Error(err)
	}
}

// TestCompareFullDiskStillPrints: a comparison whose per-variant files
// cannot be written as the variants complete (a file size limit stands in
// for a full disk: writes fail with EFBIG) prints its table anyway, exits
// 1 naming --out, and leaves the directory as it was.
func TestCompareFullDiskStillPrints(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "summary.csv")
	if err := os.WriteFile(old, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// 64 blocks of the shell's ulimit (at most 64 KiB) per file: the
	// latency CDF and series of three mm1 variants are several times that.
	cmd := exec.Command("sh", "-c", `ulimit -f 64 && exec "$0" "$@"`, os.Args[0], "compare", "mm1", "--vary", "workers=1,2,3", "--out", dir)
	cmd.Env = append(os.Environ(), "BUDGETSIM_TEST_MAIN=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errb.String())
	}
	if !strings.Contains(out.String(), "workers=3") || !strings.Contains(out.String(), "p99") {
		t.Errorf("the comparison's table is not printed; stdout:\n%s", out.String())
	}
	if !strings.Contains(errb.String(), "--out "+dir) || !strings.Contains(errb.String(), "too large") {
		t.Errorf("stderr does not name --out and the write's failure:\n%s", errb.String())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(old); len(entries) != 1 || string(b) != "previous\n" {
		t.Errorf("the directory changed: %d entries, summary.csv %q; want the previous summary.csv alone", len(entries), b)
	}
}
