package render

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/scenarios"
)

// ScenarioSummaryTable is SummaryTable under a title naming the scenario,
// its description and its provenance: simulate run's table.
func ScenarioSummaryTable(w io.Writer, sc *scenarios.Scenario, s *summary.Summary) error {
	title := "budgetsim · " + sc.Config.Name
	if sc.Description != "" {
		title += " — " + sc.Description
	}
	title += "\n" + provenance.Of(sc).Line()
	return SummaryTable(w, title, s)
}

// SummaryTable writes a Summary as tables: outcomes, latency percentiles,
// Little's law and attempts, with confidence intervals when the summary has
// them, and the warnings as numbered footnotes.
func SummaryTable(w io.Writer, title string, s *summary.Summary) error {
	fmt.Fprintf(w, "%s\n", title)
	fmt.Fprintf(w, "seed %d · %d replication(s) · %s simulated events\n\n", s.Seed, s.Replications, Number(float64(s.Events)))
	ci := s.Confidence
	share := func(n int64) string {
		if s.Runs.Arrived == 0 {
			return "n/a"
		}
		return Percent(float64(n) / float64(s.Runs.Arrived))
	}
	r := s.Runs
	rows := [][]string{
		{"arrived", Number(float64(r.Arrived)), ""},
		{"completed", Number(float64(r.Completed)), share(r.Completed)},
		{"rejected (queue full)", Number(float64(r.Rejected)), share(r.Rejected)},
		{"expired (deadline passed in queue)", Number(float64(r.Expired)), share(r.Expired)},
		{"refused before a call", Number(float64(r.Refused)), share(r.Refused)},
		{"deadline exceeded", Number(float64(r.DeadlineExceeded)), share(r.DeadlineExceeded)},
		{"failed", Number(float64(r.Failed)), share(r.Failed)},
		{"in flight at end", Number(float64(r.InFlight)), share(r.InFlight)},
	}
	if ci != nil {
		rows[1][2] += fmt.Sprintf(" [%s, %s]", Percent(ci.SuccessRate.Lo), Percent(ci.SuccessRate.Hi))
	}
	if err := Table(w, []string{"runs", "count", "share"}, rows); err != nil {
		return err
	}
	fmt.Fprintln(w)

	pct := func(name string, p summary.Percentiles, iv *summary.PercentileIntervals) []string {
		if p.N == 0 {
			return []string{name, "0", "–", "–", "–", "–", "–", "–"}
		}
		f := func(v float64, i *summary.Interval) string {
			if i == nil {
				return Seconds(v)
			}
			return Seconds(v) + " ±" + Seconds((i.Hi-i.Lo)/2)
		}
		row := []string{name, Number(float64(p.N))}
		if iv == nil {
			row = append(row, f(p.Mean, nil), f(p.P50, nil), f(p.P90, nil), f(p.P99, nil), f(p.P999, nil))
		} else {
			row = append(row, f(p.Mean, &iv.Mean), f(p.P50, &iv.P50), f(p.P90, &iv.P90), f(p.P99, &iv.P99), f(p.P999, &iv.P999))
		}
		return append(row, Seconds(p.Max))
	}
	var latCI, waitCI *summary.PercentileIntervals
	if ci != nil {
		latCI, waitCI = &ci.Latency, &ci.Wait
	}
	header := []string{"time", "n", "mean", "p50", "p90", "p99", "p99.9", "max"}
	if err := Table(w, header, [][]string{
		pct("completion (arrival → done)", s.Latency, latCI),
		pct("wait (arrival → worker)", s.Wait, waitCI),
	}); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := ClassTable(w, s); err != nil {
		return err
	}
	if err := TenantTable(w, s); err != nil {
		return err
	}

	l := s.Little
	withCI := func(v float64, i *summary.Interval, f func(float64) string) string {
		if ci == nil {
			return f(v)
		}
		return f(v) + " ±" + f((i.Hi-i.Lo)/2)
	}
	var tavgCI, lwCI, thruCI *summary.Interval
	if ci != nil {
		tavgCI, lwCI, thruCI = &ci.TimeAvgInSystem, &ci.LambdaW, &ci.Throughput
	}
	rt := s.Rates
	offered, admitted, span := "–", "–", "one instant: every run arrived at once"
	if rt.ArrivalSpan > 0 {
		offered, admitted = Number(rt.OfferedPerSecond)+"/s", Number(rt.AdmittedPerSecond)+"/s"
		span = "their arrival span, " + Seconds(rt.ArrivalSpan)
	}
	window := "the measured window, " + Seconds(rt.Window)
	if s.Replications > 1 {
		span += " in all"
		window += " in all"
	}
	if err := Table(w, []string{"rates", "runs/s", "over"}, [][]string{
		{"offered (measured arrivals)", offered, span},
		{"admitted (not rejected at the door)", admitted, span},
		{"completed (throughput)", withCI(rt.CompletedPerSecond, thruCI, Number) + "/s", window},
	}); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := Table(w, []string{"Little's law", "value"}, [][]string{
		{"λ: arrivals per second of the measured window", Number(l.ArrivalRate) + "/s"},
		{"throughput", withCI(l.Throughput, thruCI, Number) + "/s"},
		{"mean time in system W", Seconds(l.MeanInSystem)},
		{"λW (in flight, from Little)", withCI(l.LambdaW, lwCI, Number)},
		{"time-average in system (integrated)", withCI(l.TimeAvgInSystem, tavgCI, Number)},
		{"peak in system", Number(float64(l.PeakInSystem))},
	}); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if ci != nil {
		if err := perReplicationTable(w, s); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}

	a := s.Attempts
	if a.Attempts > 0 || a.Refused > 0 {
		if err := Table(w, []string{"attempts", "value"}, append(append(append([][]string{
			{"attempts dialed", Number(float64(a.Attempts))},
			{"per run", Number(a.PerRun)},
			{"retries", Number(float64(a.Retries))},
			{"ok / timeout / transient / 429 / permanent", fmt.Sprintf("%d / %d / %d / %d / %d", a.OK, a.Timeouts, a.Transient, a.RateLimited, a.Permanent)},
		}, outcomeDetailRows(a)...), [][]string{
			{"refused locally (never dialed)", RefusalBreakdown(a, s.Cost)},
			{"wasted attempt time", Seconds(a.WastedSeconds)},
			{"backoff sleep time", Seconds(a.BackoffSeconds)},
			{"Retry-After honoured", Number(float64(a.RetryAfterHonored))},
			{"retries denied by budget", Number(float64(a.BudgetDenied))},
			{"fallbacks (withheld: may have run, not idempotent)", FallbackBreakdown(a)},
			{"possible duplicate executions", Number(float64(a.Duplicates))},
			{fmt.Sprintf("peak attempt rate (per %s)", Seconds(a.PeakWindow)), Number(a.PeakRate) + "/s"},
		}...), cancelledRow(a)...)); err != nil {
			return err
		}
		fmt.Fprintln(w)
		if err := Table(w, []string{"step", "tool", "answered", "p50", "p90", "p99", "max", "timeouts (hangs)"}, StepRows(s.Steps, s.Groups...)); err != nil {
			return err
		}
		fmt.Fprintln(w)
		if len(s.Loops) > 0 {
			if err := Table(w, []string{"agent loop", "ends by", "turns mean", "p50", "p99", "turn p50", "turn p99", "input/turn p50", "input/turn p99"}, LoopRows(s.Loops)); err != nil {
				return err
			}
			for _, l := range s.Loops {
				if n := LoopNotes(l); n != "" {
					fmt.Fprintln(w, n)
				}
			}
			fmt.Fprintln(w)
		}
	}
	if err := resourcesTable(w, s); err != nil {
		return err
	}
	if ci != nil {
		fmt.Fprintf(w, "± is the half-width of a %g%% Student-t interval over %d replications.\n", 100*ci.Level, ci.Replications)
	}
	fmt.Fprintf(w, "Percentiles: %s.\n", s.Estimator)
	if len(s.Warnings) > 0 {
		fmt.Fprintln(w, "\nWarnings:")
		for i, warn := range s.Warnings {
			fmt.Fprintf(w, "  %d. %s\n", i+1, warn)
		}
	}
	return nil
}

// perReplicationTable sets, for each figure the summary pools over
// replications as a sum or a maximum, the mean of one replication (with
// its interval) beside the pooled figure, each named for what it is.
func perReplicationTable(w io.Writer, s *summary.Summary) error {
	ci := s.Confidence
	p := ci.PerReplication
	e := func(x summary.Estimate, f func(float64) string) string {
		return f(x.Mean) + " ±" + f((x.Hi-x.Lo)/2)
	}
	n := func(x int64) string { return Number(float64(x)) }
	return Table(w, []string{"figure", "mean of one replication", fmt.Sprintf("pooled over %d replications", ci.Replications)}, [][]string{
		{"arrived", e(p.Arrived, Number), "sum " + n(s.Runs.Arrived)},
		{"completed", e(p.Completed, Number), "sum " + n(s.Runs.Completed)},
		{"attempts dialed", e(p.Attempts, Number), "sum " + n(s.Attempts.Attempts)},
		{"longest completion time (a batch's makespan)", e(p.LatencyMax, Seconds), "max " + Seconds(s.Latency.Max)},
		{"peak attempt rate", e(p.PeakAttemptRate, Number) + "/s", "max " + Number(s.Attempts.PeakRate) + "/s"},
		{"peak in system", e(p.PeakInSystem, Number), "max " + Number(float64(s.Little.PeakInSystem))},
	})
}

// resourcesTable writes capacity (workers and tools), the p99 run's tail
// breakdown, cost and recovery.
// ToolLoad is a tool's load cell: the share of its capacity in use, or, for
// a tool with neither concurrency nor a rate limit (no capacity to share),
// the mean number of its calls in service, which is what it contributes.
func ToolLoad(t summary.ToolSummary) string {
	if t.Concurrency == 0 && t.RateLimit == 0 && (t.Tokens == nil || len(t.Tokens.Limits) == 0) {
		return Number(t.MeanBusy) + " in service"
	}
	return Percent(t.Load)
}

// StepRows are the per-step table's rows: the step, its tool (→ its
// fallbacks, in order), the answered attempts and their latency
// percentiles, then the timeouts with, in brackets, how many were hangs
// rather than slow calls. A parallel or hedged step (groups) gets a row of
// its own before its members: its time from start to satisfied, and its
// failed groups and cancelled calls; its members' rows are indented.
func StepRows(steps []summary.StepSummary, groups ...summary.GroupSummary) [][]string {
	var rows [][]string
	member := map[string]bool{}
	for _, g := range groups {
		for _, m := range g.Members {
			member[m] = true
		}
	}
	for _, st := range steps {
		for _, g := range groups {
			if len(g.Members) > 0 && g.Members[0] == st.Name {
				rows = append(rows, GroupRow(g))
			}
		}
		if member[st.Name] {
			st.Name = "└ " + st.Name
		}
		l := st.Latency
		p50, p90, p99, mx := "–", "–", "–", "–"
		if l.N > 0 {
			p50, p90, p99, mx = Seconds(l.P50), Seconds(l.P90), Seconds(l.P99), Seconds(l.Max)
		}
		tool := st.Tool
		for _, f := range st.Fallbacks {
			tool += " → " + f
		}
		rows = append(rows, []string{st.Name, tool, Number(float64(l.N)), p50, p90, p99, mx,
			fmt.Sprintf("%d (%d)", st.Timeouts, st.Hangs)})
	}
	return rows
}

func resourcesTable(w io.Writer, s *summary.Summary) error {
	mark := func(name string) string {
		if name == s.Bottleneck {
			return name + " ← bottleneck"
		}
		return name
	}
	rows := [][]string{{mark("workers"), Number(float64(s.Workers.Count)), Percent(s.Workers.Utilisation), "–", "–", "–", "–", "–"}}
	for _, t := range s.Tools {
		capacity := ToolCapacity(t)
		delay := "–"
		if t.Concurrency > 0 {
			delay = Seconds(t.QueueDelayP50) + " / " + Seconds(t.QueueDelayP99)
		}
		rows = append(rows, []string{mark(t.Name), capacity, ToolLoad(t), Number(float64(t.Calls)) + " (" + Number(t.Throughput) + "/s)", delay,
			fmt.Sprintf("%d / %d / %d", t.RateLimited, t.QueueFull, t.Dropped), Seconds(t.WastedSeconds), Number(float64(t.CacheHits))})
	}
	if err := Table(w, []string{"capacity", "size", "load", "calls (served/s)", "queue delay p50 / p99", "limit 429 / full 503 / dropped", "wasted work", "cache hits"}, rows); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := TokensTable(w, s.Tools); err != nil {
		return err
	}
	if err := adaptiveTable(w, s.Tools); err != nil {
		return err
	}
	if s.Tail.N > 0 {
		var rows [][]string
		shares := s.Tail.Shares()
		for i, st := range s.Tail.Stages {
			rows = append(rows, []string{st.Stage, Seconds(st.Seconds), Percent(shares[i])})
			for _, mb := range s.Tail.Members {
				// A parallel step's members, under it: their spans overlap.
				if g, name, ok := strings.Cut(mb.Stage, "/"); ok && g == st.Stage {
					rows = append(rows, []string{"└ " + name, Seconds(mb.Seconds), "–"})
				}
			}
		}
		fmt.Fprintf(w, "Where the p99 run spent its time (p99 = %s, mean of the %d completed runs in its band):\n", Seconds(s.Tail.P99), s.Tail.N)
		if err := Table(w, []string{"stage", "time", "share"}, rows); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if c := s.Cost; c != nil {
		rows := [][]string{{"spent (settled)", Number(c.Spent)}}
		if t := c.Tokens; t.Input+t.CacheRead+t.CacheWrite+t.Output != 0 {
			rows = append(rows, []string{"of which tokens: input / cache read / cache write / output",
				Number(t.Input) + " / " + Number(t.CacheRead) + " / " + Number(t.CacheWrite) + " / " + Number(t.Output)})
		}
		if err := Table(w, []string{"cost", c.Unit()}, append(rows, [][]string{
			{"reserved, unsettled (timed out: usage unknown)", Number(c.Unsettled)},
			{"wasted on failed attempts", Number(c.Wasted)},
			{"per successful run", Number(c.PerSuccess)},
			{"calls refused by the budget", Number(float64(c.Refused))},
			{"usage above the declared maximum (clamped)", Number(float64(c.Overrun))},
		}...)); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if len(s.Breakers) > 0 {
		if err := BreakerTable(w, s.Breakers); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if r := s.Recovery; r != nil {
		after := "never (metastable: goodput stayed below 90% of arrivals)"
		if r.Recovered {
			after = Seconds(r.After) + " after the outage"
		}
		fmt.Fprintf(w, "Recovery: the last outage ended at %s; goodput came back %s; late goodput %s of arrivals.\n\n", Seconds(r.OutageEnd), after, Percent(r.LateGoodput))
	}
	return nil
}

// RefusalBreakdown formats the calls refused before dialing with their
// reasons: "12 (floor 10, token wait 0, budget 2)", or "0"; a circuit
// breaker's refusals are named when there are any.
func RefusalBreakdown(a summary.AttemptsSummary, c *summary.CostSummary) string {
	if a.Refused == 0 {
		return "0"
	}
	var budget int64
	if c != nil {
		budget = c.Refused
	}
	extra := ""
	if a.RefusedBreaker > 0 {
		extra = ", circuit breaker " + Number(float64(a.RefusedBreaker))
	}
	if a.RefusedLimit > 0 {
		extra += ", concurrency limit " + Number(float64(a.RefusedLimit))
	}
	if a.RefusedWindow > 0 {
		extra += ", context window " + Number(float64(a.RefusedWindow))
	}
	return fmt.Sprintf("%s (floor %s, token wait %s, budget %s%s)", Number(float64(a.Refused)),
		Number(float64(a.RefusedLease)), Number(float64(a.RefusedTokenWait)), Number(float64(budget)), extra)
}

// FallbackBreakdown formats the steps that switched to a fallback tool and,
// in brackets, those withheld because the step may already have run and is
// not idempotent: "40 (withheld 3)", or "0".
func FallbackBreakdown(a summary.AttemptsSummary) string {
	s := Number(float64(a.Fallbacks))
	if a.UnsafeFallbacks > 0 {
		s += fmt.Sprintf(" (withheld %s)", Number(float64(a.UnsafeFallbacks)))
	}
	return s
}

// GroupRow is a parallel or hedged step's row of the step table.
func GroupRow(g summary.GroupSummary) []string {
	l := g.Latency
	p50, p90, p99, mx := "–", "–", "–", "–"
	if l.N > 0 {
		p50, p90, p99, mx = Seconds(l.P50), Seconds(l.P90), Seconds(l.P99), Seconds(l.Max)
	}
	of := fmt.Sprintf("%d", len(g.Members))
	if g.CallsDrawn {
		of = fmt.Sprintf("1–%d drawn", len(g.Members))
	}
	name, kind := fmt.Sprintf("%s (%s of %s)", g.Name, g.Wait, of), "parallel"
	ended := fmt.Sprintf("%d failed, %d cancelled", g.Failed, g.Cancelled)
	if g.Wait == "hedge" {
		name = fmt.Sprintf("%s (hedged at %s, ≤ %d attempts)", g.Name, g.Delay, g.MaxAttempts)
		kind = "hedged"
		ended = fmt.Sprintf("%d failed, %d hedges, %d cancelled", g.Failed, g.Hedges, g.Cancelled)
	}
	return []string{name, kind, Number(float64(g.Satisfied)), p50, p90, p99, mx, ended}
}

// cancelledRow is the attempts table's row of calls cancelled by a parallel
// or hedged step, when there were any.
func cancelledRow(a summary.AttemptsSummary) [][]string {
	if a.Cancelled == 0 {
		return nil
	}
	return [][]string{{"cancelled (a parallel or hedged step was decided)", Number(float64(a.Cancelled))}}
}

// LoopRows are the rows of the agent loops' table: how many turns a run
// took, and each turn's time and input tokens.
func LoopRows(loops []summary.LoopSummary) [][]string {
	var rows [][]string
	dash := func(p summary.Percentiles, f func(float64) string) (string, string) {
		if p.N == 0 {
			return "–", "–"
		}
		return f(p.P50), f(p.P99)
	}
	for _, l := range loops {
		ends := l.Ends
		if ends != "max_turns" {
			ends += fmt.Sprintf(", ≤ %d", l.MaxTurns)
		} else {
			ends = fmt.Sprintf("%d turns", l.MaxTurns)
		}
		mean := "–"
		if l.Turns.N > 0 {
			mean = fmt.Sprintf("%.2f", l.Turns.Mean)
		}
		t50, t99 := dash(l.Turns, func(x float64) string { return fmt.Sprintf("%.0f", x) })
		l50, l99 := dash(l.TurnLatency, Seconds)
		i50, i99 := dash(l.TurnInput, func(x float64) string { return Number(math.Round(x)) })
		rows = append(rows, []string{l.Name, ends, mean, t50, t99, l50, l99, i50, i99})
	}
	return rows
}

// LoopNotes says, in a line, how loop l's runs left it and what its
// context window did, or "" when there is nothing to say.
func LoopNotes(l summary.LoopSummary) string {
	var parts []string
	if l.Answered+l.MaxTurnsReached > 0 {
		parts = append(parts, fmt.Sprintf("%s answered, %s reached max_turns", Number(float64(l.Answered)), Number(float64(l.MaxTurnsReached))))
	}
	if l.WindowRefused > 0 {
		parts = append(parts, fmt.Sprintf("%s model calls refused by the context window", Number(float64(l.WindowRefused))))
	}
	if l.WindowTruncated > 0 {
		parts = append(parts, fmt.Sprintf("%s model calls truncated to the context window", Number(float64(l.WindowTruncated))))
	}
	if l.Compactions > 0 {
		parts = append(parts, fmt.Sprintf("%s contexts compacted", Number(float64(l.Compactions))))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Loop " + l.Name + ": " + strings.Join(parts, "; ") + "."
}

// outcomeDetailRows are the rows that detail the attempts' outcomes when
// there were any: the provider's overload answers (a 529
// overloaded_error, or a 503), apart from the 429s of the caller's
// limits, and the streaming calls cut (streamRows).
func outcomeDetailRows(a summary.AttemptsSummary) [][]string {
	rows := streamRows(a)
	if a.Overloaded == 0 {
		return rows
	}
	return append([][]string{{"overloaded (the provider's own capacity)", Number(float64(a.Overloaded))}}, rows...)
}

// streamRows are the rows of the streaming calls cut, when there were
// any: before their first token (first_token_timeout) and after it
// (billed for the tokens produced).
func streamRows(a summary.AttemptsSummary) [][]string {
	var rows [][]string
	if a.FirstTokenTimeouts > 0 {
		rows = append(rows, []string{"cut before the first token (first_token_timeout)", Number(float64(a.FirstTokenTimeouts))})
	}
	if a.StreamCuts > 0 {
		rows = append(rows, []string{"streams cut after the first token (billed as produced)", Number(float64(a.StreamCuts))})
	}
	return rows
}
