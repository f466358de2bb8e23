package comparison

import (
	"fmt"
	"io"
	"strings"

	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/plan/compare"
)

// WriteTable writes the comparison as text: a line saying what was
// compared, one row per variant (success, completion-time percentiles,
// attempts, runs not completed, bottleneck, recovery after an outage),
// the paired differences from the first variant, the verdicts (each
// variant against the one before it) and the variants' warnings. A variant's row is labelled with its name, or its overrides.
func WriteTable(w io.Writer, res *compare.Result) error {
	out := res.Variants
	if len(out) == 0 {
		_, err := fmt.Fprintf(w, "%s: interrupted before any variant finished\n", res.Scenario)
		return err
	}
	var rows [][]string
	header := []string{"variant", "success", "p50", "p99", "p99.9", "max (makespan)", "attempts/run", "attempts", "peak attempt rate", "not completed", "bottleneck"}
	if out[0].Confidence != nil {
		// Pooled over replications, these are a maximum and a sum: each
		// is shown with its mean per replication and that mean's interval.
		header[5], header[7], header[8] = "makespan: max / per rep.", "attempts: sum / per rep.", "peak attempt rate: max / per rep."
	}
	withRecovery := out[0].Recovery != nil
	if withRecovery {
		header = append(header, "recovery after outage")
	}
	withBreakers := false
	for _, v := range out {
		withBreakers = withBreakers || len(v.Breakers) > 0
	}
	if withBreakers {
		header = append(header, "breaker refused (would fail / would succeed)")
	}
	for _, v := range out {
		s := v.Summary
		success, p99 := render.Percent(s.SuccessRate), render.Seconds(s.Latency.P99)
		if c := s.Confidence; c != nil {
			success = render.PlusMinus(s.SuccessRate, c.SuccessRate.Lo, c.SuccessRate.Hi, render.Percent)
			if s.Latency.N > 0 {
				p99 = render.PlusMinus(s.Latency.P99, c.Latency.P99.Lo, c.Latency.P99.Hi, render.Seconds)
			}
		}
		row := []string{v.Name, success,
			render.Seconds(s.Latency.P50), p99, render.Seconds(s.Latency.P999), render.Seconds(s.Latency.Max),
			render.Number(s.Attempts.PerRun), render.Number(float64(s.Attempts.Attempts)), render.Number(s.Attempts.PeakRate) + "/s",
			render.Number(float64(s.Runs.DeadlineExceeded + s.Runs.Failed + s.Runs.Refused + s.Runs.Expired + s.Runs.Rejected)),
			orDash(s.Bottleneck)}
		if c := s.Confidence; c != nil {
			p := c.PerReplication
			row[5] += " / " + render.PlusMinus(p.LatencyMax.Mean, p.LatencyMax.Lo, p.LatencyMax.Hi, render.Seconds)
			row[7] += " / " + render.PlusMinus(p.Attempts.Mean, p.Attempts.Lo, p.Attempts.Hi, render.Number)
			row[8] += " / " + render.PlusMinus(p.PeakAttemptRate.Mean, p.PeakAttemptRate.Lo, p.PeakAttemptRate.Hi, render.Number) + "/s"
		}
		if withRecovery {
			rec := "never"
			if s.Recovery != nil && s.Recovery.Recovered {
				rec = render.Seconds(s.Recovery.After)
			}
			row = append(row, rec)
		}
		if withBreakers {
			row = append(row, render.BreakerCell(v.Breakers))
		}
		rows = append(rows, row)
	}
	if th, cells := tokenColumns(out); th != nil {
		header = append(header, th...)
		for i := range rows {
			rows[i] = append(rows[i], cells[i]...)
		}
	}
	count := fmt.Sprintf("%d variants", len(out))
	if len(out) == 1 {
		count = "1 variant"
	}
	if len(res.Missing) > 0 {
		count = fmt.Sprintf("%d of %d variants (interrupted before %s finished)", len(out), len(out)+len(res.Missing), strings.Join(res.Missing, "; "))
	}
	fmt.Fprintf(w, "%s: %s on common random numbers (seed %d, %d replication(s) each)\n", res.Scenario, count, out[0].Seed, res.Replications)
	fmt.Fprintln(w, res.Provenance.Line())
	if err := render.Table(w, header, rows); err != nil {
		return err
	}
	if c := out[0].Confidence; c != nil {
		fmt.Fprintf(w, "± is the half-width of a %g%% Student-t interval over %d replications (the p99's by sectioning, centred on the pooled p99).\n", 100*c.Level, c.Replications)
		fmt.Fprintln(w, "max / sum: over all replications; per rep.: the mean of one replication's value.")
	}
	if err := classTable(w, out); err != nil {
		return err
	}
	if err := adaptiveTable(w, out); err != nil {
		return err
	}
	if err := pairedTable(w, out, res.Level); err != nil {
		return err
	}
	if vs := Verdicts(out); len(vs) > 0 {
		fmt.Fprintln(w, "\nEach variant against the one before it (an interval that holds 0 is no measurable difference):")
		for _, v := range vs {
			fmt.Fprintln(w, "  "+v.Figure+": "+v.Text)
		}
	}
	labels := make([]string, len(out))
	warns := make([][]string, len(out))
	for i, v := range out {
		labels[i], warns[i] = v.Name, v.Warnings
	}
	render.WarningsByLabel(w, "variants", labels, warns)
	return nil
}

// pairedTable prints each variant's paired difference from the first,
// when there are any: success, mean completion time, p99, attempts per
// run, the peak attempt rate and, when present, the cost per successful
// run and the recovery after an outage.
func pairedTable(w io.Writer, out []compare.Summary, level float64) error {
	cols := PairedColumns(out)
	if cols == nil {
		return nil
	}
	header := []string{"variant"}
	for _, c := range cols {
		header = append(header, "Δ "+c.Name)
	}
	var rows [][]string
	for _, v := range out[1:] {
		if v.Difference == nil {
			continue
		}
		row := []string{v.Name}
		for _, c := range cols {
			row = append(row, c.Cell(v.Difference))
		}
		rows = append(rows, row)
	}
	fmt.Fprintf(w, "\nMinus %s, paired replication by replication (common random numbers; %g%% Student-t intervals of the differences):\n", out[0].Name, 100*level)
	return render.Table(w, header, rows)
}

// A PairedColumn is one figure of the paired differences: its name, how
// to read it from a compare.PairedDifference, how to format a value of it and
// whether more of it is better.
type PairedColumn struct {
	Name   string
	Get    func(d *compare.PairedDifference) *compare.DiffInterval
	Format func(float64) string
	// HigherIsBetter is true for success, false for times, attempts and
	// cost.
	HigherIsBetter bool
}

// Cell formats the column's difference of d with its interval ("–" when
// absent), and for a recovery the replications left unpaired.
func (c PairedColumn) Cell(d *compare.PairedDifference) string {
	s := SignedInterval(c.Get(d), c.Format)
	if c.Name == "recovery after outage" && d.RecoveryUnpaired > 0 {
		s += fmt.Sprintf(" (%d rep. never recovered)", d.RecoveryUnpaired)
	}
	return s
}

// PairedColumns returns the figures the paired differences of out carry,
// in a fixed order; nil when no variant has a difference.
func PairedColumns(out []compare.Summary) []PairedColumn {
	has := func(get func(d *compare.PairedDifference) *compare.DiffInterval) bool {
		for _, v := range out {
			if v.Difference != nil && get(v.Difference) != nil {
				return true
			}
		}
		return false
	}
	any := false
	for _, v := range out {
		any = any || v.Difference != nil
	}
	if !any {
		return nil
	}
	all := []PairedColumn{
		{"success", func(d *compare.PairedDifference) *compare.DiffInterval { return d.SuccessRate }, render.Percent, true},
		{"mean completion", func(d *compare.PairedDifference) *compare.DiffInterval { return d.LatencyMean }, render.Seconds, false},
		{"p99", func(d *compare.PairedDifference) *compare.DiffInterval { return d.LatencyP99 }, render.Seconds, false},
		{"attempts/run", func(d *compare.PairedDifference) *compare.DiffInterval { return d.AttemptsPerRun }, render.Number, false},
		{"peak attempt rate", func(d *compare.PairedDifference) *compare.DiffInterval { return d.PeakAttemptRate }, func(x float64) string { return render.Number(x) + "/s" }, false},
		{"cost/successful run", func(d *compare.PairedDifference) *compare.DiffInterval { return d.CostPerSuccess }, render.Number, false},
		{"recovery after outage", func(d *compare.PairedDifference) *compare.DiffInterval { return d.RecoveryAfter }, render.Seconds, false},
	}
	var cols []PairedColumn
	for i, c := range all {
		// The first three are always shown, the others when present.
		if i < 3 || has(c.Get) {
			cols = append(cols, c)
		}
	}
	return cols
}

// SignedInterval formats a difference with its sign and interval:
// "−412ms [−450ms, −375ms]", or "–" without enough replications.
func SignedInterval(d *compare.DiffInterval, f func(float64) string) string {
	if d == nil {
		return "–"
	}
	return fmt.Sprintf("%s [%s, %s]", Signed(d.Mean, f), Signed(d.Lo, f), Signed(d.Hi, f))
}

// Signed formats a difference x with f and its sign ("+3.87%",
// "−412ms"); 0 has none.
func Signed(x float64, f func(float64) string) string {
	switch {
	case x == 0:
		return f(0)
	case x < 0:
		return "−" + f(-x)
	}
	return "+" + f(x)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// classTable prints, when the variants have classes of work, each
// variant's classes side by side: share, success, completion-time
// percentiles, mean wait, share of the workers' time, attempts and cost per
// run.
func classTable(w io.Writer, out []compare.Summary) error {
	has := false
	for _, v := range out {
		has = has || len(v.Classes) > 0
	}
	if !has {
		return nil
	}
	cost := false
	for _, v := range out {
		cost = cost || v.Cost != nil
	}
	header := []string{"variant", "class", "share", "success", "p50", "p99", "mean wait", "worker share", "attempts/run"}
	if cost {
		header = append(header, "cost/run", "cost/success")
	}
	var rows [][]string
	for _, v := range out {
		for _, name := range v.ClassNames() {
			c := v.Classes[name]
			success, p50, p99, wait := "n/a", "–", "–", "–"
			if c.Runs.Arrived > 0 {
				success = render.Percent(c.SuccessRate)
				if ci := c.Confidence; ci != nil {
					success = render.PlusMinus(c.SuccessRate, ci.SuccessRate.Lo, ci.SuccessRate.Hi, render.Percent)
				}
			}
			if c.Latency.N > 0 {
				p50, p99 = render.Seconds(c.Latency.P50), render.Seconds(c.Latency.P99)
				if ci := c.Confidence; ci != nil {
					p99 = render.PlusMinus(c.Latency.P99, ci.Latency.P99.Lo, ci.Latency.P99.Hi, render.Seconds)
				}
			}
			if c.Wait.N > 0 {
				wait = render.Seconds(c.Wait.Mean)
			}
			row := []string{v.Name, name, render.Percent(c.Share), success, p50, p99, wait, render.Percent(c.WorkerShare), render.Number(c.PerRun)}
			if cost {
				perRun, perSuccess := "–", "–"
				if c.Cost != nil {
					perRun = render.Number(c.Cost.PerRun)
					if c.Runs.Completed > 0 {
						perSuccess = render.Number(c.Cost.PerSuccess)
					}
				}
				row = append(row, perRun, perSuccess)
			}
			rows = append(rows, row)
		}
	}
	fmt.Fprintln(w, "\nPer class of work:")
	return render.Table(w, header, rows)
}
