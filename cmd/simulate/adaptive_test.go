package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAdaptiveOutputs: run prints the adaptive concurrency table and counts
// its refusals, run --out writes limits.csv (the limit per bin, which falls
// in the provider's slowdown), and compare --out writes it for the variants
// that have a limit; a run without one removes an earlier limits.csv.
func TestAdaptiveOutputs(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, "run", "adaptive-concurrency", "--out", dir, "--wide") // the table whole
	for _, want := range []string{"| adaptive concurrency |", "| llm ", "aimd ", "concurrency limit "} {
		if !strings.Contains(out, want) {
			t.Errorf("run output lacks %q", want)
		}
	}
	f, err := os.Open(filepath.Join(dir, "limits.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "variant,tool,t_s,width_s,limit" || len(rows) < 10 {
		t.Fatalf("limits.csv: header %v, %d rows", rows[0], len(rows))
	}
	// The limit's mean before the slowdown (5m) and in its second minute.
	mean := func(from, to float64) float64 {
		var sum float64
		var n int
		for _, r := range rows[1:] {
			at, _ := strconv.ParseFloat(r[2], 64)
			v, _ := strconv.ParseFloat(r[4], 64)
			if r[0] != "adaptive-concurrency" || r[1] != "llm" {
				t.Fatalf("row %v: want variant adaptive-concurrency, tool llm", r)
			}
			if at >= from && at < to {
				sum += v
				n++
			}
		}
		return sum / float64(n)
	}
	if before, during := mean(120, 300), mean(360, 420); !(during < before/2) {
		t.Errorf("mean limit %.1f before the slowdown, %.1f in it: want it at least halved", before, during)
	}
	cmp := t.TempDir()
	mustRun(t, "compare", "adaptive-concurrency", "--runs", "2000", "--variants", "../../plan/compare/testdata/adaptive-variants.yaml", "--out", cmp)
	b := string(readFile(t, filepath.Join(cmp, "limits.csv")))
	for _, v := range []string{"\naimd,llm,", "\nfixed-6,llm,0,"} {
		if !strings.Contains(b, v) {
			t.Errorf("compare limits.csv lacks %q", v)
		}
	}
	if strings.Contains(b, "no-limit") {
		t.Errorf("compare limits.csv has rows for the variant without a limit")
	}
	mustRun(t, "run", "mm1", "--runs", "2000", "--set", "warmup=0", "--out", dir)
	if _, err := os.Stat(filepath.Join(dir, "limits.csv")); !os.IsNotExist(err) {
		t.Errorf("limits.csv of the earlier run is still there (%v)", err)
	}
}
