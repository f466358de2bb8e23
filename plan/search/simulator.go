package search

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/sweep"
	"github.com/budgetsim/budgetsim/scenarios"
	"github.com/budgetsim/budgetsim/sim"
)

// Simulator probes a scenario by simulation; its Probe method is a Prober.
// It keeps the replications of the value being probed, so that doubling
// the replications only runs the new ones. It is not safe for concurrent
// use (Search calls it from one goroutine; the replications inside run in
// parallel).
type Simulator struct {
	// Scenario is a path or a bundled name; Sets are overrides applied to
	// every probe before Range.Key=value.
	Scenario string
	Sets     []string
	Range    Range
	// Level is the confidence level of the summaries' intervals.
	Level float64
	// Parallel is the number of goroutines for replications (0:
	// GOMAXPROCS); results do not depend on it.
	Parallel int
	// Interrupt stops the simulations when set and true.
	Interrupt *atomic.Bool

	variants scenarios.Variants // the file is read once: every probe is parsed from its text
	has      bool
	value    float64
	cfg      *system.Config
	warm     sweep.Warmup
	acc      *system.Accumulator // replications 0 … have−1 at value, pooled
	have     int
}

// Probe returns the summary of replications 0 … n−1 at value v.
// Replication i uses seed sim.ReplicationSeed(seed, i) at every value
// (common random numbers). When the scenario fixes no warm-up, each value's
// warm-up is chosen by sweep.DetectWarmup, and its note (if any) is added
// to the summary's warnings.
func (s *Simulator) Probe(v float64, n int) (*system.Summary, error) {
	if !s.has || v != s.value {
		sets := append(slices.Clone(s.Sets), s.Range.Key+"="+s.Range.Format(v))
		sc, err := s.variants.Load(s.Scenario, sets)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %w", s.Range.Key, s.Range.Format(v), err)
		}
		s.has, s.value, s.cfg, s.acc, s.have = true, v, sc.Config, nil, 0
		s.warm = sweep.Warmup{Source: sweep.WarmupScenario}
		if !sweep.FixesWarmup(sc.Source, sets) {
			w, ok := sweep.DetectWarmup(s.cfg, s.Interrupt)
			if !ok {
				s.has = false
				return nil, ErrInterrupted
			}
			s.warm = w
			w.Apply(s.cfg)
		}
	}
	if n < s.have {
		s.acc, s.have = nil, 0 // fewer than pooled: pool again from the start
	}
	if s.acc == nil {
		s.acc = system.NewAccumulator(s.cfg, s.Level)
	}
	if n > s.have {
		// Pooled as they complete, in replication order: a probe that
		// needs thousands of replications holds a few at a time.
		have, interrupted := s.have, false
		sim.ParallelEach(n-have, s.Parallel, 4*max(s.Parallel, runtime.GOMAXPROCS(0)), func(k int) *system.Result {
			return system.New(s.cfg, system.Options{Replication: have + k, Interrupt: s.Interrupt}).Run()
		}, func(_ int, r *system.Result) {
			interrupted = interrupted || r.Stopped == "interrupted"
			s.acc.Add(r)
			r.Recycle()
		})
		if interrupted {
			s.acc, s.have = nil, 0
			return nil, ErrInterrupted
		}
		s.have = n
	}
	sum := s.acc.Summary()
	if s.warm.Note != "" {
		sum.Warnings = append(sum.Warnings, s.warm.Note)
	}
	return &sum, nil
}

// Warmup returns the warm-up of the value probed last.
func (s *Simulator) Warmup() sweep.Warmup { return s.warm }
