package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/plan/recommend"
)

// The tables hold what render.SummaryTable prints, as data, with the
// confidence intervals as [lo, hi] under their estimates instead of ±.

func cells(texts ...string) []Cell {
	out := make([]Cell, len(texts))
	for i, t := range texts {
		out[i] = Cell{Text: t}
	}
	return out
}

func row(texts ...string) Row { return Row{Cells: cells(texts...)} }

// interval formats [lo, hi] with f, or "" without an interval.
func interval(iv *summary.Interval, f func(float64) string) string {
	if iv == nil {
		return ""
	}
	return "[" + f(iv.Lo) + ", " + f(iv.Hi) + "]"
}

func withCI(v float64, iv *summary.Interval, f func(float64) string) Cell {
	return Cell{Text: f(v), Sub: interval(iv, f)}
}

// plural formats n and noun, adding an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func perSecond(x float64) string { return render.Number(x) + "/s" }

func dur(d time.Duration) string { return render.Seconds(d.Seconds()) }

// ciNote says what the intervals are, or nothing for one replication.
func ciNote(s *summary.Summary) []string {
	if s.Confidence == nil {
		return nil
	}
	return []string{fmt.Sprintf("[lo, hi] is a %g%% Student-t confidence interval over the %d replications' estimates.",
		100*s.Confidence.Level, s.Confidence.Replications)}
}

// outcomeSection is the runs by outcome and the completion and wait times.
func outcomeSection(s *summary.Summary) Section {
	ci := s.Confidence
	r := s.Runs
	share := func(n int64) string {
		if r.Arrived == 0 {
			return "n/a"
		}
		return render.Percent(float64(n) / float64(r.Arrived))
	}
	count := func(name string, n int64) Row { return row(name, render.Number(float64(n)), share(n)) }
	completed := count("completed", r.Completed)
	if ci != nil {
		completed.Cells[2].Sub = interval(&ci.SuccessRate, render.Percent)
	}
	runs := Table{
		Caption: "Runs by outcome",
		Header:  []string{"runs", "count", "share of arrived"},
		Rows: []Row{
			row("arrived", render.Number(float64(r.Arrived)), ""),
			completed,
			count("rejected (queue full)", r.Rejected),
			count("expired (deadline passed in queue)", r.Expired),
			count("refused before a call", r.Refused),
			count("deadline exceeded", r.DeadlineExceeded),
			count("failed", r.Failed),
			count("in flight at end", r.InFlight),
		},
	}

	pct := func(name string, p summary.Percentiles, iv *summary.PercentileIntervals) Row {
		if p.N == 0 {
			return row(name, "0", "–", "–", "–", "–", "–", "–")
		}
		var ivs [5]*summary.Interval
		if iv != nil {
			ivs = [5]*summary.Interval{&iv.Mean, &iv.P50, &iv.P90, &iv.P99, &iv.P999}
		}
		cs := []Cell{{Text: name}, {Text: render.Number(float64(p.N))}}
		for i, v := range []float64{p.Mean, p.P50, p.P90, p.P99, p.P999} {
			cs = append(cs, withCI(v, ivs[i], render.Seconds))
		}
		return Row{Cells: append(cs, Cell{Text: render.Seconds(p.Max)})}
	}
	var latCI, waitCI *summary.PercentileIntervals
	if ci != nil {
		latCI, waitCI = &ci.Latency, &ci.Wait
	}
	times := Table{
		Caption: "Completion and wait time",
		Header:  []string{"time", "n", "mean", "p50", "p90", "p99", "p99.9", "max"},
		Rows: []Row{
			pct("completion (arrival → done)", s.Latency, latCI),
			pct("wait (arrival → worker)", s.Wait, waitCI),
		},
		Notes: append([]string{"Percentiles: " + s.Estimator + "; completion time counts completed runs only."}, ciNote(s)...),
	}
	intro := fmt.Sprintf("%s of %s arrived runs completed.", render.Percent(s.SuccessRate), render.Number(float64(r.Arrived)))
	if ci != nil {
		intro = fmt.Sprintf("%s of %s arrived runs completed (%g%% confidence interval %s to %s).", render.Percent(s.SuccessRate), render.Number(float64(r.Arrived)),
			100*ci.Level, render.Percent(ci.SuccessRate.Lo), render.Percent(ci.SuccessRate.Hi))
	}
	sec := Section{ID: "outcomes", Title: "Outcomes and completion time", Intro: intro, Tables: []Table{runs, times}}
	if len(s.Classes) > 0 {
		sec.Tables = append(sec.Tables, classesTable(s))
	}
	return sec
}

// classesTable is each class of work's share, success, completion and
// wait times, share of the workers' time, attempts and cost per run, with
// their intervals.
func classesTable(s *summary.Summary) Table {
	header := []string{"class", "share", "arrived", "success", "p50", "p99", "mean wait", "worker share", "attempts/run", "retries"}
	if s.Cost != nil {
		header = append(header, "cost/run", "cost/success")
	}
	t := Table{Caption: "Per class of work", Header: header,
		Notes: []string{"Each class's figures are its own runs', pooled over the replications as the totals above are."}}
	for _, name := range s.ClassNames() {
		c := s.Classes[name]
		var ci *summary.ClassConfidence
		if c.Confidence != nil {
			ci = c.Confidence
		}
		success, p50, p99, wait := Cell{Text: "n/a"}, Cell{Text: "–"}, Cell{Text: "–"}, Cell{Text: "–"}
		if c.Runs.Arrived > 0 {
			success = Cell{Text: render.Percent(c.SuccessRate)}
			if ci != nil {
				success.Sub = interval(&ci.SuccessRate, render.Percent)
			}
		}
		if c.Latency.N > 0 {
			p50, p99 = Cell{Text: render.Seconds(c.Latency.P50)}, Cell{Text: render.Seconds(c.Latency.P99)}
			if ci != nil {
				p50.Sub, p99.Sub = interval(&ci.Latency.P50, render.Seconds), interval(&ci.Latency.P99, render.Seconds)
			}
		}
		if c.Wait.N > 0 {
			wait = Cell{Text: render.Seconds(c.Wait.Mean)}
			if ci != nil {
				wait.Sub = interval(&ci.Wait.Mean, render.Seconds)
			}
		}
		cs := []Cell{{Text: name}, {Text: render.Percent(c.Share)}, {Text: render.Number(float64(c.Runs.Arrived))}, success, p50, p99, wait,
			{Text: render.Percent(c.WorkerShare)}, {Text: render.Number(c.PerRun)}, {Text: render.Number(float64(c.Retries))}}
		if s.Cost != nil {
			perRun, perSuccess := "–", "–"
			if c.Cost != nil {
				perRun = render.Number(c.Cost.PerRun)
				if c.Runs.Completed > 0 {
					perSuccess = render.Number(c.Cost.PerSuccess)
				}
			}
			cs = append(cs, Cell{Text: perRun}, Cell{Text: perSuccess})
		}
		t.Rows = append(t.Rows, Row{Cells: cs})
	}
	return t
}

// littleSection is Little's law and the attempts.
func littleSection(s *summary.Summary) Section {
	ci := s.Confidence
	var tavgCI, lwCI, thruCI, perRunCI *summary.Interval
	if ci != nil {
		tavgCI, lwCI, thruCI, perRunCI = &ci.TimeAvgInSystem, &ci.LambdaW, &ci.Throughput, &ci.AttemptsPerRun
	}
	l := s.Little
	little := Table{
		Caption: "Little's law, L = λW",
		Header:  []string{"quantity", "value"},
		Rows: []Row{
			row("offered: measured arrivals per second of their arrival span", perSecond(s.Rates.OfferedPerSecond)),
			row("λ: measured arrivals per second of the measured window", perSecond(l.ArrivalRate)),
			{Cells: []Cell{{Text: "throughput"}, withCI(l.Throughput, thruCI, perSecond)}},
			row("mean time in system W", render.Seconds(l.MeanInSystem)),
			{Cells: []Cell{{Text: "λW (in flight, from Little)"}, withCI(l.LambdaW, lwCI, render.Number)}},
			{Cells: []Cell{{Text: "time-average in system (integrated)"}, withCI(l.TimeAvgInSystem, tavgCI, render.Number)}},
			row("peak in system", render.Number(float64(l.PeakInSystem))),
		},
		Notes: []string{"λW and the integrated time-average agree when every measured run has ended; a gap means runs were still in the system at the end."},
	}
	sec := Section{ID: "little", Title: "Little's law and attempts", Tables: []Table{little}}
	a := s.Attempts
	if a.Attempts > 0 || a.Refused > 0 {
		sec.Tables = append(sec.Tables, Table{
			Caption: "Attempts",
			Header:  []string{"attempts", "value"},
			Rows: []Row{
				row("attempts dialed", render.Number(float64(a.Attempts))),
				{Cells: []Cell{{Text: "per run"}, withCI(a.PerRun, perRunCI, render.Number)}},
				row("retries", render.Number(float64(a.Retries))),
				row("ok / timeout / transient / 429 / permanent", fmt.Sprintf("%d / %d / %d / %d / %d", a.OK, a.Timeouts, a.Transient, a.RateLimited, a.Permanent)),
				row("refused locally (never dialed)", render.RefusalBreakdown(a, s.Cost)),
				row("wasted attempt time", render.Seconds(a.WastedSeconds)),
				row("backoff sleep time", render.Seconds(a.BackoffSeconds)),
				row("Retry-After honoured", render.Number(float64(a.RetryAfterHonored))),
				row("retries denied by budget", render.Number(float64(a.BudgetDenied))),
				row("fallbacks (withheld: may have run, not idempotent)", render.FallbackBreakdown(a)),
				row("possible duplicate executions", render.Number(float64(a.Duplicates))),
				row(fmt.Sprintf("peak attempt rate (per %s)", render.Seconds(a.PeakWindow)), perSecond(a.PeakRate)),
			},
		})
		var rows []Row
		for _, r := range render.StepRows(s.Steps, s.Groups...) {
			rows = append(rows, row(r...))
		}
		sec.Tables = append(sec.Tables, Table{
			Caption: "Per step",
			Header:  []string{"step", "tool", "answered", "p50", "p90", "p99", "max", "timeouts (hangs)"},
			Rows:    rows,
			Notes:   []string{"Latency of the attempts that got an answer (ok or an error reply); timeouts are not in it. A hang would never have answered; the other timeouts were slow calls a longer timeout would have seen."},
		})
	}
	return sec
}

// capacitySection is the workers and tools with the bottleneck, the p99
// run's tail breakdown, cost and recovery.
func capacitySection(s *summary.Summary) Section {
	mark := func(name string) Row {
		if name == s.Bottleneck {
			return Row{Cells: []Cell{{Text: name, Sub: "bottleneck"}}, Highlight: true}
		}
		return Row{Cells: []Cell{{Text: name}}}
	}
	w := mark("workers")
	w.Cells = append(w.Cells, cells(render.Number(float64(s.Workers.Count)), render.Percent(s.Workers.Utilisation), "–", "–", "–", "–", "–")...)
	rows := []Row{w}
	for _, t := range s.Tools {
		capacity := render.ToolCapacity(t)
		delay := "–"
		if t.Concurrency > 0 {
			delay = render.Seconds(t.QueueDelayP50) + " / " + render.Seconds(t.QueueDelayP99)
		}
		r := mark(t.Name)
		r.Cells = append(r.Cells, cells(capacity, render.ToolLoad(t),
			render.Number(float64(t.Calls))+" ("+perSecond(t.Throughput)+")", delay,
			fmt.Sprintf("%d / %d / %d", t.RateLimited, t.QueueFull, t.Dropped),
			render.Seconds(t.WastedSeconds), render.Number(float64(t.CacheHits)))...)
		rows = append(rows, r)
	}
	intro := "No resource is loaded to 85% or more: no bottleneck."
	if s.Bottleneck != "" {
		intro = "Bottleneck: " + s.Bottleneck + " (the most loaded resource, at 85% or more of its capacity)."
	}
	sec := Section{ID: "capacity", Title: "Capacity, tail, cost and recovery", Intro: intro, Tables: []Table{{
		Caption: "Capacity",
		Header:  []string{"resource", "size", "load", "calls (served/s)", "queue delay p50 / p99", "limit 429 / full 503 / dropped", "wasted work", "cache hits"},
		Rows:    rows,
		Notes:   []string{"Load is the larger of busy servers / concurrency and admitted calls / rate limit; for an unlimited tool, the mean number of calls in service. Limit 429 / full 503 / dropped count what the tool's own rate limit, full queue and deadline-aware dropping sent back; 429s drawn from its error rates are in the attempts table. Tool figures cover the measured window, from the end of the warm-up to the end of the simulation (requests of warm-up runs served in it included)."},
	}}}
	if s.Tail.N > 0 {
		var rows []Row
		shares := s.Tail.Shares()
		for i, st := range s.Tail.Stages {
			rows = append(rows, row(st.Stage, render.Seconds(st.Seconds), render.Percent(shares[i])))
		}
		sec.Tables = append(sec.Tables, Table{
			Caption: fmt.Sprintf("Where the p99 run spent its time (p99 = %s)", render.Seconds(s.Tail.P99)),
			Header:  []string{"stage", "time", "share"},
			Rows:    rows,
			Notes:   []string{fmt.Sprintf("Mean of the %d completed runs whose completion time fell in the p99's band (at most 1.6%% wide); shares are of their mean completion time, so they add up to 100%%.", s.Tail.N)},
		})
	}
	if c := s.Cost; c != nil {
		sec.Tables = append(sec.Tables, Table{
			Caption: "Cost",
			Header:  []string{"cost", c.Unit()},
			Rows: []Row{
				row("spent (settled)", render.Number(c.Spent)),
				row("reserved, unsettled (timed out: usage unknown)", render.Number(c.Unsettled)),
				row("wasted on failed attempts", render.Number(c.Wasted)),
				row("per successful run", render.Number(c.PerSuccess)),
				row("calls refused by the budget", render.Number(float64(c.Refused))),
				row("usage above the declared maximum (clamped)", render.Number(float64(c.Overrun))),
			},
		})
	}
	if len(s.Breakers) > 0 {
		var rows []Row
		for _, b := range s.Breakers {
			rows = append(rows, row(render.BreakerRow(b)...))
		}
		sec.Tables = append(sec.Tables, Table{Caption: "Circuit breakers", Header: render.BreakerHeader, Rows: rows, Notes: []string{render.BreakerNote}})
	}
	if t := adaptiveTable(s); t != nil {
		sec.Tables = append(sec.Tables, *t)
	}
	if t := tokenTable(s); t != nil {
		sec.Tables = append(sec.Tables, *t)
	}
	if rc := s.Recovery; rc != nil {
		after := Row{Cells: []Cell{{Text: "goodput came back"}, {Text: "never", Sub: "metastable: goodput stayed below 90% of arrivals"}}, Highlight: true}
		if rc.Recovered {
			after = row("goodput came back", render.Seconds(rc.After)+" after the outage")
		}
		sec.Tables = append(sec.Tables, Table{
			Caption: "Recovery after the last outage",
			Header:  []string{"recovery", "value"},
			Rows: []Row{
				row("last outage ended at", render.Seconds(rc.OutageEnd)),
				after,
				row("late goodput (completions / arrivals, last quarter)", render.Percent(rc.LateGoodput)),
			},
			Notes: []string{"Goodput is back at the first 10 s window after the outage in which runs complete at ≥ 90% of the rate they arrive."},
		})
	}
	return sec
}

// recommendSection is the plan of recommend.FromAccumulator, or its error;
// it also returns the warnings that belong in the report's footnotes.
func recommendSection(in *Input) (Section, []string) {
	sec := Section{ID: "recommendations", Title: "Recommendations"}
	if in.PlanErr != nil || in.Plan == nil {
		err := in.PlanErr
		if err == nil {
			err = fmt.Errorf("no plan given")
		}
		sec.Intro = "No recommendation: " + err.Error() + "."
		return sec, []string{"recommendations: " + err.Error()}
	}
	p, cfg := in.Plan, in.Scenario.Config
	sec.Intro = fmt.Sprintf("From the latencies of every step's answered attempts over %d replication(s) (as simulate recommend does with its defaults: ceiling = p%s of good calls, floor = p%s, run success target %s). Timeouts other than hangs are censored: a ceiling marked ≥ is a lower bound.",
		p.Replications, strconv.FormatFloat(recommend.DefaultPercentile, 'f', -1, 64), strconv.FormatFloat(recommend.DefaultFloorPercentile, 'f', -1, 64), render.Percent(p.Success))
	steps := Table{
		Caption: "Per step: timeout (ceiling), floor and attempts",
		Header:  []string{"step", "calls", "p50 / p99", "timeout", "floor", "attempts", "success", "deadline (step alone)", "max attempts in deadline"},
	}
	for i, r := range p.Steps {
		now := func(s string) string { return "now " + s }
		timeout, attempts := "none", "?"
		if i < len(cfg.Steps) && cfg.Steps[i].Name == r.Step {
			if t := cfg.Steps[i].Timeout; t > 0 {
				timeout = dur(t)
			}
			attempts = strconv.Itoa(cfg.Steps[i].Retry.Attempts)
		}
		ceiling := dur(r.Ceiling)
		if r.CeilingLowerBound {
			ceiling = "≥ " + ceiling
		}
		success := Cell{Text: render.PercentFine(r.Success), Sub: "target " + render.PercentFine(r.SuccessTarget)}
		if !r.TargetMet {
			success.Sub = "below target " + render.PercentFine(r.SuccessTarget)
		}
		maxAtt := Cell{Text: "–", Sub: "no deadline"}
		if r.GivenDeadline > 0 {
			maxAtt = Cell{Text: strconv.Itoa(r.MaxAttempts), Sub: "success " + render.PercentFine(r.SuccessInDeadline)}
		}
		steps.Rows = append(steps.Rows, Row{Cells: []Cell{
			{Text: r.Step, Sub: "tool " + r.Tool},
			{Text: render.Number(float64(r.Samples)), Sub: render.Number(float64(r.Censored)) + " censored"},
			{Text: render.Seconds(r.P50) + " / " + render.Seconds(r.P99)},
			{Text: ceiling, Sub: now(timeout)},
			{Text: dur(r.Floor)},
			{Text: strconv.Itoa(r.Attempts), Sub: now(attempts)},
			success,
			{Text: dur(r.Deadline)},
			maxAtt,
		}, Highlight: !r.TargetMet})
		for _, w := range r.Warnings {
			steps.Notes = append(steps.Notes, r.Step+": "+w)
		}
	}
	var budgets []string
	var maxFloor time.Duration
	for _, r := range p.Steps {
		budgets = append(budgets, fmt.Sprintf("%d × %s + %s", r.Attempts, dur(r.Ceiling), dur(r.Backoff)))
		maxFloor = max(maxFloor, r.Floor)
	}
	deadlineWhy := strings.Join(budgets, " + ") + " (attempts × ceiling + backoff per step) + " + dur(maxFloor) + " largest floor"
	if p.Reserve > 0 {
		deadlineWhy += " + " + dur(p.Reserve) + " reserve"
	}
	nowOr := func(d time.Duration) string {
		if d <= 0 {
			return "none"
		}
		return dur(d)
	}
	targetWhy := "one step: it gets the whole target"
	if len(p.Steps) > 1 {
		targetWhy = fmt.Sprintf("each of the %d steps gets %s^(1/%d) = %s", len(p.Steps), render.Percent(p.Success), len(p.Steps), render.PercentFine(p.StepSuccess))
	}
	run := Table{
		Caption: "Run (" + plural(len(p.Steps), "step") + ")",
		Header:  []string{"setting", "recommended", "now", "why"},
		Rows: []Row{
			row("success target", render.Percent(p.Success), "", targetWhy),
			row("predicted success", render.PercentFine(p.PredictedSuccess), render.Percent(in.Summary.SuccessRate)+" simulated", "the product of the steps' (independent attempts)"),
			row("min_lease", dur(p.MinLease), nowOr(cfg.MinLease), "the smallest step floor: no step is refused a lease its own floor grants"),
			{Cells: cells("deadline", dur(p.Deadline), nowOr(cfg.Deadline), deadlineWhy), Highlight: p.GivenDeadline > 0 && p.Deadline > p.GivenDeadline},
		},
	}
	sets := p.Sets()
	for i, s := range sets {
		sets[i] = "--set " + s
	}
	file := in.Scenario.File
	if file == "" {
		file = cfg.Name
	}
	sec.Tables = []Table{steps, run}
	sec.Code = "simulate run " + file + " " + strings.Join(sets, " ")
	var warnings []string
	for _, w := range p.Warnings {
		warnings = append(warnings, "recommendations: "+w)
	}
	return sec, warnings
}
