package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/budgetsim/budgetsim/internal/buildinfo"
	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/internal/cli"
	"github.com/budgetsim/budgetsim/plan/search"
)

// exitCode maps run's error to the process exit status and prints it: a
// usage mistake exits 2, any other error 1.
func exitCode(err error, stderr io.Writer) int {
	return cli.ExitCode(err, stderr, "plot", "run 'plot -h' for usage")
}

const synopsis = "plot DIR [--out OUTDIR] [--format png,svg] [--trace FILE [--run N]]"

// options are the parsed command line.
type options struct {
	dir     string
	out     string
	formats []string
	trace   string
	run     int64 // -1: the slowest traced run
	slos    []string
}

// parseArgs parses flags that may come before or after the directory.
func parseArgs(stdout io.Writer, args []string) (*options, error) {
	fset := cli.NewFlagSet("plot", "plot", stdout, synopsis)
	o := &options{}
	format := fset.String("format", "png,svg", "comma-separated output formats: png (150 DPI) and/or svg")
	fset.StringVar(&o.out, "out", "", "write the charts to `OUTDIR` (default: DIR, or the trace's directory)")
	fset.StringVar(&o.trace, "trace", "", "draw one run's timeline from the JSONL trace `FILE` (simulate run --trace)")
	o.run = -1
	fset.Func("slo", "draw the `objective` (p50|p99|p999<=DURATION or success>=FRACTION, as simulate plan's --slo) on the sweep charts; repeatable (plan.json's are drawn without it)", func(v string) error {
		if _, err := search.ParseSLO(v); err != nil {
			return err
		}
		o.slos = append(o.slos, v)
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
		if st, err := os.Stat(o.dir); err != nil {
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
	builds := in.charts()
	if len(builds) == 0 {
		return fmt.Errorf("%s: nothing to plot: no latency_cdf.csv, series.csv, sweep.csv, tail.csv or tools.csv (and no --trace)", o.dir)
	}
	var made []*charts.Chart
	for _, b := range builds {
		ch, err := b.build()
		if errors.Is(err, charts.ErrNoData) {
			fmt.Fprintf(stderr, "plot: skipping %s: %v\n", b.from, err)
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", b.from, err)
		}
		switch ch.Name {
		case "in_system", "attempt_rate", "utilisation":
			charts.ShadeTimeSeries(ch, in.series, in.outages)
		}
		if in.scenario != "" && !strings.HasPrefix(ch.Name, "timeline") {
			ch.Title = in.scenario + " · " + ch.Title
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

// inputs are the files found in DIR, parsed.
type inputs struct {
	scenario string
	sums     []charts.Summary
	cdfs     []charts.CDF
	series   []charts.Series
	sweep    []charts.SweepPoint
	tail     []charts.TailStage
	tailFrom string
	tools    []charts.ToolSample
	outages  []charts.Outage
	target   *charts.Target // plan.json's objectives and answer, or --slo's
	trace    *charts.Trace
	o        *options
	// has records which files exist (a file with only a header parses
	// to nothing but still gets its chart attempted, and skipped).
	has map[string]bool
}

// readFile opens dir/name and parses it; found is false when the file does
// not exist.
func readFile[T any](dir, name string, parse func(io.Reader, string) (T, error)) (v T, found bool, err error) {
	if dir == "" {
		return v, false, nil
	}
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return v, false, nil
	}
	if err != nil {
		return v, false, err
	}
	defer f.Close()
	v, err = parse(f, path)
	return v, true, err
}

func readInputs(o *options) (*inputs, error) {
	in := &inputs{o: o, has: map[string]bool{}}
	var err error
	var found bool
	// compare.json describes several variants; a directory holding both
	// is a compare run's, whose series.csv has one block per variant.
	for _, name := range []string{"compare.json", "summary.json"} {
		if in.sums, found, err = readFile(o.dir, name, charts.ReadSummaries); err != nil {
			return nil, err
		}
		if found {
			break
		}
	}
	if len(in.sums) > 0 {
		in.scenario = in.sums[0].Scenario
	}
	if in.cdfs, in.has["latency_cdf.csv"], err = readFile(o.dir, "latency_cdf.csv", charts.ReadCDF); err != nil {
		return nil, err
	}
	if in.series, in.has["series.csv"], err = readFile(o.dir, "series.csv", charts.ReadSeries); err != nil {
		return nil, err
	}
	if in.sweep, in.has["sweep.csv"], err = readFile(o.dir, "sweep.csv", charts.ReadSweep); err != nil {
		return nil, err
	}
	if in.target, _, err = readFile(o.dir, "plan.json", readPlan); err != nil {
		return nil, err
	}
	if len(o.slos) > 0 {
		if in.target == nil {
			in.target = &charts.Target{}
		}
		in.target.Objectives = in.target.Objectives[:0]
		for _, s := range o.slos {
			in.target.Objectives = append(in.target.Objectives, objective(s))
		}
	}
	if in.tail, in.has["tail.csv"], err = readFile(o.dir, "tail.csv", charts.ReadTail); err != nil {
		return nil, err
	}
	in.tailFrom = filepath.Join(o.dir, "tail.csv")
	if !in.has["tail.csv"] {
		for _, s := range in.sums {
			for _, st := range s.Tail.Stages {
				if st.Seconds > 0 {
					in.tail = charts.TailFromSummaries(in.sums)
					in.tailFrom = "the summary's tail"
					in.has["tail.csv"] = true
				}
			}
		}
	}
	if in.tools, in.has["tools.csv"], err = readFile(o.dir, "tools.csv", charts.ReadTools); err != nil {
		return nil, err
	}
	if in.outages, _, err = readFile(o.dir, "outages.csv", charts.ReadOutages); err != nil {
		return nil, err
	}
	if o.trace != "" {
		f, err := os.Open(o.trace)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if in.trace, err = charts.ReadTrace(f, o.trace); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// build is one chart to draw and the input it comes from.
type build struct {
	from  string
	build func() (*charts.Chart, error)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// charts lists the charts the inputs support, in a fixed order.
func (in *inputs) charts() []build {
	var bs []build
	at := func(name string) string { return filepath.Join(in.o.dir, name) }
	if in.has["latency_cdf.csv"] {
		bs = append(bs, build{at("latency_cdf.csv"), func() (*charts.Chart, error) { return charts.CDFChart(in.cdfs, in.sums) }})
	}
	if in.has["series.csv"] {
		bs = append(bs,
			build{at("series.csv"), func() (*charts.Chart, error) { return charts.InSystemChart(in.series, in.sums) }},
			build{at("series.csv"), func() (*charts.Chart, error) { return charts.AttemptRateChart(in.series) }})
	}
	if in.has["sweep.csv"] {
		groups := charts.SplitSweep(in.sweep)
		if len(groups) == 0 {
			groups = [][]charts.SweepPoint{nil} // header only: skipped with ErrNoData
		}
		for _, g := range groups {
			suffix := ""
			if len(groups) > 1 && len(g) > 0 {
				suffix = "_" + unsafeName.ReplaceAllString(g[0].Parameter, "_")
			}
			for _, f := range []func([]charts.SweepPoint, *charts.Target) (*charts.Chart, error){charts.SweepLatencyChart, charts.SweepSuccessChart} {
				bs = append(bs, build{at("sweep.csv"), func() (*charts.Chart, error) {
					ch, err := f(g, in.target)
					if err == nil {
						ch.Name += suffix
					}
					return ch, err
				}})
			}
		}
	}
	if in.has["tail.csv"] {
		bs = append(bs, build{in.tailFrom, func() (*charts.Chart, error) { return charts.TailChart(in.tail) }})
	}
	if in.has["tools.csv"] {
		bs = append(bs, build{at("tools.csv"), func() (*charts.Chart, error) { return charts.UtilisationChart(in.tools) }})
	}
	if in.trace != nil {
		bs = append(bs, build{in.o.trace, func() (*charts.Chart, error) {
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

// readPlan reads what the sweep charts draw of plan.json (simulate plan
// --out): the objectives and the answer.
func readPlan(r io.Reader, name string) (*charts.Target, error) {
	var p struct {
		Value *float64 `json:"value"`
		Found bool     `json:"found"`
		SLOs  []string `json:"slos"`
	}
	if err := json.NewDecoder(r).Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	t := &charts.Target{Found: p.Found && p.Value != nil}
	if t.Found {
		t.Answer = *p.Value
	}
	for _, s := range p.SLOs {
		if _, err := search.ParseSLO(s); err != nil {
			return nil, fmt.Errorf("%s: slos: %v", name, err)
		}
		t.Objectives = append(t.Objectives, objective(s))
	}
	return t, nil
}

// objective converts an objective ParseSLO accepted into what the charts
// draw.
func objective(s string) charts.Objective {
	slo, _ := search.ParseSLO(s)
	return charts.Objective{Text: slo.String(), Figure: slo.Figure.String(), Threshold: slo.Threshold}
}
