package scenarios_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// setBase is the scenario the --set tests override.
const setBase = `name: s
arrivals: {rate: 9/s}
workers: 2
retry: {attempts: 2}
steps:
  - {name: a, tool: t}
  - {name: b, tool: t, timeout: 1s}
tools:
  t:
    latency: {dist: exponential, mean: 1s}
`

func parseSets(t *testing.T, src string, sets ...string) *system.Config {
	t.Helper()
	sc, err := scenarios.Parse("s.yaml", []byte(src), sets, nil)
	if err != nil {
		t.Fatalf("Parse(s.yaml, %q) = %v", sets, err)
	}
	return sc.Config
}

func TestSet(t *testing.T) {
	tests := []struct {
		name  string
		sets  []string
		check func(c *system.Config) (got, want any)
	}{
		{"top-level", []string{"workers=12"}, func(c *system.Config) (any, any) { return c.Workers, 12 }},
		{"spaces", []string{" workers = 12 "}, func(c *system.Config) (any, any) { return c.Workers, 12 }},
		{"later-wins", []string{"workers=3", "workers=4"}, func(c *system.Config) (any, any) { return c.Workers, 4 }},
		{"nested", []string{"arrivals.rate=5/s"}, func(c *system.Config) (any, any) { return c.Arrivals.Rate, 5.0 }},
		{"item-by-name", []string{"steps.b.timeout=300ms"}, func(c *system.Config) (any, any) { return c.Steps[1].Timeout, 300 * time.Millisecond }},
		{"item-by-index", []string{"steps.0.timeout=2s"}, func(c *system.Config) (any, any) { return c.Steps[0].Timeout, 2 * time.Second }},
		{"new-key", []string{"deadline=2s"}, func(c *system.Config) (any, any) { return c.Deadline, 2 * time.Second }},
		{"new-key-in-item", []string{"steps.a.attempts=5"}, func(c *system.Config) (any, any) { return c.Steps[0].Retry.Attempts, 5 }},
		{"new-intermediate", []string{"queue.capacity=5"}, func(c *system.Config) (any, any) { return c.QueueCapacity, 5 }},
		{"new-intermediates", []string{"retry.backoff.base=7ms"}, func(c *system.Config) (any, any) { return c.Steps[0].Retry.Backoff.Base, 7 * time.Millisecond }},
		{"new-tool-keys", []string{"tools.t.errors.transient=0.25"}, func(c *system.Config) (any, any) { return c.Tools[0].Errors.Transient, 0.25 }},
		{"mapping-value", []string{"arrivals={process: constant, rate: 30/m}"}, func(c *system.Config) (any, any) {
			return c.Arrivals, system.Arrivals{Process: system.Constant, Rate: 0.5}
		}},
		{"mapping-value/dist", []string{"tools.t.latency={dist: constant, value: 2ms}"}, func(c *system.Config) (any, any) {
			return c.Tools[0].Latency.Mean(), 0.002
		}},
		{"list-value", []string{"steps=[{name: x, tool: t, timeout: 5s}]"}, func(c *system.Config) (any, any) {
			return len(c.Steps), 1
		}},
		{"list-value/item", []string{"steps.1={name: c, tool: t, timeout: 3s}"}, func(c *system.Config) (any, any) {
			return c.Steps[1].Name + " " + c.Steps[1].Timeout.String(), "c 3s"
		}},
		{"new-tool", []string{"tools.u={latency: {dist: constant, value: 1ms}}", "steps.a.tool=u"}, func(c *system.Config) (any, any) {
			return c.Tools[c.Steps[0].Tool].Name, "u"
		}},
		{"value-with-equals", []string{"description=a=b"}, func(c *system.Config) (any, any) { return c.Name, "s" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := tt.check(parseSets(t, setBase, tt.sets...))
			if got != want {
				t.Errorf("Parse(s.yaml, --set %q): got %v, want %v", tt.sets, got, want)
			}
		})
	}
}

func TestSetDescription(t *testing.T) {
	sc, err := scenarios.Parse("s.yaml", []byte(setBase), []string{"description=a=b"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Description != "a=b" {
		t.Errorf("Parse(--set description=a=b).Description = %q, want %q", sc.Description, "a=b")
	}
}

func TestSetErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string // setBase if empty
		sets []string
		want string
	}{
		{"runs-below-warmup", "name: t\narrivals: {rate: 9/s}\nworkers: 2\nwarmup: 50\nsteps: [{name: a, tool: t}]\ntools: {t: {latency: {dist: exponential, mean: 1s}}}\n", []string{"runs=40"},
			"--set runs=40: runs: must be > the scenario's warmup (50 runs, line 4), got 40: no run would be measured; give more runs, or a shorter warm-up too (--set warmup=…)"},
		{"no-item", "", []string{"steps.nope.timeout=1s"},
			`--set steps.nope.timeout=1s: steps: no list item named "nope"; items: a, b; or use an index 0 to 1`},
		{"no-item/suggest", "", []string{"steps.bb.timeout=1s"},
			`--set steps.bb.timeout=1s: steps: no list item named "bb" (did you mean "b"?); items: a, b; or use an index 0 to 1`},
		{"index-out-of-range", "", []string{"steps.2.timeout=1s"},
			`--set steps.2.timeout=1s: steps: no list item named "2"; items: a, b; or use an index 0 to 1`},
		{"no-tool", "", []string{"tools.u.concurrency=3"},
			`--set tools.u.concurrency=3: tools: no tool named "u" (tools: t); to add one, set it whole: --set 'tools.u={latency: {dist: exponential, mean: 1s}}'`},
		{"negative-index", "", []string{"steps.-1.timeout=1s"},
			`--set steps.-1.timeout=1s: steps: no list item named "-1"; items: a, b; or use an index 0 to 1`},
		{"no-equals", "", []string{"workers"},
			"--set workers: must be path=value, e.g. workers=12 or steps.fetch.timeout=300ms"},
		{"no-path", "", []string{"=12"},
			"--set =12: must be path=value, e.g. workers=12 or steps.fetch.timeout=300ms"},
		{"empty-segment", "", []string{"steps..timeout=1s"},
			`--set steps..timeout=1s: path "steps..timeout" has an empty part: write keys joined by single dots, e.g. steps.fetch.timeout`},
		{"trailing-dot", "", []string{"workers.=1"},
			`--set workers.=1: path "workers." has an empty part: write keys joined by single dots, e.g. steps.fetch.timeout`},
		{"through-scalar", "", []string{"workers.max=1"},
			`--set workers.max=1: workers: is a single value, cannot select "max" in it`},
		{"bad-yaml", "", []string{"arrivals={rate: 5/s"},
			`--set arrivals={rate: 5/s: value "{rate: 5/s" is not valid YAML: line 1: did not find expected ',' or '}'`},
		{"two-documents", "", []string{"seed=3\n---\nworkers: 1"},
			"--set \"seed=3\\n---\\nworkers: 1\": value \"3\\n---\\nworkers: 1\" holds more than one YAML document (a \"---\" line): give one value"},
		{"two-documents/second-bad", "", []string{"seed=3\n---\n{"},
			"--set \"seed=3\\n---\\n{\": value \"3\\n---\\n{\" is not valid YAML: line 3: did not find expected node content"},
		{"root-list", "- a\n- b\n", []string{"workers=1"},
			`--set workers=1: the scenario: no list item named "workers"; use an index 0 to 1`},
		{"root-scalar", "mmc\n", []string{"workers=1"},
			`--set workers=1: the scenario: is a single value, cannot select "workers" in it`},
		{"first-error-only", "", []string{"steps.x.timeout=1s", "steps.y.timeout=1s"},
			`--set steps.x.timeout=1s: steps: no list item named "x"; items: a, b; or use an index 0 to 1`},
		// Values set by --set are checked like the file, and reported
		// against the flag.
		{"bad-value", "", []string{"workers=0"},
			"--set workers=0: workers: must be in [1, 100000000], got 0"},
		{"bad-value/no-unit", "", []string{"steps.a.timeout=2"},
			`--set steps.a.timeout=2: steps.a.timeout: "2" has no unit: write e.g. 2ms or 2s`},
		{"bad-value/rate", "", []string{"arrivals.rate=9/x"},
			`--set arrivals.rate=9/x: arrivals.rate: "9/x": unknown rate unit "x" (use /s, /m or /h)`},
		{"bad-value/empty", "", []string{"workers="},
			`--set workers=: workers: must be a whole number, got ""`},
		{"bad-value/inside-mapping", "", []string{"tools.t.latency={dist: constant}"},
			"--set tools.t.latency={dist: constant}: tools.t.latency.value: required"},
		{"bad-value/new-key", "", []string{"wokers=3"},
			`--set wokers=3: wokers: unknown key (did you mean "workers"?); allowed here: ` + topKeys},
		{"bad-value/new-intermediate", "", []string{"queue.capcity=3"},
			`--set queue.capcity=3: queue.capcity: unknown key (did you mean "capacity"?); allowed here: capacity`},
		{"bad-value/file-and-set", "name: s\narrivals: {rate: 9}\nworkers: 2\nsteps: [{name: a, tool: t}]\ntools: {t: {latency: {dist: constant, value: 1ms}}}\n", []string{"workers=-1"},
			"s.yaml:2: arrivals.rate: \"9\" has no unit: write e.g. 9/s, 9/m or 9/h\n--set workers=-1: workers: must be in [1, 100000000], got -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src
			if src == "" {
				src = setBase
			}
			sc, err := scenarios.Parse("s.yaml", []byte(src), tt.sets, nil)
			if err == nil {
				t.Fatalf("Parse(s.yaml, --set %q) = %+v, nil error; want %q", tt.sets, sc.Config, tt.want)
			}
			var es scenarios.Errors
			if !errors.As(err, &es) {
				t.Errorf("Parse(s.yaml, --set %q) error is %T, want scenarios.Errors", tt.sets, err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("Parse(s.yaml, --set %q) errors:\n%s\nwant:\n%s", tt.sets, got, tt.want)
			}
		})
	}
}

// TestSetThroughAlias checks that --set changes the path it names, not the
// anchor's other uses.
func TestSetThroughAlias(t *testing.T) {
	src := `name: s
arrivals: {rate: 9/s}
workers: 2
steps:
  - {name: a, tool: t, backoff: &b {base: 10ms, cap: 1s}}
  - {name: b, tool: t, backoff: *b}
  - {name: c, tool: t, <<: &d {timeout: 1s}}
  - {name: d, tool: t, <<: *d}
tools:
  t: &t {latency: {dist: constant, value: 1ms}}
  u: *t
`
	c := parseSets(t, src, "steps.b.backoff.base=20ms", "tools.u.latency.value=2ms", "steps.d.timeout=2s")
	for _, tt := range []struct {
		what      string
		got, want any
	}{
		{"steps.a.backoff.base", c.Steps[0].Retry.Backoff.Base, 10 * time.Millisecond},
		{"steps.b.backoff.base", c.Steps[1].Retry.Backoff.Base, 20 * time.Millisecond},
		{"steps.b.backoff.cap", c.Steps[1].Retry.Backoff.Cap, time.Second},
		{"steps.c.timeout", c.Steps[2].Timeout, time.Second},
		{"steps.d.timeout", c.Steps[3].Timeout, 2 * time.Second},
		{"tools.t.latency mean", c.Tools[0].Latency.Mean(), 0.001},
		{"tools.u.latency mean", c.Tools[1].Latency.Mean(), 0.002},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.what, tt.got, tt.want)
		}
	}
}

// TestLoadSetBundled applies --set to a bundled scenario by name.
func TestLoadSetBundled(t *testing.T) {
	sc, err := scenarios.Load("mmc", []string{"workers=12", "arrivals.rate=10/s", "steps.serve.timeout=30s"})
	if err != nil {
		t.Fatal(err)
	}
	c := sc.Config
	if c.Workers != 12 || c.Arrivals.Rate != 10 || c.Steps[0].Timeout != 30*time.Second {
		t.Errorf("Load(mmc, --set ...) = workers %d, rate %g, timeout %v; want 12, 10, 30s", c.Workers, c.Arrivals.Rate, c.Steps[0].Timeout)
	}
	if !strings.Contains(string(sc.Source), "workers: 10") {
		t.Errorf("Load(mmc, --set ...).Source changed: want the file's text, --set applies to the decoded tree only")
	}
	_, err = scenarios.Load("mmc", []string{"steps.nope.timeout=1s"})
	want := `--set steps.nope.timeout=1s: steps: no list item named "nope"; items: serve; or use an index 0 to 0`
	if err == nil || err.Error() != want {
		t.Errorf("Load(mmc, --set steps.nope.timeout=1s) = %v, want %q", err, want)
	}
}

// TestUnset: Unset removes a key (the scenario then has its default) or a
// list item, in order with the other overrides; a path that is not there
// is an error naming the override and the closest key.
func TestUnset(t *testing.T) {
	const src = setBase + "deadline: 3s\n"
	if c := parseSets(t, src, scenarios.Unset("deadline")); c.Deadline != 0 {
		t.Errorf("Unset(deadline): deadline %v, want none", c.Deadline)
	}
	if c := parseSets(t, src, scenarios.Unset("steps.a")); len(c.Steps) != 1 || c.Steps[0].Name != "b" {
		t.Errorf("Unset(steps.a): steps %+v, want b alone", c.Steps)
	}
	if c := parseSets(t, src, scenarios.Unset("retry.attempts"), "retry.idempotent=true"); c.Steps[0].Retry.Attempts == 2 {
		t.Errorf("Unset(retry.attempts): attempts still 2")
	}
	if c := parseSets(t, src, scenarios.Unset("workers"), "workers=7"); c.Workers != 7 {
		t.Errorf("Unset then set: workers %d, want 7", c.Workers)
	}
	for _, tt := range []struct{ path, want string }{
		{"retry.budgett", `--unset retry.budgett: retry: has no key "budgett" to remove`},
		{"deadlin", `(did you mean "deadline"?)`},
		{"steps.c", `no list item named "c"`},
		{"queue.capacity", `the scenario: has no key "queue" to remove`},
	} {
		_, err := scenarios.Parse("s.yaml", []byte(src), []string{scenarios.Unset(tt.path)}, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Unset(%s): %v, want an error containing %q", tt.path, err, tt.want)
		}
	}
}
