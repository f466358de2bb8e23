package report

import (
	"time"

	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// adaptiveTable is the table of the tools with adaptive concurrency (run's
// own), or nil without one.
func adaptiveTable(s *summary.Summary) *Table {
	var rows []Row
	for _, t := range s.Tools {
		if t.Adaptive != nil {
			rows = append(rows, row(render.AdaptiveRow(t.Name, t.Adaptive)...))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return &Table{Caption: "Adaptive concurrency", Header: render.AdaptiveHeader, Rows: rows,
		Notes: []string{"Over all replications: the limit's time-average and extremes, the calls that waited for a slot, those refused locally (a wait past the deadline or max_wait / on_limit: reject), and the calls fed back as drops (a timeout, 503 or 429)."}}
}

// limitFigure is the chart of the adaptive concurrency limits over virtual
// time of series s (replication 0) of a simulation of cfg.
func limitFigure(cfg *system.Config, name string, s *system.Series, reps string) figure {
	var samples []charts.LimitSample
	w := s.Width
	for t, tool := range cfg.Tools {
		if tool.Adaptive == nil || t >= len(s.ToolLimit) {
			continue
		}
		for k, v := range s.ToolLimit[t] {
			samples = append(samples, charts.LimitSample{Variant: name, Tool: tool.Name, Start: time.Duration(k) * w, Width: w, Limit: v / w.Seconds()})
		}
	}
	return figure{"concurrency_limit", "Adaptive concurrency limit",
		"Each tool's adaptive concurrency limit over virtual time, " + reps + ": its mean over each bin.",
		func() (*charts.Chart, error) { return charts.LimitChart(samples) }}
}

// tokenTable is the table of the model APIs' per-minute limits (run's
// own), or nil when no tool has tokens.
func tokenTable(s *summary.Summary) *Table {
	var notes []string
	for _, t := range s.Tools {
		if t.Tokens != nil {
			notes = append(notes, render.TokenLine(t)+".")
		}
	}
	if len(notes) == 0 {
		return nil
	}
	var rows []Row
	for _, r := range render.TokenRows(s.Tools) {
		rows = append(rows, row(r...))
	}
	notes = append(notes, "Each per-minute limit is a bucket refilled at limit/60 per second; rpm counts calls, tpm input plus output tokens, itpm and otpm one side; the binding limit is the one nearest its allowance.")
	return &Table{Caption: "Model APIs", Header: render.TokenHeader, Rows: rows, Notes: notes}
}
