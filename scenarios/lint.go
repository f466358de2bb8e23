package scenarios

import (
	"fmt"
	"math"

	"github.com/budgetsim/budgetsim/model/cost"
	"github.com/budgetsim/budgetsim/model/ratelimit"
	"github.com/budgetsim/budgetsim/model/system"
	"go.yaml.in/yaml/v3"
)

// moneyCheck refuses a metered model API whose largest call the cost
// ledger cannot hold: amounts are whole micro-units in an int64 (at most
// cost.MaxAmount, about 9.2e12 units), and a call reserves its tool's
// cost.reserve plus its input tokens at input_token plus
// tokens.reserve_output at output_token, and bills its input and output
// tokens at those prices. With the largest token counts the scenario
// allows (each distribution's largest value, an input taken from an
// earlier step's tokens or an unbounded distribution at the
// per-call cap of ratelimit.MaxCallTokens, outputs cut to max_output), an
// amount beyond the range would wrap or be billed as nothing, so a budget
// would no longer hold: the scenario is refused at load, naming the price.
func (l *loader) moneyCheck(root *yaml.Node, cfg *system.Config) {
	limit := cost.MaxAmount.Float64()
	steps := cfg.PlanSteps()
	for ti := range cfg.Tools {
		t := &cfg.Tools[ti]
		c, tk := t.Cost, t.Tokens
		if c == nil || tk == nil || !tokenPriced(c) {
			continue
		}
		// An input token costs at most the highest of its prices (plain,
		// read from or written to a prompt cache).
		inPrice := max(c.InputToken, c.CacheReadToken, c.CacheWriteToken)
		maxIn := maxTokens(tk.Input)
		maxOut := maxTokens(tk.Output)
		for _, st := range steps {
			if st.Tool != ti || st.Tokens == nil && st.Loop == 0 {
				continue
			}
			if st.Loop > 0 && cfg.Loops[st.Loop-1].Context != nil {
				// A loop's context grows turn by turn, up to its window.
				if w := cfg.Loops[st.Loop-1].Context.Window; w > 0 {
					maxIn = max(maxIn, float64(w))
				} else {
					maxIn = ratelimit.MaxCallTokens
				}
			} else if st.Tokens != nil && st.Tokens.InputFrom >= 0 {
				maxIn = ratelimit.MaxCallTokens
			} else if st.Tokens != nil && st.Tokens.Input != nil {
				maxIn = max(maxIn, maxTokens(st.Tokens.Input))
			}
			if st.Tokens != nil && st.Tokens.Output != nil {
				maxOut = max(maxOut, maxTokens(st.Tokens.Output))
			}
		}
		if tk.MaxOutput > 0 {
			maxOut = min(maxOut, float64(tk.MaxOutput))
		}
		reserve := c.Reserve.Float64() + float64(maxIn*inPrice) + float64(float64(tk.ReserveOutput)*c.OutputToken)
		bill := float64(maxIn*inPrice) + float64(maxOut*c.OutputToken)
		n := mapPath(root, "tools", t.Name, "cost")
		path := "tools." + t.Name + ".cost"
		switch {
		case reserve > limit:
			l.d.errorf(n, path, "a call can reserve %s cost units (reserve %s + %.0f input tokens × %g + %d reserved output tokens × %g), beyond the %s units the ledger holds: lower the prices or bound the tokens (a bounded input distribution, tokens.reserve_output)",
				fmtUnits(reserve), c.Reserve, maxIn, c.InputToken, tk.ReserveOutput, c.OutputToken, cost.MaxAmount)
		case bill > limit:
			l.d.errorf(n, path, "a call can bill %s cost units (%.0f input tokens × %g + %.0f output tokens × %g), beyond the %s units the ledger holds: lower the prices or bound the tokens (a bounded distribution, tokens.max_output)",
				fmtUnits(bill), maxIn, c.InputToken, maxOut, c.OutputToken, cost.MaxAmount)
		}
	}
}

// maxTokens is the largest token count a call draws from d, as the
// simulation rounds and caps it; 0 for no distribution.
func maxTokens(d interface{ Quantile(float64) float64 }) float64 {
	if d == nil {
		return 0
	}
	q := d.Quantile(1)
	if math.IsNaN(q) || q <= 0 {
		return 0
	}
	return math.Min(math.Round(q), ratelimit.MaxCallTokens)
}

// fmtUnits formats a cost far beyond the ledger's range.
func fmtUnits(x float64) string { return fmt.Sprintf("%.4g", x) }

// mapPath returns the node at the keys under mapping n, or the deepest
// one found on the way (n itself if none), for an error's line.
func mapPath(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		var next *yaml.Node
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					next = n.Content[i+1]
					break
				}
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}
