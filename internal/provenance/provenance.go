// Package provenance records what produced an output: the scenario file,
// the overrides applied to it and the text they made (with its SHA-256),
// the scenario format's version and the budgetsim build. Every JSON output
// of simulate and the HTML report carry a Record, and the tables print
// its Line, so that a table or chart in a design review can be traced to
// exactly the scenario and build that made it.
package provenance

import (
	"strconv"
	"strings"

	"github.com/budgetsim/budgetsim/internal/buildinfo"
	"github.com/budgetsim/budgetsim/scenarios"
)

// Record is the provenance of one simulated scenario.
type Record struct {
	// Scenario is the scenario's name; File where it was read from (a
	// path, or a bundled scenario's embedded name).
	Scenario string `json:"scenario"`
	File     string `json:"file"`
	// FormatVersion is the scenario format's version
	// (scenarios.FormatVersion).
	FormatVersion int `json:"format_version"`
	// Overrides are the --set overrides, in order (--seed and --runs
	// among them as seed=… and runs=…); empty for none.
	Overrides []string `json:"overrides"`
	// SHA256 is the hex SHA-256 of Effective (scenarios.Scenario.SHA256);
	// Effective is the scenario's text after the overrides: what was
	// simulated.
	SHA256    string `json:"sha256"`
	Effective string `json:"effective"`
	// Budgetsim is the build that wrote the output (buildinfo.Stamp).
	Budgetsim string `json:"budgetsim"`
	// Data maps each data file the scenario read (a trace of arrivals, a
	// latency log), by its path relative to the scenario, to the SHA-256
	// of its bytes; absent when it reads none.
	Data map[string]string `json:"data_sha256,omitempty"`
}

// Of returns the provenance of sc, written by this build.
func Of(sc *scenarios.Scenario) Record {
	return Record{
		Scenario:      sc.Config.Name,
		File:          sc.File,
		FormatVersion: scenarios.FormatVersion,
		Overrides:     append([]string{}, sc.Overrides...),
		SHA256:        sc.SHA256(),
		Effective:     string(sc.Effective()),
		Budgetsim:     buildinfo.Stamp(),
		Data:          sc.DataFiles(),
	}
}

// Args is a scenario file and its overrides as a command line gives them:
// "scenarios/mmc.yaml --set workers=19", an override quoted when it has
// spaces or YAML punctuation.
func Args(file string, overrides []string) string {
	var b strings.Builder
	b.WriteString(file)
	for _, o := range overrides {
		if strings.ContainsAny(o, " \t'\"{}[],#") {
			o = strconv.Quote(o)
		}
		b.WriteString(" --set " + o)
	}
	return b.String()
}

// Line is the record in one line, for a table's header: the file, the
// overrides, the first 12 hex digits of the SHA-256, the format and the
// build ("scenario scenarios/mmc.yaml --set workers=19 · sha256
// 0123456789ab · format 1 · budgetsim devel").
func (r Record) Line() string {
	var b strings.Builder
	b.WriteString("scenario " + Args(r.File, r.Overrides))
	b.WriteString(" · sha256 " + r.SHA256[:min(12, len(r.SHA256))])
	b.WriteString(" · format " + strconv.Itoa(r.FormatVersion))
	b.WriteString(" · budgetsim " + r.Budgetsim)
	return b.String()
}
