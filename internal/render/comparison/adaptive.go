package comparison

import (
	"fmt"
	"io"

	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/plan/compare"
)

// adaptiveTable prints, when some variant has a tool with adaptive
// concurrency, each such tool's limit, waits, refusals and drops in every
// variant ("none" where a variant has no limit on it).
func adaptiveTable(w io.Writer, out []compare.Summary) error {
	var tools []string
	seen := map[string]bool{}
	for _, v := range out {
		for _, t := range v.Tools {
			if t.Adaptive != nil && !seen[t.Name] {
				seen[t.Name] = true
				tools = append(tools, t.Name)
			}
		}
	}
	if len(tools) == 0 {
		return nil
	}
	var rows [][]string
	for _, name := range tools {
		for _, v := range out {
			label := v.Name
			if len(tools) > 1 {
				label += " · " + name
			}
			row := []string{label, "none", "–", "–", "–"}
			for _, t := range v.Tools {
				if t.Name == name && t.Adaptive != nil {
					row = render.AdaptiveRow(label, t.Adaptive)
				}
			}
			rows = append(rows, row)
		}
	}
	fmt.Fprintln(w)
	header := append([]string{"variant"}, render.AdaptiveHeader[1:]...)
	if len(tools) == 1 {
		header[0] = "variant (adaptive concurrency at " + tools[0] + ")"
	}
	return render.Table(w, header, rows)
}
