package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
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
