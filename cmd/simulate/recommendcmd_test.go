package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// apiLog is a small latency log with "# source:" and "# date:" labels.
const apiLog = "../../plan/recommend/testdata/api.txt"

// TestRecommendGolden pins recommend's table and JSON for a latency file
// and its table for a small simulated scenario.
func TestRecommendGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"recommend_api.txt", []string{"recommend", "--latencies", apiLog, "--error-rate", "0.05", "--deadline", "1s"}},
		{"recommend_api.json", []string{"recommend", "--latencies", apiLog, "--error-rate", "0.05", "--deadline", "1s", "--format", "json"}},
		{"recommend_two_step.txt", []string{"recommend", "../../plan/recommend/testdata/two-step.yaml", "--runs", "2000", "--deadline", "2s"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, "", c.args...)
			if code != 0 {
				t.Fatalf("simulate %s: exit %d, want 0; stderr:\n%s", strings.Join(c.args, " "), code, errOut)
			}
			golden(t, c.name, out)
			checkFits(t, c.args, out)
		})
	}
}

// TestRecommendJSONFields: the JSON of a latency file has the promised
// fields and keeps the file's source and date labels.
func TestRecommendJSONFields(t *testing.T) {
	out, errOut, code := runCLI(t, "", "recommend", "--latencies", apiLog, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("recommend --format json: %v\n%s", err, out)
	}
	for _, k := range []string{"samples", "p50_s", "p90_s", "p99_s", "p999_s", "ceiling_s", "floor_s", "fit", "source", "date", "deadline_s", "attempts", "cut_off_fraction", "tail_heavier"} {
		if _, ok := m[k]; !ok {
			t.Errorf("recommend --format json lacks %q", k)
		}
	}
	if m["source"] != "api.example.com/v1/search" || m["date"] != "2026-11-30" {
		t.Errorf("source, date = %v, %v, want api.example.com/v1/search, 2026-11-30", m["source"], m["date"])
	}
	fit, _ := m["fit"].(map[string]any)
	for _, k := range []string{"dist", "params", "ks"} {
		if _, ok := fit[k]; !ok {
			t.Errorf("recommend --format json: fit lacks %q", k)
		}
	}
}

// TestRecommendErrors: bad input exits 1 with the file and line; usage
// mistakes exit 2.
func TestRecommendErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("# source: x\n12ms\n\n15 parsecs\n"), 0o644)
	csv := filepath.Join(dir, "lat.csv")
	os.WriteFile(csv, []byte("ts,latency_ms\n1,250\n2,-3\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"recommend", "--latencies", bad}, 1, []string{"bad.txt:4: ", "parsecs"}},
		{[]string{"recommend", "--latencies", csv, "--column", "latency_ms"}, 1, []string{"lat.csv:3: ", "-3"}},
		{[]string{"recommend", "--latencies", csv, "--column", "nope"}, 1, []string{"lat.csv:1: ", `column "nope"`}},
		{[]string{"recommend", "--latencies", filepath.Join(dir, "missing.txt")}, 1, []string{"missing.txt"}},
		{[]string{"recommend"}, 2, []string{"--latencies FILE or exactly one scenario"}},
		{[]string{"recommend", "--latencies", apiLog, "mmc"}, 2, []string{"not both"}},
		{[]string{"recommend", "--latencies", apiLog, "--percentile", "100"}, 2, []string{"--percentile: must be in (0, 100), got 100"}},
		{[]string{"recommend", "--latencies", apiLog, "--floor-percentile", "99.5"}, 2, []string{"--floor-percentile"}},
		{[]string{"recommend", "--latencies", apiLog, "--unit", "parsec"}, 2, []string{"--unit"}},
		{[]string{"recommend", "--latencies", apiLog, "--backoff-bound", "best"}, 2, []string{"--backoff-bound"}},
		{[]string{"recommend", "--latencies", apiLog, "--set", "workers=2"}, 2, []string{"--set applies to a scenario"}},
		{[]string{"recommend", "mmc", "--error-rate", "0.1"}, 2, []string{"--error-rate applies to --latencies"}},
		{[]string{"recommend", "mmc", "--jitter", "none"}, 2, []string{"retry.backoff.jitter"}},
		{[]string{"recommend", "mmc", "--unit", "ms"}, 2, []string{"--unit applies to --latencies"}},
	}
	for _, c := range cases {
		_, errOut, code := runCLI(t, "", c.args...)
		if code != c.code {
			t.Errorf("simulate %s: exit %d, want %d; stderr: %s", strings.Join(c.args, " "), code, c.code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("simulate %s: stderr lacks %q:\n%s", strings.Join(c.args, " "), w, errOut)
			}
		}
	}
}

// TestRecommendLatencyLimits: recommend --latencies applies the scenario
// loader's longest duration with the line, and reads a log longer than
// --max-samples through a histogram instead of keeping every sample.
func TestRecommendLatencyLimits(t *testing.T) {
	for _, tc := range []struct{ log, want string }{
		{"1s\n9999999999h\n", `log.txt:2: "9999999999h" is too long: at most 876000h0m0s (100 years, the longest duration a scenario takes)`},
		{"1\n2\n1e308\n", `log.txt:3: "1e308" is too long`},
	} {
		p := writeTemp(t, "log.txt", tc.log)
		_, errOut, code := runCLI(t, "", "recommend", "--latencies", p)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("recommend --latencies (%q): exit %d, %s; want exit 1 and …%s", tc.log, code, errOut, tc.want)
		}
	}
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "%dms\n", 10+i%90)
	}
	p := writeTemp(t, "log.txt", b.String())
	exact := mustRun(t, "recommend", "--latencies", p)
	if !strings.Contains(exact, "1000 samples; percentiles: nearest rank (inverse empirical CDF") {
		t.Errorf("recommend within --max-samples:\n%s\nwant the samples' own percentiles", exact)
	}
	sketch := mustRun(t, "recommend", "--latencies", p, "--max-samples", "100")
	if !strings.Contains(sketch, "1000 samples; percentiles: nearest rank from a log-linear histogram") || !strings.Contains(sketch, "more than --max-samples 100") {
		t.Errorf("recommend past --max-samples:\n%s\nwant histogram percentiles and a note", sketch)
	}
	for _, n := range []string{"1", "50000001"} {
		if _, errOut, code := runCLI(t, "", "recommend", "--latencies", p, "--max-samples", n); code != 2 || !strings.Contains(errOut, "--max-samples: must be in [2, 50000000]") {
			t.Errorf("--max-samples %s: exit %d, %s", n, code, errOut)
		}
	}
}
