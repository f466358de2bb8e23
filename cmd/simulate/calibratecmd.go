package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/budgetsim/budgetsim/calibrate"
	"github.com/budgetsim/budgetsim/calibrate/ingest"
	"github.com/budgetsim/budgetsim/calibrate/observe"
	"github.com/budgetsim/budgetsim/calibrate/otlpout"
	"github.com/budgetsim/budgetsim/internal/atomicfile"
	"github.com/budgetsim/budgetsim/internal/cli"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/model/system"
)

func init() {
	register(command{name: "calibrate", synopsis: "simulate calibrate TRACE… [flags]    a scenario fitted to OTLP traces or call logs, each value's provenance marked, and its calibration error", run: (*env).calibrate})
}

func (e *env) calibrate(args []string) error {
	fs := newFlagSet("calibrate", e.stderr, "calibrate TRACE… [--out scenario.yaml] [flags]")
	out := fs.String("out", "", "write the scenario to `FILE` (and its data files beside it), then replay the trace through it; without --out the scenario is printed")
	name := fs.String("name", "", "the scenario's name (default: --out's file name, or calibrated)")
	reps := fs.Int("replications", 5, "replications of the calibration replay (≥ 2; 0 skips it)")
	reportDir := fs.String("report", "", "also write the fit and calibration data (fit.json, calibration.csv, e2e.csv, qq.csv) to `DIR`, for `plot DIR`")
	maxSamples := fs.Int("max-samples", observe.DefaultMaxSamples, "keep at most `N` samples per quantity (a uniform sample of the rest)")
	maxLine := fs.Int("max-line", ingest.DefaultMaxLineBytes, "the longest input line accepted, in `bytes`")
	seed := fs.Uint64("seed", 1, "seed of the samples kept and the bootstrap")
	var format string
	var wide bool
	cli.RegisterOutput(fs, &format, &wide)
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if err := cli.CheckFormat(format, "table", "markdown"); err != nil {
		return err
	}
	e.setFormat(format, wide)
	if len(pos) == 0 {
		return cli.Usagef("calibrate needs at least one trace file (OTLP JSON lines or a call log; see docs/calibration.md)")
	}
	if *reps != 0 && (*reps < 2 || *reps > 1000) {
		return cli.Usagef("--replications: must be 0 or in [2, 1000], got %d", *reps)
	}
	if *maxSamples < 100 || *maxSamples > 10_000_000 {
		return cli.Usagef("--max-samples: must be in [100, 10000000], got %d", *maxSamples)
	}
	if *maxLine < 1024 || *maxLine > 1<<30 {
		return cli.Usagef("--max-line: must be in [1024, 1073741824], got %d", *maxLine)
	}
	if *out != "" {
		if err := cli.CheckOutFile("--out", *out); err != nil {
			return err
		}
	}
	if *reportDir != "" {
		if err := cli.CheckOutDir(*reportDir); err != nil {
			return err
		}
	}
	base := "calibrated"
	if *out != "" {
		base = strings.TrimSuffix(filepath.Base(*out), filepath.Ext(*out))
	}
	if *name == "" {
		*name = base
	}
	res, err := calibrate.Calibrate(pos, calibrate.Options{Name: *name, Observe: observe.Options{MaxSamples: *maxSamples, Seed: *seed, Ingest: ingest.Options{MaxLineBytes: *maxLine}}})
	if err != nil {
		return err
	}
	sc := res.Scenario(base)
	if *out == "" {
		if len(sc.Files) > 0 {
			return fmt.Errorf("the scenario replays observed values from data files (%s): give --out FILE to write them beside it", strings.Join(sortedKeys(sc.Files), ", "))
		}
		_, err := e.stdout.Write(sc.YAML)
		return err
	}
	loaded, err := sc.Load(*out)
	if err != nil {
		return fmt.Errorf("the calibrated scenario does not load (a bug; please report it with the trace): %w", err)
	}
	files := []outFile{{filepath.Base(*out), func(w io.Writer) error { _, err := w.Write(sc.YAML); return err }}}
	for _, n := range sortedKeys(sc.Files) {
		files = append(files, outFile{n, func(w io.Writer) error { _, err := w.Write(sc.Files[n]); return err }})
	}
	if err := writeFiles(filepath.Dir(*out), files...); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: %s\n", *out, res)
	var cal *calibrate.Calibration
	if *reps > 0 {
		if cal, err = res.Replay(loaded, *reps); err != nil {
			return err
		}
		if err := calibrationTable(e, cal); err != nil {
			return err
		}
	}
	if *reportDir != "" {
		report, err := calibrate.ReportFiles(res, cal)
		if err != nil {
			return err
		}
		var rf []outFile
		for _, f := range report {
			rf = append(rf, outFile{f.Name, func(w io.Writer) error { _, err := w.Write(f.Data); return err }})
		}
		if err := writeFiles(*reportDir, rf...); err != nil {
			return err
		}
	}
	return nil
}

// calibrationTable prints the replay's comparison and its notes.
func calibrationTable(e *env, cal *calibrate.Calibration) error {
	fmt.Fprintf(e.stdout, "\nCalibration: the trace's own arrivals through the scenario, %d replications (95%% intervals)\n", cal.Replications)
	var rows [][]string
	for _, r := range cal.Rows {
		rows = append(rows, []string{r.Metric, fmtValue(r.Observed, r.Unit), fmtValue(r.Simulated.Mean, r.Unit) + " ± " + fmtValue(r.Simulated.HalfWidth, r.Unit), fmtRel(r.RelErr) + " [" + fmtRel(r.RelErrCI.Lo) + ", " + fmtRel(r.RelErrCI.Hi) + "]"})
	}
	if err := render.Table(e.stdout, []string{"quantity", "observed", "simulated", "relative error"}, rows); err != nil {
		return err
	}
	if len(cal.Notes) > 0 {
		fmt.Fprintln(e.stdout, "\nWhere the scenario does not describe the system:")
		for _, n := range cal.Notes {
			fmt.Fprintf(e.stdout, "  - %s\n", n)
		}
	}
	return nil
}

func fmtValue(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case unit == "s":
		return calibrate.FormatSeconds(v)
	case unit == "rate":
		return fmt.Sprintf("%.4g", v)
	}
	return fmt.Sprintf("%.4g", v)
}

func fmtRel(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", 100*v)
}

func sortedKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// otlpTracer adds to opt the tracer of run --otlp FILE (beside --trace's,
// if any), and returns what commits the file once the runs are done.
func otlpTracer(path string, cfg *system.Config, opt *system.Options) (func() error, error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	w := otlpout.New(f, cfg, cfg.Name)
	if opt.Tracer != nil {
		opt.Tracer = tracers{opt.Tracer, w}
	} else {
		opt.Tracer = w
	}
	return func() error {
		if err := w.Close(); err != nil {
			f.Abort()
			return fmt.Errorf("--otlp %s: %w", path, err)
		}
		return f.Commit()
	}, nil
}

// tracers sends each record to both tracers.
type tracers [2]system.Tracer

func (t tracers) Attempt(r *system.AttemptRecord) {
	t[0].Attempt(r)
	t[1].Attempt(r)
}

func (t tracers) Run(r system.RunRecord) {
	t[0].Run(r)
	t[1].Run(r)
}
