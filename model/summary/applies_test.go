package summary_test

import (
	"testing"
)

// TestSettingsThatDoNotApplyWarn: a class priority under a discipline
// that ignores priorities, a tenant weight under one that ignores
// weights, a class of a tenant that tenants: does not declare, and a
// model call whose input alone exceeds a per-minute token limit each get
// a warning naming the field; the same scenarios with the setting made to
// apply get none.
func TestSettingsThatDoNotApplyWarn(t *testing.T) {
	const classes = "classes=[{name: chat, priority: 0, tenant: paying}, {name: batch, priority: 1, tenant: free}]"
	for _, tc := range []struct {
		name string
		sets []string
		want string // "" for no such warning
		sub  string
	}{
		{"priority under fifo", []string{classes}, "classes[].priority: the classes have 2 priorities, but no queue orders by priority (scheduling.workers is fifo)", "classes[].priority"},
		{"priority under priority", []string{classes, "scheduling={workers: priority}"}, "", "classes[].priority"},
		{"priority at a tool", []string{classes, "tools.server.concurrency=10", "tools.server.queue={discipline: priority}"}, "", "classes[].priority"},
		{"weight under fifo", []string{classes, "tenants={paying: {weight: 3}, free: {weight: 1}}"}, "tenants.paying.weight: no queue shares by weight (scheduling.workers is fifo)", "weight"},
		{"weight under fair", []string{classes, "tenants={paying: {weight: 3}, free: {weight: 1}}", "scheduling={workers: fair}"}, "", "weight"},
		{"undeclared tenant", []string{"classes=[{name: chat, tenant: paying}, {name: batch, tenant: free}, {name: bulk, tenant: payng}]", "tenants={paying: {weight: 3}, free: {weight: 1}}", "scheduling={workers: fair}"}, `classes.bulk.tenant: tenant "payng" is not declared under tenants: (paying, free)`, "is not declared"},
		{"declared tenants", []string{classes, "tenants={paying: {weight: 3}, free: {weight: 1}}", "scheduling={workers: fair}"}, "", "is not declared"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := summarize(t, load(t, "mmc", append([]string{"runs=2000", "warmup=100"}, tc.sets...)...), 1)
			got := warningWith(s, tc.sub)
			switch {
			case tc.want == "" && got != "":
				t.Errorf("unexpected warning %q", got)
			case tc.want != "" && (got == "" || got[:len(tc.want)] != tc.want):
				t.Errorf("warnings %q: want one starting %q", s.Warnings, tc.want)
			}
		})
	}
}

// TestTokenCallThatCanNeverFitWarns: a call whose input alone (4,000 to
// 6,000 tokens) exceeds a 3,000 itpm limit can never be admitted, and
// the warning says so, naming the step, the limit and the smallest
// reservation; a limit that only the largest inputs exceed gets the
// milder warning; a limit every call fits gets none.
func TestTokenCallThatCanNeverFitWarns(t *testing.T) {
	const text = `name: big-prompt
seed: 1
runs: 200
warmup: 10
arrivals: {rate: 0.01/s}
workers: 10
deadline: 2m
steps:
  - {name: answer, tool: llm}
tools:
  llm:
    ttft: {dist: constant, value: 300ms}
    tokens: {input: {dist: uniform, min: 4000, max: 6000}, output: {dist: constant, value: 100}}
    rate_limit: {itpm: 3000}
`
	s := summarize(t, loadText(t, text), 1)
	if w := warningWith(s, "step answer: every call to llm counts at least 4000 tokens against its itpm limit of 3000 (counted as input, the generic rule)"); w == "" {
		t.Errorf("no warning that no call can fit: %q", s.Warnings)
	}
	s = summarize(t, loadText(t, text, "tools.llm.rate_limit={itpm: 5000}"), 1)
	if w := warningWith(s, "step answer: calls to llm may count up to 6000 tokens against its itpm limit of 5000"); w == "" {
		t.Errorf("no warning that the largest calls cannot fit: %q", s.Warnings)
	}
	s = summarize(t, loadText(t, text, "tools.llm.rate_limit={itpm: 60000}"), 1)
	if w := warningWith(s, "tokens against its"); w != "" {
		t.Errorf("unexpected warning %q", w)
	}
}
