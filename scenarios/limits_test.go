package scenarios_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/latencylog"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// TestAbsurdSizes checks that sizes that would run for days or exhaust
// memory are refused with a message naming the limit.
func TestAbsurdSizes(t *testing.T) {
	manySteps := "steps:\n" + strings.Repeat("  - {tool: t}\n", scenarios.MaxSteps+1)
	var manyTools strings.Builder
	manyTools.WriteString("tools:\n")
	for i := range scenarios.MaxTools + 1 {
		fmt.Fprintf(&manyTools, "  t%d: {latency: {dist: constant, value: 1ms}}\n", i)
	}
	tests := []struct {
		name, src, want string
	}{
		{"runs", row{top: "runs: 1e12"}.src(),
			fmt.Sprintf("t.yaml:4: runs: must be in [1, %d], got 1e12", scenarios.MaxRuns)},
		{"workers", row{workers: "1_000_000_000"}.src(),
			fmt.Sprintf("t.yaml:3: workers: must be in [1, %d], got 1_000_000_000", scenarios.MaxWorkers)},
		{"attempts", row{top: "retry: {attempts: 1000000}"}.src(),
			fmt.Sprintf("t.yaml:4: retry.attempts: must be in [1, %d], got 1000000", scenarios.MaxAttempts)},
		{"attempts/step", row{step: "attempts: 1e6"}.src(),
			fmt.Sprintf("t.yaml:6: steps.a.attempts: must be in [1, %d], got 1e6", scenarios.MaxAttempts)},
		{"queue", row{top: "queue: {capacity: 1e12}"}.src(),
			fmt.Sprintf("t.yaml:4: queue.capacity: must be in [0, %d], got 1e12", scenarios.MaxQueue)},
		{"concurrency", row{tool: "concurrency: 1e12"}.src(),
			fmt.Sprintf("t.yaml:8: tools.t.concurrency: must be in [1, %d], got 1e12", scenarios.MaxWorkers)},
		{"horizon", row{top: "horizon: 1000000h"}.src(),
			"t.yaml:4: horizon: must be ≤ 876000h, got 1000000h"},
		{"steps", "name: t\narrivals: {rate: 1/s}\nworkers: 1\ntools: {t: {latency: {dist: constant, value: 1ms}}}\n" + manySteps,
			fmt.Sprintf("t.yaml:6: steps: at most %d steps, got %d", scenarios.MaxSteps, scenarios.MaxSteps+1)}, // a block list's line is its first item's
		{"tools", "name: t\narrivals: {rate: 1/s}\nworkers: 1\nsteps: [{name: a, tool: t0}]\n" + manyTools.String(),
			fmt.Sprintf("t.yaml:6: tools: at most %d tools, got %d", scenarios.MaxTools, scenarios.MaxTools+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseErr(t, tt.src); got != tt.want {
				t.Errorf("Parse(%s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
	// The limits are what the messages above promise; a change to them
	// should be deliberate.
	if scenarios.MaxRuns != 10_000_000_000 || scenarios.MaxWorkers != 100_000_000 || scenarios.MaxAttempts != 10_000 ||
		scenarios.MaxQueue != 100_000_000 || scenarios.MaxSteps != 1_000 || scenarios.MaxDuration != 100*365*24*time.Hour {
		t.Errorf("limits changed: MaxRuns %d, MaxWorkers %d, MaxAttempts %d, MaxQueue %d, MaxSteps %d, MaxDuration %v",
			scenarios.MaxRuns, scenarios.MaxWorkers, scenarios.MaxAttempts, scenarios.MaxQueue, scenarios.MaxSteps, scenarios.MaxDuration)
	}
}

// TestLimitsAccepted checks the limits themselves are allowed.
func TestLimitsAccepted(t *testing.T) {
	src := row{
		top:     fmt.Sprintf("runs: %d", scenarios.MaxRuns),
		workers: fmt.Sprint(scenarios.MaxWorkers),
		step:    fmt.Sprintf("attempts: %d, timeout: 876000h", scenarios.MaxAttempts),
	}.src()
	sc, err := scenarios.Parse("t.yaml", []byte(src), nil, nil)
	if err != nil {
		t.Fatalf("Parse(limits) = %v", err)
	}
	c := sc.Config
	if c.Runs != scenarios.MaxRuns || c.Workers != scenarios.MaxWorkers || c.Steps[0].Retry.Attempts != scenarios.MaxAttempts || c.Steps[0].Timeout != scenarios.MaxDuration {
		t.Errorf("Parse(limits) = runs %d, workers %d, attempts %d, timeout %v; want the limits", c.Runs, c.Workers, c.Steps[0].Retry.Attempts, c.Steps[0].Timeout)
	}
}

// TestFileTooLarge checks that Load refuses a file over the size limit
// without reading it (the file is sparse: it takes no disk space).
func TestFileTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.yaml")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 17<<20); err != nil {
		t.Fatal(err)
	}
	_, err := scenarios.Load(path, nil)
	want := path + ": file is 17825792 bytes, larger than the 16777216-byte limit for a scenario"
	if err == nil || err.Error() != want {
		t.Errorf("Load(17 MiB file) = %v, want %q", err, want)
	}
}

// TestTinyTimeoutIsBounded loads a scenario whose every attempt hangs and
// is cut by a 1 ns timeout, 10000 times, and checks that the run ends
// after exactly 10000 attempts: nothing loops or runs away.
func TestTinyTimeoutIsBounded(t *testing.T) {
	src := `name: tiny
seed: 1
arrivals: {process: batch, count: 1}
workers: 1
retry: {attempts: 10000, idempotent: true, backoff: {base: 1ns, cap: 1ns, jitter: none}}
steps:
  - {name: a, tool: t, timeout: 1ns}
tools:
  t:
    latency: {dist: constant, value: 1ms}
    hang: 1
`
	sc, err := scenarios.Parse("tiny.yaml", []byte(src), nil, nil)
	if err != nil {
		t.Fatalf("Parse(tiny) = %v", err)
	}
	if got := sc.Config.Steps[0].Timeout; got != time.Nanosecond {
		t.Fatalf("Parse(tiny) timeout = %v, want 1ns", got)
	}
	res := system.New(sc.Config, system.Options{}).Run()
	if res.Stopped != "" {
		t.Errorf("Run(tiny).Stopped = %q, want a natural end", res.Stopped)
	}
	if res.Attempts.Attempts != 10000 || res.Attempts.Timeouts != 10000 {
		t.Errorf("Run(tiny) attempts = %d, timeouts = %d; want 10000, 10000", res.Attempts.Attempts, res.Attempts.Timeouts)
	}
	if res.Runs.Arrived != 1 || res.Runs.Completed != 0 {
		t.Errorf("Run(tiny) runs = %+v, want 1 arrived, 0 completed", res.Runs)
	}
	// Each attempt is a 1 ns lease then a 1 ns backoff sleep: the run ends
	// within 2 ns per attempt, and takes a handful of events per attempt.
	if res.End > 20000*time.Nanosecond {
		t.Errorf("Run(tiny).End = %v, want ≤ 20µs (2 ns per attempt)", res.End)
	}
	if res.Events > 10*10000 {
		t.Errorf("Run(tiny).Events = %d, want ≤ 100000 (10 per attempt)", res.Events)
	}
}

// TestBundledScenariosLoad loads every bundled scenario, by name and by
// its scenarios/ path.
func TestBundledScenariosLoad(t *testing.T) {
	names := scenarios.Names()
	if len(names) == 0 || !slices.IsSorted(names) {
		t.Fatalf("Names() = %q, want a non-empty sorted list", names)
	}
	for _, name := range names {
		for _, arg := range []string{name, "scenarios/" + name + ".yaml"} {
			sc, err := scenarios.Load(arg, nil)
			if err != nil {
				t.Errorf("Load(%q) = %v", arg, err)
				continue
			}
			c := sc.Config
			if sc.File != "scenarios/"+name+".yaml" || c.Name != name || sc.Description == "" || len(sc.Source) == 0 {
				t.Errorf("Load(%q) = File %q, Name %q, Description %q; want File scenarios/%s.yaml, Name %s and a description", arg, sc.File, c.Name, sc.Description, name, name)
			}
			checkConfig(t, arg, c)
		}
	}
	_, err := scenarios.Load("nope", nil)
	want := "nope: no such file, and no bundled scenario of that name (bundled: " + strings.Join(names, ", ") + ")"
	if err == nil || err.Error() != want {
		t.Errorf("Load(nope) = %v, want %q", err, want)
	}
}

// TestLoadFromDisk loads a scenario and its empirical latency file from a
// directory, as a user's file on disk.
func TestLoadFromDisk(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "lat.txt"), "10ms\n20ms\n")
	path := filepath.Join(dir, "s.yaml")
	write(t, path, row{lat: "{dist: empirical, file: lat.txt}"}.src())
	sc, err := scenarios.Load(path, nil)
	if err != nil {
		t.Fatalf("Load(%s) = %v", path, err)
	}
	if got := sc.Config.Tools[0].Latency.Mean(); got != 0.015 {
		t.Errorf("Load(%s) latency mean = %v, want 0.015 (the mean of 10ms and 20ms)", path, got)
	}
}

// TestNoSharedReads checks that a scenario cannot make the loader read
// outside its own directory, e.g. ../shared, even when the file exists;
// and that the loader's code does not name ../shared at all.
func TestNoSharedReads(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "shared", "lat.txt"), "10ms\n")
	write(t, filepath.Join(dir, "s", "lat.txt"), "10ms\n")
	for _, file := range []string{"../shared/lat.txt", filepath.Join(dir, "shared", "lat.txt"), "./../shared/lat.txt", "x/../../shared/lat.txt"} {
		path := filepath.Join(dir, "s", "s.yaml")
		write(t, path, row{lat: "{dist: empirical, file: " + file + "}"}.src())
		_, err := scenarios.Load(path, nil)
		var es scenarios.Errors
		if !errors.As(err, &es) || len(es) != 1 || es[0].Field != "tools.t.latency.file" {
			t.Errorf("Load(scenario with file %q) = %v, want one error about tools.t.latency.file", file, err)
		}
	}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(src), "shared/") {
			t.Errorf("%s mentions shared/: the loader must not depend on files users do not have", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkConfig asserts the invariants the simulator relies on, for a Config
// that Parse accepted.
func checkConfig(t testing.TB, what string, c *system.Config) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("%s: accepted Config breaks an invariant: %s", what, fmt.Sprintf(format, args...))
	}
	if c == nil {
		fail("nil Config")
		return
	}
	if c.Workers < 1 || c.Workers > scenarios.MaxWorkers {
		fail("Workers = %d", c.Workers)
	}
	// Classes with steps of their own may leave the top level without.
	if n := len(c.PlanSteps()); n < 1 || len(c.Steps) > scenarios.MaxSteps {
		fail("%d steps, %d with the classes'", len(c.Steps), n)
	}
	if len(c.Tools) < 1 {
		fail("no tools")
	}
	if (c.Runs > 0) == (c.Horizon > 0) {
		fail("Runs = %d, Horizon = %v: want exactly one > 0", c.Runs, c.Horizon)
	}
	if c.Runs > scenarios.MaxRuns || c.Horizon > scenarios.MaxDuration || c.Horizon < 0 {
		fail("Runs = %d, Horizon = %v", c.Runs, c.Horizon)
	}
	if c.QueueCapacity < system.Unbounded || c.QueueCapacity > scenarios.MaxQueue {
		fail("QueueCapacity = %d", c.QueueCapacity)
	}
	for _, d := range []time.Duration{c.Deadline, c.Floor, c.MinLease, c.WarmupTime} {
		if d < 0 || d > scenarios.MaxDuration {
			fail("duration %v out of [0, MaxDuration]", d)
		}
	}
	switch c.Arrivals.Process {
	case system.Poisson, system.Constant:
		if !(c.Arrivals.Rate > 0) {
			fail("arrival rate %v", c.Arrivals.Rate)
		}
	case system.Batch:
		if c.Arrivals.Count < 1 || c.Runs != c.Arrivals.Count {
			fail("batch of %d, Runs %d", c.Arrivals.Count, c.Runs)
		}
	case system.Open:
		if c.Arrivals.Source == nil && !c.OwnClassArrivals() {
			fail("open arrivals without a Source (nor classes with their own)")
		}
	case system.Closed:
		if c.Arrivals.Users < 1 || c.Arrivals.Think == nil {
			fail("closed population of %d users, think time %v", c.Arrivals.Users, c.Arrivals.Think)
		}
	default:
		fail("process %v", c.Arrivals.Process)
	}
	for i, s := range c.Steps {
		if s.Tool < 0 || s.Tool >= len(c.Tools) {
			fail("steps[%d].Tool = %d, %d tools", i, s.Tool, len(c.Tools))
		}
		if s.Retry.Attempts < 1 || s.Retry.Attempts > scenarios.MaxAttempts {
			fail("steps[%d] attempts %d", i, s.Retry.Attempts)
		}
		if s.Timeout < 0 {
			fail("steps[%d] timeout %v", i, s.Timeout)
		}
	}
	for i, tool := range c.Tools {
		if tool.Latency == nil {
			fail("tools[%d].Latency is nil", i)
		}
		e := tool.Errors
		sum := 0.0
		for _, p := range []float64{e.Transient, e.RateLimited, e.Permanent, e.Hang} {
			if !(p >= 0 && p <= 1) {
				fail("tools[%d] probability %v", i, p)
			}
			sum += p
		}
		if sum > 1+1e-9 {
			fail("tools[%d] probabilities sum to %v", i, sum)
		}
	}
}

// TestZeroTimeLoopRefused: agents that think 0 s between runs whose every
// call takes 0 s would loop at one instant until the max_events guard
// (minutes of work, and an exit 0): refused at load. Any source of elapsed
// time (a latency, a think time, errors that a backoff follows) lets it run.
func TestZeroTimeLoopRefused(t *testing.T) {
	const src = "name: t\narrivals: {process: closed, users: 2, think: {dist: constant, value: 0s}}\nhorizon: 1s\nworkers: 2\n" +
		"steps: [{name: a, tool: t}]\ntools:\n  t: {latency: {dist: constant, value: 0s}}\n"
	want := "t.yaml:2: arrivals.think: always 0 s, and so is every call of a run"
	if got := parseErr(t, src); !strings.HasPrefix(got, want) {
		t.Errorf("Parse(zero-time loop) = %q, want %q…", got, want)
	}
	// Bounded by runs, the same loop ends after them, at time 0.
	if got := parseErr(t, strings.Replace(src, "horizon: 1s", "runs: 1000", 1)); got != "" {
		t.Errorf("Parse(zero-time loop bounded by runs) = %q, want no error", got)
	}
	for _, set := range []string{"arrivals.think={dist: exponential, mean: 1s}", "tools.t.latency={dist: constant, value: 1ms}", "tools.t.errors={transient: 0.1}"} {
		if got := parseErr(t, src, set); got != "" {
			t.Errorf("Parse(zero-time loop, --set %s) = %q, want no error", set, got)
		}
	}
}

// TestEmpiricalMaxSamples: a latency file with more samples than an
// empirical distribution holds is refused with its line, the limit and the
// key that raises it; max_samples raises it.
func TestEmpiricalMaxSamples(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "lat.txt"), strings.Repeat("10ms\n", 1001))
	path := filepath.Join(dir, "s.yaml")
	write(t, path, row{lat: "{dist: empirical, file: lat.txt, max_samples: 1000}"}.src())
	_, err := scenarios.Load(path, nil)
	want := "tools.t.latency.file: lat.txt:1001: more than 1000 samples: an empirical distribution holds at most 10000000 by default; raise it with max_samples (up to 50000000, 8 bytes each)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Load(1001 samples, max_samples 1000) = %v, want …%s", err, want)
	}
	write(t, path, row{lat: "{dist: empirical, file: lat.txt, max_samples: 1001}"}.src())
	if _, err := scenarios.Load(path, nil); err != nil {
		t.Errorf("Load(1001 samples, max_samples 1001) = %v", err)
	}
	write(t, path, row{lat: "{dist: empirical, file: lat.txt, max_samples: 50000001}"}.src())
	if _, err := scenarios.Load(path, nil); err == nil || !strings.Contains(err.Error(), "tools.t.latency.max_samples: must be in [1000, 50000000]") {
		t.Errorf("Load(max_samples 100000001) = %v, want it refused", err)
	}
	if latencylog.MaxLatency != scenarios.MaxDuration {
		t.Errorf("latencylog.MaxLatency = %v, scenarios.MaxDuration = %v: a latency file must take what a scenario takes", latencylog.MaxLatency, scenarios.MaxDuration)
	}
}

// TestSymlinkCannotEscape: a data file reached through a symbolic link in
// the scenario's directory that points outside it is refused, like a path
// with "..".
func TestSymlinkCannotEscape(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "outside", "lat.txt"), "10ms\n")
	write(t, filepath.Join(dir, "outside", "trace.txt"), "0s\n1s\n")
	write(t, filepath.Join(dir, "s", "inside.txt"), "10ms\n")
	for _, l := range []struct{ old, new string }{
		{filepath.Join(dir, "outside", "lat.txt"), "lat.txt"},
		{filepath.Join(dir, "outside"), "data"},
		{"../outside/trace.txt", "trace.txt"},
		{"inside.txt", "alias.txt"}, // inside: allowed
	} {
		if err := os.Symlink(l.old, filepath.Join(dir, "s", l.new)); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "s", "s.yaml")
	for _, file := range []string{"lat.txt", "data/lat.txt"} {
		write(t, path, row{lat: "{dist: empirical, file: " + file + "}"}.src())
		_, err := scenarios.Load(path, nil)
		if err == nil || !strings.Contains(err.Error(), "tools.t.latency.file") || !strings.Contains(err.Error(), "outside the scenario's directory") {
			t.Errorf("Load(empirical file %s, a link outside) = %v, want an error saying it is outside", file, err)
		}
	}
	write(t, path, "name: t\narrivals: {process: trace, file: trace.txt}\nworkers: 1\nsteps:\n  - {name: a, tool: t}\ntools:\n  t:\n    latency: {dist: constant, value: 1ms}\n")
	if _, err := scenarios.Load(path, nil); err == nil || !strings.Contains(err.Error(), "arrivals.file") || !strings.Contains(err.Error(), "outside the scenario's directory") {
		t.Errorf("Load(trace file behind a link outside) = %v, want an error saying it is outside", err)
	}
	write(t, path, row{lat: "{dist: empirical, file: alias.txt}"}.src())
	if _, err := scenarios.Load(path, nil); err != nil {
		t.Errorf("Load(a link inside the directory) = %v", err)
	}
}

// TestTraceShorterThanRuns: runs beyond a trace's arrivals is an error
// naming both; without runs, the whole trace is replayed.
func TestTraceShorterThanRuns(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "trace.txt"), "0s\n1s\n2s\n")
	path := filepath.Join(dir, "s.yaml")
	src := func(runs string) string {
		return "name: t\n" + runs + "arrivals: {process: trace, file: trace.txt}\nworkers: 1\nsteps:\n  - {name: a, tool: t}\ntools:\n  t:\n    latency: {dist: constant, value: 1ms}\n"
	}
	write(t, path, src("runs: 5\nwarmup: 0\n"))
	_, err := scenarios.Load(path, nil)
	if want := "s.yaml:2: runs: 5, but the trace (arrivals.file) has only 3 arrivals: set runs ≤ 3, or leave runs out to replay the whole trace"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("Load(runs 5, trace of 3) = %v, want …%s", err, want)
	}
	if _, err := scenarios.Load(path, []string{"runs=3"}); err != nil {
		t.Errorf("Load(runs 3, trace of 3) = %v", err)
	}
	write(t, path, src("warmup: 0\n"))
	sc, err := scenarios.Load(path, nil)
	if err != nil || sc.Config.Runs != 3 {
		t.Fatalf("Load(no runs, trace of 3) = %v; runs %d, want 3", err, sc.Config.Runs)
	}
	if r := system.New(sc.Config, system.Options{}).Run(); r.Runs.Arrived != 3 {
		t.Errorf("the whole trace: %d runs arrived, want 3", r.Runs.Arrived)
	}
}

// TestGuardsFitInMemory: the guards accept no value whose runaway model
// would not fit a 4 GB address space (a run in the system costs about 350
// bytes, a waiting call about 90), and say so before simulating.
func TestGuardsFitInMemory(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"guards.max_in_system=100000000", "guards.max_in_system: must be in [1, 4000000], got 100000000"},
		{"guards.max_tool_queue=100000000", "guards.max_tool_queue: must be in [1, 8000000], got 100000000"},
	} {
		_, err := scenarios.Load("mm1", []string{tc.set})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(mm1, %s) = %v, want …%s", tc.set, err, tc.want)
		}
	}
	if _, err := scenarios.Load("mm1", []string{"guards={max_in_system: 4000000, max_tool_queue: 8000000}"}); err != nil {
		t.Errorf("Load(mm1, the largest guards) = %v", err)
	}
	if need := scenarios.MaxInSystemGuard*400 + scenarios.MaxToolQueueGuard*128; need > 3<<30 {
		t.Errorf("the largest guards need %d bytes at 400 a run and 128 a call, more than 3 GiB", need)
	}
}
