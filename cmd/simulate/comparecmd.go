package main

import (
	"fmt"
	"time"

	"github.com/budgetsim/budgetsim/internal/cli"
	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/internal/render/comparison"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/compare"
)

func init() {
	register(command{name: "compare", synopsis: "simulate compare SCENARIO --vary key=[name=]v1,… | --variants FILE   variants on common random numbers, one table", run: (*env).compare, graceful: true})
}

// compare is the command line of plan/compare: its flags, the output
// directory, the progress line and the output format.
func (e *env) compare(args []string) error {
	fs, sf := newScenarioFlagSet("compare", e.stderr, "compare SCENARIO --vary key=[name=]v1,[name=]v2[,…] [--vary …] | --variants FILE [flags]")
	var varies cli.StringList
	outDir := fs.String("out", "", "also write compare.json, summary.csv, latency_cdf.csv and series.csv (one row group per variant) to `DIR`")
	fs.Var(&varies, "vary", "a key and the values to compare: `key=v1,v2,…`, key=a..b:n or key=a..b (integers); a value may have a short name, key=name=value (retry=naive={attempts: 3},…); two --vary flags form a grid")
	variantsFile := fs.String("variants", "", "compare the named variants of the YAML `FILE`: a list of {name, set: {key: value}, unset: [key]} (docs/cli.md)")
	scenario, err := cli.ScenarioArg(fs, sf, args, "compare")
	if err != nil {
		return err
	}
	e.setFormat(sf.Format, sf.Wide)
	if len(varies) == 0 && *variantsFile == "" {
		return cli.Usagef("compare needs at least one --vary key=v1,v2,… or --variants FILE")
	}
	var axes []compare.Axis
	if *variantsFile != "" {
		a, err := compare.ReadVariants(*variantsFile)
		if err != nil {
			return fmt.Errorf("--variants %w", err)
		}
		axes = append(axes, a)
	}
	for _, v := range varies {
		a, err := compare.ParseVary(v)
		if err != nil {
			return cli.Usagef("--vary %v", err)
		}
		axes = append(axes, a)
	}
	variants, err := compare.Grid(axes)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	spec := compare.Spec{Scenario: scenario, Sets: sf.AllSets(), Variants: variants, Replications: sf.Replications, Level: sf.Level, Parallel: sf.Parallel}
	prog := cli.NewProgress(e.stderr, "compare", time.Now)
	opt := compare.Options{Interrupt: e.interrupted, Progress: prog.Update}
	var files *outputs.CompareFiles
	var outErr error // the first failure to write --out
	if *outDir != "" {
		// The per-variant files are written as the variants complete, so
		// memory holds one variant's histograms and series at a time.
		if err := cli.CheckOutDir(*outDir); err != nil {
			return err
		}
		if files, err = outputs.NewCompareFiles(*outDir); err != nil {
			return err
		}
		defer files.Abort() // a no-op once committed
		// A file that cannot be written (a full disk) ends the files, not
		// the comparison: its table is printed, and the exit status says
		// what was not written.
		opt.Each = func(v compare.Variant, cfg *system.Config, acc *summary.Accumulator, first *system.Result) error {
			if outErr != nil {
				return nil
			}
			if outErr = files.Add(v.Label, cfg, acc.Latency(), first.Series); outErr == nil {
				outErr = files.AddClasses(v.Label, acc)
			}
			if outErr != nil {
				files.Abort()
			}
			return nil
		}
	}
	res, err := compare.Run(spec, opt)
	prog.Done()
	if err != nil {
		return err
	}
	if len(res.Missing) > 0 {
		fmt.Fprintf(e.stderr, "simulate: compare interrupted: %d of %d variants have no result (%s)\n", len(res.Missing), len(variants), render.FirstFew(res.Missing, 10))
	}
	if files != nil && outErr == nil {
		sums, names := compare.Figures(res.Variants)
		outErr = files.Commit(res.Variants, sums, names)
	}
	if sf.Format == "json" {
		err = render.JSON(e.stdout, res.Variants)
	} else {
		err = comparison.WriteTable(e.stdout, res)
	}
	if err != nil {
		return err
	}
	if outErr != nil {
		return outFailed(*outDir, outErr)
	}
	if res.Interrupted {
		return cli.ErrInterrupted
	}
	return nil
}
