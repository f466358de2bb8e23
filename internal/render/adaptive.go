package render

import (
	"fmt"
	"io"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// AdaptiveHeader heads the table of adaptive concurrency figures.
var AdaptiveHeader = []string{"adaptive concurrency", "limit: mean (min–max)", "waited (mean wait)", "refused: wait too long / at limit", "drops"}

// AdaptiveRow formats a tool's adaptive concurrency figures as a row of
// AdaptiveHeader's table after its label: "aimd 12.3 (4–20)", …
func AdaptiveRow(label string, a *system.AdaptiveStats) []string {
	wait := "–"
	if a.Waited > 0 {
		wait = Seconds(a.WaitSeconds / float64(a.Waited))
	}
	return []string{label,
		fmt.Sprintf("%s %s (%d–%d)", a.Algorithm, Number(a.MeanLimit), a.MinLimit, a.MaxLimit),
		fmt.Sprintf("%s (%s)", Number(float64(a.Waited)), wait),
		fmt.Sprintf("%s / %s", Number(float64(a.RefusedWait)), Number(float64(a.Rejected))),
		Number(float64(a.Drops)),
	}
}

// adaptiveTable writes the adaptive concurrency figures of the tools that
// have a limit, if any.
func adaptiveTable(w io.Writer, tools []summary.ToolSummary) error {
	var rows [][]string
	for _, t := range tools {
		if t.Adaptive != nil {
			rows = append(rows, AdaptiveRow(t.Name, t.Adaptive))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	if err := Table(w, AdaptiveHeader, rows); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}
