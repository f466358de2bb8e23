package generate

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// TestMinimize prints the smallest scenario that still breaks the same
// invariant as the one drawn from the seed in BUDGETSIM_MINIMIZE, for a
// report; it runs only when that variable is set:
//
//	BUDGETSIM_MINIMIZE=182 go test -run TestMinimize -v ./scenarios/generate
func TestMinimize(t *testing.T) {
	env := os.Getenv("BUDGETSIM_MINIMIZE")
	if env == "" {
		t.Skip("set BUDGETSIM_MINIMIZE=SEED to minimize the scenario drawn from SEED")
	}
	seed, err := strconv.ParseUint(env, 10, 64)
	if err != nil {
		t.Fatalf("BUDGETSIM_MINIMIZE=%q: %v", env, err)
	}
	d, err := Draw(seed, Options{})
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
