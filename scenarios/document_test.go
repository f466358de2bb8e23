package scenarios_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/scenarios"
)

// docRow is a whole scenario file, t.yaml, and the loader's messages for
// it, one per line ("" when it loads).
type docRow struct {
	name, src, want string
}

// valid is a complete scenario the document tests start from.
const valid = `name: t
arrivals: {rate: 9/s}
workers: 2
steps:
  - {name: a, tool: t}
tools:
  t:
    latency: {dist: exponential, mean: 1s}
`

// without returns valid without the lines that start with prefix.
func without(prefix string) string {
	var b strings.Builder
	skip := false
	for _, line := range strings.SplitAfter(valid, "\n") {
		if strings.HasPrefix(line, prefix) {
			skip = true
			continue
		}
		if skip && strings.HasPrefix(line, " ") {
			continue // the removed key's block
		}
		skip = false
		b.WriteString(line)
	}
	return b.String()
}

func runDocRows(t *testing.T, rows []docRow) {
	t.Helper()
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			got := parseErr(t, r.src)
			if os.Getenv("SCENARIOS_FILL") != "" {
				fmt.Printf("FILL\t%s\t%q\n", r.name, got)
			}
			if got != r.want {
				t.Errorf("Parse(%q) errors:\n%s\nwant:\n%s", r.src, got, r.want)
			}
		})
	}
}

func TestParseDocument(t *testing.T) {
	runDocRows(t, []docRow{
		{name: "valid", src: valid, want: ""},
		{name: "missing/name", src: without("name:"), want: "t.yaml:1: name: required"},
		{name: "missing/arrivals", src: without("arrivals:"), want: "t.yaml:1: arrivals: required (e.g. arrivals: {rate: 9/s})"},
		{name: "missing/workers", src: without("workers:"), want: "t.yaml:1: workers: required: how many runs are served at once (≥ 1)"},
		{name: "missing/steps", src: without("steps:"), want: "t.yaml:1: steps: required: the plan each run executes"},
		{name: "missing/tools", src: without("tools:"), want: "t.yaml:1: tools: required: the backends the steps call"},
		{name: "missing/latency", src: strings.Replace(valid, "    latency: {dist: exponential, mean: 1s}\n", "    hang: 0\n", 1), want: "t.yaml:7: tools.t.latency: required (e.g. latency: {dist: exponential, mean: 1s}), or ttft for a model call"},
		{name: "missing/everything", src: "{}\n", want: "t.yaml:1: name: required\nt.yaml:1: arrivals: required (e.g. arrivals: {rate: 9/s})\nt.yaml:1: workers: required: how many runs are served at once (≥ 1)\nt.yaml:1: tools: required: the backends the steps call\nt.yaml:1: steps: required: the plan each run executes"},
		{name: "missing/everything-but-a-typo", src: "# a comment\nnmae: t\n", want: "t.yaml:2: name: required\nt.yaml:2: arrivals: required (e.g. arrivals: {rate: 9/s})\nt.yaml:2: workers: required: how many runs are served at once (≥ 1)\nt.yaml:2: tools: required: the backends the steps call\nt.yaml:2: steps: required: the plan each run executes\nt.yaml:2: nmae: unknown key (did you mean \"name\"?); allowed here: " + topKeys},
		{name: "name/list", src: strings.Replace(valid, "name: t", "name: [a, b]", 1), want: "t.yaml:1: name: must be a single value, got a list"},
		{name: "name/empty", src: strings.Replace(valid, "name: t", "name: ''", 1), want: "t.yaml:1: name: must not be empty"},
		{name: "tool/scalar", src: strings.Replace(valid, "  t:\n    latency: {dist: exponential, mean: 1s}\n", "  t: fast\n", 1), want: "t.yaml:7: tools.t: must be a mapping (key: value lines), got \"fast\""},
		{name: "tools/empty", src: strings.Replace(valid, "  t:\n    latency: {dist: exponential, mean: 1s}\n", "  {}\n", 1), want: "t.yaml:7: tools: needs at least one tool"},
		{name: "steps/empty", src: strings.Replace(valid, "  - {name: a, tool: t}\n", "  []\n", 1), want: "t.yaml:5: steps: needs at least one step"},
		{name: "empty", src: "", want: "t.yaml: empty scenario: it needs at least name, arrivals, workers, steps and tools"},
		{name: "comments-only", src: "# just a comment\n\n", want: "t.yaml: empty scenario: it needs at least name, arrivals, workers, steps and tools"},
		{name: "list", src: "- name: t\n- workers: 2\n", want: "t.yaml:1: must be a mapping (key: value lines), got a list"},
		{name: "scalar", src: "mmc\n", want: "t.yaml:1: must be a mapping (key: value lines), got \"mmc\""},
		{name: "null", src: "~\n", want: "t.yaml: empty scenario: it needs at least name, arrivals, workers, steps and tools"},
		{name: "empty-document", src: "---\n", want: "t.yaml: empty scenario: it needs at least name, arrivals, workers, steps and tools"},
		{name: "yaml/tab", src: "name: t\n\tworkers: 2\n", want: "t.yaml:2: invalid YAML: found a tab character that violates indentation"},
		{name: "yaml/unclosed-brace", src: "name: t\nworkers: 2\narrivals: {rate: 9/s\nsteps: []\n", want: "t.yaml:3: invalid YAML: did not find expected ',' or '}'"},
		{name: "yaml/first-line", src: "name: t: u\n", want: "t.yaml:1: invalid YAML: mapping values are not allowed in this context"},
		{name: "yaml/unknown-anchor", src: valid + "description: *nope\n", want: "t.yaml:9: invalid YAML: unknown anchor 'nope' referenced"},
		{name: "yaml/second-document", src: valid + "---\nworkers: 1000\n", want: "t.yaml:9: a scenario is one YAML document: remove this \"---\" and what follows, or merge it into the first"},
		{name: "yaml/trailing", src: "{name: t}}\n", want: "t.yaml:1: invalid YAML: did not find expected <document start>"},
		{name: "yaml/duplicate-key", src: valid + "workers: 3\n", want: "t.yaml:9: workers: duplicate key"},
		{name: "alias/steps", src: strings.Replace(valid, "  - {name: a, tool: t}\n", "  - &a {name: a, tool: t, timeout: 1s}\n  - *a\n", 1), want: "t.yaml:5: steps[1].name: duplicate step name \"a\" (first at line 5)"},
		{name: "alias/merge", src: strings.Replace(valid, "  - {name: a, tool: t}\n", "  - &a {name: a, tool: t, timeout: 1s}\n  - {<<: *a, name: b, timeout: 2s}\n", 1), want: ""},
		{name: "alias/merge-list", src: strings.Replace(valid, "  - {name: a, tool: t}\n", "  - &a {name: a, tool: t, timeout: 1s}\n  - &b {name: b, tool: t, attempts: 2}\n  - {<<: [*b, *a], name: c}\n", 1), want: ""},
		{name: "alias/merge-error", src: strings.Replace(valid, "  - {name: a, tool: t}\n", "  - &a {name: a, tool: t, timeout: 1}\n  - {<<: *a, name: b}\n  - {<<: *a, name: c}\n", 1), want: "t.yaml:5: steps.a.timeout: \"1\" has no unit: write e.g. 1ms or 1s\nt.yaml:5: steps.b.timeout: \"1\" has no unit: write e.g. 1ms or 1s\nt.yaml:5: steps.c.timeout: \"1\" has no unit: write e.g. 1ms or 1s"},
		{name: "alias/merge-scalar", src: strings.Replace(valid, "  - {name: a, tool: t}\n", "  - &a {name: a, tool: t}\n  - {<<: 5, name: b, tool: t}\n", 1), want: "t.yaml:6: steps[1].<<: must be a mapping or a list of mappings to merge, got \"5\""},
		{name: "alias/cycle", src: strings.Replace(valid, "latency: {dist: exponential, mean: 1s}", "latency: &x {dist: mixture, of: [{weight: 1, <<: *x}]}", 1), want: "t.yaml:8: alias *x is inside the value of its own anchor &x (line 8): the value would be infinite"},
	})
}

// TestParseTraceWithoutFS checks that a trace file cannot be resolved
// without a directory, as for empirical distributions.
func TestParseTraceWithoutFS(t *testing.T) {
	src := row{arrivals: "{process: trace, file: trace.txt}"}.src()
	sc, err := scenarios.Parse("t.yaml", []byte(src), nil, nil)
	want := `t.yaml:2: arrivals.file: cannot read "trace.txt": no directory to resolve it in`
	if err == nil || err.Error() != want {
		t.Errorf("Parse(trace, nil fs) = %v, %v; want the error %q", sc, err, want)
	}
}

// TestMergeKeys checks YAML merge keys: keys written in the mapping win
// over merged ones, and earlier merged mappings over later ones
// (yaml.org/type/merge.html).
func TestMergeKeys(t *testing.T) {
	src := strings.Replace(valid, "  - {name: a, tool: t}\n", `  - &a {name: a, tool: t, timeout: 1s, attempts: 3}
  - {<<: *a, name: b, timeout: 2s}
  - {<<: [{attempts: 5}, *a], name: c}
`, 1)
	sc, err := scenarios.Parse("t.yaml", []byte(src), nil, nil)
	if err != nil {
		t.Fatalf("Parse(merge keys) = %v", err)
	}
	for i, want := range []struct {
		name     string
		timeout  string
		attempts int
	}{{"a", "1s", 3}, {"b", "2s", 3}, {"c", "1s", 5}} {
		s := sc.Config.Steps[i]
		if s.Name != want.name || s.Timeout.String() != want.timeout || s.Retry.Attempts != want.attempts || s.Tool != 0 {
			t.Errorf("steps[%d] = %s, timeout %v, %d attempts, tool %d; want %s, %s, %d, 0", i, s.Name, s.Timeout, s.Retry.Attempts, s.Tool, want.name, want.timeout, want.attempts)
		}
	}
}
