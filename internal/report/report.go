package report

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/recommend"
	"github.com/budgetsim/budgetsim/scenarios"
)

// DefaultLevel is the confidence level of the intervals when
// Options.Level is zero: 95 %, as simulate's --level.
const DefaultLevel = 0.95

// Options are the simulation settings of Simulate. The zero value runs one
// replication on every core at the 95 % level.
type Options struct {
	// Replications is the number of independent replications, ≥ 1; 0
	// means 1. Two or more add Student-t confidence intervals.
	Replications int
	// Parallel is the number of goroutines running replications; 0 means
	// GOMAXPROCS. The report does not depend on it.
	Parallel int
	// Level is the confidence level of the intervals, in (0, 1); 0 means
	// DefaultLevel.
	Level float64
	// Interrupt, when set and true, stops the simulations early; their
	// results are partial and the report says so.
	Interrupt *atomic.Bool
}

// Input is everything a report shows: a scenario, what its replications
// measured, the slowest run of replication 0 and the recommendations.
// Simulate fills it; a caller that simulates by itself fills it directly.
type Input struct {
	// Scenario is the scenario simulated, with its YAML source.
	Scenario *scenarios.Scenario
	// Pooled holds the replications pooled in order (a
	// summary.Accumulator, as replicate.Pooled returns it), First
	// replication 0's result (whose time series the charts show), and
	// Summary the pooled summary (Pooled.Summary()). No replication but
	// the first is kept, so a report's memory does not grow with its
	// replications.
	Pooled  *summary.Accumulator
	First   *system.Result
	Summary summary.Summary
	// Trace holds the slowest run of replication 0; nil draws no
	// timeline.
	Trace *SlowestRun
	// Plan is recommend.FromAccumulator's answer, or PlanErr its error (shown
	// as a warning).
	Plan    *recommend.Plan
	PlanErr error
	// Version labels the budgetsim build (buildinfo.Stamp); Date is
	// shown as given, "" for none. Neither is read from the environment
	// here, so the report stays reproducible.
	Version, Date string
}

// Simulate runs opt.Replications replications of sc (replication i with
// seed sim.ReplicationSeed(seed, i)), tracing every run of replication 0
// to find its slowest, summarises them and asks recommend.FromAccumulator for
// the step settings with its default options. It returns an error only
// for bad options; a recommendation error goes to Input.PlanErr.
func Simulate(sc *scenarios.Scenario, opt Options) (*Input, error) {
	if opt.Replications == 0 {
		opt.Replications = 1
	}
	if opt.Level == 0 {
		opt.Level = DefaultLevel
	}
	switch {
	case opt.Replications < 1:
		return nil, fmt.Errorf("replications: must be ≥ 1, got %d", opt.Replications)
	case !(opt.Level > 0 && opt.Level < 1):
		return nil, fmt.Errorf("level: must be in (0, 1), got %v", opt.Level)
	case opt.Parallel < 0:
		return nil, fmt.Errorf("parallel: must be ≥ 0, got %d", opt.Parallel)
	}
	tr := &SlowestRun{}
	acc, first := replicate.Pooled(sc.Config, opt.Replications, opt.Parallel, system.Options{
		Tracer: tr, TraceRuns: math.MaxInt64, Interrupt: opt.Interrupt,
	}, opt.Level)
	in := &Input{
		Scenario: sc,
		Pooled:   acc,
		First:    first,
		Summary:  acc.Summary(),
		Trace:    tr,
	}
	in.Plan, in.PlanErr = recommend.FromAccumulator(acc, recommend.Options{})
	return in, nil
}

// Report is the model of a report: text, tables and charts, in the order
// the page shows them. Build one with New and write it with WriteHTML.
type Report struct {
	// Title is the page title; Scenario, Description and File name the
	// scenario and where it was read from.
	Title, Scenario, Description, File string
	// Facts are the header's label–value pairs: seed, replications,
	// runs, level, version, date.
	Facts []Fact
	// Sections are the body in page order: outcomes and completion
	// time, the charts, Little's law and attempts, capacity, and the
	// recommendations.
	Sections []Section
	// Warnings are the report's footnotes: the summary's warnings, the
	// recommendation's, and charts that could not be drawn.
	Warnings []string
	// Source is the scenario's YAML text as simulated: the file as read,
	// or, with Overrides, the document with them applied
	// (scenarios.Scenario.Effective); SHA256 is its hex SHA-256 and
	// FormatVersion the scenario format's version.
	Source        string
	Overrides     []string
	SHA256        string
	FormatVersion int
	// SourceTables are shown before the scenario's text (what each
	// variant of a comparison changes), and SourceLabel, when set, says
	// what the text is instead of the default sentence.
	SourceTables []Table
	SourceLabel  string
	// Heading replaces the scenario's name as the page's heading when set
	// (--title), and Note is the reviewer's context, shown under it
	// (--note).
	Heading, Note string
	// Version is the budgetsim version that wrote the report.
	Version string
}

// SetContext gives the page a title and a reviewer's note, each when not
// empty: what the review is deciding, in the words of whoever runs it.
func (r *Report) SetContext(title, note string) {
	if title != "" {
		r.Title, r.Heading = title, title
	}
	r.Note = note
}

// Fact is one label–value pair of the report's header.
type Fact struct{ Label, Value string }

// Section is a titled group of tables or charts; ID is its HTML anchor.
type Section struct {
	ID, Title string
	// Intro is a paragraph before the tables; "" for none. Paragraphs
	// follow it, one a line of argument (a comparison's verdicts).
	Intro      string
	Paragraphs []Paragraph
	Tables     []Table
	Figures    []Figure
	// Code, when not empty, is a command line shown after the tables.
	Code string
}

// Paragraph is a paragraph of argument with a lead shown in bold ("p99:").
type Paragraph struct{ Lead, Text string }

// Table is a table as data: a caption, a header row and rows of cells,
// with notes (footnotes that belong to this table only).
type Table struct {
	Caption string
	Header  []string
	Rows    []Row
	Notes   []string
}

// Row is one table row; Highlight marks the row a reviewer should see
// first (the bottleneck).
type Row struct {
	Cells     []Cell
	Highlight bool
}

// Cell is a value and, when not empty, its confidence interval or a
// qualifier, shown smaller under it. Plain marks text that is not a
// number even when it starts with a digit (a hash), so that it is not
// aligned as one.
type Cell struct {
	Text, Sub string
	Plain     bool
}

// Figure is one chart: its SVG (without the XML prolog, ready to inline)
// or, when it could not be drawn, the reason in Skipped.
type Figure struct {
	// Name is the chart's name (charts.Chart.Name, e.g. "latency_cdf"),
	// used as the HTML anchor; Title its title; Caption says what the
	// data is.
	Name, Title, Caption string
	SVG                  []byte
	Skipped              string
}

// New builds the report of in. It fails only when in lacks a scenario or
// results (Pooled and First); a chart that cannot be drawn becomes a skipped Figure and a
// warning.
func New(in *Input) (*Report, error) {
	if in == nil || in.Scenario == nil || in.Scenario.Config == nil {
		return nil, errors.New("input: no scenario")
	}
	if in.Pooled == nil || in.Pooled.Replications() == 0 || in.First == nil {
		return nil, errors.New("input: results: need at least 1 replication, got 0")
	}
	cfg, s := in.Scenario.Config, &in.Summary
	version := in.Version
	if version == "" {
		version = "devel"
	}
	desc := in.Scenario.Description
	if desc != "" && len(in.Scenario.Overrides) > 0 {
		// The description was written for the file: overrides may change
		// what it describes (a concurrency, a rate), so the page says so.
		desc += " (as the scenario file describes itself; simulated with --set " + strings.Join(in.Scenario.Overrides, " --set ") + ")"
	}
	r := &Report{
		Title:         "budgetsim report · " + cfg.Name,
		Scenario:      cfg.Name,
		Description:   desc,
		File:          in.Scenario.File,
		Source:        string(in.Scenario.Effective()),
		Overrides:     in.Scenario.Overrides,
		SHA256:        in.Scenario.SHA256(),
		FormatVersion: scenarios.FormatVersion,
		Version:       version,
	}
	runs := "until " + render.Seconds(cfg.Horizon.Seconds())
	if cfg.Runs > 0 {
		runs = render.Number(float64(cfg.Runs)) + " arrivals"
		if cfg.Horizon > 0 {
			runs += ", at most " + render.Seconds(cfg.Horizon.Seconds())
		}
	}
	level := "none (one replication)"
	if s.Confidence != nil {
		level = strconv.FormatFloat(100*s.Confidence.Level, 'f', -1, 64) + "% Student-t intervals over replications"
	}
	r.Facts = []Fact{
		{"seed", strconv.FormatUint(cfg.Seed, 10) + " (each replication draws its own random numbers from this seed and its number)"},
		{"replications", strconv.Itoa(in.Pooled.Replications())},
		{"each replication", runs},
		{"confidence", level},
		{"simulated events", render.Number(float64(s.Events))},
		{"scenario", provenance.Args(in.Scenario.File, in.Scenario.Overrides)},
		{"scenario SHA-256", r.SHA256},
		{"scenario format", strconv.Itoa(scenarios.FormatVersion)},
		{"budgetsim", version},
	}
	if s.Partial {
		r.Facts = append(r.Facts, Fact{"partial", "yes: a guard or an interrupt stopped a simulation early"})
	}
	if in.Date != "" {
		r.Facts = append(r.Facts, Fact{"date", in.Date})
	}
	r.Warnings = append(r.Warnings, s.Warnings...)
	figs := figures(in)
	for _, f := range figs {
		if f.Skipped != "" {
			r.Warnings = append(r.Warnings, fmt.Sprintf("chart %q not drawn: %s", f.Title, f.Skipped))
		}
	}
	rec, warnings := recommendSection(in)
	r.Warnings = append(r.Warnings, warnings...)
	r.Sections = []Section{
		outcomeSection(s),
		{ID: "charts", Title: "Charts", Figures: figs},
		littleSection(s),
		capacitySection(s),
		rec,
	}
	return r, nil
}
