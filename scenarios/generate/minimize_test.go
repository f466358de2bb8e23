package generate

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// TestMinimize prints the smallest scenario that still breaks the same
// invariant as the one drawn from the seed in BUDGETSIM_MINIMIZE, for a
// report; it runs only when that variable is set. For a scenario of
// TestPairwise, BUDGETSIM_MINIMIZE_PAIR names its pair as the subtest does;
// BUDGETSIM_MINIMIZE_OUT=DIR writes the minimized scenario and its files
// there:
//
//	BUDGETSIM_MINIMIZE=182 go test -run TestMinimize -v ./scenarios/generate
//	BUDGETSIM_MINIMIZE=202 BUDGETSIM_MINIMIZE_PAIR=scenario.cost+rate_limit.enforce=client go test -run TestMinimize -v ./scenarios/generate
func TestMinimize(t *testing.T) {
	env := os.Getenv("BUDGETSIM_MINIMIZE")
	if env == "" {
		t.Skip("set BUDGETSIM_MINIMIZE=SEED to minimize the scenario drawn from SEED")
	}
	seed, err := strconv.ParseUint(env, 10, 64)
	if err != nil {
		t.Fatalf("BUDGETSIM_MINIMIZE=%q: %v", env, err)
	}
	opt := Options{}
	if force := os.Getenv("BUDGETSIM_MINIMIZE_PAIR"); force != "" {
		// A pair of TestPairwise: its features, drawn as that test draws.
		opt = Options{Density: 0.1, MaxRuns: 300}
		for _, f := range strings.Split(force, "+") {
			var feat Feature
			sk, v, _ := strings.Cut(f, "=")
			feat.Section, feat.Key, _ = strings.Cut(sk, ".")
			feat.Value = v
			opt.Force = append(opt.Force, feat)
		}
	}
	d, err := Draw(seed, opt)
	if err != nil {
		t.Fatal(err)
	}
	inv, detail := CheckConfig(d.Config())
	if inv == "" {
		t.Fatalf("seed %d keeps every invariant", seed)
	}
	sig := signature(inv, detail)
	min := Minimize(d.YAML, d.Files, func(cfg *system.Config) bool {
		i, dd := CheckConfig(cfg)
		return i != "" && signature(i, dd) == sig
	})
	sc, err := scenarios.Parse("minimized.yaml", min, nil, d.Files)
	if err != nil {
		t.Fatal(err)
	}
	_, detail = CheckConfig(sc.Config)
	if dir := os.Getenv("BUDGETSIM_MINIMIZE_OUT"); dir != "" {
		// The minimized scenario and the files it names, to run with
		// simulate or BUDGETSIM_CHECK.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), min, 0o644); err != nil {
			t.Fatal(err)
		}
		for name, f := range d.Files {
			if err := os.WriteFile(filepath.Join(dir, name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("seed %d: %s\n--- minimized scenario (%d of %d bytes):\n%s--- violation:\n%s", seed, inv, len(min), len(d.YAML), min, detail)
}

// signature identifies a violation across scenarios: its invariant and,
// for a panic, the panic's message.
func signature(inv, detail string) string {
	if inv == "panic" {
		first, _, _ := strings.Cut(detail, "\n")
		_, msg, _ := strings.Cut(first, ": ")
		return inv + ": " + msg + " in " + panicSite(detail)
	}
	return inv
}

// panicSite returns the function of the simulator where a panic's stack
// starts, after the runtime's and the panic's own frames.
func panicSite(stack string) string {
	_, after, ok := strings.Cut(stack, "\npanic(")
	if !ok {
		return "?"
	}
	for _, line := range strings.Split(after, "\n") {
		if strings.HasPrefix(line, "github.com/budgetsim/budgetsim/") && !strings.Contains(line, "/scenarios/generate.") {
			fn, _, _ := strings.Cut(strings.TrimPrefix(line, "github.com/budgetsim/budgetsim/"), "(0x")
			fn, _, _ = strings.Cut(fn, "(...)")
			return fn
		}
	}
	return "?"
}

// TestCheckFile checks the invariants on the scenario file named by
// BUDGETSIM_CHECK (files it names are read beside it); it runs only when
// that variable is set:
//
//	BUDGETSIM_CHECK=/tmp/repro.yaml go test -run TestCheckFile -v ./scenarios/generate
func TestCheckFile(t *testing.T) {
	path := os.Getenv("BUDGETSIM_CHECK")
	if path == "" {
		t.Skip("set BUDGETSIM_CHECK=FILE to check the invariants on a scenario file")
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse(path, src, nil, os.DirFS(filepath.Dir(path)))
	if err != nil {
		t.Fatal(err)
	}
	if inv, detail := CheckConfig(sc.Config); inv != "" {
		t.Errorf("%s: %s: %s", path, inv, detail)
	}
}
