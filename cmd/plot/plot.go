package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/budgetsim/budgetsim/calibrate/fitcharts"
	"github.com/budgetsim/budgetsim/internal/atomicfile"
	"github.com/budgetsim/budgetsim/internal/buildinfo"
	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/internal/cli"
	"github.com/budgetsim/budgetsim/internal/gridcharts"
	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/plan/search"
)

// exitCode maps run's error to the process exit status and prints it: a
// usage mistake exits 2, any other error 1.
func exitCode(err error, stderr io.Writer) int {
	return cli.ExitCode(err, stderr, "plot", "run 'plot -h' for usage")
}

const synopsis = "plot DIR [--out OUTDIR] [--format png,svg] [--window FROM..TO] [--trace FILE [--run N]]"

// options are the parsed command line.
type options struct {
	dir     string
	out     string
	formats []string
	trace   string
	run     int64 // -1: the slowest traced run
	slos    []string
	window  *charts.Window // --window: only the time-series charts, over it
}

// parseArgs parses flags that may come before or after the directory.
func parseArgs(stdout io.Writer, args []string) (*options, error) {
	fset := cli.NewFlagSet("plot", "plot", stdout, synopsis)
	o := &options{}
	format := fset.String("format", "png,svg", "comma-separated output formats: png (150 DPI) and/or svg")
	fset.StringVar(&o.out, "out", "", "write the charts to `OUTDIR` (default: DIR, or the trace's directory)")
	fset.StringVar(&o.trace, "trace", "", "draw one run's timeline from the JSONL trace `FILE` (simulate run --trace)")
	o.run = -1
	var slos cli.StringList
	fset.Var(&slos, "slo", "draw the `objective` (p50|p99|p999<=DURATION or success>=FRACTION, as simulate plan's --slo) on the sweep charts; repeatable (plan.json's are drawn without it)")
	fset.Func("window", "draw only the time-series charts (runs in the system, attempt rates, utilisation, breakers, limits), over simulated time `FROM..TO` (29m..32m, 1800s..1920s), with bins chosen for it; they are written as NAME_FROM-TO.png", func(v string) error {
		w, err := parseWindow(v)
		if err != nil {
			return err
		}
		o.window = &w
		return nil
	})
	runSet := false
	fset.Func("run", "the traced run `N` to draw (default: the slowest run that did not complete, else the slowest)", func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("want a run id ≥ 0, got %q", v)
		}
		o.run, runSet = n, true
		return nil
	})
	fset.Usage = func() {
		fmt.Fprintf(stdout, "Usage: %s\n\nDraws every chart whose input exists in DIR (see 'go doc ./cmd/plot').\n\nFlags:\n  -version\n    \tprint the build's version and exit\n", synopsis)
		fset.PrintDefaults()
	}
	pos, err := cli.Parse(fset, args)
	if err != nil {
		return nil, err
	}
	for _, v := range slos {
		if _, err := search.ParseSLO(v); err != nil {
			return nil, cli.Usagef("--slo: %v", err)
		}
	}
	o.slos = slos
	switch {
	case len(pos) > 1:
		return nil, cli.Usagef("want one results directory, got %d arguments: %s", len(pos), strings.Join(pos, " "))
	case len(pos) == 0 && o.trace == "":
		return nil, cli.Usagef("want a results directory (usage: %s)", synopsis)
	case runSet && o.trace == "":
		return nil, cli.Usagef("--run: needs --trace FILE")
	}
	if len(pos) == 1 {
		o.dir = pos[0]
	}
	seen := map[string]bool{}
	for _, f := range strings.Split(*format, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f != "png" && f != "svg" {
			return nil, cli.Usagef("--format: want png and/or svg, comma-separated, got %q", *format)
		}
		if !seen[f] {
			seen[f] = true
			o.formats = append(o.formats, f)
		}
	}
	if o.out == "" {
		o.out = o.dir
		if o.out == "" {
			o.out = filepath.Dir(o.trace)
		}
	}
	return o, nil
}

// run is the testable entry point: it never calls os.Exit.
func run(stdout, stderr io.Writer, args []string) error {
	if buildinfo.WantsVersion(args) {
		fmt.Fprint(stdout, buildinfo.Read().Long("plot"))
		return nil
	}
	o, err := parseArgs(stdout, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if o.dir != "" {
		if st, err := os.Stat(o.dir); errors.Is(err, fs.ErrNotExist) {
			msg := fmt.Sprintf("%s: no such directory", o.dir)
			if best := cli.SuggestDir(o.dir); best != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", best)
			}
			return errors.New(msg)
		} else if err != nil {
			return err
		} else if !st.IsDir() {
			return fmt.Errorf("%s: not a directory", o.dir)
		}
	}
	// Read and check every input before drawing anything, so that a
	// malformed file writes no chart at all.
	in, err := readInputs(o)
	if err != nil {
		return err
	}
	if in.dir != nil && in.dir.VariantsOmitted > 0 {
		fmt.Fprintf(stderr, "plot: %s: the first %d variants drawn; the other %d are left out of the per-variant charts (memory and legibility)\n", o.dir, charts.MaxSeriesVariants, in.dir.VariantsOmitted)
	}
	builds := in.charts()
	if o.window != nil && len(builds) == 0 && in.dir != nil {
		return fmt.Errorf("%s: --window: no time series to draw (no series.csv, tools.csv, breakers.csv or limits.csv)", o.dir)
	}
	if len(builds) == 0 {
		return fmt.Errorf("%s: nothing to plot: no latency_cdf.csv, series.csv, sweep.csv or tools.csv and no tail in a summary (and no --trace)", o.dir)
	}
	var made []*charts.Chart
	for _, b := range builds {
		ch, err := b.Build()
		if errors.Is(err, charts.ErrNoData) {
			fmt.Fprintf(stderr, "plot: skipping %s: %v\n", b.From, err)
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", b.From, err)
		}
		if in.dir != nil && in.dir.Scenario != "" && !strings.HasPrefix(ch.Name, "timeline") {
			ch.Title = in.dir.Scenario + " · " + ch.Title
		}
		made = append(made, ch)
	}
	if len(made) == 0 {
		return errors.New("nothing to plot: every input was empty")
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	for _, ch := range made {
		paths, err := ch.WriteFiles(o.out, o.formats)
		for _, p := range paths {
			fmt.Fprintln(stdout, p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// inputs are the files found in DIR, parsed, and the trace.
type inputs struct {
	dir   *charts.Dir // nil without DIR
	trace *charts.Trace
	fit   *fitcharts.Report // simulate calibrate --report's files; nil without
	grid  *gridcharts.Grid  // simulate plan --minimize cost's grid.json; nil without
	o     *options
}

func readInputs(o *options) (*inputs, error) {
	in := &inputs{o: o}
	if o.dir != "" {
		if err := atomicfile.CheckPublished(o.dir); err != nil {
			return nil, err
		}
		var err error
		if in.dir, err = charts.ReadDir(o.dir, search.ParseObjective); err != nil {
			return nil, err
		}
		if in.fit, err = fitcharts.Read(o.dir); err != nil {
			return nil, err
		}
		if in.grid, err = gridcharts.Read(o.dir); err != nil {
			return nil, err
		}
		if len(o.slos) > 0 {
			if in.dir.Target == nil {
				in.dir.Target = &charts.Target{}
			}
			in.dir.Target.Objectives = nil
			for _, s := range o.slos {
				obj, _ := search.ParseObjective(s) // checked by the flag
				in.dir.Target.Objectives = append(in.dir.Target.Objectives, obj)
			}
		}
	}
	if o.trace != "" {
		f, err := os.Open(o.trace)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if in.trace, err = charts.ReadTrace(outputs.Bounded(f, o.trace, outputs.MaxInputSize), o.trace); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// charts lists the charts the inputs support, in a fixed order: the
// directory's (charts.Dir.Builds), then the trace's timeline.
func (in *inputs) charts() []charts.Build {
	var bs []charts.Build
	switch {
	case in.dir != nil && in.o.window != nil:
		w := *in.o.window
		bs = in.dir.WindowBuilds(w, "_"+w.String())
	case in.dir != nil:
		bs = in.dir.Builds()
		// A run with outages: each also drawn zoomed in, where the retry
		// burst and the recovery are wider than a pixel.
		ws := charts.OutageWindows(in.dir.Outages)
		for i, w := range ws {
			suffix := "_outage"
			if len(ws) > 1 {
				suffix += strconv.Itoa(i + 1)
			}
			bs = append(bs, in.dir.WindowBuilds(w, suffix)...)
		}
	}
	if in.o.window == nil {
		bs = append(bs, in.fit.Builds()...)
		bs = append(bs, in.grid.Builds()...)
	}
	if in.trace != nil {
		bs = append(bs, charts.Build{From: in.o.trace, Build: func() (*charts.Chart, error) {
			id := in.o.run
			if id < 0 {
				var ok bool
				id, ok = in.trace.Slowest(func(r charts.TraceRun) bool { return r.Outcome != "completed" })
				if !ok {
					id, _ = in.trace.Slowest(nil)
				}
			}
			r, as, err := in.trace.Run(id)
			if err != nil {
				return nil, err
			}
			return charts.TimelineChart(r, as)
		}})
	}
	return bs
}

// parseWindow parses --window FROM..TO: two durations (29m, 1800s,
// 30m30s), FROM before TO.
func parseWindow(v string) (charts.Window, error) {
	a, b, ok := strings.Cut(v, "..")
	from, err1 := time.ParseDuration(strings.TrimSpace(a))
	to, err2 := time.ParseDuration(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || from < 0 || to <= from {
		return charts.Window{}, fmt.Errorf("want FROM..TO, two durations with FROM ≥ 0 before TO (29m..32m), got %q", v)
	}
	return charts.Window{From: from, To: to}, nil
}
