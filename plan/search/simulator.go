package search

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/budgetsim/budgetsim/model/dist"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/sweep"
	"github.com/budgetsim/budgetsim/scenarios"
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
	// Progress, when set, is called as each replication of a probe is
	// pooled: at value v, done of the n replications Probe was asked for
	// (replications pooled earlier at v count as done). It runs on
	// Probe's goroutine and cannot change the result.
	Progress func(v float64, done, n int)

	variants scenarios.Variants // the file is read once: every probe is parsed from its text
	has      bool
	value    float64
	point    pointPool // the replications at value
}

// Probe returns the summary of replications 0 … n−1 at value v.
// Replication i uses seed sim.ReplicationSeed(seed, i) at every value
// (common random numbers). When the scenario fixes no warm-up, each value's
// warm-up is chosen by sweep.DetectWarmup, and its note (if any) is added
// to the summary's warnings.
func (s *Simulator) Probe(v float64, n int) (*summary.Summary, error) {
	if !s.has || v != s.value {
		sets := append(slices.Clone(s.Sets), s.Range.Key+"="+s.Range.Format(v))
		sc, err := s.variants.Load(s.Scenario, sets)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %w", s.Range.Key, s.Range.Format(v), err)
		}
		s.has, s.value = true, v
		if !s.point.load(sc, sets, s.Interrupt) {
			s.has = false
			return nil, ErrInterrupted
		}
	}
	var progress func(int)
	if s.Progress != nil {
		progress = func(done int) { s.Progress(v, done, n) }
	}
	if !s.point.pool(n, s.Parallel, s.Level, s.Interrupt, progress) {
		return nil, ErrInterrupted
	}
	sum := s.point.summary()
	return &sum, nil
}

// Offered returns what value v offers the scenario's capacities, from its
// own numbers (system.OfferedUtilisation, system.OfferedToolLoads): the
// workers' offered utilisation, and an overload when the offered work is
// at least what the workers or a tool with concurrency can serve, or a
// client-side rate limit allows fewer calls than the arrivals need. It is
// a Problem.Offered.
func (s *Simulator) Offered(v float64) (Offered, error) {
	sets := append(slices.Clone(s.Sets), s.Range.Key+"="+s.Range.Format(v))
	sc, err := s.variants.Load(s.Scenario, sets)
	if err != nil {
		return Offered{}, fmt.Errorf("%s=%s: %w", s.Range.Key, s.Range.Format(v), err)
	}
	return OfferedLoad(sc.Config), nil
}

// OfferedLoad is Simulator.Offered for a compiled scenario.
func OfferedLoad(cfg *system.Config) Offered {
	off := Offered{Utilisation: math.NaN(), Peak: math.NaN()}
	var why []string
	if rho, ok := system.OfferedUtilisation(cfg); ok {
		off.Utilisation = rho
		off.Peak, off.PeakAt = rho, "workers"
		if rho >= 1 {
			unbounded := cfg.QueueCapacity == system.Unbounded && !cfg.EveryRunHasDeadline()
			off.Unstable = off.Unstable || unbounded
			why = append(why, fmt.Sprintf("offered utilisation %s ≥ 1 at the workers: %s", ratio(rho), overloadFate(rho, unbounded)))
		}
	}
	for _, o := range system.OfferedToolLoads(cfg) {
		t := &cfg.Tools[o.Tool]
		load := o.Utilisation
		if t.RateLimit != nil && t.RateLimit.Rate > 0 {
			load = max(load, o.CallRate/t.RateLimit.Rate)
		}
		at := t.Name
		if o.TokenLoad > load {
			load, at = o.TokenLoad, t.Name+" "+o.TokenBinding
		}
		if load > 0 && (math.IsNaN(off.Peak) || load > off.Peak) {
			off.Peak, off.PeakAt = load, at
		}
		if o.Utilisation >= 1 {
			unbounded := t.QueueCapacity == system.Unbounded && !cfg.EveryRunHasDeadline()
			off.Unstable = off.Unstable || unbounded
			why = append(why, fmt.Sprintf("tool %s: offered utilisation %s ≥ 1 (%s calls/s of %s s each on %d slots): %s", t.Name, ratio(o.Utilisation), ratio(o.CallRate), ratio(t.Latency.Mean()), t.Concurrency,
				overloadFate(o.Utilisation, unbounded)))
		}
		if o.RateLimited {
			why = append(why, fmt.Sprintf("tool %s: the arrivals need %s calls/s and its client-side rate limit allows %s/s, so at least %s of the calls cannot be made", t.Name, ratio(o.CallRate), ratio(t.RateLimit.Rate), percent(1-t.RateLimit.Rate/o.CallRate)))
		}
	}
	off.Overload = strings.Join(why, "; ")
	for _, t := range cfg.Tools {
		if alpha, _, ok := dist.TailIndex(t.Latency); ok && alpha <= 2 && calledBy(cfg, t.Name) {
			off.MeansUnreliable = fmt.Sprintf("tool %s's latency has infinite variance (tail index %s ≤ 2), so the intervals of mean figures cover the true mean less often than stated", t.Name, ratio(alpha))
			break
		}
	}
	return off
}

// calledBy reports whether a step of cfg calls the tool named name, as
// its tool or a fallback.
func calledBy(cfg *system.Config, name string) bool {
	for _, st := range cfg.PlanSteps() {
		if cfg.Tools[st.Tool].Name == name {
			return true
		}
		for _, f := range st.Fallbacks {
			if cfg.Tools[f].Name == name {
				return true
			}
		}
	}
	return false
}

// overloadFate says what a utilisation rho ≥ 1 does to a queue: with no
// bound (no capacity, no deadline) there is no steady state, else at least
// 1 − 1/ρ of the work is shed.
func overloadFate(rho float64, unbounded bool) string {
	if unbounded {
		return "the system is unstable (its queue and waits grow with the run length, so every run succeeds eventually, however late)"
	}
	return fmt.Sprintf("overloaded: at least %s of the work cannot be served and is shed (rejected, expired or refused)", percent(1-1/rho))
}

// ratio formats a utilisation or a rate with 3 significant digits.
func ratio(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }

// percent formats a share as a percentage with 3 significant digits.
func percent(x float64) string { return strconv.FormatFloat(100*x, 'g', 3, 64) + "%" }

// Warmup returns the warm-up of the value probed last.
func (s *Simulator) Warmup() sweep.Warmup { return s.point.warm }
