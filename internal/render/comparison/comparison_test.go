package comparison

import (
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/compare"
)

// TestVerdicts: the decision line names where success stops improving,
// says so when the last variant still improves it (or, of two, is
// better), and the figure lines say better, worse or nothing measurable.
func TestVerdicts(t *testing.T) {
	iv := func(m, lo, hi float64) *compare.DiffInterval {
		return &compare.DiffInterval{Mean: m, Lo: lo, Hi: hi, N: 4}
	}
	diff := func(base string, s *compare.DiffInterval) *compare.PairedDifference {
		return &compare.PairedDifference{Baseline: base, Replications: 4, SuccessRate: s, LatencyMean: iv(0.2, 0.1, 0.3), LatencyP99: iv(-1, -2, 1)}
	}
	out := []compare.Summary{{Name: "once"}, {Name: "three", Difference: diff("once", iv(0.04, 0.03, 0.05))},
		{Name: "six", Difference: diff("once", iv(0.04, 0.03, 0.05)), Step: diff("three", iv(-0.0007, -0.002, 0.0005))}}
	vs := Verdicts(out)
	want := map[string]string{
		"decision":        "success stops improving at three: six adds nothing measurable to it",
		"success":         "three is better than once: Δ success +4.00% [+3.00%, +5.00%]; six adds nothing over three: Δ success −0.07% [−0.20%, +0.05%].",
		"mean completion": "three is worse than once",
		"p99":             "six is no different from three",
	}
	for fig, w := range want {
		found := false
		for _, v := range vs {
			if v.Figure == fig && strings.Contains(v.Text, w) {
				found = true
			}
		}
		if !found {
			t.Errorf("verdicts %+v lack %s: %q", vs, fig, w)
		}
	}
	if d := Verdicts(out[:2]); len(d) == 0 || d[0].Text != "three has the better success, measurably." {
		t.Errorf("two variants: %+v", d)
	}
	if Verdicts(out[:1]) != nil {
		t.Error("one variant has verdicts")
	}
}

// TestAdaptiveTable: the comparison's table of adaptive figures has a row
// per variant, "none" for a variant without a limit on the tool.
func TestAdaptiveTable(t *testing.T) {
	tool := func(a *system.AdaptiveStats) []summary.ToolSummary {
		return []summary.ToolSummary{{Name: "llm", ToolStats: system.ToolStats{Adaptive: a}}}
	}
	out := []compare.Summary{
		{Name: "aimd", Summary: summary.Summary{Tools: tool(&system.AdaptiveStats{Algorithm: "aimd", MeanLimit: 12.5, MinLimit: 2, MaxLimit: 30, Waited: 4, WaitSeconds: 2, RefusedWait: 3, Drops: 7})}},
		{Name: "none", Summary: summary.Summary{Tools: tool(nil)}},
	}
	var b strings.Builder
	if err := adaptiveTable(&b, out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"variant (adaptive concurrency at llm)", "| aimd ", "aimd 12.5 (2–30)", "4 (500ms)", "3 / 0", "| none ", "none"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := adaptiveTable(&b, out[1:]); err != nil || b.Len() != 0 {
		t.Errorf("without adaptive concurrency: %q, %v; want nothing", b.String(), err)
	}
}
