// Package calibrate turns production traces of an agent into a scenario:
// it reads the traces (calibrate/ingest), groups their spans into runs and
// tools (calibrate/observe), fits what a scenario needs (calibrate/fitting)
// and writes a commented scenario in which every value says where it came
// from: MEASURED (with the number of observations and a 95% interval),
// FITTED (the family and its goodness of fit) or ASSUMED (not in the
// trace; flagged for the user to confirm). [Replay] then measures how far
// the scenario is from the trace it came from.
//
// When the runs are agent loops (a model call, the tool calls it asks for,
// again, until the model answers) and a loop describes more of them than
// the most common step sequence does, the scenario's run is a
// steps[].loop fitted to their turns (fitting.FitLoop); otherwise it is
// the most common step sequence, and the other sequences are listed in
// its comments.
package calibrate

import (
	"fmt"
	"slices"
	"sort"

	"github.com/budgetsim/budgetsim/calibrate/fitting"
	"github.com/budgetsim/budgetsim/calibrate/observe"
)

// Options control a calibration.
type Options struct {
	// Observe controls the reading and the samples.
	Observe observe.Options
	// Name is the scenario's name; "" means "calibrated".
	Name string
}

// Result is a calibration: what the trace holds and what was fitted to it.
type Result struct {
	Obs      *observe.Observation
	Tools    []fitting.Tool // sorted by name
	Seqs     []fitting.Sequence
	Arrivals fitting.Arrivals
	// E2E is the runs' end-to-end time.
	E2E fitting.Dist
	// PeakInFlight is the most runs in flight at once.
	PeakInFlight int
	Name         string
	// Loop is the fit of an agent loop to the runs (nil when no run
	// starts with a model call); UseLoop reports that the scenario
	// describes the runs by it, and LoopWhy why or why not.
	Loop    *fitting.Loop
	UseLoop bool
	LoopWhy string
}

// Calibrate reads the trace files and fits a scenario to them.
func Calibrate(paths []string, opt Options) (*Result, error) {
	o, err := observe.Observe(paths, opt.Observe)
	if err != nil {
		return nil, err
	}
	r := &Result{Obs: o, Name: opt.Name}
	if r.Name == "" {
		r.Name = "calibrated"
	}
	for _, t := range o.Tools {
		r.Tools = append(r.Tools, fitting.FitTool(t))
	}
	r.Seqs = fitting.Sequences(o.Runs)
	ms0 := opt.Observe.MaxSamples
	if ms0 <= 0 {
		ms0 = observe.DefaultMaxSamples
	}
	r.Loop = fitting.FitLoop(o.Runs, opt.Observe.Seed, ms0)
	r.chooseLoop()
	starts := make([]int64, len(o.Runs))
	for i, run := range o.Runs {
		starts[i] = run.Start
	}
	ms := opt.Observe.MaxSamples
	if ms <= 0 {
		ms = observe.DefaultMaxSamples
	}
	r.Arrivals = fitting.FitArrivals(starts, opt.Observe.Seed, ms)
	res := newRes(ms, opt.Observe.Seed)
	for i := range o.Runs {
		res.Add(o.Runs[i].Duration(), 0)
	}
	r.E2E = fitting.FitDist(res)
	r.PeakInFlight = peak(o.Runs)
	return r, nil
}

// chooseLoop decides whether the scenario describes the runs as a loop:
// when the loop's shape covers more runs than the most common sequence,
// and the turns or the calls per turn vary (else the sequence says it
// all).
func (r *Result) chooseLoop() {
	l, modal := r.Loop, r.Modal().Share
	switch {
	case l == nil:
		r.LoopWhy = "no run starts with a model call"
	case l.Runs == 0:
		r.LoopWhy = "no run of the loop's shape succeeded"
	case l.Shape.K <= modal.K:
		r.LoopWhy = fmt.Sprintf("a loop of %s would describe %d runs, no more than the most common sequence (%d)", l.Model, l.Shape.K, modal.K)
	case len(l.Turns.Hist) == 1 && float64(l.Calls.Max) == l.Calls.Mean.Value && len(l.Tools) <= 1:
		r.LoopWhy = "every run takes the same turns and calls"
	default:
		r.UseLoop = true
		r.LoopWhy = fmt.Sprintf("a loop of %s describes %d of %d runs (%s); the most common sequence %d", l.Model, l.Shape.K, len(r.Obs.Runs), pct(l.Shape), modal.K)
	}
}

// peak returns the most runs in flight at once.
func peak(runs []observe.Run) int {
	type ev struct {
		t int64
		d int
	}
	evs := make([]ev, 0, 2*len(runs))
	for _, r := range runs {
		evs = append(evs, ev{r.Start, 1}, ev{r.End, -1})
	}
	// Ends before starts at the same instant.
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].t != evs[j].t {
			return evs[i].t < evs[j].t
		}
		return evs[i].d < evs[j].d
	})
	n, best := 0, 0
	for _, e := range evs {
		n += e.d
		best = max(best, n)
	}
	return best
}

// Tool returns the fit of the named tool, or nil.
func (r *Result) Tool(name string) *fitting.Tool {
	i := slices.IndexFunc(r.Tools, func(t fitting.Tool) bool { return t.Name == name })
	if i < 0 {
		return nil
	}
	return &r.Tools[i]
}

// Modal returns the most common step sequence.
func (r *Result) Modal() fitting.Sequence { return r.Seqs[0] }

func (r *Result) String() string {
	return fmt.Sprintf("%d spans, %d runs, %d tools", r.Obs.Spans, len(r.Obs.Runs), len(r.Tools))
}
