package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
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
	out := mustRun(t, "compare", "mm1", "--runs", "20000", "--vary", "arrivals.rate=0.5/s,2/s")
	if !strings.Contains(out, "\nWarnings:\n  1. utilisation 2 ≥ 1 with an unbounded queue: the system is unstable; waiting times grow with the run length and no steady state exists (arrivals.rate=2/s)\n") {
		t.Errorf("compare of a stable and an unstable M/M/1 does not warn about the unstable one alone:\n%s", out)
	}
}

// TestVariantWarningsList: a warning every variant shares says "all
// variants"; one shared by 11 of 12 names the first 10 and counts the
// rest; past 20 distinct warnings the list says how many it left out.
func TestVariantWarningsList(t *testing.T) {
	var labels []string
	var out []variantSummary
	for i := range 12 {
		labels = append(labels, fmt.Sprintf("v%d", i))
		var s variantSummary
		s.Warnings = []string{"shared"}
		if i > 0 {
			s.Warnings = append(s.Warnings, "most")
		}
		out = append(out, s)
	}
	for i := range 25 {
		out[0].Warnings = append(out[0].Warnings, fmt.Sprintf("only v0, #%d", i))
	}
	var b strings.Builder
	writeVariantWarnings(&b, labels, out)
	got := b.String()
	for _, want := range []string{
		"\nWarnings:\n  1. shared (all variants)\n",
		"  2. only v0, #0 (v0)\n",
		"  20. only v0, #18 (v0)\n  … and 7 more distinct warnings (--format json has each of the variants' own)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
	out[0].Warnings = []string{"shared"}
	b.Reset()
	writeVariantWarnings(&b, labels, out)
	if want := "  2. most (v1; v2; v3; v4; v5; v6; v7; v8; v9; v10; and 1 more)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("warnings lack %q:\n%s", want, b.String())
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
	out := mustRun(t, "compare", "mmc", "--runs", "20000", "--vary", "workers=10,11", "--replications", "3")
	for _, want := range []string{"| workers=10 | 100.00% ±0.00% |", "± is the half-width of a 95% Student-t interval over 3 replications"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare --replications 3 lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "s ±"); n != 2 {
		t.Errorf("%d p99 cells with a half-width, want 2:\n%s", n, out)
	}
}
