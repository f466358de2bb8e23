package summary_test

import (
	"testing"

	"github.com/budgetsim/budgetsim/internal/scenariotest"
	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// load returns the configuration of bundled scenario name with sets
// applied; a scenario that does not load fails t.
func load(t *testing.T, name string, sets ...string) *system.Config {
	t.Helper()
	return scenariotest.Config(t, name, sets...)
}

// summarize pools reps replications of cfg, with 95 % intervals.
func summarize(t *testing.T, cfg *system.Config, reps int) summary.Summary {
	t.Helper()
	return summary.Summarize(cfg, replicate.All(cfg, reps, 0, system.Options{}), 0.95)
}
