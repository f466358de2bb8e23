// Package validation renders what plan/validate returns: the table
// `simulate validate` prints, a row per closed-form check with its
// interval and verdict. plan/validate computes; this package only
// formats, through internal/render.
package validation

import (
	"fmt"
	"io"
	"strings"

	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/plan/validate"
)

// WriteTable writes the report as text: how the checks were run (opt, as
// given to Run), one row per check with the analytic value, the simulated
// one, its interval and the verdict, and for each derived case the
// overrides that make it from its base scenario.
func WriteTable(w io.Writer, rep *validate.Report, opt validate.Options) error {
	var rows [][]string
	for _, c := range rep.Checks {
		verdict := "agrees"
		if !c.Pass {
			verdict = "DISAGREES"
		}
		ci := fmt.Sprintf("[%s, %s]", render.Number(c.Lo), render.Number(c.Hi))
		if c.Allowance > 0 {
			ci += " ±" + render.Number(c.Allowance)
		}
		rows = append(rows, []string{c.Model, c.Figure, render.Number(c.Analytic), render.Number(c.Simulated), ci, verdict, c.Formula})
	}
	seeds := "each scenario's own seed"
	if opt.HasSeed {
		seeds = fmt.Sprintf("seed %d", opt.Seed)
	}
	fmt.Fprintf(w, "Simulated vs closed form: %d replications per model, %s; Student-t intervals at %.4g%% each (Bonferroni for a family-wise %g%%).\n", rep.Replications, seeds, 100*rep.CheckLevel, 100*rep.Level)
	if err := render.Table(w, []string{"model", "figure", "analytic", "simulated", "CI", "verdict", "formula"}, rows); err != nil {
		return err
	}
	fmt.Fprintln(w, "A check agrees when the analytic value lies inside the interval (widened by the sketch's 0.39% relative error for percentiles).")
	seen := map[string]bool{}
	for _, c := range rep.Checks {
		if c.Base != "" && !seen[c.Scenario] {
			seen[c.Scenario] = true
			fmt.Fprintf(w, "%s (%s) is %s with --set '%s'.\n", c.Model, c.Scenario, c.Base, strings.Join(c.Sets, "' --set '"))
		}
	}
	return nil
}
