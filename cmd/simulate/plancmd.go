package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/budgetsim/budgetsim/internal/cli"
	"github.com/budgetsim/budgetsim/internal/outputs"

	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/internal/render/plans"
	"github.com/budgetsim/budgetsim/plan/compare"
	"github.com/budgetsim/budgetsim/plan/search"
	"github.com/budgetsim/budgetsim/plan/sweep"
	"github.com/budgetsim/budgetsim/scenarios"
)

func init() {
	register(command{name: "plan", synopsis: "simulate plan SCENARIO --slo 'p99<=2s' [--slo …] --search workers=1..200   the smallest capacity meeting the SLOs, confirmed by simulation; --maximize the largest load, --minimize cost --over … the cheapest configuration", run: (*env).plan, graceful: true})
}

func (e *env) plan(args []string) error {
	fs, sf := newScenarioFlagSet("plan", e.stderr, "plan SCENARIO --slo 'p99<=2s' [--slo 'success>=0.99' …] (--search key=lo..hi | --maximize key=lo..hi | --minimize cost --over key=v1,v2,… […]) [--replications R] [--max-replications M] [--level 0.95] [--format table|markdown|json] [--out DIR]")
	if f := fs.Lookup("replications"); f != nil {
		f.DefValue = strconv.Itoa(search.DefaultReplications)
		f.Usage = "replications of each probe at first (≥ 2); a probe whose interval straddles a threshold gets more"
	}
	var slos cli.StringList
	fs.Var(&slos, "slo", "an objective: `p50|p90|p99|p999|mean<=DURATION`, wait_p50…wait_p999|wait_mean<=DURATION, or success>=FRACTION; repeatable (all must hold)")
	searchOnce := &cli.OnceString{Why: "plan sizes one key at a time; sweep explores two"}
	fs.Var(searchOnce, "search", "the key to size and its range, `key=lo..hi` (larger must be better): workers=1..200, queue.capacity=0..1000, tools.NAME.concurrency=1..64, tools.NAME.rate_limit.rate=1/s..100/s")
	searchFlag := &searchOnce.Value
	maximizeOnce := &cli.OnceString{Why: "plan answers one question at a time"}
	fs.Var(maximizeOnce, "maximize", "instead of --search: the largest value of a key that makes things harder as it grows that still meets every objective, `key=lo..hi`: arrivals.rate=1/s..50/s is the highest arrival rate the configuration holds")
	maximizeFlag := &maximizeOnce.Value
	minimize := fs.String("minimize", "", "instead of --search: `cost` finds the cheapest configuration (by cost per successful run) meeting every objective over the --over knobs, and the cost–latency frontier")
	var overs cli.StringList
	fs.Var(&overs, "over", "with --minimize: a knob and the values to try, `key=v1,v2,…` as --vary takes them (tools.model.concurrency=8,16,32, or named: key=small={…},large={…}); repeatable: every combination is simulated")
	tiers := fs.String("tiers", "", "with --minimize: tiers from a variants `FILE` (a list of {name, set: {key: value}}, as compare --variants reads), each tried as one value of the knob 'tier': a provider's plan, its limits and prices together")
	maxReps := fs.Int("max-replications", 0, "a probe whose confidence interval straddles a threshold is re-run with doubled replications up to this `cap` (default 8 × --replications)")
	precision := precisionFlag(search.DefaultTolerance)
	fs.Var(&precision, "precision", "stop when the bracket around the answer is narrower than this `fraction` of it (0.01 or 1%), or one step of an integer key: a large count (tpm) is not searched to a single token")
	fs.Var(&precision, "tolerance", "the former name of --precision")
	noAnalytic := fs.Bool("no-analytic", false, "do not start from the Erlang C estimate even when the scenario is an M/M/c queue")
	outDir := fs.String("out", "", "write sweep.csv (one line per probe, the sweep schema) and plan.json to `DIR` (with --minimize cost: grid.json, every configuration, the cheapest and the frontier)")
	scenario, err := cli.ScenarioArg(fs, sf, args, "plan")
	if err != nil {
		return err
	}
	e.setFormat(sf.Format, sf.Wide)
	repsSet := false
	fs.Visit(func(f *flag.Flag) { repsSet = repsSet || f.Name == "replications" })
	if !repsSet {
		sf.Replications = search.DefaultReplications
	}
	if sf.Replications < 2 {
		return cli.Usagef("--replications: plan needs at least 2 for confidence intervals, got %d", sf.Replications)
	}
	if *maxReps == 0 {
		*maxReps = search.DefaultMaxFactor * sf.Replications
	}
	if *maxReps < sf.Replications || *maxReps > 10000 {
		return cli.Usagef("--max-replications: must be in [--replications (%d), 10000], got %d", sf.Replications, *maxReps)
	}

	if *minimize == "" && (len(overs) > 0 || *tiers != "") {
		return cli.Usagef("--over and --tiers are the knobs of --minimize cost: add --minimize cost (plan --search sizes one key)")
	}
	if len(slos) == 0 && *minimize == "" {
		return cli.Usagef("plan needs at least one --slo (e.g. --slo 'p99<=2s' --slo 'success>=0.99')")
	}
	var objectives []search.SLO
	for _, s := range slos {
		o, err := search.ParseSLO(s)
		if err != nil {
			return cli.Usagef("--slo %v", err)
		}
		objectives = append(objectives, o)
	}
	if *minimize != "" {
		if *searchFlag != "" || *maximizeFlag != "" {
			return cli.Usagef("--minimize asks a different question from --search and --maximize: give one")
		}
		return e.planGrid(scenario, sf, objectives, *minimize, overs, *tiers, *maxReps, *outDir)
	}
	maximize := *maximizeFlag != ""
	switch {
	case maximize && *searchFlag != "":
		return cli.Usagef("--search and --maximize ask different questions: give one")
	case maximize && !strings.Contains(*maximizeFlag, "="):
		return cli.Usagef("--maximize %s: give the range to search, e.g. --maximize %s=1/s..50/s", *maximizeFlag, *maximizeFlag)
	case !maximize && *searchFlag == "":
		return cli.Usagef("plan needs --search key=lo..hi (e.g. --search workers=1..200), or --maximize key=lo..hi (e.g. --maximize arrivals.rate=1/s..50/s)")
	}
	flagName, rangeText := "--search", *searchFlag
	if maximize {
		flagName, rangeText = "--maximize", *maximizeFlag
	}
	rng, err := search.ParseRange(rangeText)
	if err != nil {
		return cli.Usagef("%s %v", flagName, err)
	}
	base, err := scenarios.Load(scenario, sf.AllSets())
	if err != nil {
		return err
	}
	var classes []string
	for _, c := range base.Config.Classes {
		classes = append(classes, c.Name)
	}
	if err := search.CheckClasses(objectives, classes); err != nil {
		return cli.Usagef("--slo %v", err)
	}
	if *outDir != "" {
		if err := cli.CheckOutDir(*outDir); err != nil {
			return err
		}
	}
	prob := search.Problem{SLOs: objectives, Range: rng, Replications: sf.Replications, MaxReplications: *maxReps, Level: sf.Level, Tolerance: float64(precision), Maximize: maximize}.WithDefaults()
	var start *search.Analytic
	if !*noAnalytic && !maximize && len(base.Config.Classes) == 0 {
		if a, ok := search.AnalyticStart(base.Config, rng.Key, objectives); ok && rng.Integer {
			start = a
			prob.Start, prob.HasStart = a.Value, true
		}
	}
	simr := &search.Simulator{Scenario: scenario, Sets: sf.AllSets(), Range: rng, Level: prob.LookLevel(), Parallel: sf.Parallel, Interrupt: e.interrupted}
	prob.Offered = simr.Offered
	// Progress: how many values have been probed, and the replications of
	// the current one. The search decides its next value from this one's
	// intervals, so there is no total to estimate the time left from.
	prog := cli.NewProgress(e.stderr, "plan", time.Now)
	probed := map[float64]bool{}
	simr.Progress = func(v float64, done, n int) {
		probed[v] = true
		prog.Status(fmt.Sprintf("%d values probed; %s=%s: %d/%d replications", len(probed), rng.Key, rng.Format(v), done, n))
	}
	ans, err := search.Search(prob, simr.Probe)
	prog.Done()
	if ans == nil {
		return err
	}
	ans.Analytic = start
	interrupted := errors.Is(err, search.ErrInterrupted)
	if err != nil && !interrupted {
		return err
	}
	prov := provenance.Of(base)
	var outErr error // the answer is printed even when the files cannot be written
	if *outDir != "" {
		outErr = writePlanFiles(*outDir, prov, ans)
	}
	if sf.Format == "json" {
		if err := render.JSON(e.stdout, search.PlanFile{Provenance: &prov, Answer: ans}); err != nil {
			return err
		}
	} else if err := plans.WriteTable(e.stdout, scenario, prov.Line(), &prob, ans); err != nil {
		return err
	}
	switch {
	case outErr != nil:
		return outFailed(*outDir, outErr)
	case interrupted:
		return cli.ErrInterrupted
	case ans.HurtsAsItGrows:
		fmt.Fprintf(e.stderr, "simulate: %s gets worse as it grows: --search sizes keys that help as they grow; --maximize finds the largest value of one that hurts (see the note)\n", rng.Key)
		return cli.ErrFailed
	case ans.HelpsAsItGrows:
		fmt.Fprintf(e.stderr, "simulate: %s gets better as it grows: --maximize is for keys that hurt as they grow; --search sizes this one (see the note)\n", rng.Key)
		return cli.ErrFailed
	case !ans.Found:
		fmt.Fprintf(e.stderr, "simulate: no value of %s in %s..%s meets every objective\n", rng.Key, rng.Format(rng.Lo), rng.Format(rng.Hi))
		return cli.ErrFailed
	}
	return nil
}

func writePlanFiles(dir string, prov provenance.Record, ans *search.Answer) error {
	return writeFiles(dir,
		outFile{outputs.SweepCSV.Name, func(w io.Writer) error { return sweep.WriteCSV(w, ans.Rows()) }},
		outFile{outputs.PlanJSON.Name, func(w io.Writer) error { return outputs.WriteJSON(w, search.PlanFile{Provenance: &prov, Answer: ans}) }})
}

// precisionFlag is --precision: a fraction in (0, 1), written as one
// (0.02) or as a percentage (2%).
type precisionFlag float64

func (p *precisionFlag) String() string { return strconv.FormatFloat(float64(*p), 'g', -1, 64) }

func (p *precisionFlag) Set(s string) error {
	t := strings.TrimSpace(s)
	scale := 1.0
	if pct, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = strings.TrimSpace(pct), 0.01
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || !(x*scale > 0 && x*scale < 1) {
		return fmt.Errorf("must be a fraction in (0, 1) or a percentage (2%%), got %q", s)
	}
	*p = precisionFlag(x * scale)
	return nil
}

// planGrid is plan --minimize cost: every configuration of the --over
// knobs (and --tier bundles) simulated, the cheapest meeting every
// objective and the cost–latency frontier.
func (e *env) planGrid(scenario string, sf *cli.ScenarioFlags, objectives []search.SLO, minimize string, overs []string, tiers string, maxReps int, outDir string) error {
	if minimize != "cost" {
		return cli.Usagef("--minimize: only cost (cost per successful run) can be minimized, got %q", minimize)
	}
	if len(overs) == 0 && tiers == "" {
		return cli.Usagef("--minimize cost needs knobs: --over key=v1,v2,… (e.g. --over tools.model.concurrency=8,16,32), repeatable, or --tiers FILE")
	}
	var knobs []search.Knob
	for _, o := range overs {
		a, err := compare.ParseVary(o)
		if err != nil {
			return cli.Usagef("--over %v", err)
		}
		if len(a.Choices) < 2 {
			return cli.Usagef("--over %s: give at least two values to choose between (one value is a --set)", o)
		}
		knobs = append(knobs, knobOf(a, a.Key))
	}
	if tiers != "" {
		a, err := compare.ReadVariants(tiers)
		if err != nil {
			return fmt.Errorf("--tiers %w", err)
		}
		knobs = append(knobs, knobOf(a, search.TierKey))
	}
	g := search.Grid{SLOs: objectives, Knobs: knobs, Replications: sf.Replications, MaxReplications: maxReps, Level: sf.Level}
	if n := g.Size(); n > search.MaxConfigurations {
		return cli.Usagef("--over: the grid has %d configurations, more than %d: give fewer values", n, search.MaxConfigurations)
	}
	base, err := scenarios.Load(scenario, sf.AllSets())
	if err != nil {
		return err
	}
	var classes []string
	for _, c := range base.Config.Classes {
		classes = append(classes, c.Name)
	}
	if err := search.CheckClasses(objectives, classes); err != nil {
		return cli.Usagef("--slo %v", err)
	}
	metered := false
	for _, t := range base.Config.Tools {
		metered = metered || t.Cost != nil
	}
	if !metered {
		return fmt.Errorf("%s: no tool has a cost (tools.NAME.cost), so there is no cost to minimize", scenario)
	}
	g.Currency = base.Config.Currency
	if outDir != "" {
		if err := cli.CheckOutDir(outDir); err != nil {
			return err
		}
	}
	// Every configuration is loaded before any is simulated, so a bad
	// value fails at once, naming its flag, not after an hour.
	var variants scenarios.Variants
	for _, c := range g.Configurations() {
		if _, err := variants.Load(scenario, append(sf.AllSets(), c.Sets...)); err != nil {
			return cli.Usagef("--over/--tiers: configuration %s: %v", strings.Join(c.Sets, " "), err)
		}
	}
	lookLevel := search.Problem{SLOs: objectives, Replications: g.Replications, MaxReplications: g.MaxReplications, Level: g.Level}.LookLevel()
	gs := &search.GridSimulator{Scenario: scenario, Sets: sf.AllSets(), Level: lookLevel, Parallel: sf.Parallel, Interrupt: e.interrupted}
	prog := cli.NewProgress(e.stderr, "plan", time.Now)
	total := g.Size()
	gs.Progress = func(c search.Configuration, done, n int) {
		prog.Status(fmt.Sprintf("configuration %d/%d: %d/%d replications", c.Index+1, total, done, n))
	}
	ans, err := search.SearchGrid(g, gs.Evaluate)
	prog.Done()
	if ans == nil {
		return err
	}
	interrupted := errors.Is(err, search.ErrInterrupted)
	if err != nil && !interrupted {
		return err
	}
	prov := provenance.Of(base)
	file := search.GridPlanFile{Provenance: &prov, GridAnswer: ans}
	var outErr error
	if outDir != "" {
		outErr = writeFiles(outDir, outFile{outputs.GridJSON.Name, func(w io.Writer) error { return outputs.WriteJSON(w, file) }})
	}
	if sf.Format == "json" {
		if err := render.JSON(e.stdout, file); err != nil {
			return err
		}
	} else if err := plans.WriteGridTable(e.stdout, scenario, prov.Line(), ans); err != nil {
		return err
	}
	switch {
	case outErr != nil:
		return outFailed(outDir, outErr)
	case interrupted:
		return cli.ErrInterrupted
	case !ans.Found:
		fmt.Fprintf(e.stderr, "simulate: no configuration of the grid meets every objective\n")
		return cli.ErrFailed
	}
	return nil
}

// knobOf is a --over axis or a --tiers file as a knob of the grid: each
// choice's label is its name, or its value when it sets the axis's key
// alone.
func knobOf(a compare.Axis, key string) search.Knob {
	k := search.Knob{Key: key}
	for _, c := range a.Choices {
		label := c.Label()
		if c.Name == "" && len(c.Set) == 1 && len(c.Unset) == 0 && c.Set[0].Key == a.Key {
			label = c.Set[0].Value
		}
		v := compare.Variant{Choices: []compare.Choice{c}}
		k.Settings = append(k.Settings, search.Setting{Label: label, Sets: v.Overrides()})
	}
	return k
}
