package main

import (
	"bytes"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/plan/search"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// runCLI runs plot with args and returns stdout, stderr and the exit
// status main would use.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = exitCode(run(&out, &errb, args), &errb)
	return out.String(), errb.String(), code
}

// copyResults copies testdata/results (written by `simulate compare
// seed-plan --vary steps.fetch.timeout=100ms,300ms --out results`, plus
// small sweep.csv, tools.csv and a seed-plan trace) into a
// temporary directory and returns its path.
func copyResults(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "results")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "results"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update to accept):\n--- got\n%s--- want\n%s", path, got, want)
	}
}

func TestRunAllCharts(t *testing.T) {
	dir := copyResults(t)
	out := filepath.Join(filepath.Dir(dir), "charts")
	stdout, stderr, code := runCLI(t, dir, "--out", out, "--trace", filepath.Join(dir, "trace.jsonl"))
	if code != 0 {
		t.Fatalf("plot DIR --out OUT --trace: exit %d, stderr %s", code, stderr)
	}
	golden(t, "all_charts.txt", strings.ReplaceAll(stdout, out, "OUT"))
	for _, p := range strings.Fields(stdout) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		switch filepath.Ext(p) {
		case ".png":
			if _, err := png.DecodeConfig(bytes.NewReader(data)); err != nil {
				t.Errorf("%s: not a PNG: %v", p, err)
			}
		case ".svg":
			if !bytes.HasPrefix(data, []byte("<?xml")) || !bytes.Contains(data, []byte("</svg>")) {
				t.Errorf("%s: not a complete SVG", p)
			}
		}
	}
	// Nothing but the charts: no temporary files left behind.
	ents, _ := os.ReadDir(out)
	if len(ents) != len(strings.Fields(stdout)) {
		t.Errorf("%s holds %d files, want the %d printed", out, len(ents), len(strings.Fields(stdout)))
	}
}

func TestRunDefaults(t *testing.T) {
	dir := copyResults(t)
	// --out defaults to DIR; flags may follow the directory.
	stdout, stderr, code := runCLI(t, dir, "--format", "svg")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if want := filepath.Join(dir, "latency_cdf.svg"); !strings.HasPrefix(stdout, want+"\n") || strings.Contains(stdout, ".png") {
		t.Errorf("plot DIR --format svg printed %q, want SVG files in DIR starting with %s", stdout, want)
	}
	// --trace alone: the timeline, next to the trace.
	stdout, stderr, code = runCLI(t, "--trace", filepath.Join(dir, "trace.jsonl"), "--run", "0", "--format", "png")
	if want := filepath.Join(dir, "timeline_run_0.png") + "\n"; code != 0 || stdout != want {
		t.Errorf("plot --trace FILE --run 0: exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
}

func TestRunSkipsEmptyInput(t *testing.T) {
	dir := copyResults(t)
	if err := os.WriteFile(filepath.Join(dir, "latency_cdf.csv"), []byte("variant,value_s,fraction\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, dir, "--format", "svg")
	if code != 0 || strings.Contains(stdout, "latency_cdf") || !strings.Contains(stderr, "plot: skipping "+filepath.Join(dir, "latency_cdf.csv")+": latency CDF: no data to draw") {
		t.Errorf("header-only latency_cdf.csv: exit %d, stdout %q, stderr %q; want it skipped with a note", code, stdout, stderr)
	}
}

func TestRunErrors(t *testing.T) {
	dir := copyResults(t)
	bad := filepath.Join(filepath.Dir(dir), "bad")
	if err := os.CopyFS(bad, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "tools.csv"), []byte("variant,tool,t_s,width_s,utilisation\nv,db,0,1,0.5\nv,db,1,1,high\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no arguments", nil, 2, "plot: want a results directory"},
		{"two directories", []string{dir, dir}, 2, "want one results directory, got 2 arguments"},
		{"bad format", []string{dir, "--format", "gif"}, 2, `--format: want png and/or svg, comma-separated, got "gif"`},
		{"run without trace", []string{dir, "--run", "1"}, 2, "--run: needs --trace FILE"},
		{"negative run", []string{dir, "--trace", "t", "--run", "-1"}, 2, `want a run id ≥ 0, got "-1"`},
		{"unknown flag", []string{dir, "--dpi", "300"}, 2, "unknown flag --dpi"},
		{"bad objective", []string{dir, "--slo", "p99<2"}, 2, `--slo: "p99<2"`},
		{"missing directory", []string{filepath.Join(empty, "nope")}, 1, "nope: no such directory"},
		// dir's last letter dropped: a typo of a directory beside it.
		{"misspelt directory", []string{dir[:len(dir)-1]}, 1, dir[:len(dir)-1] + ": no such directory (did you mean " + dir + "?)"},
		{"nothing to plot", []string{empty}, 1, "nothing to plot"},
		{"malformed CSV", []string{bad}, 1, filepath.Join(bad, "tools.csv") + `:3: utilisation: want a finite number, got "high"`},
		{"run not traced", []string{dir, "--trace", filepath.Join(dir, "trace.jsonl"), "--run", "5"}, 1, "run: 5 is not in the trace"},
	}
	for _, tt := range tests {
		_, stderr, code := runCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("%s: plot %s: exit %d, stderr %q; want exit %d and %q", tt.name, strings.Join(tt.args, " "), code, stderr, tt.code, tt.stderr)
		}
	}
	// A malformed input writes no chart at all.
	if ents, _ := os.ReadDir(bad); len(ents) != 6 {
		t.Errorf("after the malformed tools.csv, %s holds %d files, want the 6 inputs only", bad, len(ents))
	}
}

func TestRunHelp(t *testing.T) {
	stdout, _, code := runCLI(t, "-h")
	if code != 0 || !strings.HasPrefix(stdout, "Usage: plot DIR") || !strings.Contains(stdout, "-trace FILE") {
		t.Errorf("plot -h: exit %d, stdout %q; want the usage and exit 0", code, stdout)
	}
}

// TestRunWindow: --window draws only the time-series charts, named by the
// window, with the window as their x axis; a directory with an outage
// also gets each chart zoomed on it; a bad window is a usage error.
func TestRunWindow(t *testing.T) {
	dir := copyResults(t)
	out := filepath.Join(filepath.Dir(dir), "window")
	stdout, stderr, code := runCLI(t, dir, "--out", out, "--format", "svg", "--window", "100ms..300ms")
	if code != 0 {
		t.Fatalf("plot --window: exit %d, stderr %s", code, stderr)
	}
	// tools.csv's 1.28 s samples start outside the window: no utilisation.
	want := []string{"in_system_100ms-300ms.svg", "attempt_rate_100ms-300ms.svg"}
	var got []string
	for _, p := range strings.Fields(stdout) {
		got = append(got, filepath.Base(p))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("plot --window wrote %q, want %q", got, want)
	}
	svg, err := os.ReadFile(filepath.Join(out, "attempt_rate_100ms-300ms.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("100ms to")) || bytes.Contains(svg, []byte(">0s<")) {
		t.Errorf("the windowed chart's title does not name the window, or its axis starts at 0")
	}
	// An outage at 0.2 s: every time-series chart also zoomed on it.
	if err := os.WriteFile(filepath.Join(dir, "outages.csv"), []byte("variant,tool,start_s,end_s,mode\nsteps.fetch.timeout=100ms,db,0.2,0.25,stall\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = runCLI(t, dir, "--out", out, "--format", "svg")
	if code != 0 {
		t.Fatalf("plot with outages.csv: exit %d, stderr %s", code, stderr)
	}
	for _, name := range []string{"in_system_outage.svg", "attempt_rate_outage.svg", "utilisation_outage.svg"} {
		if !strings.Contains(stdout, name) {
			t.Errorf("plot with an outage did not write %s:\n%s", name, stdout)
		}
	}
	for _, bad := range []string{"32m..29m", "29m", "a..b", "-1s..2s"} {
		if _, stderr, code := runCLI(t, dir, "--window", bad); code != 2 || !strings.Contains(stderr, "want FROM..TO") {
			t.Errorf("plot --window %s: exit %d, stderr %q; want a usage error", bad, code, stderr)
		}
	}
}

// TestPlotRefusesInterruptedOutput: as report does, plot refuses a
// directory whose last write was interrupted between renames.
func TestPlotRefusesInterruptedOutput(t *testing.T) {
	dir := copyResults(t)
	if err := os.WriteFile(filepath.Join(dir, ".budgetsim-publishing"), []byte("summary.json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, dir, "--out", t.TempDir())
	if code == 0 || !strings.Contains(stderr, "interrupted") {
		t.Errorf("plot of an interrupted directory: exit %d, stderr %s; want it refused", code, stderr)
	}
}

// manySeries writes a comparison's series.csv (200 bins a variant),
// latency_cdf.csv and tools.csv (50 rows a variant) of n variants.
func manySeries(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("variant,t_s,width_s,arrivals,attempts,completed,ended,in_system\n")
	for v := range n {
		for i := range 200 {
			fmt.Fprintf(&b, "workers=%d,%d,1,10,12,9,10,3.5\n", v, i)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "series.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The other per-variant files: a latency CDF and a tool's utilisation.
	var cdf, tools strings.Builder
	cdf.WriteString("variant,value_s,fraction\n")
	tools.WriteString("variant,tool,t_s,width_s,utilisation\n")
	for v := range n {
		for i := range 50 {
			fmt.Fprintf(&cdf, "workers=%d,%d,%g\n", v, i+1, float64(i+1)/50)
			fmt.Fprintf(&tools, "workers=%d,api,%d,1,0.5\n", v, i)
		}
	}
	for name, text := range map[string]string{"latency_cdf.csv": cdf.String(), "tools.csv": tools.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSeriesBounded: the time series, CDFs and tool samples read from a
// comparison's per-variant files are bounded to charts.MaxSeriesVariants
// variants, whatever the files hold: the memory they keep (live heap after a collection, which does
// not depend on timing) is about the same for 2000 variants as for 200,
// not ten times as much; plot says how many it left out.
func TestSeriesBounded(t *testing.T) {
	kept := func(n int) (uint64, *charts.Dir) {
		dir := manySeries(t, n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		d, err := charts.ReadDir(dir, search.ParseObjective)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(d)
		return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc), d
	}
	small, ds := kept(200)
	large, dl := kept(2000)
	if len(dl.Series) != charts.MaxSeriesVariants || dl.VariantsOmitted != 2000-charts.MaxSeriesVariants || len(ds.Series) != charts.MaxSeriesVariants {
		t.Fatalf("kept %d series (%d left out) of 2000, %d of 200; want %d of each", len(dl.Series), dl.VariantsOmitted, len(ds.Series), charts.MaxSeriesVariants)
	}
	cdfs, tools := map[string]bool{}, map[string]bool{}
	for _, c := range dl.CDFs {
		cdfs[c.Variant] = true
	}
	for _, s := range dl.Tools {
		tools[s.Variant] = true
	}
	if len(cdfs) != charts.MaxSeriesVariants || len(tools) != charts.MaxSeriesVariants {
		t.Errorf("kept the CDFs of %d variants and the tool samples of %d, want %d of each", len(cdfs), len(tools), charts.MaxSeriesVariants)
	}
	// 200 bins of 64 bytes for each of 32 variants is 400 KB; 2000
	// variants' names and empty entries add about 200 KB. Unbounded, 2000
	// variants keep 10 times what 200 do (about 30 MB).
	if large > 3*small {
		t.Errorf("2000 variants keep %d bytes, 200 keep %d: want about the same (bounded), not ten times", large, small)
	}
	_, stderr, code := runCLI(t, manySeries(t, 40), "--out", t.TempDir())
	if code != 0 || !strings.Contains(stderr, "the other 8 are left out") {
		t.Errorf("plot of 40 variants: exit %d, stderr %q; want it to say 8 were left out", code, stderr)
	}
}
