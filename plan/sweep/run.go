package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/budgetsim/budgetsim/internal/buildinfo"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
	"github.com/budgetsim/budgetsim/sim"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// DefaultMaxReplications caps the replications of a point under the
// relative-error stop rule when Spec.MaxReplications is 0.
const DefaultMaxReplications = 200

// minBatch is the smallest batch of replications the stop rule adds: with
// fewer, Student's t quantile is so large (12.7 for 2 replications at 95%)
// that the first checks are wasted.
const minBatch = 4

// Spec describes a sweep: a scenario, the axes to vary and how many
// replications each point gets. It is stored in every shard file, so that
// shards of different sweeps are never merged.
type Spec struct {
	// Scenario is a path or a bundled scenario name, as scenarios.Load
	// takes it; Sets are overrides applied to every point (before the
	// point's own).
	Scenario string   `json:"scenario"`
	Sets     []string `json:"sets"`
	// Axes are the varied keys; several form a grid (see Grid).
	Axes []Axis `json:"axes"`
	// Replications is the number of replications per point. With RelError
	// > 0 it is the batch size of the stop rule instead (at least 4).
	Replications int `json:"replications"`
	// RelError, when > 0, turns on the stop rule: a point gets batches of
	// replications until the Student-t half-width of each of its mean
	// latency, p99 latency and success rate (over replications, at Level)
	// is below RelError × the estimate, or MaxReplications is reached (0
	// means DefaultMaxReplications). The rule is the one JMT's simulator
	// applies per measure (Bertoli, Casale, Serazzi, "JMT: performance
	// engineering tools for system modeling", 2009), checked after whole
	// batches so that the answer does not depend on scheduling.
	RelError        float64 `json:"rel_error,omitempty"`
	MaxReplications int     `json:"max_replications,omitempty"`
	// Level is the confidence level of the intervals (e.g. 0.95).
	Level float64 `json:"level"`
	// Shard (0-based) and Shards select a deterministic slice of the work:
	// see Run. Shards 0 or 1 means the whole sweep.
	Shard  int `json:"shard"`
	Shards int `json:"shards"`
}

// Validate checks the spec and fills defaults (Shards 0 → 1,
// MaxReplications 0 → DefaultMaxReplications under the stop rule). Errors
// name the field.
func (s *Spec) Validate() error {
	if s.Scenario == "" {
		return fmt.Errorf("scenario: required")
	}
	if err := CheckAxes(s.Axes, func(i int) string {
		if i < 0 {
			return "axes"
		}
		return fmt.Sprintf("axes[%d]", i)
	}); err != nil {
		return err
	}
	if s.Replications < 1 || s.Replications > 10000 {
		return fmt.Errorf("replications: must be in [1, 10000], got %d", s.Replications)
	}
	if s.RelError < 0 || s.RelError >= 1 || math.IsNaN(s.RelError) {
		return fmt.Errorf("rel_error: must be in (0, 1), or 0 for a fixed number of replications; got %g", s.RelError)
	}
	if s.RelError > 0 {
		if s.MaxReplications == 0 {
			s.MaxReplications = DefaultMaxReplications
		}
		if s.MaxReplications < max(s.Replications, minBatch) || s.MaxReplications > 100000 {
			return fmt.Errorf("max_replications: must be in [%d, 100000] (at least one batch), got %d", max(s.Replications, minBatch), s.MaxReplications)
		}
	}
	if !(s.Level > 0 && s.Level < 1) {
		return fmt.Errorf("level: must be in (0, 1), got %g", s.Level)
	}
	if s.Shards == 0 {
		s.Shards = 1
	}
	if s.Shards < 1 || s.Shards > 100000 {
		return fmt.Errorf("shards: must be in [1, 100000], got %d", s.Shards)
	}
	if s.Shard < 0 || s.Shard >= s.Shards {
		return fmt.Errorf("shard: must be in [0, %d), got %d", s.Shards, s.Shard)
	}
	return nil
}

// CheckAxes reports the first problem with the axes of a sweep: none at
// all, an axis without a key or values, a key varied twice, or a grid of
// more than MaxPoints points (checked as it grows, so the product never
// overflows). name(i) names axis i in the message, name(-1) the axes as a
// whole: "axes[1]" and "axes" for a Spec, the --vary argument and
// "--vary" on the command line.
func CheckAxes(axes []Axis, name func(i int) string) error {
	if len(axes) == 0 {
		return fmt.Errorf("%s: at least one key to vary is required", name(-1))
	}
	total := 1
	for i, a := range axes {
		if a.Key == "" || len(a.Values) == 0 {
			return fmt.Errorf("%s: needs a key and at least one value", name(i))
		}
		for j := range i {
			if axes[j].Key == a.Key {
				return fmt.Errorf("%s: %s is varied twice (also by %s): vary each key once (different keys form a grid)", name(i), a.Key, name(j))
			}
		}
		total *= len(a.Values)
		if total > MaxPoints {
			return fmt.Errorf("%s: the grid has more than %d points", name(-1), MaxPoints)
		}
	}
	return nil
}

// Points returns the grid of the spec's axes.
func (s *Spec) Points() []Point { return Grid(s.Axes) }

// PointSets returns the overrides that make point p's scenario: the
// sweep's own (Sets), then the point's values in axis order.
func (s *Spec) PointSets(p Point) []string {
	return append(slices.Clone(s.Sets), p.Sets(s.Axes)...)
}

// batch is the stop rule's batch size.
func (s *Spec) batch() int { return max(s.Replications, minBatch) }

// Options are the run-time settings of Run that do not change its result.
type Options struct {
	// Parallel is the number of goroutines (0: GOMAXPROCS). The result is
	// byte-identical whatever it is.
	Parallel int
	// Interrupt, when set and true, stops the sweep: running replications
	// stop at their next check and are dropped, queued ones are skipped,
	// and the Record comes back Partial.
	Interrupt *atomic.Bool
	// Progress, when set, is called after each replication with the number
	// done and the number scheduled so far (under the stop rule more may be
	// scheduled later). Calls are serialised.
	Progress func(done, scheduled int)
	// PointDone, when set, is called (from Run's goroutine, in no set
	// order) with each point once all its replications are in and the
	// stop rule has closed it; the point's Results are then dropped from
	// the Record, so memory holds only the points in progress. A point an
	// interrupt cut short is not passed: it stays in the Record with what
	// it has. An error from PointDone ends Run with that error. For a
	// shard (Shards > 1), with its share of each point's replications,
	// only with a fixed number of replications: points then come by
	// increasing Index (ShardWriter.Add takes them).
	PointDone func(rp *RawPoint) error
	// Result, when set, receives each replication's result as soon as it
	// and the earlier units are done (from Run's goroutine; for each
	// point in replication order, before the point's PointDone), and the
	// Record keeps no results at all: memory holds a few replications in
	// flight, whatever the grid, the replications or the stop rule ask.
	// A Summarizer's Result takes them. An error from Result ends Run with
	// that error. Only for a whole sweep (Shards == 1).
	Result func(rp *RawPoint, r *system.Result) error
}

// openPoints is how many points the stop rule keeps open at once on
// workers goroutines: each round runs a batch (at least minBatch
// replications) of every open point, so this keeps every core busy
// through a round while bounding the points pooled at once.
func openPoints(workers int) int { return 8 * workers }

// unit is one replication of one point.
type unit struct{ point, rep int }

// figures are a replication's estimates the stop rule checks; they are
// computed as summary.Summarize computes its per-replication figures.
type figures struct{ mean, p99, success float64 }

func figuresOf(r *system.Result) figures {
	var f figures
	if r.Runs.Arrived > 0 {
		f.success = float64(r.Runs.Completed) / float64(r.Runs.Arrived)
	}
	if r.Latency.Count() > 0 {
		f.mean, f.p99 = r.Latency.Mean(), r.Latency.Quantile(0.99)
	}
	return f
}

// converged reports whether every figure's half-width is below relErr ×
// its estimate, and describes the widest.
func converged(fs []figures, level, relErr float64) (bool, string) {
	xs := make([]float64, len(fs))
	ok := true
	var parts []string
	for _, m := range []struct {
		name string
		get  func(f figures) float64
	}{
		{"mean latency", func(f figures) float64 { return f.mean }},
		{"p99 latency", func(f figures) float64 { return f.p99 }},
		{"success rate", func(f figures) float64 { return f.success }},
	} {
		for i, f := range fs {
			xs[i] = m.get(f)
		}
		iv := stats.MeanCI(xs, level)
		rel := iv.RelativeHalfWidth()
		if iv.HalfWidth == 0 {
			rel = 0
		}
		if !(rel < relErr) {
			ok = false
		}
		parts = append(parts, fmt.Sprintf("%s ±%.3g%%", m.name, 100*rel))
	}
	return ok, strings.Join(parts, ", ")
}

// owner returns the shard that runs unit u under a fixed number of
// replications: units are numbered point-major (point·R + replication) and
// dealt round-robin, so every shard gets a similar mix of light and heavy
// points.
func (s *Spec) owner(u unit) int {
	if s.RelError > 0 {
		return u.point % s.Shards // the stop rule needs a point's replications together
	}
	return (u.point*s.Replications + u.rep) % s.Shards
}

// Run runs the spec's slice of the sweep (all of it when Shards is 1) and
// returns its raw, mergeable record.
//
// The scenario file is read once; every point is parsed from that text
// with Sets and then the point's overrides (scenarios.Scenario.Reparse),
// and uses the scenario's seed, so replication i of every point uses seed
// sim.ReplicationSeed(seed, i): common random numbers across points. When
// the scenario fixes no warm-up (FixesWarmup), each point's warm-up is
// chosen by DetectWarmup. Replications of all points run on one pool of
// Options.Parallel goroutines.
//
// Sharding: with a fixed number of replications the work units are
// (point, replication) pairs numbered point-major and dealt round-robin
// (unit u goes to shard u mod Shards); under the stop rule the units are
// whole points (point p goes to shard p mod Shards), because whether a
// point needs another batch depends on all its replications. Every shard
// runs the warm-up pilot of each point it touches, so shards need nothing
// from each other. Merge combines the records.
func Run(spec Spec, opt Options) (*Record, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	base, err := scenarios.Load(spec.Scenario, spec.Sets)
	if err != nil {
		return nil, err
	}
	r := &runner{
		spec:   spec,
		opt:    opt,
		points: spec.Points(),
		rec:    &Record{Format: Format, Spec: spec, ScenarioSHA256: sourceHash(base.Source), Build: buildinfo.Stamp(), Data: base.DataFiles()},
	}
	r.mine = r.shardPoints()
	fixed, err := r.load(base)
	if err != nil {
		return nil, err
	}
	if !r.warmUp(fixed) {
		r.rec.Partial = true
		return r.rec, nil
	}
	if opt.PointDone != nil && spec.Shards > 1 && spec.RelError > 0 {
		return nil, fmt.Errorf("sweep: Options.PointDone is for a whole sweep, or a shard with a fixed number of replications, not shard %d of %d under the stop rule", spec.Shard, spec.Shards)
	}
	if opt.Result != nil && spec.Shards > 1 {
		return nil, fmt.Errorf("sweep: Options.Result is for a whole sweep, not shard %d of %d", spec.Shard, spec.Shards)
	}
	r.workers = opt.Parallel
	if r.workers <= 0 {
		r.workers = runtime.GOMAXPROCS(0)
	}
	r.kept = make(map[int]int, len(r.mine))
	r.figs = make(map[int][]figures, len(r.mine))
	if spec.RelError == 0 {
		return r.fixedReplications()
	}
	return r.stopRule()
}

// runner is one call of Run: its spec and options, the points of its shard
// and what it has done with them so far.
type runner struct {
	spec   Spec
	opt    Options
	points []Point
	rec    *Record
	// mine are the points this shard touches, by Index in grid order;
	// cfgs and rps hold their scenarios (warm-up applied) and records.
	mine    []int
	cfgs    map[int]*system.Config
	rps     map[int]*RawPoint
	workers int
	// mu serialises Options.Progress and done; scheduled is only written
	// between runs of units.
	mu              sync.Mutex
	done, scheduled int
	// kept counts each point's replications handed on so far, and figs
	// holds their figures for the stop rule.
	kept map[int]int
	figs map[int][]figures
}

func (r *runner) interrupted() bool { return r.opt.Interrupt != nil && r.opt.Interrupt.Load() }

// shardPoints returns the points this shard touches.
func (r *runner) shardPoints() []int {
	spec := &r.spec
	var mine []int
	for _, p := range r.points {
		for rep := range spec.Replications {
			if spec.owner(unit{p.Index, rep}) == spec.Shard {
				mine = append(mine, p.Index)
				break
			}
			if spec.RelError > 0 {
				break
			}
		}
	}
	return mine
}

// load parses each of the shard's points from base, in parallel (a sweep
// of many small points would otherwise parse YAML on one core while the
// other waits), into r.cfgs, and reports which points' scenarios fix their
// warm-up. The first failing point in grid order is reported.
func (r *runner) load(base *scenarios.Scenario) (fixed map[int]bool, err error) {
	type loaded struct {
		cfg   *system.Config
		fixed bool
		err   error
	}
	spec := &r.spec
	loads := sim.Parallel(len(r.mine), r.opt.Parallel, func(k int) loaded {
		pi := r.mine[k]
		sets := spec.PointSets(r.points[pi])
		sc, err := base.Reparse(sets)
		if err != nil {
			return loaded{err: fmt.Errorf("point %s: %w", r.points[pi].Label(spec.Axes), err)}
		}
		return loaded{cfg: sc.Config, fixed: FixesWarmup(sc.Source, sets)}
	})
	r.cfgs = make(map[int]*system.Config, len(r.mine))
	fixed = make(map[int]bool, len(r.mine))
	for k, pi := range r.mine {
		if loads[k].err != nil {
			return nil, loads[k].err
		}
		r.cfgs[pi] = loads[k].cfg
		fixed[pi] = loads[k].fixed
	}
	return fixed, nil
}

// warmUp runs the warm-up pilots of the points whose scenario does not fix
// their warm-up, in parallel over points, applies each point's warm-up to
// its scenario and opens its record. It reports false when an interrupt
// stopped a pilot.
func (r *runner) warmUp(fixed map[int]bool) bool {
	warm := sim.Parallel(len(r.mine), r.opt.Parallel, func(k int) *Warmup {
		pi := r.mine[k]
		if fixed[pi] {
			return &Warmup{Source: WarmupScenario}
		}
		if r.interrupted() {
			return nil
		}
		w, ok := DetectWarmup(r.cfgs[pi], r.opt.Interrupt)
		if !ok {
			return nil
		}
		return &w
	})
	r.rps = make(map[int]*RawPoint, len(r.mine))
	for k, pi := range r.mine {
		if warm[k] == nil {
			return false
		}
		c := *r.cfgs[pi]
		warm[k].Apply(&c)
		r.cfgs[pi] = &c
		rp := &RawPoint{Index: pi, Warmup: *warm[k], Planned: r.spec.Replications, Results: []Replica{}, cfg: &c}
		r.rps[pi] = rp
		r.rec.Points = append(r.rec.Points, rp)
	}
	return true
}

// pointDone hands a complete point to PointDone and drops its results.
func (r *runner) pointDone(rp *RawPoint) error {
	if r.opt.PointDone == nil {
		return nil
	}
	if err := r.opt.PointDone(rp); err != nil {
		return err
	}
	rp.Results = nil
	return nil
}

// replica is what a worker hands on for one unit: the result itself (for
// Options.Result) or its encoding, the figures of the stop rule, or the
// error that ends Run. Neither result nor encoding: an interrupt cut the
// unit.
type replica struct {
	res *system.Result
	rep *Replica
	fig figures
	err error
}

// runUnits runs units (point-major, replications ascending) on the pool
// and hands each completed replication on in unit order, a few computed
// ahead at most (handOn). After unit k is handed on, after(k) runs (nil:
// nothing), unless a unit before it was cut. It reports whether an
// interrupt left a unit out; no unit is handed on after a failed one.
func (r *runner) runUnits(units []unit, after func(k int) error) (cut bool, err error) {
	var failed atomic.Bool
	sim.ParallelEach(len(units), r.workers, 4*r.workers, func(k int) replica {
		if r.interrupted() || failed.Load() {
			return replica{}
		}
		o := r.simulate(units[k])
		if o.err != nil {
			failed.Store(true)
		}
		return o
	}, func(k int, o replica) {
		switch {
		case err != nil:
			return
		case o.err != nil:
			err = o.err
			return
		case o.res == nil && o.rep == nil:
			cut = true
			return
		}
		if err = r.handOn(units[k].point, o); err == nil && after != nil && !cut {
			err = after(k)
		}
		if err != nil {
			failed.Store(true)
		}
	})
	return cut, err
}

// simulate runs unit u, on a worker of the pool, and counts it for
// Options.Progress.
func (r *runner) simulate(u unit) replica {
	res := system.New(r.cfgs[u.point], system.Options{Replication: u.rep, Interrupt: r.opt.Interrupt}).Run()
	if res.Stopped == "interrupted" {
		return replica{}
	}
	o := replica{fig: figuresOf(res)}
	if r.opt.Result != nil {
		o.res = res
	} else {
		b, err := EncodeResult(res)
		if err != nil {
			return replica{err: fmt.Errorf("point %s replication %d: %w", r.points[u.point].Label(r.spec.Axes), u.rep, err)}
		}
		o.rep = &Replica{Replication: u.rep, Result: b}
	}
	if r.opt.Progress != nil {
		r.mu.Lock()
		r.done++
		r.opt.Progress(r.done, r.scheduled)
		r.mu.Unlock()
	}
	return o
}

// handOn gives point pi's next replication to Options.Result when set,
// else to the point's Results, and keeps its figures for the stop rule.
func (r *runner) handOn(pi int, o replica) error {
	rp := r.rps[pi]
	if o.res != nil {
		if err := r.opt.Result(rp, o.res); err != nil {
			return err
		}
	} else {
		rp.Results = append(rp.Results, *o.rep)
	}
	r.kept[pi]++
	if r.spec.RelError > 0 {
		r.figs[pi] = append(r.figs[pi], o.fig)
	}
	return nil
}

// fixedReplications runs every unit of the shard in grid order; a point
// is complete when its last unit is handed on, unless an interrupt cut one
// of its units before that.
func (r *runner) fixedReplications() (*Record, error) {
	spec := &r.spec
	var units []unit
	share := make(map[int]int, len(r.mine)) // the point's units in this shard
	for _, pi := range r.mine {
		for rep := range spec.Replications {
			if u := (unit{pi, rep}); spec.owner(u) == spec.Shard {
				units = append(units, u)
				share[pi]++
			}
		}
	}
	r.scheduled = len(units)
	cut, err := r.runUnits(units, func(k int) error {
		pi := units[k].point
		if r.kept[pi] < share[pi] || (k+1 < len(units) && units[k+1].point == pi) {
			return nil
		}
		return r.pointDone(r.rps[pi])
	})
	if err != nil {
		return nil, err
	}
	if cut {
		r.rec.Partial = true
	}
	return r.rec, nil
}

// stopRule runs whole batches for every point still open, then a check
// per point. At most openPoints(workers) points are open at once, refilled
// in grid order as points close, so memory holds the pooled figures of a
// few points, not of the grid. A point's batches and checks depend only on
// its own replications, so which points share a round changes nothing in
// the result.
func (r *runner) stopRule() (*Record, error) {
	spec := &r.spec
	queue, limit := r.mine, openPoints(r.workers)
	var open []int
	for len(open) > 0 || len(queue) > 0 {
		k := min(limit-len(open), len(queue))
		open, queue = append(open, queue[:k]...), queue[k:]
		var units []unit
		for _, pi := range open {
			n := r.kept[pi]
			for rep := n; rep < min(n+spec.batch(), spec.MaxReplications); rep++ {
				units = append(units, unit{pi, rep})
			}
		}
		r.scheduled += len(units)
		target := make(map[int]int, len(open))
		for _, pi := range open {
			target[pi] = min(r.kept[pi]+spec.batch(), spec.MaxReplications)
		}
		cut, err := r.runUnits(units, nil)
		if err != nil {
			return nil, err
		}
		var still []int
		for _, pi := range open {
			rp := r.rps[pi]
			n := r.kept[pi]
			if n < target[pi] { // cut short by an interrupt: not checked
				still = append(still, pi)
				continue
			}
			ok, desc := converged(r.figs[pi], spec.Level, spec.RelError)
			switch {
			case ok:
				rp.Planned = n
			case n >= spec.MaxReplications:
				rp.Planned = n
				rp.Note = fmt.Sprintf("rel-error %g not reached after %d replications (max-replications): %s", spec.RelError, n, desc)
			default:
				still = append(still, pi)
				continue
			}
			if err := r.pointDone(rp); err != nil {
				return nil, err
			}
			delete(r.figs, pi)
		}
		if cut {
			// The points still open had not been closed by the stop
			// rule: how many replications they needed is unknown.
			r.rec.Partial = true
			for _, pi := range still {
				r.rps[pi].Planned = 0
			}
			return r.rec, nil
		}
		open = still
	}
	return r.rec, nil
}

// sourceHash identifies a scenario's text.
func sourceHash(src []byte) string {
	h := sha256.Sum256(src)
	return hex.EncodeToString(h[:])
}

// Replica is one replication's serialised result (EncodeResult; base64 in
// JSON).
type Replica struct {
	Replication int    `json:"replication"`
	Result      []byte `json:"result"`
}
