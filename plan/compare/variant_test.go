package compare_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/plan/compare"
	"github.com/budgetsim/budgetsim/scenarios"
)

// TestParseVaryNames: items may carry a name (name=value); braces,
// brackets and quotes keep their '=' and commas; unnamed items are
// labelled key=value; without names the argument is a sweep axis, ranges
// included.
func TestParseVaryNames(t *testing.T) {
	tests := []struct {
		in     string
		labels []string
		values []string
	}{
		{"retry=naive={attempts: 3},budgeted={attempts: 3, budget: {kind: token_bucket}}",
			[]string{"naive", "budgeted"}, []string{"{attempts: 3}", "{attempts: 3, budget: {kind: token_bucket}}"}},
		{"workers=small=10, big=20", []string{"small", "big"}, []string{"10", "20"}},
		{"workers=few=10,11", []string{"few", "workers=11"}, []string{"10", "11"}},
		{"workers=10..12", []string{"workers=10", "workers=11", "workers=12"}, []string{"10", "11", "12"}},
		{"tools.t.latency={dist: constant, value: 2ms},{dist: exponential, mean: 2ms}",
			[]string{"tools.t.latency={dist: constant, value: 2ms}", "tools.t.latency={dist: exponential, mean: 2ms}"}, []string{"{dist: constant, value: 2ms}", "{dist: exponential, mean: 2ms}"}},
		{`description=a="x=y"`, []string{"a"}, []string{`"x=y"`}},
	}
	for _, tt := range tests {
		a, err := compare.ParseVary(tt.in)
		if err != nil {
			t.Errorf("ParseVary(%q): %v", tt.in, err)
			continue
		}
		var labels, values []string
		for _, c := range a.Choices {
			labels = append(labels, c.Label())
			values = append(values, c.Set[0].Value)
		}
		if !slices.Equal(labels, tt.labels) || !slices.Equal(values, tt.values) {
			t.Errorf("ParseVary(%q) = labels %q values %q; want %q %q", tt.in, labels, values, tt.labels, tt.values)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"retry=a={attempts: 1},a={attempts: 2}", `two variants are called "a"`},
		{"workers=x=", `variant "x" has no value`},
		{"workers=1,,2", "empty value"},
		{"x=1.5..3", "needs a point count"},
	} {
		if _, err := compare.ParseVary(tt.in); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseVary(%q) = %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
}

const variantsFile = `# retry policies through an outage
- name: naive
  set: {retry.attempts: 5}
- name: budgeted
  set:
    retry.attempts: 5
    retry.budget: {kind: token_bucket, ratio: 0.1}
- name: one shot
  set: {retry.attempts: 1}
  unset: [retry.backoff]
`

// TestParseVariants: a variants file gives named choices whose values are
// one-line YAML overrides, in the file's order; removals come first.
func TestParseVariants(t *testing.T) {
	a, err := compare.ParseVariants("v.yaml", []byte(variantsFile))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := compare.Grid([]compare.Axis{a})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.Label+": "+strings.Join(v.Overrides(), " "))
	}
	want := []string{
		"naive: retry.attempts=5",
		"budgeted: retry.attempts=5 retry.budget={kind: token_bucket, ratio: 0.1}",
		"one shot: " + scenarios.Unset("retry.backoff") + " retry.attempts=1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("variants:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestParseVariantsErrors: each mistake names the file, the line and the
// field.
func TestParseVariantsErrors(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"name: a\n", "v.yaml:1: want a list of variants"},
		{"- name: a\n  sett: {workers: 2}\n", `v.yaml:2: sett: unknown key (did you mean "set"?)`},
		{"- set: {workers: 2}\n", "v.yaml:1: variant 1: needs a name"},
		{"- name: a\n- name: a\n", `two variants are called "a"`},
		{"- name: a\n  set: [workers, 2]\n", "v.yaml:2: set: want a mapping"},
		{"- name: a\n  unset: retry.budget\n", "v.yaml:2: unset: want a list"},
		{"- name: " + strings.Repeat("x", 41) + "\n", "name: 41 characters, at most 40"},
		{"- name: a\n  set: {workers: [}\n", "v.yaml"},
		{"- name: \"a\\e]0;x\\a\"\n", "v.yaml:1: name: want a short name on one line, without control characters"},
		{"", "no variants"},
	} {
		_, err := compare.ParseVariants("v.yaml", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseVariants(%q) = %v, want an error containing %q", tt.src, err, tt.want)
		}
	}
}

// TestGrid: two axes give every combination, the last fastest, labelled
// by their choices; an axis may not vary a key another varies.
func TestGrid(t *testing.T) {
	a, _ := compare.ParseVary("retry.attempts=one=1,three=3")
	b, _ := compare.ParseVary("workers=10,20")
	vs, err := compare.Grid([]compare.Axis{a, b})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, v := range vs {
		labels = append(labels, v.Label)
	}
	if want := []string{"one workers=10", "one workers=20", "three workers=10", "three workers=20"}; !slices.Equal(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
	if vs[3].Values["retry.attempts"] != "3" || vs[3].Values["workers"] != "20" {
		t.Errorf("values %v", vs[3].Values)
	}
	f, _ := compare.ParseVariants("v.yaml", []byte("- {name: x, set: {workers: 3}}\n"))
	if _, err := compare.Grid([]compare.Axis{f, b}); err == nil || !strings.Contains(err.Error(), "workers is varied twice") {
		t.Errorf("Grid with workers twice: %v", err)
	}
}

// Example_named compares two named retry policies read from a variants
// file; one of them removes the file's retry budget.
func Example_named() {
	a, err := compare.ParseVariants("retry.yaml", []byte(`
- name: budgeted
- name: unbudgeted
  unset: [retry.budget]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	vs, _ := compare.Grid([]compare.Axis{a})
	for _, v := range vs {
		fmt.Printf("%s: sets %v, removes %v\n", v.Label, v.Values, v.Unset)
	}
	// Output:
	// budgeted: sets map[], removes []
	// unbudgeted: sets map[], removes [retry.budget]
}

// TestReadVariantsTooLarge: a variants file past MaxVariantsSize is an
// error naming the file, not a read of the whole of it.
func TestReadVariantsTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "variants.yaml")
	if err := os.WriteFile(path, bytes.Repeat([]byte("#\n"), compare.MaxVariantsSize), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := compare.ReadVariants(path)
	if err == nil || !strings.Contains(err.Error(), path+": larger than") {
		t.Fatalf("err = %v, want the size limit named", err)
	}
}
