package charts

import "github.com/budgetsim/budgetsim/plan/search"

// ParseObjective reads an objective in simulate plan's grammar
// (search.ParseSLO: "p99<=2s", "success>=0.99") as the charts draw it.
// It is what plot and report give ReadDir for plan.json's objectives,
// and what plot's --slo flag is read with.
func ParseObjective(s string) (Objective, error) {
	slo, err := search.ParseSLO(s)
	if err != nil {
		return Objective{}, err
	}
	fig := slo.Figure.String()
	if slo.Class != "" {
		// A class's figure: the sweep charts draw the pooled ones only.
		fig = slo.Class + ": " + fig
	}
	return Objective{Text: slo.String(), Figure: fig, Threshold: slo.Threshold}, nil
}
