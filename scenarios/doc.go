// Package scenarios reads budgetsim's scenario format: a YAML file (or the
// name of a bundled scenario, Names) with --set overrides ("path=value")
// becomes a Scenario, whose Config (model/system) is what the simulator
// runs, along with the text it came from, so that outputs can record their
// provenance.
//
// Every key of the format is declared once, in the table of keys.go: its
// kind, unit, default, range and meaning. The loader reads keys only
// through that table and takes from it each key's range, its allowed words
// and whether it is required, so a new key is written once;
// docs/scenario-reference.md and schema.json are generated from it
// (Reference, JSONSchema; go generate ./scenarios), and a test fails when
// they are stale. A mistake is reported as an Error
// naming file, line and field (Errors holds every one found), with the
// closest valid key suggested for a misspelt one (Suggest).
//
// Load reads one scenario; Variants and Scenario.Reparse load many
// variants of one file (a sweep's points, a comparison's variants) from a
// single reading of it. ParseDuration and ParseRate read the format's
// units ("250ms", "5/s") for the command-line flags as well.
package scenarios
