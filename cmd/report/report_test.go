package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/budgetsim/budgetsim/internal/buildinfo"
)

// The reports record the build as "test": the report takes it from
// $BUDGETSIM_VERSION (buildinfo.Stamp), which a developer may have set.
func init() { os.Setenv(buildinfo.EnvVersion, "test") }

// TestReportShowsOverrides: report --set workers=19 shows 19 in the
// Scenario section, not the file's workers, and the overrides themselves.
func TestReportShowsOverrides(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	_, stderr, code := runCLI(t, "mmc", "--runs", "20000", "--set", "workers=19", "--set", "retry.budget.kind=ratio", "--set", "retry.budget.ratio=0.1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(page)
	section := doc[strings.Index(doc, `<section id="scenario">`):]
	for _, want := range []string{"\nworkers: 19\n", "ratio: 0.1", "<code>--set workers=19</code>", "<code>--set retry.budget.kind=ratio</code>"} {
		if !strings.Contains(section, want) {
			t.Errorf("Scenario section lacks %q:\n%s", want, section)
		}
	}
	if strings.Contains(section, "workers: 10") {
		t.Errorf("Scenario section shows the file's workers: 10")
	}
	// The file's description says 10 workers: the page marks it as the
	// file's, with the overrides that change what it describes.
	if !strings.Contains(doc, "10 workers, exponential 1 s service (ρ = 0.9); validated against Erlang C (as the scenario file describes itself; simulated with --set workers=19 --set ") {
		t.Errorf("the description is not marked as the file's under --set workers=19")
	}
}

// TestReportVersion: --version prints the build and the scenario format.
func TestReportVersion(t *testing.T) {
	out, _, code := runCLI(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "report ") || !strings.Contains(out, "scenario format 1\n") {
		t.Errorf("report --version: exit %d, %q", code, out)
	}
}

// TestReportCommand: report writes one HTML file, atomically,
// prints its path, and writes the same bytes for the same scenario and
// seed, whatever the parallelism.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.html"), filepath.Join(dir, "b.html")
	args := []string{"retry-storm", "--set", "horizon=100s", "--replications", "2", "--date", "2025-01-31"}
	for _, c := range []struct {
		out, parallel string
	}{{a, "1"}, {b, "2"}} {
		stdout, stderr, code := runCLI(t, append(args, "--out", c.out, "--parallel", c.parallel)...)
		if code != 0 {
			t.Fatalf("report --out %s: exit %d, stderr:\n%s", c.out, code, stderr)
		}
		if stdout != c.out+"\n" {
			t.Errorf("report stdout = %q, want %q", stdout, c.out+"\n")
		}
	}
	pa, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pa, pb) {
		t.Errorf("report wrote different bytes with --parallel 1 and 2")
	}
	doc := string(pa)
	for _, want := range []string{"<title>budgetsim report · retry-storm</title>", "<dt>date</dt><dd>2025-01-31</dd>", "<dt>replications</dt><dd>2</dd>", "<dt>budgetsim</dt><dd>test</dd>"} {
		if !strings.Contains(doc, want) {
			t.Errorf("report does not contain %q", want)
		}
	}
	if n := strings.Count(doc, "<svg "); n != 6 { // retry-storm's backend has a concurrency: a utilisation chart too
		t.Errorf("report has %d inline <svg> elements, want 6", n)
	}
	if strings.Contains(strings.ToLower(doc), "<script") {
		t.Errorf("report contains a <script>")
	}
	// Nothing but the two reports is left in the directory (no temporary
	// file of the atomic write).
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want a.html and b.html", names)
	}
}

func TestReportErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "outage"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "report needs exactly one scenario"},
		{[]string{"seed-plan", "mmc"}, 2, "report needs exactly one scenario"},
		{[]string{"seed-plan", "--format", "json"}, 2, "unknown flag --format"},
		{[]string{"seed-plan", "--replications", "0"}, 2, "--replications: must be in [1, 10000], got 0"},
		{[]string{"seed-plan", "--out", ""}, 2, `--out: invalid value "": empty`},
		{[]string{"nosuch"}, 1, "nosuch"},
		{[]string{"seed-plan", "--wide"}, 2, "unknown flag --wide"},
		// A results directory misspelt: the directory beside it is named.
		{[]string{filepath.Join(dir, "outag")}, 1, "(or did you mean the results directory " + filepath.Join(dir, "outage") + "?)"},
		{[]string{"seed-plan", "--out", filepath.Join(dir, "missing", "r.html")}, 1, "missing"},
		{[]string{"mm1", "--level", "NaN"}, 2, "--level: must be in (0, 1), got NaN"},
		{[]string{"mm1", "--out", dir}, 2, "--out " + dir + ": is a directory; name a file"},
	}
	for _, c := range cases {
		_, stderr, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("report %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.want)
		}
	}
}

// runCLI runs the command in-process with args and returns its stdout,
// stderr and exit status.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := exitCode(runWith(&out, &errb, args, new(atomic.Bool)), &errb)
	return out.String(), errb.String(), code
}

// TestReportHelp: -h prints the usage with every scenario flag but
// --format, and succeeds.
func TestReportHelp(t *testing.T) {
	_, stderr, code := runCLI(t, "-h")
	if code != 0 {
		t.Fatalf("report -h: exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"Usage: report SCENARIO|DIR [flags]", "-replications", "-set", "-out FILE", "-date DATE"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("report -h does not show %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "-format") {
		t.Errorf("report -h shows --format, which a report does not take:\n%s", stderr)
	}
}

// TestReportInterrupted: a report asked to stop (Ctrl-C) still writes the
// page of what completed and exits 130.
func TestReportInterrupted(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	var stdout, stderr bytes.Buffer
	stop := new(atomic.Bool)
	stop.Store(true)
	code := exitCode(runWith(&stdout, &stderr, []string{"mmc", "--runs", "20000", "--replications", "3", "--out", out}, stop), &stderr)
	if code != 130 || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("interrupted report: exit %d, stderr %q; want 130 and \"interrupted\"", code, stderr.String())
	}
	if page, err := os.ReadFile(out); err != nil || !strings.Contains(string(page), "<title>budgetsim report · mmc</title>") {
		t.Errorf("interrupted report: %s not written whole (err %v)", out, err)
	}
}
