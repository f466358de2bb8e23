package scenarios_test

import (
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/scenarios"
)

// classesBase is a scenario with two classes; the cases below change it.
const classesBase = `name: c
runs: 1000
arrivals: {rate: 2/s}
workers: 4
deadline: 30s
steps:
  - {name: answer, tool: llm}
tools:
  llm: {latency: {dist: exponential, mean: 1s}}
  search: {latency: {dist: exponential, mean: 100ms}}
classes:
  - {name: chat, weight: 3, deadline: 5s}
  - name: research
    priority: 1
    tenant: acme
    steps:
      - {name: search, tool: search}
      - {name: write, tool: llm}
`

// TestClassesLoad: a class takes the top-level steps and deadline unless
// it gives its own, weight 1 and its own name as tenant by default; its
// own steps follow the top-level ones in PlanSteps, named CLASS/STEP.
func TestClassesLoad(t *testing.T) {
	sc, err := scenarios.Parse("c.yaml", []byte(classesBase), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sc.Config
	if len(cfg.Classes) != 2 {
		t.Fatalf("%d classes, want 2", len(cfg.Classes))
	}
	chat, research := cfg.Classes[0], cfg.Classes[1]
	if chat.Weight != 3 || chat.Deadline.String() != "5s" || chat.Steps != nil || chat.Tenant != "chat" || chat.Priority != 0 {
		t.Errorf("chat = %+v", chat)
	}
	if research.Weight != 1 || research.Deadline.String() != "30s" || len(research.Steps) != 2 || research.Tenant != "acme" || research.Priority != 1 {
		t.Errorf("research = %+v", research)
	}
	var names []string
	for _, st := range cfg.PlanSteps() {
		names = append(names, st.Name)
	}
	if got := strings.Join(names, " "); got != "answer research/search research/write" {
		t.Errorf("PlanSteps %s", got)
	}
	if f, e := cfg.ClassSteps(0); f != 0 || e != 1 {
		t.Errorf("chat's steps [%d, %d), want [0, 1)", f, e)
	}
	if f, e := cfg.ClassSteps(1); f != 1 || e != 3 {
		t.Errorf("research's steps [%d, %d), want [1, 3)", f, e)
	}
	if s := cfg.ClassShares(); s[0] != 0.75 || s[1] != 0.25 {
		t.Errorf("shares %v, want [0.75 0.25]", s)
	}
	// --set reaches a class by its name.
	sc, err = scenarios.Parse("c.yaml", []byte(classesBase), []string{"classes.chat.weight=1", "classes.research.steps.write.timeout=2s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w, to := sc.Config.Classes[0].Weight, sc.Config.Classes[1].Steps[1].Timeout; w != 1 || to.String() != "2s" {
		t.Errorf("after --set: chat's weight %g, research's write timeout %v", w, to)
	}
}

// TestClassesErrors: each mistake in classes is reported with its line
// and field.
func TestClassesErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		sets []string
		want string
	}{
		{"duplicate", []string{"classes.research.name=chat"}, `--set classes.research.name=chat: classes[1].name: duplicate class name "chat" (first at line 12)`},
		{"bad name", []string{"classes.chat.name=a b"}, `classes[0].name: "a b": a class name is letters, digits, - and _`},
		{"unknown key", []string{"classes.chat.wieght=2"}, `classes.chat.wieght: unknown key (did you mean "weight"?)`},
		{"zero weight", []string{"classes.chat.weight=0"}, `classes.chat.weight: must be in (0, 1e+12], got 0`},
		{"unknown tool", []string{"classes.research.steps.write.tool=llm2"}, `classes.research.steps.write.tool: tool "llm2" is not defined under tools`},
		{"weight and arrivals", []string{"!arrivals", "classes.chat.arrivals={rate: 1/s}"}, `classes.chat.weight: give weight or arrivals, not both`},
		{"some arrivals", []string{"!arrivals", "!classes.chat.weight", "classes.chat.arrivals={rate: 1/s}"}, `c.yaml:13: classes.research.arrivals: required: either every class has arrivals of its own or none has, and class "research" has none`},
		{"both arrivals", []string{"!classes.chat.weight", "classes.chat.arrivals={rate: 1/s}", "classes.research.arrivals={rate: 1/s}"}, `c.yaml:3: arrivals: every class has arrivals of its own: remove the top-level arrivals`},
		{"closed class", []string{"!arrivals", "!classes.chat.weight", "classes.chat.arrivals={process: closed, users: 3, think: {dist: constant, value: 1s}}", "classes.research.arrivals={rate: 1/s}"}, `classes.chat.arrivals.process: a class's own arrivals are an open process`},
		{"class arrivals rate", []string{"!arrivals", "!classes.chat.weight", "classes.chat.arrivals={rate: 0/s}", "classes.research.arrivals={rate: 1/s}"}, `classes.chat.arrivals.rate: must be > 0, got 0/s`},
		{"no steps", []string{"!steps"}, `c.yaml:1: steps: required: the plan of the classes without steps of their own`},
		{"hang without deadline", []string{"classes.research.deadline=0", "tools.search.hang=0.1"}, `c.yaml:17: classes.research.steps.search.timeout: tool "search" can hang but the step has no timeout and class "research" no deadline`},
		{"empty", []string{"classes=[]"}, `classes: needs at least one class`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := scenarios.Parse("c.yaml", []byte(classesBase), c.sets, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// Every class with its own steps: no top-level steps needed.
	if _, err := scenarios.Parse("c.yaml", []byte(classesBase), []string{"!steps", "classes.chat.steps=[{name: a, tool: llm}]"}, nil); err != nil {
		t.Errorf("every class with its own steps: %v", err)
	}
}
