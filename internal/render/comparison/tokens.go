package comparison

import (
	"fmt"

	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/plan/compare"
)

// tokenColumns are the comparison's columns for model APIs, present when
// a variant has a tool with tokens: for each such tool, the binding
// limit's use (its tokens or requests per second over its allowance),
// then the cost per successful run (present when a tool is metered,
// with its interval over replications).
func tokenColumns(out []compare.Summary) (header []string, cells [][]string) {
	names := map[string]bool{}
	var order []string
	for _, v := range out {
		for _, t := range v.Summary.Tools {
			if t.Tokens != nil && !names[t.Name] {
				names[t.Name] = true
				order = append(order, t.Name)
			}
		}
	}
	anyCost := false
	for _, v := range out {
		anyCost = anyCost || v.Summary.Cost != nil
	}
	if len(order) == 0 && !anyCost {
		return nil, nil
	}
	for _, n := range order {
		header = append(header, n+": binding limit, use")
	}
	if anyCost {
		header = append(header, "cost/successful run")
	}
	for _, v := range out {
		var row []string
		for _, n := range order {
			row = append(row, bindingCell(v.Summary.Tools, n))
		}
		if anyCost {
			cost := "–"
			if c := v.Summary.Cost; c != nil {
				cost = render.Number(c.PerSuccess)
				if ci := v.Summary.Confidence; ci != nil && ci.CostPerSuccess != nil {
					cost = render.PlusMinus(c.PerSuccess, ci.CostPerSuccess.Lo, ci.CostPerSuccess.Hi, render.Number)
				}
			}
			row = append(row, cost)
		}
		cells = append(cells, row)
	}
	return header, cells
}

// bindingCell is a model API's binding limit and its use, e.g.
// "tpm 120000: 1962/s, 98.09%".
func bindingCell(tools []summary.ToolSummary, name string) string {
	for _, t := range tools {
		if t.Name != name || t.Tokens == nil {
			continue
		}
		for _, l := range t.Tokens.Limits {
			if l.Limit == t.Tokens.Binding {
				return fmt.Sprintf("%s %d: %s/s, %s", l.Limit, l.PerMinute, render.Number(l.UsedPerSecond), render.Percent(l.Utilisation))
			}
		}
		return "no limit: " + render.Number(t.Tokens.TokensPerSecond) + " tokens/s"
	}
	return "–"
}
