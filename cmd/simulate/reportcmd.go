package main

import (
	"flag"
	"fmt"

	"github.com/budgetsim/budgetsim/internal/cli"

	"github.com/budgetsim/budgetsim/internal/atomicfile"
	"github.com/budgetsim/budgetsim/internal/report"
	"github.com/budgetsim/budgetsim/scenarios"
)

func init() {
	register(command{name: "report", synopsis: "simulate report SCENARIO [--out report.html]   one self-contained HTML page for a design review: tables, charts, recommendations", run: (*env).report, graceful: true})
}

func (e *env) report(args []string) error {
	fs := newFlagSet("report", e.stderr, "report SCENARIO [flags]")
	var sf cli.ScenarioFlags
	// The shared scenario flags but --format: a report is HTML.
	all := flag.NewFlagSet("", flag.ContinueOnError)
	sf.Register(all)
	all.VisitAll(func(f *flag.Flag) {
		if f.Name != "format" {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	out := fs.String("out", "report.html", "write the report to `FILE` (atomically)")
	date := fs.String("date", "", "show `DATE` in the report's header (none by default, so that the same scenario and seed give the same bytes)")
	scenario, err := cli.ScenarioArg(fs, &sf, args, "report")
	if err != nil {
		return err
	}
	if *out == "" {
		return cli.Usagef("--out: must name a file, got \"\"")
	}
	sc, err := scenarios.Load(scenario, sf.AllSets())
	if err != nil {
		return err
	}
	if err := cli.CheckOutFile("--out", *out); err != nil {
		return err
	}
	in, err := report.Simulate(sc, report.Options{Replications: sf.Replications, Parallel: sf.Parallel, Level: sf.Level, Interrupt: e.interrupted})
	if err != nil {
		return err
	}
	in.Version, in.Date = report.BuildVersion(), *date
	r, err := report.New(in)
	if err != nil {
		return err
	}
	f, err := atomicfile.Create(*out)
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
	fmt.Fprintln(e.stdout, *out)
	if e.interrupted.Load() {
		return cli.ErrInterrupted
	}
	return nil
}
