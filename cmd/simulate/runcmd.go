package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/budgetsim/budgetsim/internal/cli"
	"github.com/budgetsim/budgetsim/internal/outputs"

	"github.com/budgetsim/budgetsim/internal/atomicfile"
	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/internal/trace"
	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
	"github.com/budgetsim/budgetsim/sim/stats"
)

func init() {
	register(command{name: "run", synopsis: "simulate run SCENARIO [flags]        outcomes, latency percentiles, Little's law, retries; --trace for per-attempt records", run: (*env).run, graceful: true})
}

func (e *env) run(args []string) error {
	fs, sf := newScenarioFlagSet("run", e.stderr, "run SCENARIO [flags]")
	tracePath := fs.String("trace", "", "write a per-attempt trace of replication 0 to `FILE`")
	traceFormat := fs.String("trace-format", "jsonl", "trace format: jsonl (one JSON object per attempt and run) or chrome (Trace Event format for Perfetto)")
	traceRuns := fs.Int64("trace-runs", 1000, "trace the first `N` runs (arrival order, warm-up included)")
	otlpPath := fs.String("otlp", "", "write the traced runs (--trace-runs) of replication 0 as OTLP JSON spans with the GenAI conventions to `FILE`, for a trace viewer or simulate calibrate")
	outDir := fs.String("out", "", "also write summary.json, summary.csv, latency_cdf.csv, series.csv, (for tools with a capacity or a rate limit) tools.csv, (with outages) outages.csv (with circuit breakers) breakers.csv and (with adaptive concurrency) limits.csv to `DIR`, as one atomic group")
	scenario, err := cli.ScenarioArg(fs, sf, args, "run")
	if err != nil {
		return err
	}
	e.setFormat(sf.Format, sf.Wide)
	if *traceFormat != "jsonl" && *traceFormat != "chrome" {
		return cli.Usagef("--trace-format: must be jsonl or chrome, got %q", *traceFormat)
	}
	if *traceRuns < 0 {
		return cli.Usagef("--trace-runs: must be ≥ 0, got %d", *traceRuns)
	}
	sc, err := scenarios.Load(scenario, sf.AllSets())
	if err != nil {
		return err
	}
	if *outDir != "" {
		if err := cli.CheckOutDir(*outDir); err != nil {
			return err
		}
	}
	if *tracePath != "" {
		if err := cli.CheckOutFile("--trace", *tracePath); err != nil {
			return err
		}
		if *outDir != "" && sameDir(filepath.Dir(*tracePath), *outDir) && slices.ContainsFunc(runOutputs, func(f *outputs.File) bool { return f.Name == filepath.Base(*tracePath) }) {
			return cli.Usagef("--trace %s: --out %s writes that file too; name another", *tracePath, *outDir)
		}
	}
	if *otlpPath != "" {
		if err := cli.CheckOutFile("--otlp", *otlpPath); err != nil {
			return err
		}
	}
	cfg := sc.Config
	opt := system.Options{Interrupt: e.interrupted, TraceRuns: *traceRuns}
	var finishTrace func(ok bool) error
	if *tracePath != "" {
		f, err := atomicfile.Create(*tracePath)
		if err != nil {
			return err
		}
		switch *traceFormat {
		case "jsonl":
			t := trace.NewJSONL(f)
			opt.Tracer = t
			finishTrace = func(ok bool) error {
				if t.Err() != nil {
					f.Abort()
					return t.Err()
				}
				return f.Commit()
			}
		case "chrome":
			t := trace.NewChrome(f)
			opt.Tracer = t
			finishTrace = func(ok bool) error {
				if err := t.Close(); err != nil {
					f.Abort()
					return err
				}
				return f.Commit()
			}
		}
	}
	finishOTLP, err := otlpTracer(*otlpPath, cfg, &opt)
	if err != nil {
		return err
	}
	// Replications are pooled as they complete: memory holds a few, not
	// all of them. Replication 0's series is kept for --out.
	// Many replications take a while: a progress line on a terminal.
	prog := cli.NewProgress(e.stderr, "run", time.Now)
	acc, first := replicate.PooledEach(cfg, sf.Replications, sf.Parallel, opt, sf.Level, func(i int) {
		prog.Update(0, 0, i+1, sf.Replications)
	})
	prog.Done()
	sum := acc.Summary()
	if finishTrace != nil {
		if err := finishTrace(true); err != nil {
			return err
		}
	}
	if err := finishOTLP(); err != nil {
		return err
	}
	// The summary is printed even when --out cannot be written (a full
	// disk): the simulation is not lost, and the exit status says so.
	var outErr error
	if *outDir != "" {
		classes, classLat := acc.ClassLatencies()
		outErr = writeOutputs(*outDir, sc, sum, acc.Latency(), first, classes, classLat)
	}
	if sf.Format == "json" {
		if err := render.JSON(e.stdout, summaryFile{provenance.Of(sc), sum}); err != nil {
			return err
		}
	} else if err := render.ScenarioSummaryTable(e.stdout, sc, &sum); err != nil {
		return err
	}
	if outErr != nil {
		return outFailed(*outDir, outErr)
	}
	if e.interrupted.Load() {
		return cli.ErrInterrupted
	}
	return nil
}

// sameDir reports whether two directory paths name the same directory,
// however spelt (relative, absolute, through a link).
func sameDir(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// summaryFile is summary.json (and run's JSON): the summary, after the
// provenance of what produced it.
type summaryFile struct {
	Provenance provenance.Record `json:"provenance"`
	summary.Summary
}

// runOutputs are the files run --out writes.
var runOutputs = []*outputs.File{outputs.SummaryJSON, outputs.SummaryCSV, outputs.LatencyCDFCSV, outputs.ClassLatencyCDFCSV, outputs.ToolsCSV, outputs.SeriesCSV, outputs.OutagesCSV, outputs.BreakersCSV, outputs.LimitsCSV}

// writeOutputs writes the summary and the time series into dir as one
// group: no file replaces its previous version until all are written, and
// a run output this run does not produce (tools.csv of an earlier scenario
// with limited tools) is removed, so the directory never mixes two runs.
//
// With classes of work, class_latency_cdf.csv holds each class's
// completion-time CDF (classes names them, classLat holds them).
func writeOutputs(dir string, sc *scenarios.Scenario, sum summary.Summary, lat *stats.Histogram, first *system.Result, classes []string, classLat []*stats.Histogram) error {
	name := []string{sum.Scenario}
	files := []outFile{
		{outputs.SummaryJSON.Name, func(w io.Writer) error { return outputs.WriteJSON(w, summaryFile{provenance.Of(sc), sum}) }},
		{outputs.SummaryCSV.Name, func(w io.Writer) error { return outputs.WriteSummaryCSV(w, []summary.Summary{sum}, nil) }},
		{outputs.LatencyCDFCSV.Name, func(w io.Writer) error { return outputs.WriteCDF(w, name, []*stats.Histogram{lat}) }},
	}
	if len(classes) > 0 {
		files = append(files, outFile{outputs.ClassLatencyCDFCSV.Name, func(w io.Writer) error { return outputs.WriteCDF(w, classes, classLat) }})
	}
	if first != nil {
		series := []*system.Series{first.Series}
		if outputs.HasLimitedTools(sc.Config) {
			files = append(files, outFile{outputs.ToolsCSV.Name, func(w io.Writer) error { return outputs.WriteTools(w, []*system.Config{sc.Config}, name, series) }})
		}
		files = append(files, outFile{outputs.SeriesCSV.Name, func(w io.Writer) error { return outputs.WriteSeries(w, name, series) }})
		if outputs.HasOutages(sc.Config) { // shaded on the time-series charts
			files = append(files, outFile{outputs.OutagesCSV.Name, func(w io.Writer) error { return outputs.WriteOutages(w, sc.Config, name[0]) }})
		}
		if outputs.HasBreakers(sc.Config) {
			files = append(files, outFile{outputs.BreakersCSV.Name, func(w io.Writer) error { return outputs.WriteBreakers(w, sc.Config, name[0], first.Series) }})
		}
		if outputs.HasAdaptive(sc.Config) {
			files = append(files, outFile{outputs.LimitsCSV.Name, func(w io.Writer) error { return outputs.WriteLimits(w, sc.Config, name[0], first.Series) }})
		}
	}
	if err := writeFiles(dir, files...); err != nil {
		return err
	}
	var stale []string
	for _, o := range runOutputs {
		if !slices.ContainsFunc(files, func(f outFile) bool { return f.name == o.Name }) {
			stale = append(stale, o.Name)
		}
	}
	return removeStale(dir, stale...)
}

// removeStale removes the named outputs of an earlier run from dir, so that
// it describes only the run that just wrote it; absent ones are fine.
func removeStale(dir string, names ...string) error {
	for _, n := range names {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// outFile is one file of an output directory and what writes it.
type outFile struct {
	name  string
	write func(w io.Writer) error
}

// outFailed is the error of a command that printed its result but could
// not write its --out files.
func outFailed(dir string, err error) error {
	return fmt.Errorf("--out %s: %w (the result printed above is complete; the files there are as they were)", dir, err)
}

// writeFiles writes files into dir as one atomicfile.Group: none replaces
// its previous version unless all were written.
func writeFiles(dir string, files ...outFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var g atomicfile.Group
	for _, f := range files {
		w, err := g.Create(filepath.Join(dir, f.name))
		if err == nil {
			err = f.write(w)
		}
		if err != nil {
			g.Abort()
			return err
		}
	}
	return g.Commit()
}

func writeCSV(path string, write func(w io.Writer) error) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

func init() {
	register(command{name: "list", synopsis: "simulate list                        the bundled scenarios", run: (*env).list})
}

func (e *env) list(args []string) error {
	fs := newFlagSet("list", e.stderr, "list [--names] [--format table|markdown] [--wide]")
	names := fs.Bool("names", false, "print only the names, one per line (for scripts)")
	format := fs.String("format", "table", "output: table (fitted to the terminal's width, or 100 columns in a pipe) or markdown")
	wide := fs.Bool("wide", false, "print the table whole, as wide as its contents")
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if err := cli.CheckFormat(*format, "table", "markdown"); err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.Usagef("list takes no arguments but --names (one name per line, for scripts), got %q", pos[0])
	}
	if *names {
		for _, n := range scenarios.Names() {
			fmt.Fprintln(e.stdout, n)
		}
		return nil
	}
	e.setFormat(*format, *wide)
	var rows [][]string
	for _, n := range scenarios.Names() {
		sc, err := scenarios.Load(n, nil)
		if err != nil {
			return fmt.Errorf("bundled scenario %s: %w", n, err)
		}
		rows = append(rows, []string{n, sc.Description})
	}
	return render.Table(e.stdout, []string{"scenario", "description"}, rows)
}
