// Command report writes the review report of a scenario: one
// self-contained HTML page for a design review, with the summary tables
// and their confidence intervals, capacity and bottleneck, the p99 run's
// tail, the recommended ceilings, floors and deadline, warnings, charts as
// inline SVG, and the scenario's YAML, seed and version.
//
// Usage:
//
//	report SCENARIO [--out report.html] [--date DATE] [--title T] [--note N] [scenario flags]
//	report DIR [--out report.html] [--date DATE] [--title T] [--note N]
//
// SCENARIO is a path or the name of a bundled scenario (simulate list).
// DIR is a directory that 'simulate compare --out' or 'simulate plan --out'
// wrote: the report then shows the comparison (a verdict per figure, each
// variant's figures and its paired differences with their intervals, the
// charts, and the scenario once with what each variant changes) or the plan (its answer,
// objectives, probes and the sweep charts with the objectives and the
// answer drawn), simulating nothing.
// The scenario flags are simulate run's (--set, --seed, --runs,
// --replications, --level, --parallel) but --format. The file is written
// atomically and its path printed; the same scenario and seed give the
// same bytes, whatever --parallel. Ctrl-C stops the replications and
// writes a report of those that completed (exit status 130). A usage
// mistake exits 2, any other error 1.
//
// The report is a command of its own, not a subcommand of simulate, so
// that simulate does not link the chart, font and PDF libraries the
// report draws with (gonum/plot parses its fonts at start-up): simulate
// starts sooner.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/budgetsim/budgetsim/internal/atomicfile"
	"github.com/budgetsim/budgetsim/internal/buildinfo"
	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/internal/cli"
	"github.com/budgetsim/budgetsim/internal/report"
	"github.com/budgetsim/budgetsim/plan/search"
	"github.com/budgetsim/budgetsim/scenarios"
)

func main() { os.Exit(exitCode(run(os.Stdout, os.Stderr, os.Args[1:]), os.Stderr)) }

func exitCode(err error, stderr io.Writer) int {
	return cli.ExitCode(err, stderr, "report", "run 'report -h' for usage")
}

// run is the testable entry point: it never calls os.Exit.
func run(stdout, stderr io.Writer, args []string) error {
	var interrupted atomic.Bool
	defer cli.WatchInterrupt(stderr, "report", &interrupted)()
	return runWith(stdout, stderr, args, &interrupted)
}

// runWith runs the command with the given interrupt flag (set by Ctrl-C in
// run; tests set it directly).
func runWith(stdout, stderr io.Writer, args []string, interrupted *atomic.Bool) error {
	if buildinfo.WantsVersion(args) {
		fmt.Fprint(stdout, buildinfo.Read().Long("report")+fmt.Sprintf("scenario format %d\n", scenarios.FormatVersion))
		return nil
	}
	fs := cli.NewFlagSet("report", "report", stderr, "SCENARIO|DIR [flags]")
	var sf cli.ScenarioFlags
	// The shared scenario flags but --format and --wide: a report is HTML.
	all := flag.NewFlagSet("", flag.ContinueOnError)
	sf.Register(all)
	all.VisitAll(func(f *flag.Flag) {
		if f.Name != "format" && f.Name != "wide" {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	out := fs.String("out", "report.html", "write the report to `FILE` (atomically)")
	title := fs.String("title", "", "the page's `TITLE`, in place of the scenario's name: what the review decides")
	note := fs.String("note", "", "a reviewer's `NOTE` shown under the title: the question, the context, the decision asked for")
	date := fs.String("date", "", "show `DATE` in the report's header (none by default, so that the same scenario and seed give the same bytes)")
	scenario, err := cli.ScenarioArg(fs, &sf, args, "report")
	if errors.Is(err, flag.ErrHelp) {
		return nil // -h: the usage is printed
	}
	if err != nil {
		return err
	}
	if *out == "" {
		return cli.Usagef("--out: must name a file, got \"\"")
	}
	if st, err := os.Stat(scenario); err == nil && st.IsDir() {
		return reportDir(stdout, scenario, *out, *date, *title, *note)
	}
	sc, err := scenarios.Load(scenario, sf.AllSets())
	if errors.Is(err, scenarios.ErrNotFound) {
		if best := cli.SuggestDir(scenario); best != "" {
			return fmt.Errorf("%w (or did you mean the results directory %s?)", err, best)
		}
	}
	if err != nil {
		return err
	}
	if err := cli.CheckOutFile("--out", *out); err != nil {
		return err
	}
	in, err := report.Simulate(sc, report.Options{Replications: sf.Replications, Parallel: sf.Parallel, Level: sf.Level, Interrupt: interrupted})
	if err != nil {
		return err
	}
	in.Version, in.Date = buildinfo.Stamp(), *date
	r, err := report.New(in)
	if err != nil {
		return err
	}
	r.SetContext(*title, *note)
	if err := writePage(stdout, r, *out); err != nil {
		return err
	}
	if interrupted.Load() {
		return cli.ErrInterrupted
	}
	return nil
}

// reportDir writes the report of a results directory (report.FromDir).
func reportDir(stdout io.Writer, dir, out, date, title, note string) error {
	if err := atomicfile.CheckPublished(dir); err != nil {
		return err
	}
	d, err := charts.ReadDir(dir, search.ParseObjective)
	if err != nil {
		return err
	}
	r, err := report.FromDir(d, buildinfo.Stamp(), date)
	if err != nil {
		return err
	}
	r.SetContext(title, note)
	if err := cli.CheckOutFile("--out", out); err != nil {
		return err
	}
	return writePage(stdout, r, out)
}

// writePage writes r to the file out, atomically, and prints its path.
func writePage(stdout io.Writer, r *report.Report, out string) error {
	f, err := atomicfile.Create(out)
	if err != nil {
		return err
	}
	if err := r.WriteHTML(f); err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, out)
	return nil
}
