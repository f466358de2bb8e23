// Package scenariotest loads bundled scenarios for the tests of the
// packages that simulate them.
package scenariotest

import (
	"testing"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// Config returns the configuration of scenario name (bundled, or a file)
// with sets applied; a scenario that does not load fails tb.
func Config(tb testing.TB, name string, sets ...string) *system.Config {
	tb.Helper()
	sc, err := scenarios.Load(name, sets)
	if err != nil {
		tb.Fatalf("Load(%q, %q): %v", name, sets, err)
	}
	return sc.Config
}
