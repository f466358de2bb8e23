// Package outputs is the contract of a results directory: every file that
// `simulate run|compare|sweep|plan|merge --out DIR` writes is declared
// here once, with its name, its columns, what it holds, the commands that
// write it and the charts and report sections built from it, beside its
// writer and its reader. The commands write through this package and
// cmd/plot, cmd/report and internal/charts read through it, so a column
// added by a writer is one its reader knows, and no other package spells a
// file's name.
package outputs

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// File is one file of a results directory.
type File struct {
	// Name is the file's name in the directory.
	Name string
	// Columns is a CSV file's header, in order; nil for a JSON file.
	Columns []string
	// Holds says what the file holds, for docs/outputs.md.
	Holds string
	// WrittenBy are the commands that write it ("run", "compare", …).
	WrittenBy []string
	// ReadBy are the charts (by file name, as plot writes them) and the
	// report page sections built from it.
	ReadBy []string
	// read parses the file as the charts and the page do; nil for a file
	// only spreadsheets read, whose header Check compares instead.
	read func(io.Reader, string) error
}

// Path is the file's path in directory dir.
func (f *File) Path(dir string) string { return filepath.Join(dir, f.Name) }

// required returns f's columns less optional: the columns its reader
// needs, of a file an older version wrote without the optional ones.
func (f *File) required(optional ...string) []string {
	var out []string
	for _, c := range f.Columns {
		if !slices.Contains(optional, c) {
			out = append(out, c)
		}
	}
	return out
}

// Check reads a copy of the file as its reader does, and for a CSV file
// checks that its header is Columns exactly: what a writer wrote, its
// reader reads back with the same columns.
func (f *File) Check(r io.Reader) error {
	data, err := io.ReadAll(Bounded(r, f.Name, MaxInputSize))
	if err != nil {
		return err
	}
	if f.Columns != nil {
		line, _, _ := bytes.Cut(data, []byte("\n"))
		if got, want := strings.TrimSuffix(string(line), "\r"), strings.Join(f.Columns, ","); got != want {
			return fmt.Errorf("%s: header %q, the contract declares %q", f.Name, got, want)
		}
	}
	if f.read != nil {
		return f.read(bytes.NewReader(data), f.Name)
	}
	return nil
}

// readAs adapts a typed reader to File.read.
func readAs[T any](read func(io.Reader, string) (T, error)) func(io.Reader, string) error {
	return func(r io.Reader, name string) error { _, err := read(r, name); return err }
}

// The files of a results directory. Per-variant CSV files have a variant
// column first: the variant's name for compare, the scenario's for run.
var (
	// SummaryJSON is run's summary, written by cmd/simulate (its
	// summaryFile, with WriteJSON) and read by ReadSummaries.
	SummaryJSON = &File{Name: "summary.json",
		Holds:     "the summary `run` prints (`--format json`), after the provenance of what produced it",
		WrittenBy: []string{"run"},
		ReadBy:    []string{"latency_cdf (success rates)", "in_system (Little's-law level)", "tail", "tokens", "the provenance note of every chart"}}
	// SummaryCSV is one row of main figures per variant, written by
	// WriteSummaryCSV; no chart reads it (Check compares its header).
	SummaryCSV = &File{Name: "summary.csv",
		Columns: []string{"scenario", "variant", "seed", "replications", "arrived", "completed", "rejected", "expired", "refused",
			"deadline_exceeded", "failed", "in_flight", "success_rate",
			"latency_mean_s", "latency_p50_s", "latency_p90_s", "latency_p99_s", "latency_p999_s", "latency_max_s",
			"wait_mean_s", "wait_p99_s", "offered_per_s", "admitted_per_s", "little_lambda_per_s", "throughput", "lambda_w", "time_avg_in_system",
			"attempts", "attempts_per_run", "retries", "peak_attempt_rate", "partial"},
		Holds:     "one row per variant (per scenario for `run`) with the main figures in seconds, for a spreadsheet",
		WrittenBy: []string{"run", "compare"},
		ReadBy:    []string{"spreadsheets (no chart)"}}
	// CompareJSON is compare's variants, written by CompareFiles.Commit
	// (plan/compare.Summary) and read by ReadSummaries (the charts) and
	// ReadArray into plan/compare.Summary (the page), a variant at a
	// time.
	CompareJSON = &File{Name: "compare.json",
		Holds:     "every variant of a comparison in order: its name, overrides, provenance, summary and paired differences from the first and the previous variant",
		WrittenBy: []string{"compare"},
		ReadBy:    []string{"report: verdict, variants, differences, scenario", "latency_cdf (success rates)", "in_system", "tail", "tokens", "the provenance note of every chart"}}
	// LatencyCDFCSV is the completion-time CDF of each variant, written
	// by WriteCDF and CDFRows and read by ReadCDF.
	LatencyCDFCSV = &File{Name: "latency_cdf.csv",
		Columns:   []string{"variant", "value_s", "fraction"},
		Holds:     "each variant's completion-time CDF, one row per non-empty histogram bucket",
		WrittenBy: []string{"run", "compare"},
		ReadBy:    []string{"latency_cdf"}}
	// ClassLatencyCDFCSV is the completion-time CDF of each class of
	// work, written by WriteCDF and CompareFiles.AddClasses and read by
	// ReadCDF.
	ClassLatencyCDFCSV = &File{Name: "class_latency_cdf.csv",
		Columns:   []string{"variant", "value_s", "fraction"},
		Holds:     "for classes of work, each class's completion-time CDF (labelled `variant · class` by compare)",
		WrittenBy: []string{"run", "compare"},
		ReadBy:    []string{"class_latency_cdf"}}
	// SeriesCSV is each variant's time series, written by WriteSeries
	// and SeriesRows and read by ReadSeries.
	SeriesCSV = &File{Name: "series.csv",
		Columns:   []string{"variant", "t_s", "width_s", "arrivals", "attempts", "completed", "ended"},
		Holds:     "each variant's time series of replication 0: per bin, the measured runs that arrived, the attempts dialed, the runs that completed and those that ended",
		WrittenBy: []string{"run", "compare"},
		ReadBy:    []string{"in_system", "attempt_rate", "the warm-up shading and the outage windows of the time-series charts"}}
	// ToolsCSV is each limited tool's utilisation over time, written by
	// WriteTools and ToolRows and read by ReadTools.
	ToolsCSV = &File{Name: "tools.csv",
		Columns:   []string{"variant", "tool", "t_s", "width_s", "utilisation"},
		Holds:     "for tools with a capacity or a rate limit, utilisation over time (busy servers / concurrency, calls / rate limit)",
		WrittenBy: []string{"run", "compare"},
		ReadBy:    []string{"utilisation"}}
	// OutagesCSV is each tool's outage windows, written by WriteOutages
	// and OutageRows and read by ReadOutages.
	OutagesCSV = &File{Name: "outages.csv",
		Columns:   []string{"variant", "tool", "start_s", "end_s", "mode"},
		Holds:     "for tools with outages, the windows the charts shade and zoom into",
		WrittenBy: []string{"run", "compare"},
		ReadBy:    []string{"the outage shading of the time-series charts", "the zoomed *_outage charts"}}
	// BreakersCSV is each circuit breaker's state over time, written by
	// WriteBreakers and BreakerRows and read by ReadBreakers.
	BreakersCSV = &File{Name: "breakers.csv",
		Columns:   []string{"variant", "tool", "t_s", "width_s", "open", "half_open", "refused"},
		Holds:     "for tools with a circuit breaker, the share of each bin it spent open and half-open, and the calls it refused",
		WrittenBy: []string{"run", "compare"},
		ReadBy:    []string{"breakers"}}
	// LimitsCSV is each adaptive concurrency limit over time, written by
	// WriteLimits and LimitRows and read by ReadLimits.
	LimitsCSV = &File{Name: "limits.csv",
		Columns:   []string{"variant", "tool", "t_s", "width_s", "limit"},
		Holds:     "for tools with adaptive concurrency, each bin's mean limit",
		WrittenBy: []string{"run", "compare"},
		ReadBy:    []string{"concurrency_limit"}}
	// SweepCSV is a sweep's or a plan's points, written by
	// plan/sweep.WriteCSV (whose header is these columns) and read by
	// ReadSweep.
	SweepCSV = &File{Name: "sweep.csv",
		Columns: []string{"parameter", "value", "replications", "success_rate", "success_lo", "success_hi",
			"latency_p50_s", "latency_p99_s", "latency_p99_lo_s", "latency_p99_hi_s", "latency_p999_s",
			"throughput", "time_avg_in_system", "lambda_w", "attempts_per_run", "partial",
			"bottleneck", "peak_load", "binding_limit", "limit_use", "cost_per_success", "cost_per_success_lo", "cost_per_success_hi"},
		Holds:     "one row per point of a sweep (per probe of a plan): the figures with their intervals, the bottleneck, the binding model-API limit and the cost per successful run",
		WrittenBy: []string{"sweep", "plan", "merge"},
		ReadBy:    []string{"sweep_latency", "sweep_success", "report: decision, evidence"}}
	// SweepJSON is a sweep's points in full, written by cmd/simulate
	// (plan/sweep.PointFile, with WriteJSON) and read by
	// ReadSweepProvenance.
	SweepJSON = &File{Name: "sweep.json",
		Holds:     "every point of a sweep with its whole summary and the provenance of what produced it",
		WrittenBy: []string{"sweep", "merge"},
		ReadBy:    []string{"report: scenario (the provenance of the first point)"}}
	// GridJSON is a cost plan's configurations and answer, written by
	// cmd/simulate (plan/search.GridPlanFile, with WriteJSON) and read by
	// plan/search.ReadGridPlanFile (the page's sections and the frontier
	// chart, internal/gridcharts).
	GridJSON = &File{Name: "grid.json",
		Holds:     "a cost plan's (`plan --minimize cost`) knobs and objectives, every configuration with its figures and intervals, the cheapest meeting every objective (or why none does) and the cost–latency frontier, after its provenance",
		WrittenBy: []string{"plan"},
		ReadBy:    []string{"frontier", "report: the cheapest configuration, the configurations"}}
	// PlanJSON is a plan's answer, written by cmd/simulate
	// (plan/search.PlanFile, with WriteJSON) and read by ReadPlan (the
	// charts) and ReadJSON into plan/search.PlanFile (the page).
	PlanJSON = &File{Name: "plan.json",
		Holds:     "a plan's objectives, answer, probes and the reason when no value meets the objectives, after its provenance",
		WrittenBy: []string{"plan"},
		ReadBy:    []string{"sweep_latency and sweep_success (objectives and answer)", "report: decision, evidence"}}
)

// The readers refer to their files' declarations (the columns they
// need), so they join the declarations here rather than in them.
func init() {
	SummaryJSON.read = readAs(ReadSummaries)
	CompareJSON.read = readAs(ReadSummaries)
	LatencyCDFCSV.read = readAs(ReadCDF)
	ClassLatencyCDFCSV.read = readAs(ReadCDF)
	SeriesCSV.read = readAs(ReadSeries)
	ToolsCSV.read = readAs(ReadTools)
	OutagesCSV.read = readAs(ReadOutages)
	BreakersCSV.read = readAs(ReadBreakers)
	LimitsCSV.read = readAs(ReadLimits)
	SweepCSV.read = readAs(ReadSweep)
	SweepJSON.read = readAs(ReadSweepProvenance)
	PlanJSON.read = readAs(ReadPlan)
	// grid.json's reader, plan/search.ReadGridPlanFile, is the planner's;
	// here it is read as JSON.
	GridJSON.read = readAs(ReadJSON[map[string]any])
}

// All lists every declared file, in the order docs/outputs.md lists them.
var All = []*File{SummaryJSON, SummaryCSV, CompareJSON, LatencyCDFCSV, ClassLatencyCDFCSV, SeriesCSV, ToolsCSV, OutagesCSV, BreakersCSV, LimitsCSV, SweepCSV, SweepJSON, PlanJSON, GridJSON}

// Markdown is the file list of docs/outputs.md: one entry per declared
// file, with its columns, the commands that write it and what is built
// from it, wrapped at 76 columns.
func Markdown() string {
	var b strings.Builder
	for _, f := range All {
		entry := fmt.Sprintf("- `%s` (%s): %s.", f.Name, strings.Join(f.WrittenBy, ", "), f.Holds)
		if f.Columns != nil {
			cols := slices.Clone(f.Columns)
			for i, c := range cols {
				cols[i] = "`" + c + "`"
			}
			entry += " Columns: " + strings.Join(cols, ", ") + "."
		}
		entry += " Read by: " + strings.Join(f.ReadBy, "; ") + "."
		line := ""
		for _, w := range strings.Fields(entry) {
			if line != "" && len(line)+1+len(w) > 76 {
				b.WriteString(line + "\n")
				line = "  "
			}
			if line != "" && line != "  " {
				line += " "
			}
			line += w
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
