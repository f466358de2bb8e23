// Package plans renders what plan/search returns: the table plan prints
// for a capacity search (a row per probe, the answer and its evidence)
// and for a cheapest-configuration search (every configuration, the
// cheapest and the frontier), and the text of their figures. plan/search
// computes; this package only formats, through internal/render.
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

// WriteTable writes the answer as text: what was searched (scenario and
// the provenance line of the scenario every probe shares), the analytic
// start, one row per probe, the answer with the evidence at it and just
// below it, the confidence note and the warnings.
func WriteTable(w io.Writer, scenario, provenance string, p *search.Problem, ans *search.Answer) error {
	var objs []string
	for _, o := range p.SLOs {
		objs = append(objs, o.String())
	}
	best := "smallest"
	if p.Maximize {
		best = "largest"
	}
	fmt.Fprintf(w, "%s: %s %s in %s..%s with %s (%g%% confidence in each verdict: %.4g%% intervals over up to %d looks at %d to %d replications per probe)\n",
		scenario, best, p.Range.Key, p.Range.Format(p.Range.Lo), p.Range.Format(p.Range.Hi), strings.Join(objs, " and "), 100*p.Level, 100*p.LookLevel(), p.Looks(), p.Replications, p.MaxReplications)
	fmt.Fprintln(w, provenance)
	if ans.Analytic != nil {
		fmt.Fprintf(w, "start: %s=%s from %s\n", p.Range.Key, p.Range.Format(ans.Analytic.Value), ans.Analytic.Method)
	}
	var rows [][]string
	for _, pr := range ans.Probes {
		p99 := render.Seconds(float64(pr.P99))
		if pr.Summary != nil && pr.Summary.Latency.N == 0 {
			p99 = "n/a"
		}
		ci := render.Seconds(float64(pr.CI[0])) + " … " + render.Seconds(float64(pr.CI[1]))
		rows = append(rows, []string{p.Range.Format(pr.Value), strconv.Itoa(pr.Order), strconv.Itoa(pr.Replications),
			peakText(&pr), bottleneckText(&pr), p99, ci,
			render.Percent(float64(pr.Success)), checkText(pr.Deciding), verdictText(&pr)})
	}
	if err := render.Table(w, []string{p.Range.Key, "probe", "replications", "peak offered load", "bottleneck (load)", "p99", "p99 CI", "success", "deciding objective: mean [CI]", "verdict"}, rows); err != nil {
		return err
	}
	switch {
	case ans.Interrupted && ans.Found:
		fmt.Fprintf(w, "answer: not final (interrupted); best so far %s=%s\n", p.Range.Key, p.Range.Format(float64(ans.Value)))
	case ans.Interrupted:
		fmt.Fprintf(w, "answer: not final (interrupted before any value passed)\n")
	case ans.Found:
		fmt.Fprintf(w, "answer: %s=%s, the %s value whose intervals clear every objective\n", p.Range.Key, p.Range.Format(float64(ans.Value)), best)
	default:
		fmt.Fprintf(w, "answer: none in %s\n", p.Range)
		if ans.Why != "" {
			fmt.Fprintf(w, "why: %s\n", ans.Why)
		}
	}
	if ans.Found {
		for _, ev := range []*search.Evidence{ans.Confidence.At, ans.Confidence.Below} {
			if ev != nil {
				fmt.Fprintf(w, "  at %s=%s: %s\n", p.Range.Key, p.Range.Format(ev.Value), evidenceText(ev))
			}
		}
	}
	fmt.Fprintf(w, "confidence: %s\n", ans.Confidence.Note)
	for _, x := range ans.Warnings {
		fmt.Fprintf(w, "warning: %s\n", x)
	}
	return nil
}

// utilisationText formats an offered utilisation, "n/a" when unknown.
func utilisationText(rho float64) string {
	if math.IsNaN(rho) {
		return "n/a"
	}
	return strconv.FormatFloat(rho, 'f', 2, 64)
}

// peakText is the highest offered utilisation and where it is,
// "0.81 model", or "n/a" when the arrivals have no rate.
func peakText(pr *search.Probe) string {
	if math.IsNaN(float64(pr.Peak)) || pr.PeakAt == "" {
		return "n/a"
	}
	return utilisationText(float64(pr.Peak)) + " " + pr.PeakAt
}

// bottleneckText is "search (99.7%)", or "—" when nothing is loaded above
// 85%.
func bottleneckText(pr *search.Probe) string {
	if pr.Bottleneck == "" {
		return "—"
	}
	return pr.Bottleneck + " (" + render.Percent(float64(pr.Load)) + ")"
}

// checkText is "success>=0.99: 98.2% [97.9%, 98.5%]".
func checkText(d search.Check) string {
	return fmt.Sprintf("%s: %s [%s, %s]", d.Name, figureText(d, float64(d.Mean)), figureText(d, float64(d.CI[0])), figureText(d, float64(d.CI[1])))
}

// verdictText is the table's verdict: pass or fail, "(CI straddles)" when
// the interval never cleared the threshold, and "not an answer" (the
// reason follows the table) for an overloaded probe or one whose figures
// cannot be trusted.
func verdictText(pr *search.Probe) string {
	v := pr.Verdict.String()
	if !pr.Resolved {
		v += " (CI straddles)"
	}
	if pr.NotAnAnswer != "" {
		v = "not an answer"
		switch {
		case pr.Summary != nil && pr.Summary.Partial:
			v += " (stopped)"
		case pr.Offered.Unstable:
			v += " (unstable)"
		case pr.Offered.Overload != "":
			v += " (overloaded)"
		}
	}
	return v
}

// evidenceText says what the deciding objective was at one value and
// whether its interval clears the threshold.
func evidenceText(ev *search.Evidence) string {
	d := ev.Deciding
	clears := "its interval clears the threshold"
	switch {
	case ev.NotAnAnswer != "":
		clears = "not an answer (the warnings below say why)"
	case !ev.Resolved:
		clears = "its interval straddles the threshold"
	case ev.Verdict == search.Fail:
		clears = "its interval is wholly on the wrong side"
	}
	return fmt.Sprintf("%s (%d replications): %s", checkText(d), ev.Replications, clears)
}

// figureText formats a checked figure: seconds for times, a percentage for
// the success rate.
func figureText(c search.Check, x float64) string {
	if c.SLO.Figure.IsTime() {
		return render.Seconds(x)
	}
	return render.Percent(x)
}
