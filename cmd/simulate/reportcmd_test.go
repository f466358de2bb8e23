package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportCommand: simulate report writes one HTML file, atomically,
// prints its path, and writes the same bytes for the same scenario and
// seed, whatever the parallelism.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.html"), filepath.Join(dir, "b.html")
	args := []string{"report", "retry-storm", "--set", "horizon=100s", "--replications", "2", "--date", "2025-01-31"}
	for _, c := range []struct {
		out, parallel string
	}{{a, "1"}, {b, "2"}} {
		stdout, stderr, code := runCLI(t, "", append(args, "--out", c.out, "--parallel", c.parallel)...)
		if code != 0 {
			t.Fatalf("simulate report --out %s: exit %d, stderr:\n%s", c.out, code, stderr)
		}
		if stdout != c.out+"\n" {
			t.Errorf("simulate report stdout = %q, want %q", stdout, c.out+"\n")
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
		t.Errorf("simulate report wrote different bytes with --parallel 1 and 2")
	}
	doc := string(pa)
	for _, want := range []string{"<title>budgetsim report · retry-storm</title>", "<dt>date</dt><dd>2025-01-31</dd>", "<dt>replications</dt><dd>2</dd>", "<dt>budgetsim</dt><dd>devel</dd>"} {
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
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report"}, 2, "report needs exactly one scenario"},
		{[]string{"report", "seed-plan", "mmc"}, 2, "report needs exactly one scenario"},
		{[]string{"report", "seed-plan", "--format", "json"}, 2, "flag provided but not defined: -format"},
		{[]string{"report", "seed-plan", "--replications", "0"}, 2, "--replications: must be in [1, 10000], got 0"},
		{[]string{"report", "seed-plan", "--out", ""}, 2, "--out: must name a file"},
		{[]string{"report", "nosuch"}, 1, "nosuch"},
		{[]string{"report", "seed-plan", "--out", filepath.Join(dir, "missing", "r.html")}, 1, "missing"},
	}
	for _, c := range cases {
		_, stderr, code := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("simulate %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.want)
		}
	}
}
