package comparison

import (
	"fmt"
	"strings"

	"github.com/budgetsim/budgetsim/plan/compare"
)

// A Verdict is what a comparison says about one figure, in words: each
// variant against the one before it (its paired difference and
// interval), so that ordered variants (1, 3, 6 attempts) read as what
// each step adds.
type Verdict struct {
	// Figure is the figure's name, as in the paired table ("success").
	Figure string `json:"figure"`
	// Text is one paragraph, without the figure's name: "three is better
	// than once: Δ success +3.87% [+3.76%, +3.97%]; six adds nothing over
	// three: Δ success −0.07% [−0.18%, +0.05%]." The first verdict,
	// Figure "decision", says where success stops improving.
	Text string `json:"text"`
}

// Verdicts says, for each figure the paired differences carry, what each
// variant changes against the one before it: better (its interval lies
// wholly on the better side of 0), worse (wholly on the worse side) or
// nothing measurable (the interval holds 0). Nil with fewer than two
// variants or without paired differences (one replication).
func Verdicts(out []compare.Summary) []Verdict {
	var vs []Verdict
	for _, c := range PairedColumns(out) {
		var parts []string
		for i := 1; i < len(out); i++ {
			d := compare.Previous(out, i)
			if d == nil || c.Get(d) == nil {
				continue
			}
			iv := c.Get(d)
			prev, v := out[i-1].Name, out[i].Name
			cell := "Δ " + c.Name + " " + c.Cell(d)
			switch better := (iv.Lo > 0) == c.HigherIsBetter; {
			case iv.Lo <= 0 && iv.Hi >= 0 && c.HigherIsBetter:
				parts = append(parts, fmt.Sprintf("%s adds nothing over %s: %s", v, prev, cell))
			case iv.Lo <= 0 && iv.Hi >= 0:
				parts = append(parts, fmt.Sprintf("%s is no different from %s: %s", v, prev, cell))
			case better:
				parts = append(parts, fmt.Sprintf("%s is better than %s: %s", v, prev, cell))
			default:
				parts = append(parts, fmt.Sprintf("%s is worse than %s: %s", v, prev, cell))
			}
		}
		if len(parts) == 0 {
			continue
		}
		vs = append(vs, Verdict{Figure: c.Name, Text: strings.Join(parts, "; ") + "."})
	}
	if d := decision(out); d != "" && len(vs) > 0 {
		vs = append([]Verdict{{Figure: "decision", Text: d}}, vs...)
	}
	return vs
}

// decision says at which variant success stops improving: the last
// variant whose success is measurably better than the one before it, when
// every later step adds nothing measurable (or that the last is still
// improving, or with two variants that the second is better); "" when
// some step makes success worse.
func decision(out []compare.Summary) string {
	last := 0
	for i := 1; i < len(out); i++ {
		d := compare.Previous(out, i)
		if d == nil || d.SuccessRate == nil {
			return ""
		}
		switch iv := d.SuccessRate; {
		case iv.Lo > 0:
			last = i
		case iv.Hi < 0:
			return ""
		}
	}
	if last == len(out)-1 {
		if len(out) == 2 {
			return fmt.Sprintf("%s has the better success, measurably.", out[last].Name)
		}
		return fmt.Sprintf("success is still improving at the last variant, %s: the variants compared may stop short of where it levels off.", out[last].Name)
	}
	if last == 0 {
		return fmt.Sprintf("no variant measurably improves success over %s: choose among them by the other figures.", out[0].Name)
	}
	var after []string
	for _, v := range out[last+1:] {
		after = append(after, v.Name)
	}
	return fmt.Sprintf("success stops improving at %s: %s add%s nothing measurable to it, so %s is the smallest step with the best success; its costs in the other figures are below.",
		out[last].Name, strings.Join(after, ", "), map[bool]string{true: "s", false: ""}[len(after) == 1], out[last].Name)
}
