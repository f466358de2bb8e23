package generate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing/fstest"
	"time"

	"github.com/budgetsim/budgetsim/scenarios"
)

// ---------------------------------------------------------------------
// What the key table does not say.
//
// Everything the generator knows beyond the key table (scenarios/keys.go)
// is in this file: the names a scenario's parts refer to each other by
// (a step's tool and fallbacks, a class's tenant, an input_from), the size
// of a scenario (runs, workers, guards), the files a scenario names, and
// a few ranges that a key's example alone would draw badly (an outage's
// interval, a schedule's instants). Every other key, including a key
// added to the table later, is drawn from its kind, range, words and
// example with no code here; a new key that needs a cross-reference, a
// file or a scale of its own gets a line in valueHooks.
// ---------------------------------------------------------------------

// Features returns the features the pairwise test combines, derived from
// the key table: every optional mapping, list, named, wait, boolean or
// distribution key of the root, tool, step and class sections that not
// every scenario draws anyway (a tool with a rate limit, a hedged step,
// …), and every word of the keys that switch a behaviour (switchKeys).
func Features() []Feature {
	sec := sectionIndex()
	var out []Feature
	for _, name := range []string{"scenario", "tool", "step", "class"} {
		for _, k := range sec[name].Keys {
			// A required key, or one every scenario draws, is in every
			// pair already.
			if k.Required || includeChances[name+"."+k.Name] >= 0.9 {
				continue
			}
			switch k.Kind {
			case scenarios.KindMapping, scenarios.KindList, scenarios.KindNamed, scenarios.KindWait, scenarios.KindDistribution:
				out = append(out, Feature{Section: name, Key: k.Name})
			case scenarios.KindBoolean:
				out = append(out, Feature{Section: name, Key: k.Name, Value: "true"})
			}
		}
	}
	for _, sk := range switchKeys {
		for _, k := range sec[sk[0]].Keys {
			if k.Name == sk[1] {
				for _, v := range k.Values {
					out = append(out, Feature{Section: sk[0], Key: sk[1], Value: v})
				}
			}
		}
	}
	return out
}

// switchKeys are the word keys whose every value is a feature of its own.
var switchKeys = [][2]string{
	{"arrivals", "process"},
	{"scheduling", "workers"},
	{"rate_limit", "enforce"},
	{"rate_limit", "profile"},
	{"outage", "mode"},
	{"adaptive_concurrency", "algorithm"},
	{"adaptive_concurrency", "on_limit"},
	{"budget", "kind"},
	{"tool_queue", "discipline"},
	{"circuit_breaker_window", "type"},
	{"tool_cost", "billed"},
}

// includeChances overrides the chance that a key is drawn ("section.key"):
// the parts every small scenario should have, and the ones that would
// make most scenarios refuse or stop.
var includeChances = map[string]float64{
	"scenario.runs":          0.85,
	"scenario.warmup":        0.2,
	"scenario.steps":         0.95,
	"scenario.arrivals":      0.95,
	"scenario.guards":        1,
	"guards.max_wall":        1,
	"guards.max_events":      1,
	"tool.latency":           0.9,
	"tool.ttft":              0.15,
	"retry.idempotent":       0.5,
	"distribution.sigma":     0.5,
	"distribution.p99":       0.5,
	"scenario.seed":          0.5,
	"scenario.name":          1,
	"tool.description":       0.1,
	"scenario.classes":       0.3,
	"scenario.tenants":       0.3,
	"tenant.weight":          0.8,
	"member.timeout":         0.3,
	"step.timeout":           0.6,
	"scenario.deadline":      0.4,
	"step_tokens.input":      0.3,
	"step_tokens.output":     0.3,
	"step_tokens.input_from": 0.5,
	"loop.context":           0.6,
	"context.window":         0.8,
	"context.at_window":      0.6,
	"tool.stream":            0.5,
	"context.compact":        0.7,
	"compact.at":             0.8,
	"compact.timeout":        0.8,
	"compact.tool":           0.6,
}

// fixedKeys are drawn once and never drawn again nor dropped by the
// repair: names, and the guard that keeps a run within wall-clock time
// without making results depend on the machine.
var fixedKeys = map[string]bool{
	"scenario.name": true, "step.name": true, "member.name": true, "class.name": true,
	"guards.max_wall": true, "rate_point.at": true,
}

// minimizeKeeps are the top-level keys Minimize never removes: without
// them a scenario runs its default 100,000 runs, or without guards.
var minimizeKeeps = []string{"runs", "horizon", "guards"}

// knowledge is the per-draw state the hooks use.
type knowledge struct {
	g       *gen
	tools   []string // the tools' names, decided before any is drawn
	tenants []string
	plan    []string // the names of the current plan's steps drawn so far
	names   int
	tv      bool // the distribution being drawn is of durations
	depth   int  // mixtures being drawn
	inLoop  bool // the steps being drawn are an agent loop's
}

func newKnowledge(g *gen) *knowledge {
	k := &knowledge{g: g}
	for i := range 1 + g.r.IntN(3) {
		k.tools = append(k.tools, fmt.Sprintf("t%d", i+1))
	}
	for i := range 1 + g.r.IntN(2) {
		k.tenants = append(k.tenants, fmt.Sprintf("ten%d", i+1))
	}
	return k
}

// context is what a hook reads besides the mapping it draws into.
type context struct {
	plan   []string
	tv     bool
	depth  int
	inLoop bool
}

func (k *knowledge) save() context { return context{slices.Clone(k.plan), k.tv, k.depth, k.inLoop} }

func (k *knowledge) restore(c context) {
	k.plan, k.tv, k.depth, k.inLoop = c.plan, c.tv, c.depth, c.inLoop
}

// excluded reports whether key table may not be drawn where the draw is:
// an agent loop inside a loop's steps (the loader refuses it, and the
// draw would not end).
func (k *knowledge) excluded(table string) bool {
	return table == "step.loop" && k.inLoop
}

// featureNeeds are features a forced feature cannot be valid without,
// forced with it: a step's own token counts need its tool to be a model
// API.
var featureNeeds = map[Feature][]Feature{
	{Section: "step", Key: "tokens"}:                {{Section: "tool", Key: "tokens"}},
	{Section: "tool", Key: "per_output_token"}:      {{Section: "tool", Key: "tokens"}},
	{Section: "tool", Key: "stream"}:                {{Section: "tool", Key: "tokens"}},
	{Section: "step", Key: "first_token_timeout"}:   {{Section: "tool", Key: "tokens"}, {Section: "tool", Key: "stream", Value: "true"}},
	{Section: "member", Key: "first_token_timeout"}: {{Section: "tool", Key: "tokens"}, {Section: "tool", Key: "stream", Value: "true"}, {Section: "step", Key: "parallel"}},
	{Section: "step", Key: "wait"}:                  {{Section: "step", Key: "parallel"}},
}

// ExclusivePairs are pairs of features no valid scenario has together,
// with the reason. Two values of a key a scenario has once
// (scheduling.workers) are not listed: they exclude each other by the
// table.
var ExclusivePairs = map[[2]Feature]string{
	{{Section: "class", Key: "arrivals"}, {Section: "arrivals", Key: "process", Value: "batch"}}:  "a class's own arrivals are open, and a scenario whose classes all have their own has no top-level arrivals to be a batch",
	{{Section: "class", Key: "arrivals"}, {Section: "arrivals", Key: "process", Value: "closed"}}: "a class's own arrivals are open, and a scenario whose classes all have their own has no top-level arrivals to be closed",
}

// includeRules decide whether a key is drawn from the keys drawn before it
// in its mapping.
var includeRules = map[string]func(m *mapping) bool{
	// A scenario is bounded by runs or by a horizon, never by the default
	// of 100,000 runs.
	"scenario.horizon": func(m *mapping) bool { return m.get("runs") == nil },
}

func (k *knowledge) includeChance(table string, m *mapping) (float64, bool) {
	if rule, ok := includeRules[table]; ok {
		if rule(m) {
			return 1, true
		}
		return 0, true
	}
	p, ok := includeChances[table]
	return p, ok
}

func (k *knowledge) fixed(table string) bool { return fixedKeys[table] }

func (k *knowledge) newName(prefix string) string {
	k.names++
	return fmt.Sprintf("%s%d", prefix, k.names)
}

func (k *knowledge) pick(names []string) string { return names[k.g.r.IntN(len(names))] }

// words writes a list of one or two of names.
func (k *knowledge) words(names []string) string {
	n := 1 + k.g.r.IntN(min(2, len(names)))
	perm := k.g.r.Perm(len(names))[:n]
	slices.Sort(perm)
	var out []string
	for _, i := range perm {
		out = append(out, names[i])
	}
	return "[" + strings.Join(out, ", ") + "]"
}

func (k *knowledge) dur(lo, hi time.Duration) string {
	return fmtDuration(lo + time.Duration(k.g.r.Float64()*float64(hi-lo)))
}

func (k *knowledge) intIn(lo, hi int) string { return strconv.Itoa(lo + k.g.r.IntN(hi-lo+1)) }

// fallback draws fallback tools other than the step's own.
func (k *knowledge) fallback(m *mapping) string {
	own := m.scalarOf("tool")
	var others []string
	for _, t := range k.tools {
		if t != own {
			others = append(others, t)
		}
	}
	if len(others) == 0 {
		return "[" + own + "]" // refused: the repair drops it
	}
	return k.words(others)
}

var capabilities = []string{"text", "code"}

// valueHooks draw the keys that need more than the key table. Each
// receives the mapping being drawn (its earlier keys are set). They are
// set in init because they draw sections, which read them.
var valueHooks map[string]func(k *knowledge, m *mapping, key scenarios.Key) value

func init() { valueHooks = hooks() }

func hooks() map[string]func(k *knowledge, m *mapping, key scenarios.Key) value {
	return map[string]func(k *knowledge, m *mapping, key scenarios.Key) value{
		// The scenario's size: runs in the hundreds, a handful of workers,
		// guards that stop a runaway draw by its events (deterministic), and a
		// wall-clock guard far above any drawn scenario's needs.
		"scenario.name":    func(k *knowledge, _ *mapping, _ scenarios.Key) value { return "generated" },
		"scenario.seed":    func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.intIn(0, 1000) },
		"scenario.runs":    func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.intIn(50, k.g.opt.MaxRuns) },
		"scenario.horizon": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.dur(time.Second, 8*time.Second) },
		"scenario.workers": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.intIn(1, 12) },
		"scenario.deadline": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			return k.dur(300*time.Millisecond, 20*time.Second)
		},
		"scenario.warmup": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			if k.g.r.IntN(2) == 0 {
				return k.intIn(0, 30)
			}
			return k.dur(0, 500*time.Millisecond)
		},
		"guards.max_wall":   func(k *knowledge, _ *mapping, _ scenarios.Key) value { return "5m" },
		"guards.max_events": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.intIn(30_000, 150_000) },
		"arrivals.rate": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			return fmtNum(float64(int(k.g.logUniform(1, 80)*10))/10) + "/s"
		},
		"arrivals.count": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.intIn(1, 400) },
		"arrivals.users": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.intIn(1, 40) },
		"arrivals.file": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			k.traceFile()
			return "arrivals.txt"
		},
		// A schedule's instants start at 0 and increase (arrivals.rates).
		"arrivals.rates": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			l := &list{}
			gap := 500*time.Millisecond + time.Duration(k.g.r.IntN(3000))*time.Millisecond
			for i := range 1 + k.g.r.IntN(3) {
				item := k.g.section("rate_point")
				item.get("at").val = fmtDuration(time.Duration(i) * gap)
				if i == 0 {
					item.get("at").val = "0"
				}
				l.items = append(l.items, item)
			}
			return l
		},
		"rate_point.at": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return "0" },
		// A Markov-modulated process has at least two states, and some
		// state must have arrivals (arrivals.states).
		"arrivals.states": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			l := k.listOf("mmpp_state", 2+k.g.r.IntN(2))
			l.items[0].get("rate").val = fmtNum(float64(int(k.g.logUniform(1, 40)*10))/10) + "/s"
			return l
		},

		// Names, and what refers to them.
		"scenario.tools": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			named := &mapping{}
			for _, name := range k.tools {
				named.entries = append(named.entries, &entry{name: name, val: k.g.section("tool"), redraw: func() value { return k.g.section("tool") }})
			}
			return named
		},
		"scenario.tenants": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			named := &mapping{}
			for _, name := range k.tenants {
				named.entries = append(named.entries, &entry{name: name, val: k.g.section("tenant"), redraw: func() value { return k.g.section("tenant") }})
			}
			return named
		},
		"scenario.steps": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			// Forced step features that cannot share a step (a parallel
			// step is not hedged) need steps enough to find one each.
			forced := 0
			for _, p := range k.g.pending {
				if p.f.Section == "step" {
					forced++
				}
			}
			if forced >= 2 {
				old := k.plan
				k.plan = nil
				defer func() { k.plan = old }()
				return k.listOf("step", 3+k.g.r.IntN(2))
			}
			return k.plan1("step")
		},
		"class.steps": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.plan1("step") },
		"scenario.classes": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			return k.listOf("class", 1+k.g.r.IntN(3))
		},
		"loop.steps": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			in := k.inLoop
			k.inLoop = true
			defer func() { k.inLoop = in }()
			return k.listOf("step", 1+k.g.r.IntN(3))
		},
		"loop.max_turns": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.intIn(1, 8) },
		"context.system": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.intIn(0, 4000) },
		"context.window": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.intIn(4001, 60000) },
		"step.parallel": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			return k.listOf("member", 2+k.g.r.IntN(2))
		},
		"step.name": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			n := k.newName("s")
			k.plan = append(k.plan, n)
			return n
		},
		"member.name":  func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.newName("m") },
		"class.name":   func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.newName("c") },
		"class.tenant": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.pick(k.tenants) },
		"step.tool":    func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.pick(k.tools) },
		"member.tool":  func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.pick(k.tools) },
		"choice.tool":  func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.pick(k.tools) },
		"compact.tool": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.pick(k.tools) },
		"step.choose": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			return k.listOf("choice", min(len(k.tools), 1+k.g.r.IntN(3)))
		},
		"member.choose": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			return k.listOf("choice", min(len(k.tools), 1+k.g.r.IntN(3)))
		},
		"step.fallback":     func(k *knowledge, m *mapping, _ scenarios.Key) value { return k.fallback(m) },
		"member.fallback":   func(k *knowledge, m *mapping, _ scenarios.Key) value { return k.fallback(m) },
		"step.requires":     func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.words(capabilities) },
		"member.requires":   func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.words(capabilities) },
		"tool.capabilities": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.words(capabilities) },
		"step_tokens.input_from": func(k *knowledge, _ *mapping, key scenarios.Key) value {
			if len(k.plan) < 2 {
				return key.Example // refused: no earlier step; the repair drops it
			}
			return k.pick(k.plan[:len(k.plan)-1]) + "." + k.pick([]string{"output", "input"})
		},
		"retry.idempotent": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			return strconv.FormatBool(k.g.r.IntN(4) > 0)
		},
		"hedge.delay": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			if k.g.r.IntN(3) == 0 {
				return "p" + k.intIn(50, 99)
			}
			return k.dur(0, 400*time.Millisecond)
		},

		// Intervals of simulated time within a small scenario's span.
		"outage.start": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.dur(0, 8*time.Second) },
		"outage.end": func(k *knowledge, m *mapping, _ scenarios.Key) value {
			start, _ := time.ParseDuration(m.scalarOf("start"))
			return fmtDuration(start + 100*time.Millisecond + time.Duration(k.g.r.Float64()*float64(4*time.Second)))
		},
		"script_entry.run": func(k *knowledge, _ *mapping, _ scenarios.Key) value { return k.intIn(0, 30) },

		// Distributions: the family decides the parameters; a mixture's
		// components are one level deep; a latency log is a file.
		"distribution.dist": func(k *knowledge, _ *mapping, key scenarios.Key) value {
			var fams []string
			for _, v := range key.Values {
				switch {
				case v == "mixture" && k.depth > 0:
				case v == "empirical" && k.g.r.IntN(3) > 0:
				default:
					fams = append(fams, v)
				}
			}
			return k.pick(fams)
		},
		"distribution.of": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			k.depth++
			defer func() { k.depth-- }()
			return k.listOf("mixture_component", 1+k.g.r.IntN(2))
		},
		"distribution.file": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			return k.latencyFile()
		},
		"tool_cost.dims": func(k *knowledge, _ *mapping, _ scenarios.Key) value {
			tv := k.tv
			k.tv = false
			defer func() { k.tv = tv }()
			named := &mapping{}
			for range 1 + k.g.r.IntN(2) {
				named.entries = append(named.entries, &entry{name: k.newName("dim"), val: k.g.section("cost_dim"), redraw: func() value {
					tv := k.tv
					k.tv = false
					defer func() { k.tv = tv }()
					return k.g.section("cost_dim")
				}})
			}
			return named
		},
	}
}

// value draws key of mapping m through its hook, or a distribution's
// parameter by the kind of distribution being drawn.
func (k *knowledge) value(table string, m *mapping, key scenarios.Key) (value, bool) {
	if h, ok := valueHooks[table]; ok {
		return h(k, m, key), true
	}
	sec, name, _ := strings.Cut(table, ".")
	if sec == "distribution" && key.Kind == scenarios.KindNumber && name != "max_samples" {
		return k.param(key), true
	}
	return nil, false
}

// param draws a distribution's parameter: a duration near its example in
// a distribution of durations, a count in one of numbers, and a shape
// (cv, sigma, alpha, shape) near its example.
func (k *knowledge) param(key scenarios.Key) string {
	if _, err := time.ParseDuration(key.Example); err == nil {
		if k.tv {
			return k.g.duration(key.Example)
		}
		return fmtNum(float64(int(k.g.logUniform(1, 2000))))
	}
	ex, err := strconv.ParseFloat(key.Example, 64)
	if err != nil || ex <= 0 {
		ex = 1
	}
	return fmtNum(float64(int(k.g.logUniform(ex/3, ex*2)*1000)) / 1000)
}

// distribution draws a distribution of durations (tv) or of numbers.
func (k *knowledge) distribution(tv bool) value {
	old := k.tv
	k.tv = tv
	defer func() { k.tv = old }()
	return k.g.section("distribution")
}

// plan1 draws a plan: a list of steps whose input_from can name the
// earlier ones.
func (k *knowledge) plan1(section string) value {
	old := k.plan
	k.plan = nil
	defer func() { k.plan = old }()
	return k.listOf(section, 1+k.g.r.IntN(3))
}

func (k *knowledge) listOf(section string, n int) *list {
	l := &list{}
	for range n {
		l.items = append(l.items, k.g.section(section))
	}
	return l
}

// traceFile writes an arrival trace of a few hundred instants.
func (k *knowledge) traceFile() {
	if _, ok := k.g.files["arrivals.txt"]; ok {
		return
	}
	var b strings.Builder
	t := time.Duration(0)
	for range 300 + k.g.r.IntN(500) {
		fmt.Fprintf(&b, "%s\n", t.Round(time.Millisecond))
		t += time.Duration(k.g.r.ExpFloat64() * float64(40*time.Millisecond))
	}
	k.g.files["arrivals.txt"] = &fstest.MapFile{Data: []byte(b.String())}
}

// latencyFile writes a log of durations (or of plain numbers, for a
// distribution of numbers) and returns its name.
func (k *knowledge) latencyFile() string {
	name := "latencies.txt"
	if !k.tv {
		name = "usage.txt"
	}
	if _, ok := k.g.files[name]; ok {
		return name
	}
	var b strings.Builder
	for range 200 {
		if k.tv {
			fmt.Fprintf(&b, "%s\n", fmtDuration(time.Duration(k.g.logUniform(float64(5*time.Millisecond), float64(2*time.Second)))))
		} else {
			fmt.Fprintf(&b, "%d\n", int(k.g.logUniform(1, 2000)))
		}
	}
	k.g.files[name] = &fstest.MapFile{Data: []byte(b.String())}
	return name
}
