package main

import (
	"github.com/budgetsim/budgetsim/internal/cli"
	"github.com/budgetsim/budgetsim/scenarios"
)

func init() {
	register(command{name: "schema", synopsis: "simulate schema                      the JSON Schema of scenario files, for an editor outside the clone", run: (*env).schema})
}

// schema prints the JSON Schema of scenario files: the bytes of
// scenarios/schema.json, made from the same key table as the loader, so
// that an editor can check scenarios written anywhere ("simulate schema >
// schema.json" beside them, and the modeline "# yaml-language-server:
// $schema=schema.json").
func (e *env) schema(args []string) error {
	fs := newFlagSet("schema", e.stderr, "schema > schema.json")
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.Usagef("schema takes no arguments, got %q", pos[0])
	}
	_, err = e.stdout.Write(scenarios.JSONSchema())
	return err
}
