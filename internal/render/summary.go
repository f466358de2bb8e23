package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
	"github.com/budgetsim/budgetsim/sim/stats"
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

// CSVText makes user text (a scenario, variant or tool name) safe in a CSV
// cell that a spreadsheet opens: text starting with =, +, -, @, a tab or a
// carriage return would be read as a formula, so it gets a leading single
// quote (OWASP's advice on CSV injection). Other text is unchanged;
// numbers never pass through it.
func CSVText(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}

// SummaryCSV writes one row per summary with the main figures in seconds.
// variants, when not nil, labels each row (same length as sums).
func SummaryCSV(w io.Writer, sums []summary.Summary, variants []string) error {
	cw := csv.NewWriter(w)
	header := []string{"scenario", "variant", "seed", "replications", "arrived", "completed", "rejected", "expired", "refused",
		"deadline_exceeded", "failed", "in_flight", "success_rate",
		"latency_mean_s", "latency_p50_s", "latency_p90_s", "latency_p99_s", "latency_p999_s", "latency_max_s",
		"wait_mean_s", "wait_p99_s", "offered_per_s", "admitted_per_s", "little_lambda_per_s", "throughput", "lambda_w", "time_avg_in_system",
		"attempts", "attempts_per_run", "retries", "peak_attempt_rate", "partial"}
	if err := cw.Write(header); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	i := func(x int64) string { return strconv.FormatInt(x, 10) }
	for k, s := range sums {
		v := ""
		if variants != nil {
			v = variants[k]
		}
		r := s.Runs
		row := []string{CSVText(s.Scenario), CSVText(v), strconv.FormatUint(s.Seed, 10), strconv.Itoa(s.Replications),
			i(r.Arrived), i(r.Completed), i(r.Rejected), i(r.Expired), i(r.Refused), i(r.DeadlineExceeded), i(r.Failed), i(r.InFlight),
			f(s.SuccessRate),
			f(s.Latency.Mean), f(s.Latency.P50), f(s.Latency.P90), f(s.Latency.P99), f(s.Latency.P999), f(s.Latency.Max),
			f(s.Wait.Mean), f(s.Wait.P99), f(s.Rates.OfferedPerSecond), f(s.Rates.AdmittedPerSecond), f(s.Little.ArrivalRate), f(s.Little.Throughput), f(s.Little.LambdaW), f(s.Little.TimeAvgInSystem),
			i(s.Attempts.Attempts), f(s.Attempts.PerRun), i(s.Attempts.Retries), f(s.Attempts.PeakRate), strconv.FormatBool(s.Partial)}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// CDFHeader, SeriesHeader and ToolsHeader head latency_cdf.csv,
// series.csv and tools.csv.
var (
	CDFHeader    = []string{"variant", "value_s", "fraction"}
	SeriesHeader = []string{"variant", "t_s", "width_s", "arrivals", "attempts", "completed", "ended"}
	ToolsHeader  = []string{"variant", "tool", "t_s", "width_s", "utilisation"}
)

// CDFCSV writes empirical CDFs, one row per non-empty histogram bucket:
// variant, value_s, fraction. variants labels each histogram.
func CDFCSV(w io.Writer, variants []string, hists []*stats.Histogram) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CDFHeader); err != nil {
		return err
	}
	for i, h := range hists {
		if err := CDFRows(cw, variants[i], h); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// CDFRows writes one variant's rows of latency_cdf.csv (see CDFCSV).
func CDFRows(cw *csv.Writer, variant string, h *stats.Histogram) error {
	for _, p := range h.CDFPoints(nil) {
		if err := cw.Write([]string{CSVText(variant), strconv.FormatFloat(p.Value, 'g', -1, 64), strconv.FormatFloat(p.Fraction, 'g', -1, 64)}); err != nil {
			return err
		}
	}
	return nil
}

// SeriesCSVVariants writes several time series with a variant column.
func SeriesCSVVariants(w io.Writer, variants []string, series []*system.Series) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(SeriesHeader); err != nil {
		return err
	}
	for i, s := range series {
		if err := SeriesRows(cw, variants[i], s); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// SeriesRows writes one variant's rows of series.csv (see
// SeriesCSVVariants).
func SeriesRows(cw *csv.Writer, variant string, s *system.Series) error {
	width := s.Width.Seconds()
	for k, b := range s.Bins {
		if err := cw.Write([]string{CSVText(variant),
			strconv.FormatFloat(float64(k)*width, 'g', -1, 64),
			strconv.FormatFloat(width, 'g', -1, 64),
			strconv.FormatInt(b.Arrivals, 10),
			strconv.FormatInt(b.Attempts, 10),
			strconv.FormatInt(b.Completed, 10),
			strconv.FormatInt(b.Ended, 10),
		}); err != nil {
			return err
		}
	}
	return nil
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
		if err := Table(w, []string{"cost", c.Unit()}, [][]string{
			{"spent (settled)", Number(c.Spent)},
			{"reserved, unsettled (timed out: usage unknown)", Number(c.Unsettled)},
			{"wasted on failed attempts", Number(c.Wasted)},
			{"per successful run", Number(c.PerSuccess)},
			{"calls refused by the budget", Number(float64(c.Refused))},
			{"usage above the declared maximum (clamped)", Number(float64(c.Overrun))},
		}); err != nil {
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

// ToolsCSV writes per-tool utilisation over time for the tools with a
// capacity (concurrency) or a rate limit: variant, tool, t_s, width_s,
// utilisation. For a capacity it is server time spent in the bin /
// (concurrency × bin width); for a rate limit, calls that reached the tool
// in the bin / (rate × bin width); for both, the larger, as the summary's
// load. Tools with neither have no utilisation and are left out. It writes
// nothing but the header when no tool has one. cfgs, variants and series
// are parallel (one per variant).
func ToolsCSV(w io.Writer, cfgs []*system.Config, variants []string, series []*system.Series) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(ToolsHeader); err != nil {
		return err
	}
	for i, s := range series {
		if err := ToolRows(cw, cfgs[i], variants[i], s); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// minCallsPerRow is how many calls a rate-limited tool's row of tools.csv
// holds at its limit, at least: its bins are grouped until then, since a
// count of a few calls per bin swings by one call (at 2/s in 1.28 s bins,
// between 78 % and 117 %) and draws a solid band instead of a line.
const minCallsPerRow = 50

// ToolBin is one row of tools.csv before formatting: tool Tool's
// utilisation over the series' bins [First, First+Bins).
type ToolBin struct {
	Tool        string
	First, Bins int
	Utilisation float64
}

// ToolUtilisation returns the rows of tools.csv for series s of a
// simulation of cfg, tool by tool in cfg's order (see ToolsCSV). A
// rate-limited tool's rows group the series' bins so that each holds at
// least minCallsPerRow calls at the limit.
func ToolUtilisation(cfg *system.Config, s *system.Series) []ToolBin {
	width := s.Width.Seconds()
	var out []ToolBin
	for t, tool := range cfg.Tools {
		var busy []float64
		var calls []int64
		if t < len(s.ToolBusy) {
			busy = s.ToolBusy[t]
		}
		if t < len(s.ToolCalls) {
			calls = s.ToolCalls[t]
		}
		c := tool.Concurrency
		var rate float64
		if tool.RateLimit != nil {
			rate = tool.RateLimit.Rate
		}
		if c <= 0 && rate <= 0 {
			continue
		}
		bins, group := 0, 1
		if c > 0 {
			bins = len(busy)
		}
		if rate > 0 {
			bins = max(bins, len(calls))
			group = max(1, int(math.Ceil(minCallsPerRow/(rate*width))))
		}
		for k := 0; k < bins; k += group {
			n := min(group, bins-k)
			w := float64(n) * width
			var b float64
			var a int64
			for i := k; i < k+n; i++ {
				if i < len(busy) {
					b += busy[i]
				}
				if i < len(calls) {
					a += calls[i]
				}
			}
			var u float64
			if c > 0 {
				u = b / (w * float64(c))
			}
			if rate > 0 {
				u = max(u, float64(a)/(w*rate))
			}
			out = append(out, ToolBin{Tool: tool.Name, First: k, Bins: n, Utilisation: u})
		}
	}
	return out
}

// ToolRows writes one variant's rows of tools.csv (see ToolsCSV and
// ToolUtilisation); width_s is each row's width.
func ToolRows(cw *csv.Writer, cfg *system.Config, variant string, s *system.Series) error {
	width := s.Width.Seconds()
	for _, b := range ToolUtilisation(cfg, s) {
		if err := cw.Write([]string{CSVText(variant), CSVText(b.Tool),
			strconv.FormatFloat(float64(b.First)*width, 'g', -1, 64),
			strconv.FormatFloat(float64(b.Bins)*width, 'g', -1, 64),
			strconv.FormatFloat(b.Utilisation, 'g', -1, 64),
		}); err != nil {
			return err
		}
	}
	return nil
}

// HasLimitedTools reports whether any tool has a concurrency limit or a
// rate limit: whether tools.csv has rows.
func HasLimitedTools(cfg *system.Config) bool {
	for _, t := range cfg.Tools {
		if t.Concurrency > 0 || t.RateLimit != nil {
			return true
		}
	}
	return false
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

// OutagesHeader heads outages.csv: one row per outage window of a tool,
// for the charts to shade (its times in seconds of simulated time).
var OutagesHeader = []string{"variant", "tool", "start_s", "end_s", "mode"}

// HasOutages reports whether some tool of cfg has an outage window.
func HasOutages(cfg *system.Config) bool {
	for _, t := range cfg.Tools {
		if len(t.Outages) > 0 {
			return true
		}
	}
	return false
}

// OutageRows writes cfg's outage windows labelled variant: the tool, the
// window and its mode ("stall", or the outcome a call inside it gets).
func OutageRows(cw *csv.Writer, cfg *system.Config, variant string) error {
	for _, t := range cfg.Tools {
		for _, o := range t.Outages {
			mode := o.Mode.String()
			if o.Stall {
				mode = "stall"
			}
			if o.Slow > 0 {
				mode = "slow"
			}
			if err := cw.Write([]string{variant, t.Name,
				strconv.FormatFloat(o.Start.Seconds(), 'g', -1, 64),
				strconv.FormatFloat(o.End.Seconds(), 'g', -1, 64), mode}); err != nil {
				return err
			}
		}
	}
	return nil
}

// OutagesCSV writes outages.csv for one variant.
func OutagesCSV(w io.Writer, cfg *system.Config, variant string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(OutagesHeader); err != nil {
		return err
	}
	if err := OutageRows(cw, cfg, variant); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
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
