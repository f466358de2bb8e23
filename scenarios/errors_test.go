package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// decodeErr is the error go-yaml gives for src, decoded as Parse does.
func decodeErr(t *testing.T, src string) error {
	t.Helper()
	var n yaml.Node
	err := yaml.NewDecoder(bytes.NewReader([]byte(src))).Decode(&n)
	if err == nil {
		t.Fatalf("yaml Decode(%q) = nil error, want a syntax error", src)
	}
	return err
}

func TestYAMLSyntaxError(t *testing.T) {
	// Each want line was counted by hand in src (1-based). go-yaml's own
	// "line N" is 0-based for parser errors and 1-based for scanner errors
	// (go-yaml issue #205), and missing when its line is 0.
	tests := []struct {
		src, want string
	}{
		{"", "f.yaml: empty scenario: it needs at least name, arrivals, workers, steps and tools"},
		{"# only a comment\n", "f.yaml: empty scenario: it needs at least name, arrivals, workers, steps and tools"},
		// Scanner errors.
		{"name: t\n\tworkers: 2\n", "f.yaml:2: invalid YAML: found a tab character that violates indentation"},
		// A tab alone on a line: go-yaml names the line before it.
		{"name: t\nseed: 1\n\t\nworkers: 2\n", "f.yaml:3: invalid YAML: found a tab character that violates indentation"},
		{"a: b: c\n", "f.yaml:1: invalid YAML: mapping values are not allowed in this context"},
		{"a: 1\nb: c: d\n", "f.yaml:2: invalid YAML: mapping values are not allowed in this context"},
		{"a: 1\nb: \"open\n", "f.yaml:2: invalid YAML: found unexpected end of stream"}, // where the string opened
		{"a: 1\nb: @x\n", "f.yaml:2: invalid YAML: found character that cannot start any token"},
		// Parser errors: go-yaml's line is one less than the truth.
		{"name: t\nworkers: 2\narrivals: {rate: 9/s\nsteps: []\n", "f.yaml:3: invalid YAML: did not find expected ',' or '}'"},
		{"a: 1\nb: [1, 2\nc: 3\n", "f.yaml:2: invalid YAML: did not find expected ',' or ']'"},
		{"a: 1\n- b\n", "f.yaml:2: invalid YAML: did not find expected key"},
		{"a:\n  - x\n  y: 1\n", "f.yaml:2: invalid YAML: did not find expected '-' indicator"},
		{"%YAML 1.1\n%YAML 1.1\n---\na: 1\n", "f.yaml:2: invalid YAML: found duplicate %YAML directive"},
		{"a: !foo!bar 1\n", "f.yaml:1: invalid YAML: found undefined tag handle"},
		// go-yaml gives no line for an unknown anchor; it is found in src.
		{"a: 1\nb: [*nope]\n", "f.yaml:2: invalid YAML: unknown anchor 'nope' referenced"},
		{"a: &nopeish 1\nb: *nopeish\nc: *nope\n", "f.yaml:3: invalid YAML: unknown anchor 'nope' referenced"},
	}
	for _, tt := range tests {
		var err error
		if tt.src == "" || strings.HasPrefix(tt.src, "#") {
			err = io.EOF
			// Check the premise: go-yaml says io.EOF for an empty document.
			var n yaml.Node
			if got := yaml.NewDecoder(strings.NewReader(tt.src)).Decode(&n); !errors.Is(got, io.EOF) {
				t.Errorf("yaml Decode(%q) = %v, want io.EOF", tt.src, got)
			}
		} else {
			err = decodeErr(t, tt.src)
		}
		if got := yamlSyntaxError("f.yaml", []byte(tt.src), err).Error(); got != tt.want {
			t.Errorf("yamlSyntaxError(%q) = %q, want %q (go-yaml said %q)", tt.src, got, tt.want, err)
		}
	}
	// A message go-yaml never locates stays without a line.
	err := errors.New("yaml: document contains excessive aliasing")
	if got, want := yamlSyntaxError("f.yaml", nil, err).Error(), "f.yaml: invalid YAML: document contains excessive aliasing"; got != want {
		t.Errorf("yamlSyntaxError(%v) = %q, want %q", err, got, want)
	}
}

func TestAliasLine(t *testing.T) {
	src := []byte("a: *xy\nb: *x,\nc: [*x]\n")
	tests := []struct {
		name string
		want int
	}{
		{"x", 2}, // not line 1: *xy is another alias
		{"xy", 1},
		{"z", 0},
	}
	for _, tt := range tests {
		if got := aliasLine(src, tt.name); got != tt.want {
			t.Errorf("aliasLine(%q, %q) = %d, want %d", src, tt.name, got, tt.want)
		}
	}
}

// bomb returns a "billion laughs" scenario: levels lists of width aliases
// of the level below, inside a mixture so the loader would walk them.
func bomb(levels, width int) string {
	var b strings.Builder
	b.WriteString("name: bomb\narrivals: {rate: 1/s}\nworkers: 1\nsteps: [{name: a, tool: t}]\ntools:\n  t:\n    latency:\n      dist: mixture\n      of:\n")
	b.WriteString("        - &l0 {weight: 1, dist: constant, value: 1ms}\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "        - &l%d {weight: 1, dist: mixture, of: [", i)
		for j := 0; j < width; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]}\n")
	}
	return b.String()
}

func TestCheckAliases(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"bomb", bomb(9, 10),
			"f.yaml:17: aliases would expand the scenario by more than 1000000 values (*l6 alone expands to more than 4000000): write the values out or use fewer aliases"},
		// l1 is 1 mapping + 5 scalars + 1 list + 2000 aliases of l0 (a
		// mapping of 6 scalars: 7 nodes) = 14007 nodes.
		{"bomb/wide", bomb(2, 2000),
			"f.yaml:12: aliases would expand the scenario by more than 1000000 values (*l1 alone expands to 14007): write the values out or use fewer aliases"},
		{"small", bomb(2, 10), ""},
		{"cycle/sequence", "a: &x [1, *x]\n", "f.yaml:1: alias *x is inside the value of its own anchor &x (line 1): the value would be infinite"},
		{"cycle/deep", "a: &x\n  b:\n    c: [*x]\n", "f.yaml:3: alias *x is inside the value of its own anchor &x (line 1): the value would be infinite"},
		{"cycle/merge", "a: &x {<<: *x}\n", "f.yaml:1: alias *x is inside the value of its own anchor &x (line 1): the value would be infinite"},
		{"reuse", "a: &x {b: 1}\nc: [*x, *x, *x]\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tt.src), &doc); err != nil {
				t.Fatal(err)
			}
			d := &decoder{file: "f.yaml"}
			ok := d.checkAliases(doc.Content[0])
			got := ""
			if len(d.errs) > 0 {
				got = d.errs.Error()
			}
			if got != tt.want || ok != (tt.want == "") {
				t.Errorf("checkAliases(%q) = %v, %q\nwant %v, %q", tt.name, ok, got, tt.want == "", tt.want)
			}
			if !d.checkAliases(doc.Content[0]) {
				t.Errorf("checkAliases(%q) a second time = false, want true (it runs once per decoder)", tt.name)
			}
		})
	}
}

// TestParseBomb checks that Parse refuses a billion-laughs scenario with
// the alias check instead of walking 10^9 mixture components.
func TestParseBomb(t *testing.T) {
	_, err := Parse("bomb.yaml", []byte(bomb(9, 10)), nil, nil)
	want := "bomb.yaml:17: aliases would expand the scenario by more than 1000000 values (*l6 alone expands to more than 4000000): write the values out or use fewer aliases"
	if err == nil || err.Error() != want {
		t.Errorf("Parse(bomb) = %v, want %q", err, want)
	}
}

func TestShortDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{100 * 365 * 24 * time.Hour, "876000h"},
		{90 * time.Minute, "1h30m"},
		{2 * time.Minute, "2m"},
		{time.Hour + time.Second, "1h0m1s"},
		{1500 * time.Millisecond, "1.5s"},
		{0, "0s"},
	}
	for _, tt := range tests {
		if got := shortDuration(tt.d); got != tt.want {
			t.Errorf("shortDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	keys := []string{"workers", "latency", "timeout", "rate", "cap", "tpm"}
	tests := []struct {
		got, want string
	}{
		{"wokers", ` (did you mean "workers"?)`},
		{"latncy", ` (did you mean "latency"?)`},
		{"tmeout", ` (did you mean "timeout"?)`},
		{"rat", ` (did you mean "rate"?)`},
		{"cup", ` (did you mean "cap"?)`},
		{"cpu", ""},                               // short words allow one edit only
		{"tmp", ` (did you mean "tpm"?)`},         // a transposition is one edit
		{"latnecy", ` (did you mean "latency"?)`}, // and in a longer word
		{"x", ""}, // a suggestion keeps part of what was typed
		{"ra", ""},
		{"colour", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.got, keys); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.got, got, tt.want)
		}
	}
	if got := suggest("x", nil); got != "" {
		t.Errorf("suggest(%q, nil) = %q, want \"\"", "x", got)
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a", "", 1},
		{"", "abc", 3},
		{"kitten", "sitting", 3}, // the textbook example
		{"wokers", "workers", 1},
		{"flaw", "lawn", 2},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := editDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d (symmetry)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestErrorsSorted(t *testing.T) {
	es := Errors{
		{File: "f", Line: 9, Field: "b", Msg: "x"},
		{File: "f", Set: "workers=0", Field: "workers", Msg: "y"},
		{File: "f", Line: 2, Field: "a", Msg: "x"},
		{File: "f", Line: 9, Field: "b", Msg: "x"}, // a repeat, through an alias
		{File: "f", Line: 9, Field: "c", Msg: "x"},
	}
	got := es.sorted().Error()
	want := "f:2: a: x\nf:9: b: x\nf:9: c: x\n--set workers=0: workers: y"
	if got != want {
		t.Errorf("sorted() =\n%s\nwant\n%s", got, want)
	}
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{File: "f.yaml", Line: 3, Field: "workers", Msg: "must be ≥ 1"}, "f.yaml:3: workers: must be ≥ 1"},
		{Error{File: "f.yaml", Field: "workers", Msg: "required"}, "f.yaml: workers: required"},
		{Error{File: "f.yaml", Line: 3, Msg: "invalid YAML: x"}, "f.yaml:3: invalid YAML: x"},
		{Error{File: "f.yaml", Line: 3, Set: "workers=0", Field: "workers", Msg: "m"}, "--set workers=0: workers: m"},
		{Error{Msg: "m"}, "m"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%#v.Error() = %q, want %q", tt.e, got, tt.want)
		}
	}
}
