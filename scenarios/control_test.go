package scenarios_test

import (
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/scenarios"
)

// TestControlCharactersRefused: a terminal control character in a name
// (the scenario's, a step's, a tool's, a class's, a tenant's, a cost
// dimension's) or any value is refused at load with the file's line and
// the field, the character escaped in the message; tabs and line breaks
// are refused in names and keys but kept in a description.
func TestControlCharactersRefused(t *testing.T) {
	const src = `name: ok
description: "two\tcolumns\non two lines"
arrivals: {rate: 1/s}
workers: 1
runs: 10
tenants: {free: {weight: 1}}
classes:
  - {name: main, tenant: free}
tools:
  t: {latency: {dist: constant, value: 1s}}
steps:
  - {name: s, tool: t}
`
	if _, err := scenarios.Parse("t.yaml", []byte(src), nil, nil); err != nil {
		t.Fatalf("the clean scenario does not load: %v", err)
	}
	for _, c := range []struct {
		old, new, where string
	}{
		{"name: ok", `name: "ok\e]0;owned\a"`, "t.yaml:1: name: name "},
		{"name: ok", `name: "ok\nmore"`, "t.yaml:1: name: name "},
		{"name: s,", `name: "s\e[2J",`, "t.yaml:12: steps[0].name: name "},
		{"  t: {", `  "t\e[31m": {`, `t.yaml:10: tools."t\x1b[31m": key contains`},
		{"  t: {", "  \"t\\u009b\": {", `t.yaml:10: tools."t\u009b": key contains`},
		{"{name: main,", `{name: "m\u007fain",`, "t.yaml:8: classes[0].name: name "},
		{"tenants: {free:", `tenants: {"fr\tee":`, `t.yaml:6: tenants."fr\tee": key contains`},
		{"description: \"two", `description: "\e[2Jtwo`, "t.yaml:2: description: value "},
	} {
		text := strings.Replace(src, c.old, c.new, 1)
		_, err := scenarios.Parse("t.yaml", []byte(text), nil, nil)
		if err == nil {
			t.Errorf("%s: loads; want a control character refused", c.new)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.where) || !strings.Contains(msg, "control character U+") {
			t.Errorf("%s: error %q; want one naming %q and the control character", c.new, msg, c.where)
		}
		for _, r := range msg {
			if _, bad := scenarios.ControlChar(string(r), false); bad {
				t.Errorf("%s: the error repeats the control character %U: %q", c.new, r, msg)
			}
		}
	}
	// --set values are checked the same.
	_, err := scenarios.Parse("t.yaml", []byte(src), []string{`name="x\e[2J"`}, nil)
	if err == nil || !strings.Contains(err.Error(), `--set name="x\e[2J": name: name "x\x1b[2J" contains the control character U+001B`) {
		t.Errorf("--set name with an escape: %v", err)
	}
}

// TestErrorEscapesFlags: a --set flag holding a control character is
// quoted, escaped, where the error names it.
func TestErrorEscapesFlags(t *testing.T) {
	e := &scenarios.Error{File: "t.yaml", Set: "name=\x1b[2J", Field: "name", Msg: "refused"}
	if got, want := e.Error(), `--set "name=\x1b[2J": name: refused`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
