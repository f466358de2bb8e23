package charts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

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
	// has records which files exist (a file with only a header parses
	// to nothing but still gets its chart attempted, and skipped).
	has map[string]bool
}

// Has reports whether the directory holds file name (one this package
// reads).
func (d *Dir) Has(name string) bool { return d.has[name] }

// readFile opens dir/name and parses it; found is false when the file does
// not exist.
func readFile[T any](dir, name string, parse func(io.Reader, string) (T, error)) (v T, found bool, err error) {
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return v, false, nil
	}
	if err != nil {
		return v, false, err
	}
	defer f.Close()
	v, err = parse(Bounded(f, path, MaxInputSize), path)
	return v, true, err
}

// keepFirst wraps parse so that it keeps the rows of the first
// MaxSeriesVariants variants of its file (firstVariants), counting the
// others in d.VariantsOmitted.
func keepFirst[T any](d *Dir, parse func(io.Reader, string) (T, error)) func(io.Reader, string) (T, error) {
	return func(r io.Reader, name string) (T, error) {
		fv := &firstVariants{Reader: r, max: MaxSeriesVariants}
		v, err := parse(fv, name)
		d.VariantsOmitted = max(d.VariantsOmitted, fv.omitted)
		return v, err
	}
}

// MaxInputSize bounds each file this package reads: results files are
// megabytes, so a larger one is not budgetsim's output, and reading it
// whole could exhaust memory.
const MaxInputSize = 1 << 30

// Bounded returns r, which reads at most limit bytes: a read past them
// fails with an error that names the file and the limit.
func Bounded(r io.Reader, name string, limit int64) io.Reader {
	return &boundedReader{r: io.LimitReader(r, limit+1), name: name, limit: limit}
}

// boundedReader is Bounded's reader; read counts the bytes read so far.
type boundedReader struct {
	r           io.Reader
	name        string
	limit, read int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read += int64(n)
	if b.read > b.limit {
		return n - int(b.read-b.limit), fmt.Errorf("%s: larger than %d bytes, too large for a budgetsim results file", b.name, b.limit)
	}
	return n, err
}

// ReadDir reads every input dir holds, checking them all before anything
// is drawn, so that a malformed file draws no chart at all. objective
// parses plan.json's objectives (ParseObjective reads plan/search's
// grammar; tests may pass any function).
func ReadDir(dir string, objective func(string) (Objective, error)) (*Dir, error) {
	d := &Dir{Path: dir, has: map[string]bool{}}
	var err error
	var found bool
	// compare.json describes several variants; a directory holding both
	// is a compare run's, whose series.csv has one block per variant.
	for _, name := range []string{"compare.json", "summary.json"} {
		if d.Summaries, found, err = readFile(dir, name, ReadSummaries); err != nil {
			return nil, err
		}
		if found {
			d.Compare, d.has[name] = name == "compare.json", true
			break
		}
	}
	if len(d.Summaries) > 0 {
		d.Scenario = d.Summaries[0].Scenario
	}
	if d.CDFs, d.has["latency_cdf.csv"], err = readFile(dir, "latency_cdf.csv", keepFirst(d, ReadCDF)); err != nil {
		return nil, err
	}
	if d.ClassCDFs, d.has["class_latency_cdf.csv"], err = readFile(dir, "class_latency_cdf.csv", keepFirst(d, ReadCDF)); err != nil {
		return nil, err
	}
	readBounded := func(r io.Reader, name string) ([]Series, error) {
		s, omitted, err := readSeriesUpTo(r, name, MaxSeriesVariants)
		d.VariantsOmitted = max(d.VariantsOmitted, omitted)
		return s, err
	}
	if d.Series, d.has["series.csv"], err = readFile(dir, "series.csv", readBounded); err != nil {
		return nil, err
	}
	if d.Sweep, d.has["sweep.csv"], err = readFile(dir, "sweep.csv", ReadSweep); err != nil {
		return nil, err
	}
	readPlan := func(r io.Reader, name string) (*Target, error) { return ReadPlan(r, name, objective) }
	if d.Target, d.has["plan.json"], err = readFile(dir, "plan.json", readPlan); err != nil {
		return nil, err
	}
	if d.Tail, d.has["tail.csv"], err = readFile(dir, "tail.csv", ReadTail); err != nil {
		return nil, err
	}
	d.tailFrom = filepath.Join(dir, "tail.csv")
	if !d.has["tail.csv"] {
		for _, s := range d.Summaries {
			for _, st := range s.Tail.Stages {
				if st.Seconds > 0 {
					d.Tail = TailFromSummaries(d.Summaries)
					d.tailFrom = "the summary's tail"
					d.has["tail.csv"] = true
				}
			}
		}
	}
	if d.Tools, d.has["tools.csv"], err = readFile(dir, "tools.csv", keepFirst(d, ReadTools)); err != nil {
		return nil, err
	}
	if d.Outages, d.has["outages.csv"], err = readFile(dir, "outages.csv", keepFirst(d, ReadOutages)); err != nil {
		return nil, err
	}
	if d.Breakers, d.has["breakers.csv"], err = readFile(dir, "breakers.csv", keepFirst(d, ReadBreakers)); err != nil {
		return nil, err
	}
	if d.Limits, d.has["limits.csv"], err = readFile(dir, "limits.csv", keepFirst(d, ReadLimits)); err != nil {
		return nil, err
	}
	return d, nil
}

// ReadPlan reads what the sweep charts draw of plan.json (simulate plan
// --out): the objectives, each parsed by objective, and the answer.
func ReadPlan(r io.Reader, name string, objective func(string) (Objective, error)) (*Target, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var p struct {
		Provenance *provenance.Record `json:"provenance"`
		Value      *float64           `json:"value"`
		Found      bool               `json:"found"`
		SLOs       []string           `json:"slos"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, jsonError(name, data, err)
	}
	t := &Target{Plan: true, Found: p.Found && p.Value != nil, Provenance: p.Provenance}
	if t.Found {
		t.Answer = *p.Value
	}
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
	at := func(name string) string { return filepath.Join(d.Path, name) }
	if d.has["latency_cdf.csv"] {
		bs = append(bs, Build{at("latency_cdf.csv"), func() (*Chart, error) { return CDFChart(d.CDFs, d.Summaries) }})
	}
	if d.has["class_latency_cdf.csv"] {
		bs = append(bs, Build{at("class_latency_cdf.csv"), func() (*Chart, error) { return ClassCDFChart(d.ClassCDFs, d.Summaries, d.Compare) }})
	}
	series, tools, limits := d.seriesBuilds()
	bs = append(bs, series...)
	if d.has["sweep.csv"] {
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
				bs = append(bs, Build{at("sweep.csv"), func() (*Chart, error) {
					ch, err := f(g, d.Target)
					if err == nil {
						ch.Name += suffix
					}
					return ch, err
				}})
			}
		}
	}
	if d.has["tail.csv"] {
		bs = append(bs, Build{d.tailFrom, func() (*Chart, error) { return TailChart(d.Tail, d.Summaries...) }})
	}
	bs = append(bs, tools...)
	if HasTokenLimits(d.Summaries) {
		from := at("summary.json")
		if d.Compare {
			from = at("compare.json")
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
	at := func(name string) string { return filepath.Join(d.Path, name) }
	shaded := func(f func() (*Chart, error)) func() (*Chart, error) {
		return func() (*Chart, error) {
			ch, err := f()
			if err == nil {
				ShadeTimeSeries(ch, d.Series, d.Outages)
			}
			return ch, err
		}
	}
	if d.has["series.csv"] {
		series = append(series,
			Build{at("series.csv"), shaded(func() (*Chart, error) { return InSystemChart(d.Series, d.Summaries) })},
			Build{at("series.csv"), shaded(func() (*Chart, error) { return AttemptRateChart(d.Series) })})
	}
	if d.has["tools.csv"] {
		tools = append(tools, Build{at("tools.csv"), shaded(func() (*Chart, error) { return UtilisationChart(d.Tools) })})
		// Many variants × tools overlap into a block: each variant's
		// tools also on a chart of their own.
		if vs := variantsOf(d.Tools); len(vs) > 1 && len(vs)*len(toolsOf(d.Tools)) > maxUtilisationLines {
			for _, v := range vs {
				tools = append(tools, Build{at("tools.csv"), shaded(func() (*Chart, error) {
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
	if d.has["breakers.csv"] {
		tools = append(tools, Build{at("breakers.csv"), shaded(func() (*Chart, error) { return BreakerChart(d.Breakers) })})
	}
	if d.has["limits.csv"] {
		limits = append(limits, Build{at("limits.csv"), shaded(func() (*Chart, error) { return LimitChart(d.Limits) })})
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
