// Package reportfiles declares the files `simulate calibrate --report
// DIR` writes, once each: their names, their columns and what they hold.
// The writer (calibrate.Report) and the reader (calibrate/fitcharts, which
// `plot DIR` runs) both take them from here, so a column one adds is one
// the other knows. docs/calibration.md describes them for users.
package reportfiles

import (
	"path/filepath"
	"strings"
)

// File is one file of a calibration report directory.
type File struct {
	// Name is the file's name in the directory.
	Name string
	// Columns is a CSV file's header, in order; nil for a JSON file.
	Columns []string
	// Holds says what the file holds.
	Holds string
}

// Path is the file's path in directory dir.
func (f File) Path(dir string) string { return filepath.Join(dir, f.Name) }

// Header is a CSV file's header line, with its newline.
func (f File) Header() string { return strings.Join(f.Columns, ",") + "\n" }

// The files of a calibration report.
var (
	// Fit is the fit of every tool, the arrivals and the loop, with the
	// goodness of each fit and the tail checks.
	Fit = File{Name: "fit.json", Holds: "every fitted distribution with its family, goodness of fit and tail check; the arrivals' process; the agent loop's rules"}
	// QQ holds the quantile–quantile points of each fitted distribution.
	QQ = File{Name: "qq.csv", Columns: []string{"tool", "quantity", "family", "p", "observed_s", "fitted_s"},
		Holds: "quantile-quantile points of each fitted distribution: observed against fitted"}
	// Turns holds, per turn, the loop's observed chance of ending there
	// against the fitted rule's.
	Turns = File{Name: "turns.csv", Columns: []string{"rule", "turn", "at_risk", "ends", "observed", "observed_lo", "observed_hi", "fitted", "fitted_lo", "fitted_hi", "p_value"},
		Holds: "per turn of the agent loop: runs at risk, runs that ended, the observed and fitted chance of ending, with intervals"}
	// Calibration holds the calibration error: observed against simulated
	// figures with their relative error.
	Calibration = File{Name: "calibration.csv", Columns: []string{"quantity", "unit", "observed", "observed_lo", "observed_hi", "simulated", "simulated_lo", "simulated_hi", "relative_error", "relative_error_lo", "relative_error_hi"},
		Holds: "each replayed figure observed and simulated, with the relative error and intervals"}
	// E2E holds the observed and simulated run-time distributions.
	E2E = File{Name: "e2e.csv", Columns: []string{"series", "p", "seconds"},
		Holds: "the run time's quantiles, observed and simulated"}
)
