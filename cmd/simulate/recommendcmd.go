package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/budgetsim/budgetsim/internal/cli"

	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/internal/render/recommendation"
	"github.com/budgetsim/budgetsim/model/backoff"
	"github.com/budgetsim/budgetsim/model/latencylog"
	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/recommend"
	"github.com/budgetsim/budgetsim/scenarios"
)

func init() {
	register(command{name: "recommend", synopsis: "simulate recommend (--latencies FILE | SCENARIO) [flags]   timeout (ceiling), min_lease (floor), attempts and deadline from observed or simulated latencies", run: (*env).recommend, graceful: true})
}

// recommendFlags are recommend's own flags.
type recommendFlags struct {
	latencies, column, unit string
	percentile, floorPct    float64
	success                 float64
	attempts                int
	base, cap               time.Duration
	multiplier              float64
	jitter, bound           string
	errorRate, permanent    float64
	deadline, reserve       time.Duration
	maxSamples              int
}

func (f *recommendFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.latencies, "latencies", "", "read observed latencies from `FILE` (one per line, or CSV with a header; '# source:' and '# date:' lines label the output)")
	fs.StringVar(&f.column, "column", "", "the CSV column to read (`NAME`; default the first)")
	fs.IntVar(&f.maxSamples, "max-samples", latencylog.DefaultMaxSamples, fmt.Sprintf("percentiles and fit from up to `N` samples kept exactly (at most %d); a longer log is read through a log-linear histogram (relative error ≤ 1/256) in constant memory", latencylog.MaxMaxSamples))
	fs.StringVar(&f.unit, "unit", "", "unit of bare numbers: ns, us, ms, s, m or h (default: from the column name, else s)")
	fs.Float64Var(&f.percentile, "percentile", recommend.DefaultPercentile, "the ceiling is this percentile of good calls; the AWS Builders' Library argues for the downstream p99.9 when a 0.1% false-timeout rate is acceptable")
	fs.Float64Var(&f.floorPct, "floor-percentile", recommend.DefaultFloorPercentile, "the floor (min_lease) is this percentile: a lease below the p50 answers in time less than half the time")
	fs.Float64Var(&f.success, "success", recommend.DefaultSuccess, "success target: the probability a call (a run, for a scenario) succeeds within its attempts")
	fs.IntVar(&f.attempts, "attempts", 0, "the most attempts considered, first included (default: 3 for a latency file, the step's retry.attempts for a scenario)")
	fs.DurationVar(&f.base, "backoff-base", 0, "backoff ceiling of the first retry (latency file; default 50ms)")
	fs.DurationVar(&f.cap, "backoff-cap", 0, "backoff cap (latency file; default 5s)")
	fs.Float64Var(&f.multiplier, "backoff-multiplier", 0, "backoff growth factor (latency file; default 2)")
	fs.StringVar(&f.jitter, "jitter", "", "backoff jitter: none, full, equal, decorrelated or proportional (latency file; default full)")
	fs.StringVar(&f.bound, "backoff-bound", "worst", "sleeps in the deadline: worst (the jitter's largest draw; for full jitter the caps, so every draw fits) or expected (the mean; full jitter: half the caps)")
	fs.Float64Var(&f.errorRate, "error-rate", 0, "probability an attempt fails retryably besides timing out: 5xx, 429, hangs (latency file)")
	fs.Float64Var(&f.permanent, "permanent-rate", 0, "probability an attempt fails for good: a non-retryable error (latency file)")
	fs.DurationVar(&f.deadline, "deadline", 0, "also report how many attempts fit in this run deadline (default: the scenario's deadline)")
	fs.DurationVar(&f.reserve, "reserve", 0, "time the deadline holds back at its end (default: the scenario's floor key; 0 for a file)")
}

func (e *env) recommend(args []string) error {
	fs, sf := newScenarioFlagSet("recommend", e.stderr, "recommend (--latencies FILE [--column NAME] [--unit ms] | SCENARIO) [flags]")
	var rf recommendFlags
	rf.register(fs)
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := sf.Check(); err != nil {
		return err
	}
	e.setFormat(sf.Format, sf.Wide)
	opt, err := rf.options(set)
	if err != nil {
		return err
	}
	if rf.latencies != "" {
		if len(pos) > 0 {
			return cli.Usagef("recommend takes --latencies FILE or a SCENARIO, not both (got %q)", pos[0])
		}
		for _, n := range []string{"set", "seed", "runs", "replications", "level", "parallel"} {
			if set[n] {
				return cli.Usagef("--%s applies to a scenario, not to --latencies", n)
			}
		}
		return e.recommendLog(rf, opt, sf.Format)
	}
	if len(pos) != 1 {
		return cli.Usagef("recommend needs --latencies FILE or exactly one scenario (a path or one of: %s)", cli.ScenarioNames())
	}
	for _, n := range []string{"column", "unit"} {
		if set[n] {
			return cli.Usagef("--%s applies to --latencies, not to a scenario", n)
		}
	}
	for _, n := range []string{"backoff-base", "backoff-cap", "backoff-multiplier", "jitter"} {
		if set[n] {
			return cli.Usagef("--%s applies to --latencies; for a scenario use --set retry.backoff.%s=… (or steps.NAME.backoff.…)", n, strings.TrimPrefix(n, "backoff-"))
		}
	}
	for _, n := range []string{"error-rate", "permanent-rate"} {
		if set[n] {
			return cli.Usagef("--%s applies to --latencies; a scenario's error rates come from its tools (--set tools.NAME.errors.transient=…)", n)
		}
	}
	return e.recommendScenario(pos[0], *sf, opt)
}

// options converts the flags to recommend.Options; set holds the flags
// given on the command line.
func (f *recommendFlags) options(set map[string]bool) (recommend.Options, error) {
	opt := recommend.Options{
		Percentile:      f.percentile,
		FloorPercentile: f.floorPct,
		Success:         f.success,
		AttemptLimit:    f.attempts,
		ErrorRate:       f.errorRate,
		PermanentRate:   f.permanent,
		Deadline:        f.deadline,
		Reserve:         f.reserve,
	}
	switch {
	case !(f.percentile > 0 && f.percentile < 100):
		return opt, cli.Usagef("--percentile: must be in (0, 100), got %v", f.percentile)
	case !(f.floorPct > 0 && f.floorPct < f.percentile):
		return opt, cli.Usagef("--floor-percentile: must be in (0, --percentile %v), got %v", f.percentile, f.floorPct)
	case !(f.success > 0 && f.success < 1):
		return opt, cli.Usagef("--success: must be in (0, 1), got %v", f.success)
	case f.attempts < 0 || f.attempts > recommend.MaxAttemptLimit:
		return opt, cli.Usagef("--attempts: must be in [1, %d], got %d", recommend.MaxAttemptLimit, f.attempts)
	case set["attempts"] && f.attempts == 0:
		return opt, cli.Usagef("--attempts: must be in [1, %d], got 0", recommend.MaxAttemptLimit)
	case !(f.errorRate >= 0 && f.errorRate < 1):
		return opt, cli.Usagef("--error-rate: must be in [0, 1), got %v", f.errorRate)
	case !(f.permanent >= 0 && f.permanent < 1) || !(f.errorRate+f.permanent < 1):
		return opt, cli.Usagef("--permanent-rate: must be in [0, 1 − --error-rate), got %v", f.permanent)
	case f.deadline < 0:
		return opt, cli.Usagef("--deadline: must be ≥ 0, got %v", f.deadline)
	case f.reserve < 0:
		return opt, cli.Usagef("--reserve: must be ≥ 0, got %v", f.reserve)
	}
	b, err := recommend.ParseBound(f.bound)
	if err != nil {
		return opt, cli.Usagef("--backoff-bound: must be worst or expected, got %q", f.bound)
	}
	opt.Bound = b
	if set["backoff-base"] || set["backoff-cap"] || set["backoff-multiplier"] || set["jitter"] {
		p := recommend.DefaultBackoff()
		if set["backoff-base"] {
			p.Base = f.base
		}
		if set["backoff-cap"] {
			p.Cap = f.cap
		}
		if set["backoff-multiplier"] {
			p.Multiplier = f.multiplier
		}
		if set["jitter"] {
			j, err := backoff.ParseJitter(f.jitter)
			if err != nil {
				return opt, cli.Usagef("--jitter: must be none, full, equal, decorrelated or proportional, got %q", f.jitter)
			}
			p.Jitter = j
		}
		if err := p.Validate(); err != nil {
			return opt, cli.Usagef("--backoff-%v", err)
		}
		opt.Backoff = p
	}
	return opt, nil
}

func (e *env) recommendLog(f recommendFlags, opt recommend.Options, format string) error {
	lo := latencylog.Options{Column: f.column}
	if f.unit != "" {
		u, err := time.ParseDuration("1" + f.unit)
		if err != nil || u <= 0 {
			return cli.Usagef("--unit: must be ns, us, ms, s, m or h, got %q", f.unit)
		}
		lo.DefaultUnit = u
	}
	if f.maxSamples < 2 || f.maxSamples > latencylog.MaxMaxSamples {
		return cli.Usagef("--max-samples: must be in [2, %d], got %d", latencylog.MaxMaxSamples, f.maxSamples)
	}
	r, err := recommend.FromLogFile(f.latencies, lo, f.maxSamples, opt)
	if err != nil {
		return err
	}
	if format == "json" {
		return render.JSON(e.stdout, r)
	}
	return recommendation.WriteLog(e.stdout, r)
}

func (e *env) recommendScenario(name string, sf cli.ScenarioFlags, opt recommend.Options) error {
	sc, err := scenarios.Load(name, sf.AllSets())
	if err != nil {
		return err
	}
	acc, _ := replicate.Pooled(sc.Config, sf.Replications, sf.Parallel, system.Options{Interrupt: e.interrupted}, sf.Level)
	plan, err := recommend.FromAccumulator(acc, opt)
	if err != nil {
		return err
	}
	if sf.Format == "json" {
		out := struct {
			Provenance provenance.Record `json:"provenance"`
			*recommend.Plan
		}{provenance.Of(sc), plan}
		if err := render.JSON(e.stdout, out); err != nil {
			return err
		}
	} else if err := recommendation.WritePlan(e.stdout, sc, plan); err != nil {
		return err
	}
	if e.interrupted.Load() {
		return cli.ErrInterrupted
	}
	return nil
}
