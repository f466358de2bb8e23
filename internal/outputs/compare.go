package outputs

import (
	"encoding/csv"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/budgetsim/budgetsim/internal/atomicfile"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// CompareFiles writes a comparison's files (simulate compare --out) into a
// directory, each atomically: latency_cdf.csv, series.csv and (once a
// variant has a tool with a capacity or a rate limit) tools.csv, (once a
// variant has an outage) outages.csv, (once a variant has a circuit
// breaker) breakers.csv, (once a variant has adaptive concurrency)
// limits.csv and (once a variant has classes of work)
// class_latency_cdf.csv grow variant by variant in temporary files;
// Commit adds compare.json and summary.csv and renames them all into
// place.
type CompareFiles struct {
	dir                string
	group              atomicfile.Group // every file, put in place together
	cdf, series, tools *csvFile
	outages            *csvFile
	breakers           *csvFile
	classCDF           *csvFile // class_latency_cdf.csv, once a variant has classes
	limits             *csvFile // limits.csv, once a variant has adaptive concurrency
}

// csvFile is a CSV file being written to a temporary file.
type csvFile struct {
	f  *atomicfile.File
	cw *csv.Writer
}

// newCSVFile starts the CSV file "of" of directory dir, in group g, with
// its declared header.
func newCSVFile(g *atomicfile.Group, dir string, of *File) (*csvFile, error) {
	f, err := g.Create(of.Path(dir))
	if err != nil {
		return nil, err
	}
	c := &csvFile{f: f, cw: csv.NewWriter(f)}
	if err := c.cw.Write(of.Columns); err != nil {
		f.Abort()
		return nil, err
	}
	return c, nil
}

// flush writes the CSV writer's buffer to the file (its group commits it).
func (c *csvFile) flush() error {
	c.cw.Flush()
	return c.cw.Error()
}

// NewCompareFiles creates dir if need be and starts latency_cdf.csv and
// series.csv there, in temporary files.
func NewCompareFiles(dir string) (*CompareFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cf := &CompareFiles{dir: dir}
	var err error
	if cf.cdf, err = newCSVFile(&cf.group, dir, LatencyCDFCSV); err != nil {
		return nil, err
	}
	if cf.series, err = newCSVFile(&cf.group, dir, SeriesCSV); err != nil {
		cf.Abort()
		return nil, err
	}
	return cf, nil
}

// Add appends one variant's rows.
func (cf *CompareFiles) Add(label string, cfg *system.Config, lat *stats.Histogram, series *system.Series) error {
	if err := CDFRows(cf.cdf.cw, label, lat); err != nil {
		return err
	}
	if err := SeriesRows(cf.series.cw, label, series); err != nil {
		return err
	}
	if HasAdaptive(cfg) {
		if cf.limits == nil {
			var err error
			if cf.limits, err = newCSVFile(&cf.group, cf.dir, LimitsCSV); err != nil {
				return err
			}
		}
		if err := LimitRows(cf.limits.cw, cfg, label, series); err != nil {
			return err
		}
	}
	if HasOutages(cfg) {
		if cf.outages == nil {
			var err error
			if cf.outages, err = newCSVFile(&cf.group, cf.dir, OutagesCSV); err != nil {
				return err
			}
		}
		if err := OutageRows(cf.outages.cw, cfg, label); err != nil {
			return err
		}
	}
	if HasBreakers(cfg) {
		if cf.breakers == nil {
			var err error
			if cf.breakers, err = newCSVFile(&cf.group, cf.dir, BreakersCSV); err != nil {
				return err
			}
		}
		if err := BreakerRows(cf.breakers.cw, cfg, label, series); err != nil {
			return err
		}
	}
	if !HasLimitedTools(cfg) {
		return nil
	}
	if cf.tools == nil {
		var err error
		if cf.tools, err = newCSVFile(&cf.group, cf.dir, ToolsCSV); err != nil {
			return err
		}
	}
	return ToolRows(cf.tools.cw, cfg, label, series)
}

// Commit writes compare.json (variants, as JSON: plan/compare's
// summaries) and summary.csv (one row of sums per variant, labelled by
// labels) and puts every file in place.
func (cf *CompareFiles) Commit(variants any, sums []summary.Summary, labels []string) error {
	hasTools, hasOutages, hasBreakers, hasClasses, hasLimits := cf.tools != nil, cf.outages != nil, cf.breakers != nil, cf.classCDF != nil, cf.limits != nil
	err := func() error {
		for _, c := range []*csvFile{cf.cdf, cf.series, cf.tools, cf.outages, cf.breakers, cf.classCDF, cf.limits} {
			if c != nil {
				if err := c.flush(); err != nil {
					return err
				}
			}
		}
		f, err := cf.group.Create(CompareJSON.Path(cf.dir))
		if err != nil {
			return err
		}
		if err := WriteJSON(f, variants); err != nil {
			return err
		}
		f, err = cf.group.Create(SummaryCSV.Path(cf.dir))
		if err != nil {
			return err
		}
		return WriteSummaryCSV(f, sums, labels)
	}()
	cf.cdf, cf.series, cf.tools, cf.outages, cf.breakers, cf.classCDF, cf.limits = nil, nil, nil, nil, nil, nil, nil
	if err != nil {
		cf.group.Abort()
		return err
	}
	if err := cf.group.Commit(); err != nil {
		return err
	}
	// A previous comparison's files in the same directory go.
	for _, f := range []struct {
		name string
		has  bool
	}{{ToolsCSV.Name, hasTools}, {OutagesCSV.Name, hasOutages}, {BreakersCSV.Name, hasBreakers}, {ClassLatencyCDFCSV.Name, hasClasses}, {LimitsCSV.Name, hasLimits}} {
		if f.has {
			continue
		}
		if err := os.Remove(filepath.Join(cf.dir, f.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Abort removes the temporary files not yet committed.
func (cf *CompareFiles) Abort() {
	cf.group.Abort()
	cf.cdf, cf.series, cf.tools, cf.outages, cf.breakers, cf.classCDF, cf.limits = nil, nil, nil, nil, nil, nil, nil
}

// AddClasses appends the completion-time CDF of each class of work of
// one variant to class_latency_cdf.csv, labelled "VARIANT · CLASS"
// (nothing for a variant without classes).
func (cf *CompareFiles) AddClasses(label string, acc *summary.Accumulator) error {
	names, hists := acc.ClassLatencies()
	if len(names) == 0 {
		return nil
	}
	if cf.classCDF == nil {
		var err error
		if cf.classCDF, err = newCSVFile(&cf.group, cf.dir, ClassLatencyCDFCSV); err != nil {
			return err
		}
	}
	for i, name := range names {
		if err := CDFRows(cf.classCDF.cw, ClassLabel(label, name), hists[i]); err != nil {
			return err
		}
	}
	return nil
}

// ClassLabel labels class class of variant variant in a comparison's
// class_latency_cdf.csv and per-class tables: "VARIANT · CLASS".
func ClassLabel(variant, class string) string { return variant + " · " + class }
