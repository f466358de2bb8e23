package search

import "github.com/budgetsim/budgetsim/internal/outputs"

// ParseObjective reads an objective in plan's grammar (ParseSLO:
// "p99<=2s", "success>=0.99") as the sweep charts draw it: what plot and
// report give charts.ReadDir for plan.json's objectives, and what plot's
// --slo flag is read with. A class's objective names its class in the
// figure ("batch: p99"), which the charts leave out: they draw the pooled
// figures.
func ParseObjective(s string) (outputs.Objective, error) {
	slo, err := ParseSLO(s)
	if err != nil {
		return outputs.Objective{}, err
	}
	fig := slo.Figure.String()
	if slo.Class != "" {
		fig = slo.Class + ": " + fig
	}
	return outputs.Objective{Text: slo.String(), Figure: fig, Threshold: slo.Threshold}, nil
}
