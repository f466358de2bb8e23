package scenarios_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/budgetsim/budgetsim/scenarios"
)

// latencyFiles are the empirical latency files the table tests may name.
var latencyFiles = fstest.MapFS{
	"lat.txt": {Data: []byte("# source: test\n10ms\n20ms\n30ms\n")},
	"bad.txt": {Data: []byte("# source: test\n10ms\n\n20ms\nfast\n")},
	"neg.txt": {Data: []byte("10ms\n-1ms\n")},
	"nil.txt": {Data: []byte("# nothing measured\n")},
}

// row is a one-line change to a small valid scenario, t.yaml:
//
//	1 name: t
//	2 arrivals: {rate: 9/s}          (arrivals: <arrivals>)
//	3 workers: 2                     (workers: <workers>)
//	4 <top>
//	5 steps:
//	6   - {name: a, tool: t, <step>}
//	7 tools:
//	8   t: {latency: {dist: exponential, mean: 1s}, <tool>}   (latency: <latency>)
//
// so that every error's line is one of 2, 3, 4, 6 or 8.
type row struct {
	name                                    string
	arrivals, workers, top, step, tool, lat string
	// stepAll replaces the step's "name: a, tool: t".
	stepAll string
	want    string // the errors, one per line; "" when the scenario loads
}

func (r row) src() string {
	or := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	comma := func(s string) string {
		if s == "" {
			return ""
		}
		return ", " + s
	}
	return "name: t\n" +
		"arrivals: " + or(r.arrivals, "{rate: 9/s}") + "\n" +
		"workers: " + or(r.workers, "2") + "\n" +
		r.top + "\n" +
		"steps:\n" +
		"  - {" + or(r.stepAll, "name: a, tool: t") + comma(r.step) + "}\n" +
		"tools:\n" +
		"  t: {latency: " + or(r.lat, "{dist: exponential, mean: 1s}") + comma(r.tool) + "}\n"
}

// parseErr parses src as file t.yaml and returns its error text, checking
// that the error is a scenarios.Errors.
func parseErr(t *testing.T, src string, sets ...string) string {
	t.Helper()
	sc, err := scenarios.Parse("t.yaml", []byte(src), sets, latencyFiles)
	if err == nil {
		if sc == nil || sc.Config == nil {
			t.Fatalf("Parse(%q) = nil Config, nil error", src)
		}
		return ""
	}
	var es scenarios.Errors
	if !errors.As(err, &es) {
		t.Fatalf("Parse(%q) error is %T, want scenarios.Errors: %v", src, err, err)
	}
	if sc != nil {
		t.Errorf("Parse(%q) = %v and an error, want nil Scenario with the error", src, sc)
	}
	return err.Error()
}

func runRows(t *testing.T, rows []row) {
	t.Helper()
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			src := r.src()
			got := parseErr(t, src)
			if os.Getenv("SCENARIOS_FILL") != "" {
				fmt.Printf("FILL\t%s\t%q\n", r.name, got)
			}
			if got != r.want {
				t.Errorf("Parse(%q) errors:\n%s\nwant:\n%s", src, got, r.want)
			}
		})
	}
}

func TestRowBaseIsValid(t *testing.T) {
	src := row{}.src()
	sc, err := scenarios.Parse("t.yaml", []byte(src), nil, latencyFiles)
	if err != nil {
		t.Fatalf("Parse(%q) = %v, want the base scenario of the table tests to load", src, err)
	}
	c := sc.Config
	if c.Name != "t" || c.Workers != 2 || c.Arrivals.Rate != 9 || len(c.Steps) != 1 || len(c.Tools) != 1 {
		t.Errorf("Parse(%q) = %+v, want name t, 2 workers, rate 9/s, one step, one tool", src, c)
	}
}

// writeLoggedScenario writes a scenario whose tool's latency is the
// empirical log lat.txt (10 ms and 20 ms) next to it, and returns the
// directory, the scenario's path and its text.
func writeLoggedScenario(t *testing.T) (dir, path, text string) {
	t.Helper()
	dir = t.TempDir()
	path = dir + "/s.yaml"
	text = "name: t\narrivals: {rate: 9/s}\nworkers: 2\nsteps:\n  - {name: a, tool: t}\ntools:\n  t:\n    latency: {dist: empirical, file: lat.txt}\n"
	if err := os.WriteFile(dir+"/lat.txt", []byte("10ms\n20ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path, text
}

// TestReparseUsesTheTextAsRead: Reparse applies other overrides to the
// text as it was read, whatever the file holds now, and reads latency
// files from the same directory.
func TestReparseUsesTheTextAsRead(t *testing.T) {
	_, path, text := writeLoggedScenario(t)
	sc, err := scenarios.Load(path, []string{"workers=3"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("name: changed\nworkers: -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := sc.Reparse([]string{"arrivals.rate=4/s"})
	if err != nil {
		t.Fatalf("Reparse: %v", err)
	}
	if again.Config.Name != "t" || again.Config.Workers != 2 || again.Config.Arrivals.Rate != 4 || string(again.Source) != text || again.File != path {
		t.Errorf("Reparse: name %q, workers %d, rate %v, file %q; want t, 2 (the text as read, not the loaded overrides), 4, %q",
			again.Config.Name, again.Config.Workers, again.Config.Arrivals.Rate, again.File, path)
	}
	_, err = sc.Reparse([]string{"workers=0"})
	var errs scenarios.Errors
	if !errors.As(err, &errs) || len(errs) == 0 || errs[0].File != path {
		t.Errorf("Reparse with a bad override: %v, want an error naming %s", err, path)
	}
}

// TestReparseSharesLatencyLogs: scenarios reparsed from one text share the
// latency logs as first read (one read, one copy of the samples), even when
// reparsed concurrently and after the file changed.
func TestReparseSharesLatencyLogs(t *testing.T) {
	dir, path, _ := writeLoggedScenario(t)
	sc, err := scenarios.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/lat.txt", []byte("5s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 8
	means := make(chan float64, n)
	for range n {
		go func() {
			again, err := sc.Reparse([]string{"workers=3"})
			if err != nil {
				t.Error(err)
				means <- -1
				return
			}
			means <- again.Config.Tools[0].Latency.Mean()
		}()
	}
	for range n {
		if m := <-means; m != 0.015 {
			t.Errorf("reparsed latency mean %v s, want 0.015 (the log as first read)", m)
		}
	}
	// A scenario loaded afresh reads the file as it is now.
	fresh, err := scenarios.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := fresh.Config.Tools[0].Latency.Mean(); m != 5 {
		t.Errorf("fresh load: latency mean %v s, want 5", m)
	}
}

// TestVariantsReadTheFileOnce: the first successful Load reads the file
// (a failing one does not count), later ones parse that text.
func TestVariantsReadTheFileOnce(t *testing.T) {
	_, path, _ := writeLoggedScenario(t)
	var v scenarios.Variants
	if _, err := v.Load(path, []string{"workers=0"}); err == nil {
		t.Fatal("Load(workers=0) succeeded, want an error")
	}
	first, err := v.Load(path, []string{"workers=3"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("name: changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := v.Load(path, []string{"workers=4"})
	if err != nil {
		t.Fatalf("second Load after the file changed: %v", err)
	}
	if first.Config.Workers != 3 || second.Config.Workers != 4 || second.Config.Name != "t" {
		t.Errorf("workers %d and %d, name %q; want 3, 4 and the text as first read (t)", first.Config.Workers, second.Config.Workers, second.Config.Name)
	}
}

// TestOpenDirectoryAndBundledFiles: a directory is named as one; a file a
// --set gives a bundled scenario is found in the current directory (the
// bundled files come first); an arrival trace outside the scenario's
// directory is refused like a latency log.
func TestOpenDirectoryAndBundledFiles(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := scenarios.Load("sub", nil); err == nil || !strings.Contains(err.Error(), "sub: is a directory") {
		t.Errorf("Load(a directory) = %v, want it named a directory", err)
	}
	if err := os.WriteFile("mine.txt", []byte("1ms\n2ms\n3ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Load("mm1", []string{"tools.server.latency={dist: empirical, file: mine.txt}"})
	if err != nil {
		t.Fatalf("Load(mm1 with a log in the current directory): %v", err)
	}
	if got := sc.Config.Tools[0].Latency.Mean(); math.Abs(got-0.002) > 1e-12 {
		t.Errorf("the log's mean is %v s, want 0.002", got)
	}
	_, err = scenarios.Load("mm1", []string{"arrivals={process: trace, file: ../x}"})
	if err == nil || !strings.Contains(err.Error(), `arrivals.file: "../x" is outside the scenario's directory`) {
		t.Errorf("Load(mm1 with a trace in ..) = %v, want it refused as outside", err)
	}
}

// TestRunsBeyondTheClassesTraces: when every class replays a trace of its
// own, runs may not ask for more arrivals than the traces hold together
// (the simulation would end short of them, and every figure would count
// fewer runs than the scenario says); left out, runs is their total.
func TestRunsBeyondTheClassesTraces(t *testing.T) {
	fsys := fstest.MapFS{"a.txt": {Data: []byte("0s\n1s\n2s\n")}}
	src := func(runs string) []byte {
		return []byte("name: t\n" + runs + "workers: 1\ntools: {t: {latency: {dist: constant, value: 1ms}}}\nsteps: [{name: s, tool: t}]\n" +
			"classes:\n  - {name: a, arrivals: {process: trace, file: a.txt}}\n  - {name: b, arrivals: {process: trace, file: a.txt}}\n")
	}
	_, err := scenarios.Parse("t.yaml", src("runs: 7\n"), nil, fsys)
	want := "t.yaml:2: runs: 7, but the classes' traces (classes[].arrivals.file) have only 6 arrivals: set runs ≤ 6, or leave runs out to replay the whole trace"
	if err == nil || err.Error() != want {
		t.Fatalf("runs beyond the traces: %v, want %q", err, want)
	}
	sc, err := scenarios.Parse("t.yaml", src(""), nil, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Config.Runs != 6 {
		t.Fatalf("runs left out: %d, want the traces' 6", sc.Config.Runs)
	}
	sum := sha256.Sum256(fsys["a.txt"].Data)
	if got := sc.DataFiles(); len(got) != 1 || got["a.txt"] != hex.EncodeToString(sum[:]) {
		t.Fatalf("DataFiles() = %v, want a.txt's SHA-256", got)
	}
}
