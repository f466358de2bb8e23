package scenarios

import (
	"fmt"
	"math"
	"strings"

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
//
// The same holds for a metered tool's drawn usage (usage, plus each of
// dims' draws times its price), alone and with the tokens it bills: see
// usageCheck.
func (l *loader) moneyCheck(root *yaml.Node, cfg *system.Config) {
	limit := cost.MaxAmount.Float64()
	steps := cfg.PlanSteps()
	for ti := range cfg.Tools {
		t := &cfg.Tools[ti]
		c, tk := t.Cost, t.Tokens
		if c == nil {
			continue
		}
		if tk == nil || !tokenPriced(c) {
			l.usageCheck(root, t, 0)
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
		case l.usageCheck(root, t, bill):
		case reserve > limit:
			l.d.errorf(n, path, "a call can reserve %s cost units (reserve %s + %.0f input tokens × %g + %d reserved output tokens × %g), beyond the %s units the ledger holds: lower the prices or bound the tokens (a bounded input distribution, tokens.reserve_output)",
				fmtUnits(reserve), c.Reserve, maxIn, c.InputToken, tk.ReserveOutput, c.OutputToken, cost.MaxAmount)
		case bill > limit:
			l.d.errorf(n, path, "a call can bill %s cost units (%.0f input tokens × %g + %.0f output tokens × %g), beyond the %s units the ledger holds: lower the prices or bound the tokens (a bounded distribution, tokens.max_output)",
				fmtUnits(bill), maxIn, c.InputToken, maxOut, c.OutputToken, cost.MaxAmount)
		}
	}
}

// unboundedUsageQuantile is the quantile of an unbounded usage
// distribution (lognormal, exponential, Pareto, …) that usageCheck takes
// as its largest draw: the value one call in a billion exceeds.
const unboundedUsageQuantile = 1 - 1e-9

// largestDraw is the largest value usageCheck assumes d draws: its largest
// value when it is bounded, else its unboundedUsageQuantile.
func largestDraw(d interface{ Quantile(float64) float64 }) float64 {
	q := d.Quantile(1)
	if math.IsInf(q, 1) {
		q = d.Quantile(unboundedUsageQuantile)
	}
	if math.IsNaN(q) || q < 0 {
		return 0
	}
	return q
}

// usageCheck refuses a metered tool whose drawn usage the cost ledger
// cannot hold: a call's usage is its usage draw plus, for each of dims,
// the draw times the price; the simulation bills a usage beyond the
// ledger's range (cost.MaxAmount) as the call's reserve and counts an
// overrun, so its cost figures would be silently wrong. Each distribution
// is taken at its largest value, or at unboundedUsageQuantile when it has
// none. tokens is the most the call can bill for its tokens (moneyCheck),
// which is added to the usage. The error names the largest term (usage,
// or one dim, at its line) when the usage alone is beyond the range, and
// the cost block otherwise. It reports whether it found an error.
func (l *loader) usageCheck(root *yaml.Node, t *system.Tool, tokens float64) bool {
	c := t.Cost
	limit := cost.MaxAmount.Float64()
	total, top := 0.0, 0.0
	var terms []string
	node, path := mapPath(root, "tools", t.Name, "cost"), "tools."+t.Name+".cost"
	topNode, topPath := node, path
	if c.Usage != nil {
		total = largestDraw(c.Usage)
		top = total
		terms = append(terms, "usage up to "+fmtUnits(total))
		topNode, topPath = mapPath(root, "tools", t.Name, "cost", "usage"), path+".usage"
	}
	for _, d := range c.Dims {
		x := largestDraw(d.Usage)
		v := float64(x * d.Price)
		total += v
		terms = append(terms, fmt.Sprintf("dims.%s up to %s × price %g", d.Name, fmtUnits(x), d.Price))
		if v > top {
			top = v
			topNode, topPath = mapPath(root, "tools", t.Name, "cost", "dims", d.Name), path+".dims."+d.Name
		}
	}
	if len(terms) == 0 {
		return false
	}
	why := strings.Join(terms, " + ")
	switch {
	case total > limit:
		l.d.errorf(topNode, topPath, "a call's usage can reach %s cost units (%s), beyond the %s units the ledger holds; such a call would be billed its reserve and counted as an overrun: lower the price or bound the distribution (an unbounded one is taken at its %g quantile)",
			fmtUnits(total), why, cost.MaxAmount, unboundedUsageQuantile)
	case float64(total+tokens) > limit:
		l.d.errorf(node, path, "a call can bill %s cost units (%s, plus %s for its tokens), beyond the %s units the ledger holds: lower the prices or bound the usage and the tokens",
			fmtUnits(total+tokens), why, fmtUnits(tokens), cost.MaxAmount)
	default:
		return false
	}
	return true
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
