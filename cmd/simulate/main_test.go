package main

import (
	"bytes"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/budgetsim/budgetsim/internal/render"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// runCLI runs the command line in dir and returns stdout, stderr and the
// exit status main would use.
func runCLI(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	if dir != "" {
		wd, _ := os.Getwd()
		if err := os.Chdir(dir); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
	}
	var out, errb bytes.Buffer
	code := exitCode(run(&out, &errb, args), &errb)
	return out.String(), errb.String(), code
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
		t.Fatalf("%v (run go test ./cmd/simulate -update to create it)", err)
	}
	if got != string(want) {
		os.WriteFile(path+".got", []byte(got), 0o644)
		t.Fatalf("output differs from %s (got written to %s.got; rerun with -update if the change is intended)", path, path)
	}
}

// checkFits fails the test when a line of out, the default output of
// args, is wider than the DefaultWidth columns it must fit in a pipe.
func checkFits(t *testing.T, args []string, out string) {
	t.Helper()
	if slices.Contains(args, "--wide") || slices.Contains(args, "--format") {
		return
	}
	for i, l := range strings.Split(out, "\n") {
		if w := utf8.RuneCountInString(l); w > render.DefaultWidth {
			t.Errorf("simulate %s: line %d is %d columns wide, more than %d:\n%s", strings.Join(args, " "), i+1, w, render.DefaultWidth, l)
		}
	}
}

// TestGolden pins the CLI's output for fixed scenarios and seeds. A change
// here needs a sentence in the commit message saying why the numbers moved.
// The default layouts (tables fitted to 100 columns in a pipe: wrapped,
// transposed or split) are checked to fit; --wide keeps each table whole,
// --format markdown writes the tables in Markdown.
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"run_mmc.json", []string{"run", "mmc", "--runs", "20000", "--set", "warmup=1000", "--format", "json"}, 0},
		{"run_mmc_reps.txt", []string{"run", "mmc", "--runs", "20000", "--set", "warmup=1000", "--replications", "4"}, 0},
		{"run_seed_plan.txt", []string{"run", "seed-plan"}, 0},
		{"list.txt", []string{"list"}, 0},
		{"compare_seed_plan.txt", []string{"compare", "seed-plan", "--vary", "retry.backoff.jitter=none,full"}, 0},
		// Named variants: from a file (one removes a key) and inline.
		{"compare_variants_file.txt", []string{"compare", "retry-storm", "--variants", "testdata/retry-variants.yaml"}, 0},
		{"compare_named_inline.txt", []string{"compare", "retry-storm", "--set", "horizon=120s", "--vary", "retry=naive={idempotent: true, attempts: 3},budgeted={idempotent: true, attempts: 3, budget: {kind: token_bucket}}", "--vary", "deadline=short=2s,long=5s"}, 0},
		{"run_agent_service.txt", []string{"run", "agent-service", "--runs", "4000"}, 0},
		{"run_seed_plan_wide.txt", []string{"run", "seed-plan", "--wide"}, 0},
		{"compare_seed_plan.md", []string{"compare", "seed-plan", "--vary", "retry.backoff.jitter=none,full", "--format", "markdown"}, 0},
		{"plan_mmc.txt", []string{"plan", "mmc", "--slo", "p99<=6s", "--search", "workers=10..14", "--runs", "20000"}, 0},
		{"sweep_mmc.txt", []string{"sweep", "mmc", "--vary", "workers=10..14:5", "--runs", "20000"}, 0},
		{"validate_mm1.txt", []string{"validate", "--only", "mm1,closed-mmc", "--replications", "2"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, "", c.args...)
			if code != c.code {
				t.Fatalf("simulate %s: exit %d, want %d; stderr:\n%s", strings.Join(c.args, " "), code, c.code, errOut)
			}
			golden(t, c.name, out)
			checkFits(t, c.args, out)
		})
	}
}

// TestErrors: bad input gets a clear message naming the field (and line)
// and a non-zero exit: 1 for bad input, 2 for usage mistakes.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: bad\narrivals: {rate: 9}\nworkers: 0\nsteps:\n  - {name: s, tool: srv}\ntools:\n  server:\n    latncy: {dist: exponential, mean: 1s}\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{}, 2, []string{"no command"}},
		{[]string{"frobnicate"}, 2, []string{`unknown command "frobnicate"`}},
		{[]string{"run"}, 2, []string{"exactly one scenario"}},
		{[]string{"run", "mmc", "--format", "xml"}, 2, []string{"--format: must be table, markdown or json"}},
		{[]string{"run", "no-such-scenario"}, 1, []string{"no such file, and no bundled scenario", "mmc"}},
		{[]string{"run", bad}, 1, []string{
			"bad.yaml:2: arrivals.rate: \"9\" has no unit",
			"bad.yaml:3: workers: must be in [1,",
			"bad.yaml:5: steps.s.tool: tool \"srv\" is not defined",
			"bad.yaml:8: tools.server.latncy: unknown key (did you mean \"latency\"?)",
		}},
		{[]string{"run", "mmc", "--set", "workers=-3"}, 1, []string{"--set workers=-3: workers: must be in [1,"}},
		{[]string{"run", "mmc", "--set", "steps.nope.timeout=1s"}, 1, []string{`no list item named "nope"`}},
		{[]string{"run", "mmc", "--set", "arrivals.rate=fast"}, 1, []string{"arrivals.rate", "no unit"}},
		{[]string{"compare", "mmc"}, 2, []string{"at least one --vary"}},
		{[]string{"list", "mmc"}, 2, []string{`list takes no arguments but --names (one name per line, for scripts), got "mmc"`}},
		{[]string{"compare", "mmc", "--vary", "workers=10,11", "--vary", "workers=12"}, 2, []string{"--vary workers=12: workers is varied twice"}},
		{[]string{"sweep", "mmc", "--vary", "workers=10,11", "--vary", "workers=12,13"}, 2, []string{"--vary workers=12,13: workers is varied twice"}},
		{[]string{"compare", "mmc", "--vary", "workers=10,10"}, 2, []string{`value "10" is listed twice`}},
		// 10000^16 is 0 modulo 2^64: a grid size multiplied at the end
		// overflowed to 0 variants and compare panicked.
		{append([]string{"compare", "mmc"}, sixteenAxes()...), 2, []string{"--vary: the grid has more than 10000 points"}},
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

// TestOutCheckedFirst: an --out that cannot be written is refused before
// anything is simulated, with an error naming the flag and the path, for
// every command that writes files at the end.
func TestOutCheckedFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "sub")
	for _, args := range [][]string{
		{"run", "mmc", "--out", bad},
		{"sweep", "mmc", "--vary", "workers=10,11", "--out", bad},
		{"sweep", "mmc", "--vary", "workers=10,11", "--shard", "0/2", "--out", bad},
		{"plan", "mmc", "--slo", "p99<=3s", "--search", "workers=10..20", "--out", bad},
		{"compare", "mmc", "--vary", "workers=10,11", "--out", bad},
	} {
		out, errOut, code := runCLI(t, "", args...)
		if code != 1 || out != "" || !strings.HasPrefix(errOut, "simulate: --out "+bad) {
			t.Errorf("simulate %s: exit %d, stdout %q, stderr %q; want exit 1, no output, an error naming --out %s", strings.Join(args, " "), code, out, errOut, bad)
		}
	}
}

// TestHelp: every command's -h prints its usage and flags to stderr and
// exits 0, having done nothing else.
func TestHelp(t *testing.T) {
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			out, errOut, code := runCLI(t, "", name, "-h")
			if code != 0 || out != "" {
				t.Errorf("simulate %s -h: exit %d, stdout %q; want exit 0 and nothing on stdout", name, code, out)
			}
			if !strings.HasPrefix(errOut, "Usage: simulate "+name) || !strings.Contains(errOut, "Flags:") {
				t.Errorf("simulate %s -h: stderr does not start with its usage:\n%s", name, errOut)
			}
		})
	}
}

// TestJSONIsDeterministic: same scenario + same seed = byte-identical output.
func TestJSONIsDeterministic(t *testing.T) {
	args := []string{"run", "mmc", "--runs", "30000", "--replications", "3", "--format", "json"}
	a, _, _ := runCLI(t, "", args...)
	b, _, _ := runCLI(t, "", append(args, "--parallel", "1")...)
	if a != b || a == "" {
		t.Fatal("two runs of the same scenario and seed differ")
	}
}

// TestOutAndTraceFiles: --out and --trace write complete files.
func TestOutAndTraceFiles(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := runCLI(t, dir, "run", "seed-plan", "--out", "res", "--trace", "t.json", "--trace-format", "chrome")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, f := range []string{"res/summary.json", "res/summary.csv", "res/series.csv", "t.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %v (%d bytes)", f, err, len(b))
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "t.json"))
	for _, w := range []string{`"traceEvents"`, `"name":"fetch #1 timeout"`, `"name":"backoff"`, `"name":"deadline"`} {
		if !bytes.Contains(b, []byte(w)) {
			t.Errorf("chrome trace lacks %s", w)
		}
	}
}

// sixteenAxes returns 16 --vary flags of 10000 values each.
func sixteenAxes() []string {
	var args []string
	for i := range 16 {
		args = append(args, "--vary", fmt.Sprintf("k%d=1..10000:10000", i))
	}
	return args
}

// TestFlagErrors: flags every command shares, and validate's own, reject
// what they cannot use (NaN included) with exit 2 and the flag's name,
// before anything is simulated.
func TestFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "mm1", "--level", "NaN", "--replications", "2"}, "--level: must be in (0, 1), got NaN"},
		{[]string{"compare", "mm1", "--vary", "workers=1,2", "--level", "NaN", "--replications", "2"}, "--level: must be in (0, 1), got NaN"},
		{[]string{"plan", "mm1", "--slo", "p99<=5s", "--search", "workers=1..4", "--level", "NaN"}, "--level: must be in (0, 1), got NaN"},
		{[]string{"sweep", "mm1", "--vary", "workers=1..2:2", "--level", "NaN"}, "--level: must be in (0, 1), got NaN"},
		{[]string{"validate", "--level", "NaN"}, "--level: must be in (0, 1), got NaN"},
		{[]string{"run", "mm1", "--runs", "0"}, "--runs: must be ≥ 1 (or -1 for the scenario's own), got 0"},
		{[]string{"run", "mm1", "--runs", "-5"}, "--runs: must be ≥ 1 (or -1 for the scenario's own), got -5"},
		{[]string{"validate", "--parallel", "-1"}, "--parallel: must be ≥ 0, got -1"},
		{[]string{"validate", "--only", "mm1,nosuch"}, `--only: "nosuch" is not a validated scenario`},
		{[]string{"plan", "mm1", "--slo", "p99<=5s", "--search", "workers=1..4", "--search", "tools.server.concurrency=1..3"}, `given twice ("workers=1..4" and "tools.server.concurrency=1..3")`},
	} {
		_, stderr, code := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("simulate %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}

// TestOutputPathErrors: output paths that could only fail after the whole
// simulation (a directory where a file goes) or that would overwrite
// another output (a trace named like a file of --out) are refused first,
// with exit 2.
func TestOutputPathErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "mm1", "--trace", dir}, "--trace " + dir + ": is a directory; name a file"},
		{[]string{"run", "mm1", "--out", dir, "--trace", filepath.Join(dir, "summary.json")}, "--out " + dir + " writes that file too"},
	} {
		_, stderr, code := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("simulate %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	// The same directory spelt relative for --out and absolute for --trace.
	t.Chdir(filepath.Dir(dir))
	args := []string{"run", "mm1", "--out", filepath.Base(dir), "--trace", filepath.Join(dir, "summary.json")}
	if _, stderr, code := runCLI(t, "", args...); code != 2 || !strings.Contains(stderr, "writes that file too") {
		t.Errorf("simulate %s: exit %d, stderr %q; want the clash refused", strings.Join(args, " "), code, stderr)
	}
}

// TestOutDirHoldsOneRun: run --out into a directory an earlier run with a
// rate-limited tool filled leaves no file of that run behind (its
// tools.csv would describe another scenario).
func TestOutDirHoldsOneRun(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "run", "tool-bottleneck", "--runs", "3000", "--set", "warmup=100", "--out", dir)
	if _, err := os.Stat(filepath.Join(dir, "tools.csv")); err != nil {
		t.Fatalf("the first run wrote no tools.csv: %v", err)
	}
	mustRun(t, "run", "mm1", "--runs", "3000", "--set", "warmup=100", "--out", dir)
	if _, err := os.Stat(filepath.Join(dir, "tools.csv")); !os.IsNotExist(err) {
		t.Errorf("tools.csv of the first run is still there (%v)", err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "latency_cdf.csv series.csv summary.csv summary.json" {
		t.Errorf("--out holds %q, want the second run's four files", got)
	}
}

// TestReportMoved: simulate report, which moved to its own command,
// says where it went (exit 2) instead of "unknown command".
func TestReportMoved(t *testing.T) {
	_, stderr, code := runCLI(t, "", "report", "mmc", "--out", "r.html")
	if code != 2 || !strings.Contains(stderr, "go run ./cmd/report mmc --out r.html") {
		t.Errorf("simulate report: exit %d, stderr %q; want exit 2 and the command that replaces it", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(".", "r.html")); err == nil {
		t.Errorf("simulate report wrote r.html")
	}
}

// TestCSVCellsSafeForSpreadsheets: a scenario or tool name that a
// spreadsheet would read as a formula (=, +, -, @) lands in the CSV files
// behind a single quote (OWASP's advice on CSV injection), and the charts
// read it back without the quote.
func TestCSVCellsSafeForSpreadsheets(t *testing.T) {
	scen := writeTemp(t, "evil.yaml", `name: "=HYPERLINK(\"http://x\")"
runs: 300
warmup: 0
arrivals: {rate: 2/s}
workers: 2
steps:
  - {name: a, tool: "@t"}
tools:
  "@t":
    concurrency: 2
    latency: {dist: exponential, mean: 100ms}
`)
	dir := t.TempDir()
	mustRun(t, "run", scen, "--out", dir)
	found := 0
	for _, name := range []string{"summary.csv", "tools.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		r := csv.NewReader(bytes.NewReader(b))
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, rec := range recs[1:] {
			for _, cell := range rec {
				if cell != "" && strings.IndexByte("=+@", cell[0]) >= 0 {
					t.Errorf("%s: cell %q would be a formula in a spreadsheet", name, cell)
				}
				if strings.HasPrefix(cell, "'=") || strings.HasPrefix(cell, "'@") {
					found++
				}
			}
		}
	}
	if found == 0 {
		t.Errorf("no quoted name found in summary.csv or tools.csv")
	}
}

// TestOutFailureStillPrints: when the --out files cannot be written after
// the simulation (here summary.json is a directory; a full disk is
// another), the summary is printed anyway and the exit status is 1.
func TestOutFailureStillPrints(t *testing.T) {
	scen := writeTemp(t, "s.yaml", sweepScenario)
	for _, tc := range []struct {
		args    []string
		blocker string
		want    string
	}{
		{[]string{"run", scen}, "summary.json", "Little's law"},
		{[]string{"run", scen, "--format", "json"}, "summary.csv", `"success_rate"`},
		{[]string{"sweep", scen, "--vary", "workers=5,6", "--set", "warmup=10"}, "sweep.json", "workers=6"},
		{[]string{"compare", scen, "--vary", "workers=5,6", "--set", "warmup=10"}, "compare.json", "workers=6"},
	} {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, tc.blocker), 0o755); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runCLI(t, "", append(tc.args, "--out", dir)...)
		if code != 1 || !strings.Contains(out, tc.want) || !strings.Contains(errOut, "--out "+dir) {
			t.Errorf("simulate %s with %s a directory: exit %d, stdout %d bytes (want it to contain %q), stderr %s", strings.Join(tc.args[:1], " "), tc.blocker, code, len(out), tc.want, errOut)
		}
	}
}

// narrowTerminal is a terminal 72 columns wide.
type narrowTerminal struct{ bytes.Buffer }

func (*narrowTerminal) IsTerminal() bool { return true }
func (*narrowTerminal) Width() int       { return 72 }

// TestOutputFitsTheTerminal: on a terminal, the tables and text fit its
// width rather than the 100 columns of a pipe.
func TestOutputFitsTheTerminal(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CI", "")
	t.Setenv("TERM", "xterm")
	for _, args := range [][]string{
		{"run", "agent-service", "--runs", "4000"},
		{"compare", "seed-plan", "--vary", "retry.backoff.jitter=none,full"},
		{"list"},
	} {
		var out narrowTerminal
		var errb bytes.Buffer
		if code := exitCode(run(&out, &errb, args), &errb); code != 0 {
			t.Fatalf("simulate %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		for i, l := range strings.Split(out.String(), "\n") {
			if w := utf8.RuneCountInString(l); w > 72 {
				t.Errorf("simulate %s: line %d is %d columns on a 72-column terminal:\n%s", strings.Join(args, " "), i+1, w, l)
			}
		}
	}
}
