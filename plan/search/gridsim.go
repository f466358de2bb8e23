package search

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/budgetsim/budgetsim/scenarios"
)

// GridSimulator evaluates the configurations of a grid by simulation; its
// Evaluate method is an Evaluator. Like Simulator, it keeps the
// replications of the configuration being evaluated, so doubling them
// runs only the new ones, and replication i uses seed
// sim.ReplicationSeed(seed, i) in every configuration (common random
// numbers). It is not safe for concurrent use.
type GridSimulator struct {
	// Scenario is a path or a bundled name; Sets are overrides applied
	// before each configuration's own.
	Scenario string
	Sets     []string
	// Level is the confidence level of the summaries' intervals (the
	// grid's LookLevel).
	Level float64
	// Parallel is the number of goroutines for replications (0:
	// GOMAXPROCS); results do not depend on it.
	Parallel int
	// Interrupt stops the simulations when set and true.
	Interrupt *atomic.Bool
	// Progress, when set, is called as each replication is pooled: done of
	// the n replications asked for at configuration c.
	Progress func(c Configuration, done, n int)

	variants scenarios.Variants
	has      bool
	index    int
	offered  Offered
	point    pointPool // the replications of configuration index
}

// Evaluate returns the pooled summary and the per-replication figures of
// replications 0 … n−1 of configuration c. When the scenario fixes no
// warm-up, each configuration's is chosen by sweep.DetectWarmup.
func (g *GridSimulator) Evaluate(c Configuration, n int) (Evaluation, error) {
	if !g.has || c.Index != g.index {
		sets := append(slices.Clone(g.Sets), c.Sets...)
		sc, err := g.variants.Load(g.Scenario, sets)
		if err != nil {
			return Evaluation{}, fmt.Errorf("configuration %s: %w", strings.Join(c.Sets, " "), err)
		}
		g.has, g.index = true, c.Index
		g.offered = OfferedLoad(sc.Config)
		if !g.point.load(sc, sets, g.Interrupt) {
			g.has = false
			return Evaluation{}, ErrInterrupted
		}
	}
	var progress func(int)
	if g.Progress != nil {
		progress = func(done int) { g.Progress(c, done, n) }
	}
	if !g.point.pool(n, g.Parallel, g.Level, g.Interrupt, progress) {
		return Evaluation{}, ErrInterrupted
	}
	sum := g.point.summary()
	return Evaluation{Summary: &sum, Figures: g.point.acc.Figures(), Offered: g.offered}, nil
}
