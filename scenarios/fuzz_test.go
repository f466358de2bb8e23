package scenarios_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// The fuzz targets' seed corpora are in testdata/fuzz/<FuzzName>/; go test
// without -fuzz runs them as regression tests. Run one for real with, e.g.,
//
//	go test ./scenarios/ -run '^$' -fuzz '^FuzzParse$' -fuzztime 30s

// fuzzFS holds the files a fuzzed scenario may name (empirical latencies,
// arrival traces).
var fuzzFS = fstest.MapFS{
	"lat.txt":   {Data: []byte("10ms\n20ms\n")},
	"trace.txt": {Data: []byte("0s\n1s\n2s\n")},
}

// checkErrors asserts that err is a non-empty scenarios.Errors whose every
// message names a place: a line, or the --set flag, or the file for
// file-level messages.
func checkErrors(t *testing.T, what string, err error) {
	t.Helper()
	var es scenarios.Errors
	if !errors.As(err, &es) {
		t.Fatalf("%s: error %T (%v), want scenarios.Errors", what, err, err)
	}
	if len(es) == 0 {
		t.Fatalf("%s: empty scenarios.Errors", what)
	}
	for _, e := range es {
		if e == nil {
			t.Fatalf("%s: nil *Error in %v", what, es)
		}
		if e.Msg == "" {
			t.Errorf("%s: error without a message: %#v", what, e)
		}
		if e.File == "" && e.Set == "" {
			t.Errorf("%s: error names no file: %q", what, e.Error())
		}
	}
	_ = err.Error()
}

// FuzzParse feeds arbitrary bytes to Parse: it must not panic or hang, and
// must either return scenarios.Errors or a Config the simulator can rely on,
// which is then simulated briefly (see simulateBriefly).
func FuzzParse(f *testing.F) {
	for _, name := range scenarios.Names() {
		sc, err := scenarios.Load(name, nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(sc.Source)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 64<<10 {
			return // larger inputs only slow the fuzzer down
		}
		sc, err := scenarios.Parse("f.yaml", src, nil, fuzzFS)
		if err != nil {
			checkErrors(t, "Parse", err)
			if sc != nil {
				t.Errorf("Parse returned a Scenario and an error")
			}
			return
		}
		checkConfig(t, "Parse", sc.Config)
		simulateBriefly(t, "Parse", sc.Config)
	})
}

// FuzzParseDuration checks that ParseDuration never panics, accepts only
// durations ≥ 0, and reads back what time.Duration prints.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0", "250ms", "1h30m", "2", "-1s", "1e3s", "9999999999h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := scenarios.ParseDuration(s)
		if err != nil {
			if d != 0 {
				t.Errorf("ParseDuration(%q) = %v, %v: want 0 with an error", s, d, err)
			}
			if err.Error() == "" {
				t.Errorf("ParseDuration(%q): empty error", s)
			}
			return
		}
		if d < 0 {
			t.Errorf("ParseDuration(%q) = %v, want ≥ 0", s, d)
		}
		if back, err := scenarios.ParseDuration(d.String()); err != nil || back != d {
			t.Errorf("ParseDuration(%q) = %v, but ParseDuration(%q) = %v, %v", s, d, d.String(), back, err)
		}
		if want, err := time.ParseDuration(strings.TrimSpace(s)); s != "0" && (err != nil || want != d) {
			t.Errorf("ParseDuration(%q) = %v, time.ParseDuration says %v, %v", s, d, want, err)
		}
	})
}

// FuzzParseRate checks that ParseRate never panics, returns finite rates
// ≥ 0 (never -0), and reads back what FormatRate prints.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"9/s", "30/m", "0.5/h", "9", "9/x", "-1/s", "1e400/s", "NaN/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := scenarios.ParseRate(s)
		if err != nil {
			if r != 0 {
				t.Errorf("ParseRate(%q) = %v, %v: want 0 with an error", s, r, err)
			}
			return
		}
		if !(r >= 0) || math.IsInf(r, 0) || math.Signbit(r) {
			t.Errorf("ParseRate(%q) = %v, want a finite rate ≥ 0", s, r)
		}
		if back, err := scenarios.ParseRate(scenarios.FormatRate(r)); err != nil || back != r {
			t.Errorf("ParseRate(%q) = %v, but ParseRate(FormatRate) = %v, %v", s, r, back, err)
		}
	})
}

// FuzzSet applies a random --set to a bundled scenario: Load must not
// panic, and must return scenarios.Errors or a sound Config, which is then
// simulated briefly (see simulateBriefly).
func FuzzSet(f *testing.F) {
	names := scenarios.Names()
	for _, s := range []string{"workers=12", "steps.0.timeout=300ms", "arrivals={rate: 5/s}", "steps.nope.timeout=1s", "workers", "a..b=1", "tools.x={latency: {dist: constant, value: 1ms}}"} {
		f.Add(uint8(0), s)
	}
	for _, s := range []string{
		"workers=1", "deadline=1ms", "retry.attempts=10", "queue=0",
		"steps.0.timeout=1ns", "arrivals={rate: 1000/s}", "tools.search.rate_limit={rate: 1/s, burst: 1}",
		"steps.0.retry.backoff.jitter=decorrelated", "warmup=5", "floor=0",
	} {
		for i := range names {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, set string) {
		name := names[int(which)%len(names)]
		sc, err := scenarios.Load(name, []string{set})
		if err != nil {
			checkErrors(t, "Load("+name+", --set "+set+")", err)
			return
		}
		checkConfig(t, "Load("+name+", --set "+set+")", sc.Config)
		simulateBriefly(t, "Load("+name+", --set "+set+")", sc.Config)
	})
}

// simulateBriefly simulates at most 300 runs of an accepted Config under
// tight guards: the model must not panic or hang, must conserve runs
// (arrived = ended + in flight), and its summary must encode as JSON (no
// NaN or ±Inf reaches a number field).
func simulateBriefly(t *testing.T, what string, c *system.Config) {
	t.Helper()
	cfg := *c
	if cfg.Runs == 0 || cfg.Runs > 300 {
		cfg.Runs = 300
	}
	if cfg.Arrivals.Process == system.Batch {
		cfg.Arrivals.Count = cfg.Runs // a batch sets the number of runs
	}
	cfg.WarmupRuns = min(cfg.WarmupRuns, 30)
	cfg.Guards = system.Guards{MaxEvents: 200_000, MaxInSystem: 2_000, MaxWall: 5 * time.Second}
	res := system.New(&cfg, system.Options{}).Run()
	if err := res.Runs.Check(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	s := summary.Summarize(&cfg, []*system.Result{res}, 0.95)
	if _, err := json.Marshal(s); err != nil {
		t.Fatalf("%s: summary does not encode: %v", what, err)
	}
}
