package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/budgetsim/budgetsim/internal/cli"

	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/internal/render/validation"
	"github.com/budgetsim/budgetsim/plan/validate"
)

func init() {
	register(command{name: "validate", synopsis: "simulate validate [flags]            simulated vs closed-form queueing theory, with confidence intervals", run: (*env).validate})
}

func (e *env) validate(args []string) error {
	fs := newFlagSet("validate", e.stderr, "validate [flags]")
	reps := fs.Int("replications", 10, "replications per model (≥ 2)")
	level := fs.Float64("level", 0.99, "family-wise confidence level: each of the n checks uses 1 − (1 − level)/n (Bonferroni)")
	parallel := fs.Int("parallel", 0, "goroutines (0: all cores)")
	var format string
	var wide bool
	cli.RegisterOutput(fs, &format, &wide)
	seed := fs.Int64("seed", -1, "replace every scenario's seed (≥ 0; -1 keeps their own): the checks should pass at their family-wise level whatever the seed")
	only := fs.String("only", "", "comma-separated cases to validate (default: all of "+strings.Join(validate.Scenarios(), ",")+")")
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.Usagef("validate takes no positional arguments, got %q", pos[0])
	}
	if err := cli.CheckFormat(format, "table", "markdown", "json"); err != nil {
		return err
	}
	e.setFormat(format, wide)
	if *reps < 2 || *reps > 1000 {
		return cli.Usagef("--replications: must be in [2, 1000], got %d", *reps)
	}
	if !(*level > 0 && *level < 1) { // NaN fails too
		return cli.Usagef("--level: must be in (0, 1), got %g", *level)
	}
	if *parallel < 0 {
		return cli.Usagef("--parallel: must be ≥ 0, got %d", *parallel)
	}
	if *seed < -1 {
		return cli.Usagef("--seed: must be ≥ 0 (or -1 for the scenarios' own), got %d", *seed)
	}
	opt := validate.Options{Replications: *reps, Level: *level, Parallel: *parallel, Seed: *seed, HasSeed: *seed >= 0}
	if *only != "" {
		for _, name := range strings.Split(*only, ",") {
			if !slices.Contains(validate.Scenarios(), name) {
				return cli.Usagef("--only: %q is not a validated scenario (validated: %s)", name, strings.Join(validate.Scenarios(), ", "))
			}
		}
	}
	if *only != "" {
		opt.Only = strings.Split(*only, ",")
	}
	rep, err := validate.Run(opt)
	if err != nil {
		return err
	}
	if format == "json" {
		if err := render.JSON(e.stdout, rep); err != nil {
			return err
		}
	} else if err := validation.WriteTable(e.stdout, &rep, opt); err != nil {
		return err
	}
	if !rep.Passed() {
		fmt.Fprintln(e.stderr, "simulate: validation failed: some figures disagree with their closed forms")
		return cli.ErrFailed
	}
	return nil
}
