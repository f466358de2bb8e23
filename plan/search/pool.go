package search

import (
	"runtime"
	"sync/atomic"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/sweep"
	"github.com/budgetsim/budgetsim/scenarios"
	"github.com/budgetsim/budgetsim/sim"
)

// pointPool keeps the replications of the one point (a probed value, a
// grid configuration) being evaluated, pooled in replication order, so
// that asking for more replications runs only the new ones. Simulator and
// GridSimulator each hold one.
type pointPool struct {
	cfg  *system.Config
	warm sweep.Warmup
	acc  *summary.Accumulator // replications 0 … have−1, pooled
	have int
}

// load makes sc, loaded with sets, the point pooled: its warm-up is the
// scenario's, or chosen by sweep.DetectWarmup when the scenario and sets
// fix none. It reports false when interrupted.
func (p *pointPool) load(sc *scenarios.Scenario, sets []string, interrupt *atomic.Bool) bool {
	p.cfg, p.acc, p.have = sc.Config, nil, 0
	p.warm = sweep.Warmup{Source: sweep.WarmupScenario}
	if !sweep.FixesWarmup(sc.Source, sets) {
		w, ok := sweep.DetectWarmup(p.cfg, interrupt)
		if !ok {
			return false
		}
		p.warm = w
		w.Apply(p.cfg)
	}
	return true
}

// pool pools replications up to n (from the start when fewer than those
// pooled are asked for) on parallel goroutines, calling progress(done)
// as each is pooled. It reports false when interrupted, having dropped
// what it pooled.
func (p *pointPool) pool(n, parallel int, level float64, interrupt *atomic.Bool, progress func(done int)) bool {
	if n < p.have {
		p.acc, p.have = nil, 0 // fewer than pooled: pool again from the start
	}
	if p.acc == nil {
		p.acc = summary.NewAccumulator(p.cfg, level)
	}
	if n <= p.have {
		return true
	}
	// Pooled as they complete, in replication order: a point that needs
	// thousands of replications holds a few at a time.
	have, interrupted := p.have, false
	if progress != nil {
		progress(have)
	}
	sim.ParallelEach(n-have, parallel, 4*max(parallel, runtime.GOMAXPROCS(0)), func(k int) *system.Result {
		return system.New(p.cfg, system.Options{Replication: have + k, Interrupt: interrupt}).Run()
	}, func(k int, r *system.Result) {
		interrupted = interrupted || r.Stopped == "interrupted"
		p.acc.Add(r)
		r.Recycle()
		if progress != nil {
			progress(have + k + 1)
		}
	})
	if interrupted {
		p.acc, p.have = nil, 0
		return false
	}
	p.have = n
	return true
}

// summary is the pooled summary, with the warm-up's note among its
// warnings.
func (p *pointPool) summary() summary.Summary {
	sum := p.acc.Summary()
	if p.warm.Note != "" {
		sum.Warnings = append(sum.Warnings, p.warm.Note)
	}
	return sum
}
