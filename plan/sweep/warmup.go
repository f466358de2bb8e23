package sweep

import (
	"fmt"
	"strings"
	"sync/atomic"

	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Sources of a point's warm-up (Warmup.Source).
const (
	// WarmupScenario: the scenario (or a --set) fixes the warm-up; it is
	// used as is.
	WarmupScenario = "scenario"
	// WarmupMSER5: MSER-5 on a pilot replication chose it.
	WarmupMSER5 = "mser5"
	// WarmupDefault: the pilot could not be used; 10% of its arrivals are
	// discarded.
	WarmupDefault = "default"
	// WarmupNone: a batch arrival process has no steady state to warm up
	// to; nothing is discarded.
	WarmupNone = "none"
)

// Pilot settings of DetectWarmup.
const (
	// pilots is the number of pilot replications averaged run by run.
	pilots = 5
	// maxPilotRuns bounds a pilot's arrivals (and so the longest warm-up
	// MSER-5 can find, half of it).
	maxPilotRuns = 100_000
)

// Warmup is the warm-up applied to a point's replications.
type Warmup struct {
	// Runs is the number of initial arrivals each replication discards
	// (system.Config.WarmupRuns) when Source is WarmupMSER5 or
	// WarmupDefault; with WarmupScenario the scenario's own setting holds
	// and Runs is 0.
	Runs int64 `json:"runs"`
	// Source says where the warm-up came from (WarmupScenario, …).
	Source string `json:"source"`
	// Note is a caveat the summary repeats among its warnings, e.g. a
	// pilot that never settled.
	Note string `json:"note,omitempty"`
}

// Apply sets cfg's warm-up to w (it changes nothing for WarmupScenario and
// WarmupNone).
func (w Warmup) Apply(cfg *system.Config) {
	if w.Source == WarmupMSER5 || w.Source == WarmupDefault {
		cfg.WarmupRuns, cfg.WarmupTime = w.Runs, 0
	}
}

// FixesWarmup reports whether a scenario sets its warm-up: the YAML source
// has a top-level warmup key, or one of the --set overrides sets warmup.
// An explicit "warmup: 0" counts as fixed.
func FixesWarmup(src []byte, sets []string) bool {
	for _, s := range sets {
		if p, _, ok := strings.Cut(s, "="); ok && strings.TrimSpace(p) == "warmup" {
			return true
		}
	}
	var top map[string]any
	if err := yaml.Unmarshal(src, &top); err != nil {
		return false
	}
	_, ok := top["warmup"]
	return ok
}

// sojournTracer keeps the time in system of every run, by arrival index.
type sojournTracer struct {
	xs   []float64
	seen []bool
}

// Attempt ignores attempt records.
func (t *sojournTracer) Attempt(*system.AttemptRecord) {}

// Run records a run's time in system.
func (t *sojournTracer) Run(r system.RunRecord) {
	if r.Run < 0 || r.Run >= maxPilotRuns {
		return
	}
	for int64(len(t.xs)) <= r.Run {
		t.xs = append(t.xs, 0)
		t.seen = append(t.seen, false)
	}
	t.xs[r.Run] = (r.Ended - r.Arrived).Seconds()
	t.seen[r.Run] = true
}

// series returns the sojourn times of runs 0, 1, … up to the first run
// that did not end.
func (t *sojournTracer) series() []float64 {
	for i, ok := range t.seen {
		if !ok {
			return t.xs[:i]
		}
	}
	return t.xs
}

// DetectWarmup chooses the warm-up of a scenario that fixes none, by the
// MSER-5 rule (stats.MSER5; K. P. White Jr., Simulation 69(6), 1997)
// applied, as Welch's procedure does, to the run-by-run average of 5 pilot
// replications (Law, Simulation Modeling and Analysis, 5th ed., §9.5.1):
// the output series is the time in system of each run, in arrival order,
// from an empty system with nothing discarded. Averaging matters: on a
// single replication the excursions of a busy queue swamp the initial
// bias, and MSER-5 then often truncates nothing. The pilots use
// replication indices −1 … −5, so their seeds differ from every measured
// replication's; they run in parallel, at most 100000 arrivals each, and
// their results are thrown away. The average is taken in pilot order, so the
// result does not depend on scheduling.
//
// A batch arrival process gets WarmupNone. When the pilots yield fewer
// than 100 ended runs, DetectWarmup falls back to discarding 10% of a
// pilot's arrivals (WarmupDefault) and says so in Note; when MSER-5
// truncates at the limit of its search (half the series), the point may
// never reach a steady state (overload) and Note says that too.
//
// ok is false when interrupt stopped a pilot. cfg is not modified.
func DetectWarmup(cfg *system.Config, interrupt *atomic.Bool) (w Warmup, ok bool) {
	if cfg.Arrivals.Process == system.Batch {
		return Warmup{Source: WarmupNone}, true
	}
	pilot := *cfg
	pilot.WarmupRuns, pilot.WarmupTime = 0, 0
	if pilot.Runs > maxPilotRuns {
		pilot.Runs = maxPilotRuns
	}
	type pilotOut struct {
		xs      []float64
		arrived int64
		stopped bool
	}
	outs := sim.Parallel(pilots, 0, func(i int) pilotOut {
		tr := &sojournTracer{}
		res := system.New(&pilot, system.Options{Replication: -1 - i, Tracer: tr, TraceRuns: maxPilotRuns, Interrupt: interrupt}).Run()
		return pilotOut{tr.series(), res.Runs.Arrived, res.Stopped == "interrupted"}
	})
	var avg []float64
	for i, o := range outs {
		if o.stopped {
			return Warmup{}, false
		}
		if i == 0 {
			avg = o.xs
			continue
		}
		avg = avg[:min(len(avg), len(o.xs))]
		for j := range avg {
			avg[j] += o.xs[j]
		}
	}
	arrived := outs[0].arrived
	if len(avg) < 100 {
		n := arrived / 10
		return Warmup{Runs: n, Source: WarmupDefault,
			Note: fmt.Sprintf("warm-up: the pilot replications had only %d ended runs in a row, too few for MSER-5; discarding 10%% of the arrivals (%d runs)", len(avg), n)}, true
	}
	for j := range avg {
		avg[j] /= pilots
	}
	d := stats.MSER5(avg)
	w = Warmup{Runs: int64(d), Source: WarmupMSER5}
	if limit := min(len(avg)/5/2, len(avg)/5-2) * 5; d >= limit {
		w.Note = fmt.Sprintf("warm-up: MSER-5 truncated %d of %d pilot runs, the most it may: the time in system never settled (overload, or too few runs for the transient)", d, len(avg))
	}
	if cfg.Runs > 0 && w.Runs >= cfg.Runs {
		w.Runs = cfg.Runs - 1
	}
	return w, true
}
