package search

import "github.com/budgetsim/budgetsim/plan/sweep"

// Rows returns the answer's probes as sweep.csv rows (the sweep schema),
// one per probe in the order they ran.
func (a *Answer) Rows() []sweep.Row {
	rows := make([]sweep.Row, len(a.Probes))
	for i, p := range a.Probes {
		rows[i] = sweep.Row{Parameter: a.Parameter, Value: p.Value, Summary: p.Summary, Partial: a.Interrupted}
	}
	return rows
}
