package system

import (
	"time"

	"github.com/budgetsim/budgetsim/model/arrival"
	"github.com/budgetsim/budgetsim/sim"
)

// Draw-ahead: part of an open workload's randomness does not depend on
// anything the simulation does. Arrival n's instant comes from the
// arrivals stream and arrival n−1's instant alone, and the first attempt
// at a run's first step draws from its tool's stream keyed by (run, 0, 1),
// whatever happened before. A drawProducer computes both on the spare
// core's goroutine (spare.go), batches of runs ahead of the simulation,
// which reads them in order through a drawAhead.
// The values are the very ones the model would draw itself (the same
// streams, keys and arithmetic), so a result does not depend on whether the
// draws were made ahead: only the wall time does, when a core is idle.

// aheadBatchRuns is the number of runs in a batch (128 KiB): large enough
// that handing a batch over (and waking the spare core's goroutine) costs
// little per run.
const aheadBatchRuns = 4096

// aheadBatches is the number of batches in circulation: the producer works
// up to aheadBatches−1 batches ahead of the simulation.
const aheadBatches = 3

// aheadDraw is one run's arrival instant and the draws of its first
// attempt at its first step, as Model.draw makes them without a cache hit:
// u decides the outcome, lat is the latency, raU the Retry-After uniform
// (drawn only when the tool declares a retry_after).
type aheadDraw struct {
	at  time.Duration
	lat time.Duration
	u   float64
	raU float64
}

// aheadBatch holds the draws of aheadBatchRuns runs.
type aheadBatch struct {
	n    int
	last bool // the arrivals end after these n
	at   [aheadBatchRuns]time.Duration
	lat  [aheadBatchRuns]time.Duration
	u    [aheadBatchRuns]float64
	raU  [aheadBatchRuns]float64
}

// drawAhead is the simulation's end of the draws made ahead.
type drawAhead struct {
	full chan *aheadBatch // filled by the spare core's goroutine, in order
	free chan *aheadBatch // read by the simulation, for reuse
	cur  *aheadBatch
	i    int // next entry of cur
}

// drawProducer makes the draws, on the spare core's goroutine (spare.go),
// from streams of its own built like the model's.
type drawProducer struct {
	cfg      *Config
	src      arrival.Process
	arrivals *sim.Stream
	tool     *Tool
	toolRng  *sim.Stream
	n        int64         // the next arrival's index
	prev     time.Duration // the last arrival's instant
}

// aheadApplies reports whether cfg's randomness can be drawn ahead: an open
// workload (its instants come one after the other from one stream) with at
// least one step.
func aheadApplies(cfg *Config) bool {
	if len(cfg.Classes) > 0 {
		// A run's class decides its first step, and the classes' own
		// arrivals are superposed by the model (classMerge).
		return false
	}
	switch cfg.Arrivals.Process {
	case Poisson, Constant, Open:
		return len(cfg.Steps) > 0
	}
	return false
}

// newDrawAhead returns both ends of the draws made ahead of cfg's arrivals
// from src, and of its first step's first-attempt draws, for the
// replication seeded with seed.
func newDrawAhead(cfg *Config, src arrival.Process, seed uint64) (*drawAhead, *drawProducer) {
	a := &drawAhead{
		full: make(chan *aheadBatch, aheadBatches),
		free: make(chan *aheadBatch, aheadBatches),
		cur:  new(aheadBatch), // empty: the first next takes a filled one
	}
	for range aheadBatches - 1 {
		a.free <- new(aheadBatch)
	}
	tool := &cfg.Tools[cfg.Steps[0].Tool]
	p := &drawProducer{
		cfg:      cfg,
		src:      src,
		arrivals: sim.NewStream(seed, "arrivals"),
		tool:     tool,
		toolRng:  sim.NewStream(seed, "tool:"+tool.Name),
	}
	return a, p
}

// fill fills b with the next runs' draws and reports whether the arrivals
// end with them. It mirrors Model.scheduleArrival (Runs and Horizon bound
// the arrivals) and the uncached path of Model.draw.
func (p *drawProducer) fill(b *aheadBatch) (last bool) {
	cfg, tool := p.cfg, p.tool
	rnd := p.toolRng.Rand()
	b.n, b.last = 0, false
	for b.n < aheadBatchRuns {
		if cfg.Runs > 0 && p.n >= cfg.Runs {
			b.last = true
			break
		}
		at, ok := p.src.Next(p.n, p.prev, p.arrivals.Rand())
		if !ok || cfg.Horizon > 0 && at >= cfg.Horizon {
			b.last = true
			break
		}
		p.prev = at
		i := b.n
		b.at[i] = at
		p.toolRng.Key(uint64(p.n), 0, 1)
		b.u[i] = rnd.Float64()
		b.lat[i] = seconds(tool.Latency.Sample(rnd))
		b.raU[i] = 0
		if tool.RetryAfter != nil {
			b.raU[i] = rnd.Float64()
		}
		b.n++
		p.n++
	}
	return b.last
}

// next returns the next arrival's draws, or false when the arrivals have
// ended.
func (a *drawAhead) next() (aheadDraw, bool) {
	if a.i == a.cur.n {
		if a.cur.last {
			return aheadDraw{}, false
		}
		a.free <- a.cur // never blocks: aheadBatches batches, room for all
		a.cur = <-a.full
		a.i = 0
		if a.cur.n == 0 {
			return aheadDraw{}, false // an empty batch is the last
		}
	}
	b, i := a.cur, a.i
	a.i++
	return aheadDraw{at: b.at[i], lat: b.lat[i], u: b.u[i], raU: b.raU[i]}, true
}
