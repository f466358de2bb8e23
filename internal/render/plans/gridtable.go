package plans

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/plan/search"
)

// Money formats an amount of cost with four significant digits, in
// decimal notation down to 1e-9 ("0.1452", "0.00002078"), never with an
// exponent a reader of a cost table would trip on.
func Money(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "n/a"
	case x == 0:
		return "0"
	case math.Abs(x) >= 1000 || math.Abs(x) < 1e-9:
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	decimals := max(0, 3-int(math.Floor(math.Log10(math.Abs(x)))))
	return strconv.FormatFloat(x, 'f', decimals, 64)
}

// IntervalText is "est [lo, hi]" with f, or "est" without an interval.
func IntervalText(iv search.Interval, f func(float64) string) string {
	lo, hi := float64(iv.CI[0]), float64(iv.CI[1])
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return f(float64(iv.Estimate))
	}
	return f(float64(iv.Estimate)) + " [" + f(lo) + ", " + f(hi) + "]"
}

// DifferenceText is "+0.0012 [−0.0003, +0.0027]".
func DifferenceText(d *search.Difference, f func(float64) string) string {
	if d == nil {
		return "n/a"
	}
	sign := func(x float64) string {
		if x >= 0 {
			return "+" + f(x)
		}
		return "−" + f(-x)
	}
	return sign(float64(d.Mean)) + " [" + sign(float64(d.CI[0])) + ", " + sign(float64(d.CI[1])) + "]"
}

// Place says where a candidate stands: "cheapest", "tie", the frontier
// state, and what dominates it ("dominated by #3").
func Place(a *search.GridAnswer, i int) string {
	c := &a.Candidates[i]
	var parts []string
	switch {
	case a.Found && i == a.Cheapest:
		parts = append(parts, "CHEAPEST")
	case isTie(a, i):
		parts = append(parts, "tie")
	}
	f := c.Frontier
	if c.DominatedBy != nil {
		f = "dominated by #" + strconv.Itoa(*c.DominatedBy+1)
	}
	parts = append(parts, f)
	return strings.Join(parts, ", ")
}

func isTie(a *search.GridAnswer, i int) bool {
	for _, t := range a.Ties {
		if t == i {
			return true
		}
	}
	return false
}

// objectivesText is "pass", or the objectives that failed.
func objectivesText(c *search.Candidate) string {
	if c.NotAnAnswer != "" {
		return "not an answer"
	}
	var failed []string
	for _, ch := range c.Checks {
		if ch.Verdict == search.Fail || ch.Margin < 0 {
			failed = append(failed, ch.Name)
		}
	}
	switch {
	case len(c.Checks) == 0:
		return "–"
	case c.Feasible:
		return "pass"
	case len(failed) == 0:
		return "unresolved"
	}
	return "fail " + strings.Join(failed, ", ")
}

// WriteGridTable writes a grid answer as text: what was searched and how,
// one row per configuration (its figures with their intervals, whether
// it meets the objectives, and its place on the frontier), the cheapest
// configuration with its evidence, the ties, the frontier, and the
// warnings.
func WriteGridTable(w io.Writer, scenario, prov string, ans *search.GridAnswer) error {
	short := search.ShortNames(ans.Knobs)
	var over []string
	for i, k := range ans.Knobs {
		var ls []string
		for _, s := range k.Settings {
			ls = append(ls, s.Label)
		}
		name := k.Key
		if short[i] != k.Key {
			name += " (" + short[i] + ")"
		}
		over = append(over, name+" ∈ {"+strings.Join(ls, ", ")+"}")
	}
	objs := "no objectives"
	if len(ans.SLOs) > 0 {
		objs = strings.Join(ans.SLOs, " and ")
	}
	fmt.Fprintf(w, "%s: the cheapest configuration (cost per successful run, in %s) meeting %s, over %s\n", scenario, ans.CostLabel(), objs, strings.Join(over, " × "))
	fmt.Fprintf(w, "search: %s; %g%% confidence in each verdict (%.4g%% intervals per look), %g%% intervals on figures and paired differences\n",
		ans.Method, 100*ans.Level, 100*ans.LookLevel, 100*ans.Level)
	for _, k := range ans.Knobs {
		if k.Key != search.TierKey {
			continue
		}
		for _, s := range k.Settings {
			fmt.Fprintf(w, "tier %s: %s\n", s.Label, strings.Join(s.Sets, ", "))
		}
	}
	fmt.Fprintln(w, prov)
	header := []string{"#"}
	header = append(header, short...)
	header = append(header, "reps", "cost/success ("+ans.CostLabel()+")", "p99", "success", "objectives", "place")
	var rows [][]string
	for i := range ans.Candidates {
		c := &ans.Candidates[i]
		row := []string{strconv.Itoa(i + 1)}
		row = append(row, c.Labels...)
		row = append(row, strconv.Itoa(c.Replications), IntervalText(c.Cost, Money), IntervalText(c.P99, render.Seconds),
			IntervalText(c.Success, render.Percent), objectivesText(c), Place(ans, i))
		rows = append(rows, row)
	}
	if err := render.Table(w, header, rows); err != nil {
		return err
	}
	cur := ans.CostLabel()
	switch {
	case ans.Found:
		c := &ans.Candidates[ans.Cheapest]
		fmt.Fprintf(w, "cheapest: #%d %s\n", ans.Cheapest+1, c.Name(short))
		fmt.Fprintf(w, "  cost per successful run %s %s; p99 %s; success %s\n", IntervalText(c.Cost, Money), cur, IntervalText(c.P99, render.Seconds), IntervalText(c.Success, render.Percent))
		for _, ch := range c.Checks {
			fmt.Fprintf(w, "  %s (%d replications, %s)\n", checkText(ch), c.Replications, ch.Verdict)
		}
		for _, i := range ans.Ties {
			t := &ans.Candidates[i]
			if d := t.CostVsCheapest; d.CI[0] == 0 && d.CI[1] == 0 {
				fmt.Fprintf(w, "  not distinguishable: #%d %s costs the same in every replication\n", i+1, t.Name(short))
				continue
			}
			fmt.Fprintf(w, "  not distinguishable: #%d %s costs %s %s more%s, paired\n", i+1, t.Name(short), DifferenceText(t.CostVsCheapest, Money), cur, relative(ans, t.CostVsCheapest))
		}
		if n := nextCheapest(ans); n >= 0 {
			t := &ans.Candidates[n]
			fmt.Fprintf(w, "  next cheapest: #%d %s costs %s %s more%s, paired (its interval excludes 0)\n", n+1, t.Name(short), DifferenceText(t.CostVsCheapest, Money), cur, relative(ans, t.CostVsCheapest))
		}
	case ans.Interrupted:
		fmt.Fprintln(w, "cheapest: not final (interrupted before any configuration met every objective)")
	default:
		fmt.Fprintln(w, "cheapest: none of the configurations meets every objective")
		if ans.Why != "" {
			fmt.Fprintf(w, "why: %s\n", ans.Why)
		}
	}
	if len(ans.Frontier) > 0 {
		var fs []string
		for _, i := range ans.Frontier {
			c := &ans.Candidates[i]
			fs = append(fs, fmt.Sprintf("#%d (%s, %s)", i+1, render.Seconds(float64(c.P99.Estimate)), Money(float64(c.Cost.Estimate))))
		}
		fmt.Fprintf(w, "frontier (p99, cost per successful run), fastest first: %s\n", strings.Join(fs, " → "))
		fmt.Fprintf(w, "  dominated: another configuration is cheaper or faster beyond its paired %g%% interval and no worse on the other (that interval at or above 0 too); within noise: beaten only by the point estimates; a configuration that misses a success objective is not placed\n", 100*ans.Level)
	}
	fmt.Fprintf(w, "note: %s\n", ans.Note)
	for _, x := range ans.Warnings {
		fmt.Fprintf(w, "warning: %s\n", x)
	}
	return nil
}

// nextCheapest is the cheapest feasible candidate that is neither the
// cheapest nor a tie, or −1: what the answer is told apart from.
func nextCheapest(a *search.GridAnswer) int {
	next := -1
	for i := range a.Candidates {
		c := &a.Candidates[i]
		if !c.Feasible || i == a.Cheapest || isTie(a, i) || c.CostVsCheapest == nil {
			continue
		}
		if next < 0 || c.Cost.Estimate < a.Candidates[next].Cost.Estimate {
			next = i
		}
	}
	return next
}

// relative is " (+0.01 % of the cheapest's cost)" for a difference from
// the cheapest: a difference can be real and still too small to matter.
func relative(a *search.GridAnswer, d *search.Difference) string {
	if d == nil || !a.Found {
		return ""
	}
	base := float64(a.Candidates[a.Cheapest].Cost.Estimate)
	if !(base > 0) {
		return ""
	}
	pct := strconv.FormatFloat(100*float64(d.Mean)/base, 'g', 2, 64)
	if d.Mean >= 0 {
		pct = "+" + pct
	}
	return " (" + pct + " % of the cheapest's cost)"
}
