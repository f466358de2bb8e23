package calibrate

import (
	"fmt"
	"math"
	"path"
	"slices"
	"testing/fstest"
	"time"

	"github.com/budgetsim/budgetsim/calibrate/fitting"
	"github.com/budgetsim/budgetsim/calibrate/ingest"
	"github.com/budgetsim/budgetsim/model/arrival"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Row is one line of the calibration table: a quantity observed in the
// trace and simulated by the fitted scenario under the trace's own
// arrivals.
type Row struct {
	Metric   string
	Observed float64
	// ObservedCI is the observed value's own 95% interval (NaN when
	// unknown).
	ObservedCI fitting.Interval
	// Simulated is the mean over the replications with its 95% Student t
	// interval.
	Simulated stats.Interval
	// RelErr is (simulated − observed)/observed, with the interval the
	// simulated one makes.
	RelErr   float64
	RelErrCI fitting.Interval
	// Unit is "s", "rate", "tokens" or "runs/s".
	Unit string
}

// Calibration is the outcome of [Result.Replay].
type Calibration struct {
	Rows         []Row
	Replications int
	// Notes say plainly where the scenario does not describe the system.
	Notes []string
	// ObservedE2E and SimulatedE2E are the runs' end-to-end times in
	// seconds (replication 0's), sorted, for the chart.
	ObservedE2E, SimulatedE2E []float64
	// Tools holds each tool's observed and simulated (replication 0)
	// successful-call latencies, sorted.
	Tools []ToolSamples
}

// ToolSamples are one tool's latencies, observed and simulated.
type ToolSamples struct {
	Name                string
	Observed, Simulated []float64
}

// collector is the Tracer of a replay.
type collector struct {
	e2e      []float64
	lat      map[string][]float64
	outcomes map[string]*[6]int64 // by retry.Outcome
	done     int64
	// model is the loop's model ("" without a loop); turns holds each
	// run's turns and tool calls so far, and the completed runs' sums.
	model                    string
	turns                    map[int64]*runTurns
	doneTurns, doneCallTurns int64
	doneCalls                int64
}

// runTurns is a run's loop so far: its last turn, and its tool calls in
// all turns and in the last.
type runTurns struct {
	turn, calls, lastCalls int
}

func (c *collector) Attempt(r *system.AttemptRecord) {
	if r.Group || r.Outcome == retry.Refused {
		return
	}
	o := c.outcomes[r.Tool]
	if o == nil {
		o = new([6]int64)
		c.outcomes[r.Tool] = o
	}
	o[r.Outcome]++
	if c.model != "" && r.Turn > 0 {
		t := c.turns[r.Run]
		if t == nil {
			t = &runTurns{}
			c.turns[r.Run] = t
		}
		if r.Turn > t.turn {
			t.turn, t.lastCalls = r.Turn, 0
		}
		if r.Tool != c.model && r.ResendCount == 0 {
			t.calls++
			t.lastCalls++
		}
	}
	if r.Outcome == retry.OK {
		c.lat[r.Tool] = append(c.lat[r.Tool], r.Latency.Seconds())
	}
}

func (c *collector) Run(r system.RunRecord) {
	if r.Outcome == system.Completed {
		c.done++
		c.e2e = append(c.e2e, (r.Ended - r.Arrived).Seconds())
		if t := c.turns[r.Run]; t != nil {
			c.doneTurns += int64(t.turn)
			c.doneCalls += int64(t.calls)
			c.doneCallTurns += int64(t.turn)
			if t.lastCalls == 0 {
				c.doneCallTurns-- // the model answered: a turn without calls
			}
		}
	}
	delete(c.turns, r.Run)
}

// Load parses the calibrated scenario as the loader reads a file named
// file, its data files beside it.
func (s Scenario) Load(file string) (*scenarios.Scenario, error) {
	fsys := fstest.MapFS{}
	for name, b := range s.Files {
		fsys[name] = &fstest.MapFile{Data: b}
	}
	return scenarios.Parse(path.Base(file), s.YAML, nil, fsys)
}

// Replay runs the scenario sc (the calibrated one, loaded) with the
// trace's own arrival instants, reps replications, and compares it with
// the trace.
func (r *Result) Replay(sc *scenarios.Scenario, reps int) (*Calibration, error) {
	if reps < 2 {
		return nil, fmt.Errorf("replications: need at least 2 for an interval, got %d", reps)
	}
	runs := r.Obs.Runs
	times := make([]time.Duration, len(runs))
	for i, run := range runs {
		times[i] = time.Duration(run.Start - runs[0].Start)
	}
	src, err := arrival.Trace(times)
	if err != nil {
		return nil, err
	}
	cfg := *sc.Config
	cfg.Arrivals = system.Arrivals{Process: system.Open, Source: src, Rate: src.MeanRate()}
	cfg.Runs = int64(len(runs))
	cfg.Horizon = 0
	cfg.WarmupRuns, cfg.WarmupTime = 0, 0
	span := float64(runs[len(runs)-1].Start-runs[0].Start) / 1e9

	cal := &Calibration{Replications: reps}
	type metric struct {
		name, unit string
		obs        float64
		obsCI      fitting.Interval
		sim        func(c *collector, res *system.Result) float64
	}
	q := func(xs []float64, p float64) float64 {
		if len(xs) == 0 {
			return math.NaN()
		}
		return xs[min(int(math.Ceil(float64(float64(len(xs))*p)-1e-9)), len(xs))-1]
	}
	var metrics []metric
	for _, p := range []struct {
		name string
		p    float64
		est  fitting.Estimate
	}{{"p50", 0.5, r.E2E.P50}, {"p90", 0.9, r.E2E.P90}, {"p99", 0.99, r.E2E.P99}} {
		p := p
		metrics = append(metrics, metric{"run time " + p.name, "s", p.est.Value, p.est.CI, func(c *collector, _ *system.Result) float64 { return q(c.e2e, p.p) }})
	}
	var okRuns int64
	for _, run := range runs {
		if run.OK {
			okRuns++
		}
	}
	succ := fitting.Wilson(okRuns, int64(len(runs)))
	metrics = append(metrics,
		metric{"runs succeeded", "rate", succ.P, succ.CI, func(c *collector, _ *system.Result) float64 { return float64(c.done) / float64(len(runs)) }},
		metric{"throughput", "runs/s", float64(okRuns) / span, fitting.Interval{Lo: math.NaN(), Hi: math.NaN()}, func(c *collector, _ *system.Result) float64 { return float64(c.done) / span }})
	model := ""
	if r.UseLoop {
		l := r.Loop
		model = toolName(l.Model)
		metrics = append(metrics,
			metric{"turns per run", "turns", l.Turns.Mean.Value, l.Turns.Mean.CI, func(c *collector, _ *system.Result) float64 {
				return float64(c.doneTurns) / float64(c.done)
			}},
			metric{"tool calls per turn", "calls", l.Calls.Mean.Value, l.Calls.Mean.CI, func(c *collector, _ *system.Result) float64 {
				return float64(c.doneCalls) / float64(c.doneCallTurns)
			}})
	}
	toolIndex := map[string]int{}
	for i, t := range cfg.Tools {
		toolIndex[t.Name] = i
	}
	for i := range r.Tools {
		t := &r.Tools[i]
		name := toolName(t.Name)
		ti, ok := toolIndex[name]
		if !ok {
			continue
		}
		for _, p := range []struct {
			name string
			p    float64
			est  fitting.Estimate
		}{{"p50", 0.5, t.Latency.P50}, {"p90", 0.9, t.Latency.P90}, {"p99", 0.99, t.Latency.P99}} {
			p := p
			metrics = append(metrics, metric{name + " latency " + p.name, "s", p.est.Value, p.est.CI, func(c *collector, _ *system.Result) float64 {
				x := c.lat[name]
				slices.Sort(x)
				return q(x, p.p)
			}})
		}
		for _, e := range []struct {
			class ingest.Class
			out   retry.Outcome
		}{{ingest.RateLimited, retry.RateLimited}, {ingest.ServerError, retry.Transient}, {ingest.Timeout, retry.Timeout}, {ingest.OtherError, retry.Permanent}} {
			e := e
			rate := t.Errors[e.class]
			if rate.K == 0 {
				continue
			}
			metrics = append(metrics, metric{name + " " + e.class.String() + " rate", "rate", rate.P, rate.CI, func(c *collector, _ *system.Result) float64 {
				o := c.outcomes[name]
				if o == nil {
					return math.NaN()
				}
				var n int64
				for _, v := range o {
					n += v
				}
				return float64(o[e.out]) / float64(n)
			}})
		}
		if t.Tokens() && cfg.Tools[ti].Tokens != nil {
			metrics = append(metrics,
				metric{name + " input tokens/call", "tokens", t.Input.Mean.Value, t.Input.Mean.CI, func(_ *collector, res *system.Result) float64 {
					s := res.Tokens[ti]
					return float64(s.Input) / float64(s.Calls)
				}},
				metric{name + " output tokens/call", "tokens", t.Output.Mean.Value, t.Output.Mean.CI, func(_ *collector, res *system.Result) float64 {
					s := res.Tokens[ti]
					return float64(s.Output) / float64(s.Calls)
				}})
			if t.CachedCalls > 0 && cfg.Tools[ti].PromptCache != nil {
				metrics = append(metrics, metric{name + " cached input share", "rate", t.CachedShare, fitting.Interval{Lo: math.NaN(), Hi: math.NaN()}, func(_ *collector, res *system.Result) float64 {
					s := res.Tokens[ti]
					return float64(s.CacheRead) / float64(s.Input)
				}})
			}
		}
	}
	vals := make([][]float64, len(metrics))
	for rep := range reps {
		c := &collector{lat: map[string][]float64{}, outcomes: map[string]*[6]int64{}, model: model, turns: map[int64]*runTurns{}}
		res := system.New(&cfg, system.Options{Replication: rep, Tracer: c, TraceRuns: math.MaxInt64}).Run()
		slices.Sort(c.e2e)
		for i, m := range metrics {
			vals[i] = append(vals[i], m.sim(c, res))
		}
		if rep == 0 {
			cal.SimulatedE2E = c.e2e
			for i := range r.Tools {
				name := toolName(r.Tools[i].Name)
				if _, ok := toolIndex[name]; ok {
					x := c.lat[name]
					slices.Sort(x)
					cal.Tools = append(cal.Tools, ToolSamples{Name: name, Observed: r.Tools[i].Latency.Sorted, Simulated: x})
				}
			}
		}
	}
	cal.ObservedE2E = r.E2E.Sorted
	for i, m := range metrics {
		ci := stats.MeanCI(vals[i], 0.95)
		row := Row{Metric: m.name, Unit: m.unit, Observed: m.obs, ObservedCI: m.obsCI, Simulated: ci, RelErr: math.NaN(), RelErrCI: fitting.Interval{Lo: math.NaN(), Hi: math.NaN()}}
		if m.obs != 0 {
			row.RelErr = (ci.Mean - m.obs) / m.obs
			row.RelErrCI = fitting.Interval{Lo: (ci.Lo - m.obs) / m.obs, Hi: (ci.Hi - m.obs) / m.obs}
		}
		cal.Rows = append(cal.Rows, row)
	}
	cal.Notes = r.notes(cal)
	return cal, nil
}

// notes say where the scenario does not describe the system.
func (r *Result) notes(cal *Calibration) []string {
	var out []string
	for i := range r.Tools {
		t := &r.Tools[i]
		if lc := t.Latency.LoadCorr; !math.IsNaN(lc.Value) && lc.CI.Lo > 0.1 {
			out = append(out, fmt.Sprintf("%s: latency rises with load (rank correlation with runs in flight %.2f, 95%% [%.2f, %.2f]); the scenario's fixed distribution does not follow it, so its error grows with load, largest near saturation, where plans are made.", t.Name, lc.Value, lc.CI.Lo, lc.CI.Hi))
		}
		what, d := "latency", t.Latency
		if t.UseTTFT && t.Tokens() {
			what, d = "time to first token", t.TTFT
		}
		if d.Family == "empirical" && d.Report != nil {
			out = append(out, fmt.Sprintf("%s: no family fits its %s (%s); the scenario replays the observed values, which cannot extrapolate beyond the largest one seen (%s).", t.Name, what, d.Why, fmtDur(d.Sorted[len(d.Sorted)-1])))
		}
	}
	if r.UseLoop {
		if s := r.Loop.Shape; s.P < 0.9 {
			out = append(out, fmt.Sprintf("only %.0f%% of runs have the simulated loop's shape (their first call a call of %s); the others are not simulated.", 100*s.P, r.Loop.Model))
		}
		if r.Loop.Turns.Rule == "turns" && r.Loop.Turns.Answered > 0 {
			out = append(out, "the turns per run follow no constant chance of ending, so the loop draws them: its last turn makes tool calls that the trace's answers did not.")
		}
	} else if s := r.Modal().Share; s.P < 0.9 {
		what := "turn structure: " + r.LoopWhy
		if r.Loop == nil {
			what = "no run starts with a model call, so they are not an agent loop"
		}
		out = append(out, fmt.Sprintf("only %.0f%% of runs follow the simulated step sequence; the others (listed in the scenario) are not simulated (%s).", 100*s.P, what))
	}
	for _, row := range cal.Rows {
		if row.Metric == "run time p50" && row.RelErrCI.Hi < -0.1 {
			out = append(out, fmt.Sprintf("runs take longer in the trace than the sum of their calls in the scenario (median %s observed, %s simulated): time between calls (the agent's own work, queues outside the traced calls) is not in the scenario.", fmtDur(row.Observed), fmtDur(row.Simulated.Mean)))
		}
	}
	if r.UseLoop {
		l := r.Loop
		for _, row := range cal.Rows {
			if row.Metric == "turns per run" && (row.RelErrCI.Lo > 0.1 || row.RelErrCI.Hi < -0.1) && l.Runs < int64(len(r.Obs.Runs)) {
				out = append(out, fmt.Sprintf("turns per run: %d of %d runs failed in the trace, and the long ones fail more (they meet more errors and the deadline), so the runs that succeeded took %s turns on average, against %s in the fitted loop; the simulated runs fail %s often, so this row compares different selections.",
					int64(len(r.Obs.Runs))-l.Runs, len(r.Obs.Runs), fmtNum(l.Turns.Mean.Value), fmtNum(l.Turns.ImpliedMean.Value), map[bool]string{true: "less", false: "more"}[row.RelErr > 0]))
			}
		}
	}
	var off []string
	for _, row := range cal.Rows {
		if !math.IsNaN(row.RelErr) && (row.RelErrCI.Lo > 0.1 || row.RelErrCI.Hi < -0.1) {
			off = append(off, fmt.Sprintf("%s (%+.0f%%)", row.Metric, 100*row.RelErr))
		}
	}
	if len(off) > 0 {
		out = append(out, "off by more than 10% beyond the replications' interval: "+joinComma(off)+".")
	}
	return out
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
