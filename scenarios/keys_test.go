package scenarios_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/scenarios"
)

// generated are the files made from the key table, relative to this
// package, and what makes them.
var generated = []struct {
	path string
	make func() []byte
}{
	{"../docs/scenario-reference.md", scenarios.Reference},
	{"schema.json", scenarios.JSONSchema},
}

// TestGenerated fails when docs/scenario-reference.md or
// scenarios/schema.json is not what the key table makes. Regenerate with
// go generate ./scenarios (or go test ./scenarios -run TestGenerated -update).
func TestGenerated(t *testing.T) {
	for _, g := range generated {
		got := g.make()
		if *update {
			if err := os.WriteFile(g.path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(g.path)
		if err != nil {
			t.Fatalf("%v (run go generate ./scenarios)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./scenarios", g.path)
		}
	}
}

// TestKeysDocumented fails when a key of the table lacks its type, its
// documentation, an example, or a default (or is not required), names a
// section or condition that does not exist, has a Missing text without
// being required, or a range on a kind that has none.
func TestKeysDocumented(t *testing.T) {
	secs := map[string]*scenarios.Section{}
	for _, s := range scenarios.Sections() {
		if secs[s.Name] != nil {
			t.Errorf("section %s is listed twice", s.Name)
		}
		secs[s.Name] = s
	}
	n := 0
	for _, s := range scenarios.Sections() {
		if s.Doc == "" {
			t.Errorf("section %s has no documentation", s.Name)
		}
		for _, inc := range s.Include {
			if secs[inc] == nil {
				t.Errorf("section %s includes %s, which does not exist", s.Name, inc)
			}
		}
		seen := map[string]bool{}
		for _, k := range s.Keys {
			n++
			where := s.Name + "." + k.Name
			if seen[k.Name] {
				t.Errorf("%s is listed twice", where)
			}
			seen[k.Name] = true
			if k.Kind.String() == "" {
				t.Errorf("%s has no type", where)
			}
			if strings.TrimSpace(k.Doc) == "" {
				t.Errorf("%s has no documentation", where)
			}
			if k.Example == "" {
				t.Errorf("%s has no example", where)
			}
			if k.Required == (k.Default != "") {
				t.Errorf("%s: a key is either required or has a default (required %v, default %q)", where, k.Required, k.Default)
			}
			if k.Missing != "" && !k.Required {
				t.Errorf("%s: Missing %q is said only of a required key", where, k.Missing)
			}
			if (k.Kind == scenarios.KindDuration || k.Kind == scenarios.KindRate) && (k.Min != 0 || k.Max != 0) {
				t.Errorf("%s: a %s is bounded by MinExclusive (above 0) and MaxDuration only, not Min %g, Max %g", where, k.Kind, k.Min, k.Max)
			}
			if (k.MinExclusive || k.Min < k.Max) && !slices.Contains([]scenarios.Kind{scenarios.KindInteger, scenarios.KindNumber, scenarios.KindWarmup, scenarios.KindDuration, scenarios.KindRate}, k.Kind) {
				t.Errorf("%s: a %s has no range", where, k.Kind)
			}
			switch k.Kind {
			case scenarios.KindMapping, scenarios.KindList, scenarios.KindNamed:
				if secs[k.Section] == nil {
					t.Errorf("%s: section %q does not exist", where, k.Section)
				}
			case scenarios.KindWord:
				if len(k.Values) == 0 {
					t.Errorf("%s: a word key lists its values", where)
				}
			}
			if k.When != nil {
				found := false
				for _, c := range s.Keys {
					found = found || c.Name == k.When.Key
				}
				if !found || len(k.When.Values) == 0 {
					t.Errorf("%s: condition on %q, which is not a key of %s", where, k.When.Key, s.Name)
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("the table lists %d keys; the format has more than 100", n)
	}
}

// base is a scenario that every key's example is placed into.
const base = `name: t
arrivals: {rate: 9/s}
workers: 2
steps:
  - {name: search, tool: search, timeout: 1s}
tools:
  search:
    latency: {dist: exponential, mean: 100ms}
  cheap:
    latency: {dist: exponential, mean: 100ms}
`

// files are the files the examples name.
var files = fstest.MapFS{
	"latencies.txt": {Data: []byte("10ms\n20ms\n30ms\n")},
	"arrivals.txt":  {Data: []byte("0s\n1s\n2s\n")},
}

// placement says where a section's mapping goes in base, as --set
// overrides: BODY is replaced by the mapping.
var placement = map[string][]string{
	"queue":                  {"queue=BODY"},
	"budget_cost":            {"cost=BODY"},
	"arrivals":               {"arrivals=BODY"},
	"rate_point":             {"arrivals={process: schedule, rates: [BODY]}"},
	"mmpp_state":             {"arrivals={process: mmpp, states: [BODY, {rate: 1/s, sojourn: 1s}]}"},
	"retry":                  {"retry=BODY"},
	"backoff":                {"retry.backoff=BODY"},
	"budget":                 {"retry.budget=BODY"},
	"step":                   {"tools.search.tokens={input: {dist: constant, value: 100}, output: {dist: constant, value: 10}}", "tools.search.stream=true", "steps=[BODY]"},
	"step_tokens":            {"tools.search.tokens={input: {dist: constant, value: 100}, output: {dist: constant, value: 10}}", "steps=[{name: fetch, tool: search}, {name: summarize, tool: search, tokens: BODY}]"},
	"tokens":                 {"tools.search.tokens=BODY"},
	"member":                 {"tools.search.tokens={input: {dist: constant, value: 100}, output: {dist: constant, value: 10}}", "tools.search.stream=true", "steps=[{name: fetch, parallel: [BODY]}]"},
	"wait":                   {"steps=[{name: fetch, parallel: [{name: page1, tool: search}, {name: page2, tool: search}], wait: BODY}]"},
	"hedge":                  {"steps=[{name: search, tool: search, idempotent: true, hedge: BODY}]"},
	"loop":                   {"tools.search.tokens={input: {dist: constant, value: 100}, output: {dist: constant, value: 10}}", "steps=[{name: agent, loop: BODY}]"},
	"context":                {"tools.search.tokens={input: {dist: constant, value: 100}, output: {dist: constant, value: 10}}", "steps=[{name: agent, loop: {max_turns: 3, steps: [{name: think, tool: search}], context: BODY}}]"},
	"compact":                {"tools.search.tokens={input: {dist: constant, value: 100}, output: {dist: constant, value: 10}}", "steps=[{name: agent, loop: {max_turns: 3, steps: [{name: think, tool: search}], context: {window: 200000, at_window: compact, compact: BODY}}}]"},
	"class":                  {"classes=[BODY]"},
	"tool":                   {"tools.search=BODY"},
	"errors":                 {"tools.search.errors=BODY"},
	"tool_queue":             {"tools.search.concurrency=2", "tools.search.queue=BODY"},
	"rate_limit":             {"tools.search.tokens={input: {dist: constant, value: 1}, output: {dist: constant, value: 0}}", "tools.search.rate_limit=BODY"},
	"circuit_breaker":        {"tools.search.circuit_breaker=BODY"},
	"circuit_breaker_window": {"tools.search.circuit_breaker.window=BODY"},
	"cache":                  {"tools.search.cache=BODY"},
	"choice":                 {"steps=[{name: pick, choose: [BODY]}]"},
	"prompt_cache":           {"tools.search.tokens={input: {dist: constant, value: 100}, output: {dist: constant, value: 10}}", "tools.search.prompt_cache=BODY"},
	"adaptive_concurrency":   {"tools.search.adaptive_concurrency=BODY"},
	"tool_cost":              {"tools.search.tokens={input: {dist: constant, value: 100}, output: {dist: constant, value: 10}}", "tools.search.cost=BODY"},
	"cost_dim":               {"tools.search.cost={reserve: 70, dims: {tokens: BODY}}"},
	"outage":                 {"tools.search.concurrency=2", "tools.search.outages=[BODY]"},
	"script_entry":           {"tools.search.script=[BODY]"},
	"guards":                 {"guards=BODY"},
	"distribution":           {"tools.search.latency=BODY"},
	"mixture_component":      {"tools.search.latency={dist: mixture, of: [BODY]}"},
	"scheduling":             {"scheduling=BODY"},
	"tenant":                 {"classes=[{name: acme}]", "tenants.acme=BODY"},
}

// context adds keys some examples need beside them.
var context = map[string]string{
	"tool.queue":                    "concurrency: 2",
	"tool.deadline_aware":           "concurrency: 2",
	"arrivals.process":              "rate: 9/s",
	"tool_cost.reserve":             "usage: {dist: constant, value: 5}",
	"tool_cost.billed":              "usage: {dist: constant, value: 5}, reserve: 70",
	"tool_cost.usage":               "reserve: 70",
	"tool_cost.dims":                "reserve: 70",
	"tool.per_output_token":         "tokens: {input: {dist: constant, value: 100}, output: {dist: constant, value: 10}}",
	"rate_limit.burst":              "rate: 6/s",
	"rate_limit.enforce":            "rate: 6/s",
	"rate_limit.profile":            "rpm: 600",
	"step_tokens.input_scale":       "input_from: fetch.output",
	"step_tokens.input_plus":        "input_from: fetch.output",
	"distribution.dist":             "mean: 1s",
	"distribution.median":           "sigma: 0.5",
	"circuit_breaker_window.bucket": "type: time",
	"step.wait":                     "parallel: [{name: page1, tool: search}]",
	"step.hedge":                    "tool: search, idempotent: true",
	"step.name":                     "tool: search",
	"step.timeout":                  "tool: search",
	"step.fallback":                 "tool: search",
	"step.requires":                 "tool: search",
	"step.tokens":                   "tool: search",
	"member.fallback":               "tool: search",
	"member.name":                   "tool: search",
	"member.requires":               "tool: search",
	"member.timeout":                "tool: search",
	"member.first_token_timeout":    "tool: search",
	"step.first_token_timeout":      "tool: search",
	"tool.stream":                   "tokens: {input: {dist: constant, value: 100}, output: {dist: constant, value: 10}}",
	"step.calls":                    "parallel: [{name: page1, tool: search}, {name: page2, tool: search}]",
	"context.at_window":             "window: 200000",
	"context.compact":               "window: 200000, at_window: compact",
	"tool.per_input_token":          "tokens: {input: {dist: constant, value: 100}, output: {dist: constant, value: 10}}",
	"tool.prompt_cache":             "tokens: {input: {dist: constant, value: 100}, output: {dist: constant, value: 10}}",
}

// body returns a flow mapping of section s with key k set to value, the
// keys it requires (where k's condition holds) set to their examples.
func body(s *scenarios.Section, k scenarios.Key, value string) string {
	var parts []string
	cond := ""
	if k.When != nil {
		cond = k.When.Values[0]
		parts = append(parts, k.When.Key+": "+cond)
	}
	all := slices.Clone(s.Keys)
	for _, inc := range s.Include {
		for _, is := range scenarios.Sections() {
			if is.Name == inc {
				all = append(all, is.Keys...)
			}
		}
	}
	for _, r := range all {
		if r.Name == k.Name || !r.Required || k.When != nil && r.Name == k.When.Key {
			continue
		}
		if r.When != nil && !(k.When != nil && r.When.Key == k.When.Key && slices.Contains(r.When.Values, cond)) {
			continue
		}
		if r.Name == "dist" && s.Name == "cost_dim" {
			parts = append(parts, "dist: constant, value: 5")
			continue
		}
		if r.Name == "dist" && s.Name == "mixture_component" {
			parts = append(parts, "dist: constant, value: 5ms")
			continue
		}
		parts = append(parts, r.Name+": "+r.Example)
	}
	if s.Name == "tool" && k.Name != "latency" && k.Name != "ttft" {
		parts = append(parts, "latency: {dist: exponential, mean: 100ms}")
	}
	parts = append(parts, k.Name+": "+value)
	if c, ok := context[s.Name+"."+k.Name]; ok {
		parts = append(parts, c)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// TestKeyRequired removes, one at a time, every key the table marks
// required from a mapping that has all the others (and, for a key with a
// condition, the condition's first word), and checks that the loader
// reports it as required with the table's Missing text: required-ness
// comes from the table alone.
func TestKeyRequired(t *testing.T) {
	for _, s := range scenarios.Sections() {
		for _, r := range s.Keys {
			if !r.Required {
				continue
			}
			want := r.Name + ": required" + r.Missing
			var set []string
			if s.Name == "scenario" {
				set = []string{"!" + r.Name}
			} else {
				parts := requiredParts(s, r)
				if r.When != nil {
					want = strings.ReplaceAll(want, "{"+r.When.Key+"}", r.When.Values[0])
				}
				if c, ok := context[s.Name+"."+r.Name]; ok {
					parts = append(parts, c)
				}
				for _, p := range placement[s.Name] {
					set = append(set, strings.Replace(p, "BODY", "{"+strings.Join(parts, ", ")+"}", 1))
				}
			}
			_, err := scenarios.Parse("t.yaml", []byte(base), set, files)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s.%s: without it (sets %q) the loader says %v; want an error containing %q", s.Name, r.Name, set, err, want)
			}
		}
	}
}

// requiredParts returns the keys of a mapping of section s that has every
// key required beside key k, but not k: k's condition, the other required
// keys (with their examples) where that condition holds, and a tool's
// latency.
func requiredParts(s *scenarios.Section, k scenarios.Key) []string {
	var parts []string
	body := body(s, k, "")
	inner := strings.TrimSuffix(strings.TrimPrefix(body, "{"), "}")
	for _, part := range splitTop(inner) {
		if strings.HasPrefix(part, k.Name+":") {
			continue
		}
		if c, ok := context[s.Name+"."+k.Name]; ok && part == c {
			continue
		}
		parts = append(parts, part)
	}
	return parts
}

// splitTop splits a flow mapping's inside at its top-level commas.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// sets places value for key k of section s into base.
func sets(s *scenarios.Section, k scenarios.Key, value string) []string {
	if s.Name == "scenario" && k.Name == "tenants" {
		// A tenant's runs are those of the classes that name it.
		return []string{"classes=[{name: free}, {name: paying}]", k.Name + "=" + value}
	}
	if s.Name == "scenario" {
		return []string{k.Name + "=" + value}
	}
	var out []string
	if s.Name == "class" && k.Name == "arrivals" {
		// A class with arrivals of its own replaces the top-level ones.
		out = append(out, "!arrivals")
	}
	for _, p := range placement[s.Name] {
		out = append(out, strings.Replace(p, "BODY", body(s, k, value), 1))
	}
	return out
}

// TestKeyExamples loads base with every key of the table set to its
// example (with the keys it needs beside it), so that every documented key
// is one the loader accepts; and, for every bounded number, checks that the
// loader accepts both ends of its documented range and refuses the values
// just outside, naming the key. (The loader panics on a key it reads that
// the table does not list, so the two cannot drift apart.)
func TestKeyExamples(t *testing.T) {
	c, abs := schemaCompiler(t)
	for _, s := range scenarios.Sections() {
		sub, err := c.Compile(abs + "#/$defs/" + s.Name)
		if err != nil {
			t.Fatal(err)
		}
		// matches validates the mapping that key k = value makes against
		// the section's schema.
		matches := func(k scenarios.Key, value string) error {
			if s.Name == "scenario" {
				var doc map[string]any
				if err := yaml.Unmarshal([]byte(base), &doc); err != nil {
					t.Fatal(err)
				}
				var v any
				if err := yaml.Unmarshal([]byte(value), &v); err != nil {
					t.Fatal(err)
				}
				doc[k.Name] = v
				b, _ := yaml.Marshal(doc)
				return sub.Validate(yamlValue(t, b))
			}
			return sub.Validate(yamlValue(t, []byte(body(s, k, value))))
		}
		if s.Name != "scenario" && placement[s.Name] == nil {
			t.Errorf("section %s has no placement in this test", s.Name)
			continue
		}
		for _, k := range s.Keys {
			load := func(value string) error {
				_, err := scenarios.Parse("t.yaml", []byte(base), sets(s, k, value), files)
				return err
			}
			if err := load(k.Example); err != nil {
				t.Errorf("%s.%s: the example %s does not load: %v\n(sets %q)", s.Name, k.Name, k.Example, err, sets(s, k, k.Example))
				continue
			}
			if err := matches(k, k.Example); err != nil {
				t.Errorf("%s.%s: the example %s does not match the schema: %v", s.Name, k.Name, k.Example, err)
			}
			probes := rangeProbes(k)
			for _, v := range probes.inside {
				if err := load(v); err != nil {
					t.Errorf("%s.%s: %s, just inside the table's range, does not load: %v", s.Name, k.Name, v, err)
				}
				if probes.schema {
					if err := matches(k, v); err != nil {
						t.Errorf("%s.%s: %s, just inside the table's range, does not match the schema: %v", s.Name, k.Name, v, err)
					}
				}
			}
			for i, v := range probes.outside {
				text := probes.text
				if i < len(probes.texts) {
					text = probes.texts[i]
				}
				want := k.Name + ": must be " + text + ", got " + v
				if err := load(v); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s.%s: %s, just outside the table's range, gives %v; want an error containing %q", s.Name, k.Name, v, err, want)
				}
				if probes.schema && matches(k, v) == nil {
					t.Errorf("%s.%s: %s, just outside the table's range, matches the schema", s.Name, k.Name, v)
				}
			}
		}
	}
}

// probes are values of a key just inside and just outside the range the
// key table gives it, and the range as the loader's message states it.
type probes struct {
	inside, outside []string
	text            string   // "in [1, 10]", "in (0, 1]", "≥ 0", "> 0"
	texts           []string // per outside value, when they differ
	schema          bool     // the schema states the range too
}

// rangeProbes derives k's probes from the table's Min, Max and
// MinExclusive alone: the ends of an integer's range and the integers
// beyond them; the ends of a number's range (the next number above an
// excluded minimum) and the next numbers beyond them; 1ns and 0s, or 1/h
// and 0/s, for a duration or rate that must be above 0, and -1ns or -1/h
// for one that may be 0; an hour beyond MaxDuration for every duration. An
// end at an int64's or a float64's limit is no real limit and is not
// probed.
func rangeProbes(k scenarios.Key) probes {
	var p probes
	switch k.Kind {
	case scenarios.KindDuration:
		// Every duration is at most MaxDuration.
		if k.MinExclusive {
			p.inside, p.outside, p.texts = []string{"1ns"}, []string{"0s"}, []string{"> 0"}
		} else {
			p.outside, p.texts = []string{"-1ns"}, []string{"≥ 0"}
		}
		hours := int64(scenarios.MaxDuration / time.Hour)
		p.outside = append(p.outside, strconv.FormatInt(hours+1, 10)+"h")
		p.texts = append(p.texts, "≤ "+strconv.FormatInt(hours, 10)+"h")
		return p
	case scenarios.KindRate:
		if k.MinExclusive {
			p.inside, p.outside, p.text = []string{"1/h"}, []string{"0/s"}, "> 0"
		} else {
			p.outside, p.text = []string{"-1/h"}, "≥ 0"
		}
		return p
	case scenarios.KindInteger, scenarios.KindWarmup, scenarios.KindNumber:
	default:
		return p
	}
	if k.Min >= k.Max {
		return p
	}
	integer := k.Kind != scenarios.KindNumber
	p.schema = k.Kind != scenarios.KindWarmup
	format := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	if integer {
		format = func(f float64) string { return strconv.FormatInt(int64(f), 10) }
	}
	hasHi := k.Max < math.MaxInt64 && k.Max < math.MaxFloat64
	open := "["
	if k.MinExclusive {
		open = "("
	}
	switch {
	case hasHi:
		p.text = "in " + open + format(k.Min) + ", " + format(k.Max) + "]"
	case k.MinExclusive:
		p.text = "> " + format(k.Min)
	default:
		p.text = "≥ " + format(k.Min)
	}
	lo, below := k.Min, k.Min-1
	if !integer {
		below = math.Nextafter(k.Min, math.Inf(-1))
		if k.MinExclusive {
			lo = math.Nextafter(k.Min, math.Inf(1))
		}
	}
	if k.MinExclusive {
		below = k.Min
	}
	p.inside = append(p.inside, num(lo))
	p.outside = append(p.outside, num(below))
	if hasHi {
		above := k.Max + 1
		if !integer {
			above = math.Nextafter(k.Max, math.Inf(1))
		}
		if k.Kind != scenarios.KindWarmup {
			// A warmup is below runs, which is at most its maximum.
			p.inside = append(p.inside, num(k.Max))
		}
		p.outside = append(p.outside, num(above))
	}
	return p
}

func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e18 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// TestBundledMatchSchema validates every bundled scenario, and every key's
// example placed as TestKeyExamples places it, against schema.json; and
// checks that the schema refuses what the loader refuses key by key (an
// unknown key, a word not in the list, a number out of range). Each
// bundled scenario carries the schema's modeline.
func TestBundledMatchSchema(t *testing.T) {
	schema := compileSchema(t)
	for _, name := range scenarios.Names() {
		path := name + ".yaml"
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(string(src), "\n"); first != scenarios.SchemaModeline {
			t.Errorf("%s: first line %q, want the schema modeline %q", path, first, scenarios.SchemaModeline)
		}
		if err := schema.Validate(yamlValue(t, src)); err != nil {
			t.Errorf("%s does not match schema.json:\n%v", path, err)
		}
	}
	for _, bad := range []struct{ what, src string }{
		{"unknown key", strings.Replace(base, "workers: 2", "wokers: 2", 1)},
		{"word not in the list", strings.Replace(base, "arrivals: {rate: 9/s}", "arrivals: {process: poison, rate: 9/s}", 1)},
		{"out of range", strings.Replace(base, "workers: 2", "workers: 0", 1)},
		{"duration without a unit", strings.Replace(base, "timeout: 1s", "timeout: 1", 1)},
		{"key of another process", strings.Replace(base, "arrivals: {rate: 9/s}", "arrivals: {rate: 9/s, count: 3}", 1)},
		{"parameter of another family", strings.Replace(base, "mean: 100ms}\n  cheap", "mean: 100ms, sigma: 1}\n  cheap", 1)},
		{"required key missing", strings.Replace(base, "workers: 2\n", "", 1)},
	} {
		if _, err := scenarios.Parse("t.yaml", []byte(bad.src), nil, files); err == nil {
			t.Errorf("%s: the loader accepts it", bad.what)
		}
		if err := schema.Validate(yamlValue(t, []byte(bad.src))); err == nil {
			t.Errorf("%s: the schema accepts it:\n%s", bad.what, bad.src)
		}
	}
}

// compileSchema compiles schema.json.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c, abs := schemaCompiler(t)
	s, err := c.Compile(abs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// schemaCompiler returns a compiler holding schema.json, and its name there.
func schemaCompiler(t *testing.T) (*jsonschema.Compiler, string) {
	t.Helper()
	f, err := os.Open("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	abs, _ := filepath.Abs("schema.json")
	if err := c.AddResource(abs, doc); err != nil {
		t.Fatal(err)
	}
	return c, abs
}

// yamlValue decodes YAML into the values JSON Schema validates (maps,
// slices, strings, json.Number, bools), as an editor's language server
// sees the file.
func yamlValue(t *testing.T, src []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSchemaID: the schema names itself with the format's stable $id.
func TestSchemaID(t *testing.T) {
	b, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ID != scenarios.SchemaID || !strings.HasSuffix(doc.ID, ":"+strconv.Itoa(scenarios.FormatVersion)) {
		t.Fatalf("schema.json's $id = %q, want %q, ending in the format version", doc.ID, scenarios.SchemaID)
	}
}
