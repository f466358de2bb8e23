// Package recommendation renders what plan/recommend returns: the tables
// `simulate recommend` prints for a latency log and for a simulated
// scenario, each setting with its reasoning. plan/recommend computes;
// this package only formats, through internal/render.
package recommendation

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/plan/recommend"
	"github.com/budgetsim/budgetsim/scenarios"
)

// WriteLog writes the recommendation from a latency log as text: the
// file and its labels, the sample count and estimator, then the table of
// settings with the reasoning behind each, and the notes.
func WriteLog(w io.Writer, r *recommend.Recommendation) error {
	title := "recommend · " + r.File
	if r.Source != "" {
		title += " · source " + r.Source
	}
	if r.Date != "" {
		title += " · date " + r.Date
	}
	fmt.Fprintln(w, title)
	fmt.Fprintf(w, "%d samples; percentiles: %s\n\n", r.Samples, r.Estimator)
	if err := render.Table(w, []string{"setting", "value", "reasoning"}, recommendationRows(r, nil)); err != nil {
		return err
	}
	writeNotes(w, r.Warnings)
	return nil
}

// WritePlan writes the plan of a simulated scenario as text: the
// scenario and its provenance, each step's recommendation with the
// reasoning behind every figure, the run's success target, min_lease and
// deadline, the notes, and the --set flags that apply the plan.
func WritePlan(w io.Writer, sc *scenarios.Scenario, p *recommend.Plan) error {
	fmt.Fprintf(w, "recommend · %s (simulated: seed %d, %d replication(s))\n", sc.Config.Name, sc.Config.Seed, p.Replications)
	fmt.Fprintln(w, provenance.Of(sc).Line())
	fmt.Fprintf(w, "per-step latencies of answered attempts; timeouts other than hangs are censored; percentiles: %s\n", recommend.EstimatorHistogram)
	for _, r := range p.Steps {
		fmt.Fprintf(w, "\nstep %s (tool %s): %d calls, %d censored\n", r.Step, r.Tool, r.Samples, r.Censored)
		if err := render.Table(w, []string{"setting", "value", "reasoning"}, recommendationRows(r, p)); err != nil {
			return err
		}
		writeNotes(w, r.Warnings)
	}
	fmt.Fprintf(w, "\nrun (%d steps)\n", len(p.Steps))
	var budgets []string
	for _, r := range p.Steps {
		budgets = append(budgets, fmt.Sprintf("%d × %s + %s", r.Attempts, render.Seconds(r.Ceiling.Seconds()), render.Seconds(r.Backoff.Seconds())))
	}
	var maxFloor time.Duration
	for _, r := range p.Steps {
		maxFloor = max(maxFloor, r.Floor)
	}
	deadlineWhy := strings.Join(budgets, " + ") + " (steps: attempts × ceiling + backoff) + " + render.Seconds(maxFloor.Seconds()) + " largest floor"
	if p.QueueWait > 0 {
		deadlineWhy = render.Seconds(p.QueueWait.Seconds()) + " p99 queue wait + " + deadlineWhy
	}
	if p.Reserve > 0 {
		deadlineWhy += " + " + render.Seconds(p.Reserve.Seconds()) + " reserve"
	}
	rows := [][]string{
		{"success target", render.Percent(p.Success), fmt.Sprintf("each of %d steps gets %s^(1/%d) = %s", len(p.Steps), render.Percent(p.Success), len(p.Steps), render.PercentFine(p.StepSuccess))},
		{"predicted success", render.PercentFine(p.PredictedSuccess), "the product of the steps' (independent attempts)"},
		{"min_lease", render.Seconds(p.MinLease.Seconds()), "the smallest step floor: no step is refused a lease its own floor grants"},
		{"deadline", render.Seconds(p.Deadline.Seconds()), deadlineWhy},
	}
	if p.GivenDeadline > 0 {
		verdict := "fits"
		if p.Deadline > p.GivenDeadline {
			verdict = "too short for the recommended attempts"
		}
		rows = append(rows, []string{"given deadline", render.Seconds(p.GivenDeadline.Seconds()), verdict})
	}
	if err := render.Table(w, []string{"setting", "value", "reasoning"}, rows); err != nil {
		return err
	}
	writeNotes(w, p.Warnings)
	var sets []string
	for _, s := range p.Sets() {
		sets = append(sets, "--set "+s)
	}
	fmt.Fprintf(w, "\napply: simulate run %s %s\n", sc.File, strings.Join(sets, " "))
	return nil
}

// recommendationRows is the table of one recommendation: setting, value and
// the reasoning behind it, one line each. p is the plan a step belongs to,
// nil for a latency file.
func recommendationRows(r *recommend.Recommendation, p *recommend.Plan) [][]string {
	sec := func(d time.Duration) string { return render.Seconds(d.Seconds()) }
	n := r.Samples
	answered := n - r.Censored
	rank := func(q float64) string {
		k := int64(math.Ceil(float64(q*float64(n)) - 1e-9))
		k = max(k, 1)
		s := fmt.Sprintf("rank ⌈%g·n⌉ = %d of %d", q, k, n)
		switch {
		case k > answered:
			s += " (censored: a lower bound)"
		case k == n:
			s += " (the maximum: too few samples to resolve it)"
		}
		return s
	}
	rows := [][]string{
		{"p50", render.Seconds(r.P50), rank(0.5)},
		{"p90", render.Seconds(r.P90), rank(0.9)},
		{"p99", render.Seconds(r.P99), rank(0.99)},
		{"p99.9", render.Seconds(r.P999), rank(0.999)},
	}
	pc := trimPct(r.Percentile)
	ceilWhy := fmt.Sprintf("ceiling = p%s = %s: a new good call is slower with chance %s ((samples above + 1)/(n + 1))", pc, sec(r.Ceiling), render.Percent(r.CutOff))
	if r.CeilingLowerBound {
		ceilWhy = fmt.Sprintf("ceiling ≥ p%s ≥ %s: censored (the slowest answered call; a new call is slower with chance %s); raise the timeout and measure again", pc, sec(r.Ceiling), render.Percent(r.CutOff))
	}
	if r.Percentile != 99.9 {
		ceilWhy += fmt.Sprintf(" (AWS Builders' Library: for a 0.1%% false-timeout rate use the p99.9, %s)", render.Seconds(r.P999))
	}
	rows = append(rows,
		[]string{"ceiling (timeout)", sec(r.Ceiling), ceilWhy},
		[]string{"floor (min_lease)", sec(r.Floor), fmt.Sprintf("floor = p%s = %s: a lease below it answers in time less than %s%% of the time, so it is refused before dialing",
			trimPct(r.FloorPercentile), sec(r.Floor), trimPct(r.FloorPercentile))},
	)
	qWhy := fmt.Sprintf("q = 1 − (1 − %s errors)(1 − %s cut off)", render.PercentFine(r.ErrorRate+r.PermanentRate), render.Percent(r.CutOff))
	if r.PermanentRate > 0 {
		qWhy += fmt.Sprintf("; %s of attempts fail for good (not retried)", render.PercentFine(r.PermanentRate))
	}
	rows = append(rows, []string{"attempt failure q", render.PercentFine(r.AttemptFailure), qWhy})
	target := render.PercentFine(r.SuccessTarget)
	if p != nil {
		target += " (the step's share of the run target)"
	}
	formula := "1 − q^k"
	if r.PermanentRate > 0 {
		formula = "s(1 − r^k)/(1 − r)"
	}
	attWhy := fmt.Sprintf("smallest k ≤ %d with %s ≥ %s: %d attempt(s) give %s", r.AttemptLimit, formula, target, r.Attempts, render.PercentFine(r.Success))
	if !r.TargetMet {
		attWhy = fmt.Sprintf("no k ≤ %d reaches %s: %d attempt(s) give %s", r.AttemptLimit, target, r.Attempts, render.PercentFine(r.Success))
	}
	if r.GivenDeadline > 0 && r.MaxAttempts < r.Attempts {
		// The target asks for more attempts than the given deadline holds:
		// say so here, not only in the max attempts row.
		attWhy += fmt.Sprintf("; but the %s deadline holds %s (max attempts below)", sec(r.GivenDeadline), map[bool]string{true: "none", false: strconv.Itoa(r.MaxAttempts)}[r.MaxAttempts == 0])
	}
	rows = append(rows, []string{"attempts", strconv.Itoa(r.Attempts), attWhy})
	bound := "worst-case sleeps"
	if r.Bound == recommend.Expected {
		bound = "expected sleeps"
	}
	bp := r.BackoffPolicy
	dlWhy := fmt.Sprintf("%d × %s + %s backoff (%s: %s jitter, base %s, ×%g, cap %s) + %s floor",
		r.Attempts, sec(r.Ceiling), sec(r.Backoff), bound, bp.Jitter, sec(bp.Base), bp.Multiplier, sec(bp.Cap), sec(r.Floor))
	if r.Reserve > 0 {
		dlWhy += " + " + sec(r.Reserve) + " reserve"
	}
	name := "deadline"
	if p != nil {
		name = "deadline (step alone)"
	}
	rows = append(rows, []string{name, sec(r.Deadline), dlWhy})
	if r.GivenDeadline > 0 {
		var why string
		switch {
		case r.MaxAttempts == 0:
			why = fmt.Sprintf("one attempt needs %s (its ceiling and the floor), more than the %s deadline: raise the deadline to at least %s or lower the per-attempt ceiling", sec(r.DeadlineFor(1)), sec(r.GivenDeadline), sec(r.DeadlineFor(1)))
		case p != nil:
			queue := ""
			if p.QueueWait > 0 {
				queue = " after the " + sec(p.QueueWait) + " p99 queue wait"
			}
			why = fmt.Sprintf("the most that fit in %s%s with the other steps at their recommended attempts; success %s", sec(r.GivenDeadline), queue, render.PercentFine(r.SuccessInDeadline))
		default:
			why = fmt.Sprintf("%d × %s + %s backoff + %s floor = %s fits in %s; success %s", r.MaxAttempts, sec(r.Ceiling), sec(r.BackoffFor(r.MaxAttempts)), sec(r.Floor), sec(r.DeadlineFor(r.MaxAttempts)), sec(r.GivenDeadline), render.PercentFine(r.SuccessInDeadline))
		}
		rows = append(rows, []string{"max attempts", strconv.Itoa(r.MaxAttempts), why})
	}
	if r.Fit != nil {
		tail := "not heavier than the fit's beyond sampling error"
		if r.TailHeavier {
			tail = "HEAVIER than the fit's beyond sampling error: trust the empirical percentiles, not the fit"
		}
		rows = append(rows, []string{"fit", r.Fit.String(), fmt.Sprintf("best of 5 families by KS distance (D = %.3g); tail: empirical p%s / fitted = %.3g, %s",
			r.Fit.KS, trimPct(100*r.TailP), r.TailRatio, tail)})
	}
	return rows
}

// trimPct formats a percentile without trailing zeros: 99, 99.9.
func trimPct(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// writeNotes writes a table's notes, one line each, indented.
func writeNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(w, "  note:", n)
	}
}
