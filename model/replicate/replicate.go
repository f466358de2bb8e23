// Package replicate runs a scenario's independent replications on several
// goroutines and hands their results back in replication order, so that
// what is pooled from them does not depend on GOMAXPROCS. Replication i
// draws from its own streams (system.Options.Replication); only
// replication 0 is traced.
package replicate

import (
	"runtime"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim"
)

// All runs n replications of cfg on up to workers goroutines (0 means
// GOMAXPROCS) and returns their results in replication order. Only
// replication 0 is traced. With fewer replications than workers, each
// uses a spare core (system.Options.SpareCore).
func All(cfg *system.Config, n, workers int, opt system.Options) []*system.Result {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	opt.SpareCore = opt.SpareCore || n < workers
	return sim.Parallel(n, workers, func(i int) *system.Result { return replication(cfg, opt, i) })
}

// Each runs n replications like All but hands each result to each(i, r)
// in replication order, on the caller's goroutine, as soon as it and the
// earlier ones are done, with a few replications computed ahead at most.
// Fed to a summary.Accumulator, n replications then take the memory of a
// few, not of n.
func Each(cfg *system.Config, n, workers int, opt system.Options, each func(i int, r *system.Result)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	opt.SpareCore = opt.SpareCore || n < workers
	sim.ParallelEach(n, workers, 4*workers, func(i int) *system.Result { return replication(cfg, opt, i) }, each)
}

// Pooled runs n replications through Each into a summary.Accumulator at
// level and returns it with replication 0's result (whose series the
// output files and charts show), or nil when n is 0. The other results are
// recycled once pooled (system.Result.Recycle).
func Pooled(cfg *system.Config, n, workers int, opt system.Options, level float64) (*summary.Accumulator, *system.Result) {
	return PooledEach(cfg, n, workers, opt, level, nil)
}

// PooledEach is Pooled calling pooled(i), when not nil, once replication i
// is pooled, on the caller's goroutine: the commands count replications
// for their progress line with it.
func PooledEach(cfg *system.Config, n, workers int, opt system.Options, level float64, pooled func(i int)) (*summary.Accumulator, *system.Result) {
	acc := summary.NewAccumulator(cfg, level)
	var first *system.Result
	Each(cfg, n, workers, opt, func(i int, r *system.Result) {
		acc.Add(r)
		if i == 0 {
			first = r
		} else {
			r.Recycle()
		}
		if pooled != nil {
			pooled(i)
		}
	})
	return acc, first
}

// replication runs replication i of cfg; only replication 0 is traced.
func replication(cfg *system.Config, opt system.Options, i int) *system.Result {
	o := opt
	o.Replication = i
	if i > 0 {
		o.Tracer = nil
	}
	return system.New(cfg, o).Run()
}
