package charts

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/internal/provenance"
)

// Dir is a results directory read: the files `simulate run|compare|sweep|
// plan --out DIR` writes, parsed. cmd/plot draws its charts into files,
// cmd/report into a page.
type Dir struct {
	Path string
	// Scenario is the scenario's name, from the summaries ("" without).
	Scenario  string
	Summaries []Summary // summary.json, or compare.json's variants
	Compare   bool      // the summaries are compare.json's
	CDFs      []CDF
	// ClassCDFs are class_latency_cdf.csv's: each class of work's
	// completion-time CDF (of each variant, for a comparison).
	ClassCDFs []CDF
	Series    []Series
	// VariantsOmitted counts the variants beyond MaxSeriesVariants whose
	// rows of the per-variant files (series.csv, latency_cdf.csv,
	// class_latency_cdf.csv, tools.csv, outages.csv, breakers.csv,
	// limits.csv) were not kept: the most any of them left out.
	VariantsOmitted int
	Sweep           []SweepPoint
	Tail            []TailStage
	Tools           []ToolSample
	Outages         []Outage
	Breakers        []BreakerSample
	Limits          []LimitSample
	// Target is plan.json's objectives and answer; nil without.
	Target *Target

	tailFrom string
	hasTail  bool // a summary records a tail breakdown
	// has records which files exist (a file with only a header parses
	// to nothing but still gets its chart attempted, and skipped).
	has map[*outputs.File]bool
}

// Has reports whether the directory holds file f (one this package
// reads).
func (d *Dir) Has(f *outputs.File) bool { return d.has[f] }

// keepFirst wraps parse so that it keeps the rows of the first
// MaxSeriesVariants variants of its file (outputs.FirstVariants),
// counting the others in d.VariantsOmitted.
func keepFirst[T any](d *Dir, parse func(io.Reader, string) (T, error)) func(io.Reader, string) (T, error) {
	return func(r io.Reader, name string) (T, error) {
		fv := outputs.FirstVariants(r, MaxSeriesVariants)
		v, err := parse(fv, name)
		d.VariantsOmitted = max(d.VariantsOmitted, fv.Omitted())
		return v, err
	}
}

// ReadDir reads every input dir holds, checking them all before anything
// is drawn, so that a malformed file draws no chart at all. objective
// parses plan.json's objectives (ParseObjective reads plan/search's
// grammar; tests may pass any function).
func ReadDir(dir string, objective func(string) (Objective, error)) (*Dir, error) {
	d := &Dir{Path: dir, has: map[*outputs.File]bool{}}
	var err error
	var found bool
	// compare.json describes several variants; a directory holding both
	// is a compare run's, whose series.csv has one block per variant.
	readSummaries := func(r io.Reader, name string) ([]Summary, error) {
		s, omitted, err := outputs.ReadSummariesUpTo(r, name, MaxSeriesVariants)
		d.VariantsOmitted = max(d.VariantsOmitted, omitted)
		return s, err
	}
	for _, f := range []*outputs.File{outputs.CompareJSON, outputs.SummaryJSON} {
		if d.Summaries, found, err = outputs.ReadFile(dir, f, readSummaries); err != nil {
			return nil, err
		}
		if found {
			d.Compare, d.has[f] = f == outputs.CompareJSON, true
			break
		}
	}
	if len(d.Summaries) > 0 {
		d.Scenario = d.Summaries[0].Scenario
	}
	if d.CDFs, d.has[outputs.LatencyCDFCSV], err = outputs.ReadFile(dir, outputs.LatencyCDFCSV, keepFirst(d, outputs.ReadCDF)); err != nil {
		return nil, err
	}
	if d.ClassCDFs, d.has[outputs.ClassLatencyCDFCSV], err = outputs.ReadFile(dir, outputs.ClassLatencyCDFCSV, keepFirst(d, outputs.ReadCDF)); err != nil {
		return nil, err
	}
	readSeries := func(r io.Reader, name string) ([]Series, error) {
		s, omitted, err := outputs.ReadSeriesUpTo(r, name, MaxSeriesVariants)
		d.VariantsOmitted = max(d.VariantsOmitted, omitted)
		return s, err
	}
	if d.Series, d.has[outputs.SeriesCSV], err = outputs.ReadFile(dir, outputs.SeriesCSV, readSeries); err != nil {
		return nil, err
	}
	if d.Sweep, d.has[outputs.SweepCSV], err = outputs.ReadFile(dir, outputs.SweepCSV, outputs.ReadSweep); err != nil {
		return nil, err
	}
	readPlan := func(r io.Reader, name string) (*Target, error) {
		p, err := outputs.ReadPlan(r, name)
		if err != nil {
			return nil, err
		}
		return targetOf(p, name, objective)
	}
	if d.Target, d.has[outputs.PlanJSON], err = outputs.ReadFile(dir, outputs.PlanJSON, readPlan); err != nil {
		return nil, err
	}
	// The tail chart draws the summaries' breakdown of the p99 run.
	for _, s := range d.Summaries {
		for _, st := range s.Tail.Stages {
			if st.Seconds > 0 {
				d.Tail = TailFromSummaries(d.Summaries)
				d.tailFrom = "the summary's tail"
				d.hasTail = true
			}
		}
	}
	if d.Tools, d.has[outputs.ToolsCSV], err = outputs.ReadFile(dir, outputs.ToolsCSV, keepFirst(d, outputs.ReadTools)); err != nil {
		return nil, err
	}
	if d.Outages, d.has[outputs.OutagesCSV], err = outputs.ReadFile(dir, outputs.OutagesCSV, keepFirst(d, outputs.ReadOutages)); err != nil {
		return nil, err
	}
	if d.Breakers, d.has[outputs.BreakersCSV], err = outputs.ReadFile(dir, outputs.BreakersCSV, keepFirst(d, outputs.ReadBreakers)); err != nil {
		return nil, err
	}
	if d.Limits, d.has[outputs.LimitsCSV], err = outputs.ReadFile(dir, outputs.LimitsCSV, keepFirst(d, outputs.ReadLimits)); err != nil {
		return nil, err
	}
	return d, nil
}

// targetOf is the sweep charts' target of plan p: its objectives, each
// parsed by objective, and its answer.
func targetOf(p *outputs.Plan, name string, objective func(string) (Objective, error)) (*Target, error) {
	t := &Target{Plan: true, Found: p.Found, Answer: p.Answer, Provenance: p.Provenance}
	for _, s := range p.SLOs {
		o, err := objective(s)
		if err != nil {
			return nil, fmt.Errorf("%s: slos: %v", name, err)
		}
		t.Objectives = append(t.Objectives, o)
	}
	return t, nil
}

// Build is one chart a directory supports: From names its input, Build
// draws it (an error wrapping ErrNoData when the input holds nothing to
// draw).
type Build struct {
	From  string
	Build func() (*Chart, error)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Builds lists the charts the directory's files support, in a fixed order:
// the completion-time CDF (with the success rates), runs in the system and
// attempt rates (shaded by ShadeTimeSeries), the sweep charts of each
// curve (with plan.json's objectives and answer), the tail, the tool
// utilisation and the circuit breakers' state (both shaded).
func (d *Dir) Builds() []Build {
	var bs []Build
	at := func(f *outputs.File) string { return f.Path(d.Path) }
	if d.has[outputs.LatencyCDFCSV] {
		bs = append(bs, Build{at(outputs.LatencyCDFCSV), func() (*Chart, error) { return CDFChart(d.CDFs, d.Summaries) }})
	}
	if d.has[outputs.ClassLatencyCDFCSV] {
		bs = append(bs, Build{at(outputs.ClassLatencyCDFCSV), func() (*Chart, error) { return ClassCDFChart(d.ClassCDFs, d.Summaries, d.Compare) }})
	}
	series, tools, limits := d.seriesBuilds()
	bs = append(bs, series...)
	if d.has[outputs.SweepCSV] {
		groups := SplitSweep(d.Sweep)
		if len(groups) == 0 {
			groups = [][]SweepPoint{nil} // header only: skipped with ErrNoData
		}
		for _, g := range groups {
			suffix := ""
			if len(groups) > 1 && len(g) > 0 {
				suffix = "_" + unsafeName.ReplaceAllString(g[0].Parameter, "_")
			}
			for _, f := range []func([]SweepPoint, *Target) (*Chart, error){SweepLatencyChart, SweepSuccessChart} {
				bs = append(bs, Build{at(outputs.SweepCSV), func() (*Chart, error) {
					ch, err := f(g, d.Target)
					if err == nil {
						ch.Name += suffix
					}
					return ch, err
				}})
			}
		}
	}
	if d.hasTail {
		bs = append(bs, Build{d.tailFrom, func() (*Chart, error) { return TailChart(d.Tail, d.Summaries...) }})
	}
	bs = append(bs, tools...)
	if HasTokenLimits(d.Summaries) {
		from := at(outputs.SummaryJSON)
		if d.Compare {
			from = at(outputs.CompareJSON)
		}
		bs = append(bs, Build{from, func() (*Chart, error) { return TokenChart(d.Summaries) }})
	}
	bs = append(bs, limits...)
	return d.withNote(bs)
}

// seriesBuilds returns the builds of the time-series charts, shaded by
// ShadeTimeSeries: runs in the system and attempt rates (series.csv), tool
// utilisation and circuit breakers (tools.csv, breakers.csv), and adaptive
// limits (limits.csv), in three groups for Builds to place.
func (d *Dir) seriesBuilds() (series, tools, limits []Build) {
	at := func(f *outputs.File) string { return f.Path(d.Path) }
	shaded := func(f func() (*Chart, error)) func() (*Chart, error) {
		return func() (*Chart, error) {
			ch, err := f()
			if err == nil {
				ShadeTimeSeries(ch, d.Series, d.Outages)
			}
			return ch, err
		}
	}
	if d.has[outputs.SeriesCSV] {
		series = append(series,
			Build{at(outputs.SeriesCSV), shaded(func() (*Chart, error) { return InSystemChart(d.Series, d.Summaries) })},
			Build{at(outputs.SeriesCSV), shaded(func() (*Chart, error) { return AttemptRateChart(d.Series) })})
	}
	if d.has[outputs.ToolsCSV] {
		tools = append(tools, Build{at(outputs.ToolsCSV), shaded(func() (*Chart, error) { return UtilisationChart(d.Tools) })})
		// Many variants × tools overlap into a block: each variant's
		// tools also on a chart of their own.
		if vs := variantsOf(d.Tools); len(vs) > 1 && len(vs)*len(toolsOf(d.Tools)) > maxUtilisationLines {
			for _, v := range vs {
				tools = append(tools, Build{at(outputs.ToolsCSV), shaded(func() (*Chart, error) {
					var mine []ToolSample
					for _, s := range d.Tools {
						if s.Variant == v {
							mine = append(mine, s)
						}
					}
					ch, err := UtilisationChart(mine)
					if err == nil {
						ch.Name += "_" + unsafeName.ReplaceAllString(v, "_")
						ch.Title += " · " + v
					}
					return ch, err
				})})
			}
		}
	}
	if d.has[outputs.BreakersCSV] {
		tools = append(tools, Build{at(outputs.BreakersCSV), shaded(func() (*Chart, error) { return BreakerChart(d.Breakers) })})
	}
	if d.has[outputs.LimitsCSV] {
		limits = append(limits, Build{at(outputs.LimitsCSV), shaded(func() (*Chart, error) { return LimitChart(d.Limits) })})
	}
	return series, tools, limits
}

// withNote adds the directory's provenance note to each chart of bs.
func (d *Dir) withNote(bs []Build) []Build {
	if note := d.ProvenanceNote(); note != "" {
		for i, b := range bs {
			build := b.Build
			bs[i].Build = func() (*Chart, error) {
				ch, err := build()
				if err == nil {
					ch.Notes = append(ch.Notes, note)
				}
				return ch, err
			}
		}
	}
	return bs
}

// ProvenanceNote is the footnote that ties a chart in a review to what
// produced it: the scenario file, the SHA-256 of the scenario text as
// simulated (of each variant's, for a comparison; the first 12 hex
// digits, as the tables' header shows them), the scenario format and the
// build, from the provenance that summary.json, compare.json or plan.json
// records; "" when the directory records none.
func (d *Dir) ProvenanceNote() string {
	var ps []*provenance.Record
	var labels []string
	for _, s := range d.Summaries {
		if s.Provenance == nil {
			ps = nil
			break
		}
		ps, labels = append(ps, s.Provenance), append(labels, s.Label)
	}
	if len(ps) == 0 && d.Target != nil && d.Target.Provenance != nil {
		ps = []*provenance.Record{d.Target.Provenance}
	}
	if len(ps) == 0 {
		return ""
	}
	short := func(sha string) string { return sha[:min(12, len(sha))] }
	sha := "SHA-256 " + short(ps[0].SHA256)
	if len(ps) > 1 {
		var each []string
		for i, p := range ps {
			each = append(each, labels[i]+" "+short(p.SHA256))
		}
		sha = "SHA-256 per variant: " + strings.Join(each, ", ")
	}
	return fmt.Sprintf("Scenario %s (%s, format %d), as simulated: %s; budgetsim %s. The summary JSON beside the data holds its text and overrides.",
		ps[0].Scenario, ps[0].File, ps[0].FormatVersion, sha, ps[0].Budgetsim)
}

// maxUtilisationLines is the most lines (variants × tools) the
// utilisation chart holds alone: past it each variant also gets a chart.
const maxUtilisationLines = 4

// variantsOf and toolsOf return the distinct variants and tools of
// samples, in the order they first appear.
func variantsOf(samples []ToolSample) []string {
	var out []string
	for _, s := range samples {
		if !slices.Contains(out, s.Variant) {
			out = append(out, s.Variant)
		}
	}
	return out
}

func toolsOf(samples []ToolSample) []string {
	var out []string
	for _, s := range samples {
		if !slices.Contains(out, s.Tool) {
			out = append(out, s.Tool)
		}
	}
	return out
}
