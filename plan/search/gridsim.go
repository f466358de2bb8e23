package search

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/sweep"
	"github.com/budgetsim/budgetsim/scenarios"
	"github.com/budgetsim/budgetsim/sim"
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
	cfg      *system.Config
	offered  Offered
	warm     sweep.Warmup
	acc      *summary.Accumulator
	have     int
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
		g.has, g.index, g.cfg, g.acc, g.have = true, c.Index, sc.Config, nil, 0
		g.offered = OfferedLoad(sc.Config)
		g.warm = sweep.Warmup{Source: sweep.WarmupScenario}
		if !sweep.FixesWarmup(sc.Source, sets) {
			w, ok := sweep.DetectWarmup(g.cfg, g.Interrupt)
			if !ok {
				g.has = false
				return Evaluation{}, ErrInterrupted
			}
			g.warm = w
			w.Apply(g.cfg)
		}
	}
	if n < g.have {
		g.acc, g.have = nil, 0
	}
	if g.acc == nil {
		g.acc = summary.NewAccumulator(g.cfg, g.Level)
	}
	if n > g.have {
		have, interrupted := g.have, false
		if g.Progress != nil {
			g.Progress(c, have, n)
		}
		sim.ParallelEach(n-have, g.Parallel, 4*max(g.Parallel, runtime.GOMAXPROCS(0)), func(k int) *system.Result {
			return system.New(g.cfg, system.Options{Replication: have + k, Interrupt: g.Interrupt}).Run()
		}, func(k int, r *system.Result) {
			interrupted = interrupted || r.Stopped == "interrupted"
			g.acc.Add(r)
			r.Recycle()
			if g.Progress != nil {
				g.Progress(c, have+k+1, n)
			}
		})
		if interrupted {
			g.acc, g.have = nil, 0
			return Evaluation{}, ErrInterrupted
		}
		g.have = n
	}
	sum := g.acc.Summary()
	if g.warm.Note != "" {
		sum.Warnings = append(sum.Warnings, g.warm.Note)
	}
	return Evaluation{Summary: &sum, Figures: g.acc.Figures(), Offered: g.offered}, nil
}
