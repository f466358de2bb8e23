package compare

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/budgetsim/budgetsim/internal/atomicfile"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Files writes a comparison's files into a directory, each
// atomically: latency_cdf.csv, series.csv and (once a variant has a tool
// with a capacity or a rate limit) tools.csv, (once a variant has an
// outage) outages.csv, (once a variant has a circuit breaker) breakers.csv
// and (once a variant has adaptive concurrency) limits.csv grow variant by
// variant in temporary files; Commit
// adds compare.json and summary.csv and renames them all into place.
type Files struct {
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

func newCSVFile(g *atomicfile.Group, path string, header []string) (*csvFile, error) {
	f, err := g.Create(path)
	if err != nil {
		return nil, err
	}
	c := &csvFile{f: f, cw: csv.NewWriter(f)}
	if err := c.cw.Write(header); err != nil {
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

// NewFiles creates dir if need be and starts latency_cdf.csv and
// series.csv there, in temporary files.
func NewFiles(dir string) (*Files, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cf := &Files{dir: dir}
	var err error
	if cf.cdf, err = newCSVFile(&cf.group, filepath.Join(dir, "latency_cdf.csv"), render.CDFHeader); err != nil {
		return nil, err
	}
	if cf.series, err = newCSVFile(&cf.group, filepath.Join(dir, "series.csv"), render.SeriesHeader); err != nil {
		cf.Abort()
		return nil, err
	}
	return cf, nil
}

// Add appends one variant's rows.
func (cf *Files) Add(label string, cfg *system.Config, lat *stats.Histogram, series *system.Series) error {
	if err := render.CDFRows(cf.cdf.cw, label, lat); err != nil {
		return err
	}
	if err := render.SeriesRows(cf.series.cw, label, series); err != nil {
		return err
	}
	if render.HasAdaptive(cfg) {
		if cf.limits == nil {
			var err error
			if cf.limits, err = newCSVFile(&cf.group, filepath.Join(cf.dir, "limits.csv"), render.LimitsHeader); err != nil {
				return err
			}
		}
		if err := render.LimitRows(cf.limits.cw, cfg, label, series); err != nil {
			return err
		}
	}
	if render.HasOutages(cfg) {
		if cf.outages == nil {
			var err error
			if cf.outages, err = newCSVFile(&cf.group, filepath.Join(cf.dir, "outages.csv"), render.OutagesHeader); err != nil {
				return err
			}
		}
		if err := render.OutageRows(cf.outages.cw, cfg, label); err != nil {
			return err
		}
	}
	if render.HasBreakers(cfg) {
		if cf.breakers == nil {
			var err error
			if cf.breakers, err = newCSVFile(&cf.group, filepath.Join(cf.dir, "breakers.csv"), render.BreakersHeader); err != nil {
				return err
			}
		}
		if err := render.BreakerRows(cf.breakers.cw, cfg, label, series); err != nil {
			return err
		}
	}
	if !render.HasLimitedTools(cfg) {
		return nil
	}
	if cf.tools == nil {
		var err error
		if cf.tools, err = newCSVFile(&cf.group, filepath.Join(cf.dir, "tools.csv"), render.ToolsHeader); err != nil {
			return err
		}
	}
	return render.ToolRows(cf.tools.cw, cfg, label, series)
}

// Commit writes compare.json and summary.csv and puts every file in place.
func (cf *Files) Commit(out []Summary) error {
	sums := make([]summary.Summary, len(out))
	labels := make([]string, len(out))
	for i, v := range out {
		sums[i], labels[i] = v.Summary, v.Name
	}
	hasTools, hasOutages, hasBreakers, hasClasses, hasLimits := cf.tools != nil, cf.outages != nil, cf.breakers != nil, cf.classCDF != nil, cf.limits != nil
	err := func() error {
		for _, c := range []*csvFile{cf.cdf, cf.series, cf.tools, cf.outages, cf.breakers, cf.classCDF, cf.limits} {
			if c != nil {
				if err := c.flush(); err != nil {
					return err
				}
			}
		}
		f, err := cf.group.Create(filepath.Join(cf.dir, "compare.json"))
		if err != nil {
			return err
		}
		if err := render.JSON(f, out); err != nil {
			return err
		}
		f, err = cf.group.Create(filepath.Join(cf.dir, "summary.csv"))
		if err != nil {
			return err
		}
		return render.SummaryCSV(f, sums, labels)
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
	}{{"tools.csv", hasTools}, {"outages.csv", hasOutages}, {"breakers.csv", hasBreakers}, {"class_latency_cdf.csv", hasClasses}, {"limits.csv", hasLimits}} {
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
func (cf *Files) Abort() {
	cf.group.Abort()
	cf.cdf, cf.series, cf.tools, cf.outages, cf.breakers, cf.classCDF, cf.limits = nil, nil, nil, nil, nil, nil, nil
}

// AddClasses appends the completion-time CDF of each class of work of
// one variant to class_latency_cdf.csv, labelled "VARIANT · CLASS"
// (nothing for a variant without classes).
func (cf *Files) AddClasses(label string, acc *summary.Accumulator) error {
	names, hists := acc.ClassLatencies()
	if len(names) == 0 {
		return nil
	}
	if cf.classCDF == nil {
		var err error
		if cf.classCDF, err = newCSVFile(&cf.group, filepath.Join(cf.dir, "class_latency_cdf.csv"), render.CDFHeader); err != nil {
			return err
		}
	}
	for i, name := range names {
		if err := render.CDFRows(cf.classCDF.cw, ClassLabel(label, name), hists[i]); err != nil {
			return err
		}
	}
	return nil
}

// ClassLabel labels class class of variant variant in a comparison's
// per-class files and tables.
func ClassLabel(variant, class string) string { return variant + " · " + class }

// ReadJSON reads compare.json, as Commit writes it: the variants in
// order, each with its summary and paired differences. The report page
// reads its figures from here rather than recomputing them.
func ReadJSON(r io.Reader, name string) ([]Summary, error) {
	var out []Summary
	dec := json.NewDecoder(r)
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}
