package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/budgetsim/budgetsim/internal/cli"

	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/plan/sweep"
	"github.com/budgetsim/budgetsim/scenarios"
)

func init() {
	register(command{name: "sweep", synopsis: "simulate sweep SCENARIO --vary key=a..b:n [--vary …] [--out DIR]   parameter sweep on common random numbers: sweep.csv, sweep.json; --shard i/n for a cluster", run: (*env).sweep, graceful: true})
}

func (e *env) sweep(args []string) error {
	fs, sf := newScenarioFlagSet("sweep", e.stderr, "sweep SCENARIO --vary key=a..b:n|v1,v2 [--vary …] [--out DIR] [--shard i/n] [--rel-error 0.05 --max-replications 200] [flags]")
	var varies cli.StringList
	fs.Var(&varies, "vary", "a key and its values: `key=a..b:n` (n points from a to b: 1/s..10/s:10, 100ms..2s:5, 1..200:20), key=a..b (integer ends: every integer, 10..20) or key=v1,v2,…; two --vary form a grid")
	outDir := fs.String("out", "", "write sweep.csv and sweep.json (or, with --shard, shard-i-of-n.json) to `DIR`, atomically")
	shardFlag := fs.String("shard", "", "run slice `i/n` (0-based i) of the work and write DIR/shard-i-of-n.json; combine the n files with 'simulate merge'")
	relErr := fs.Float64("rel-error", 0, "add batches of --replications replications to each point until the confidence half-width of its mean and p99 latency and success rate is below this `fraction` of the estimate (0: fixed replications)")
	maxReps := fs.Int("max-replications", sweep.DefaultMaxReplications, "with --rel-error: at most this many replications per point")
	scenario, err := cli.ScenarioArg(fs, sf, args, "sweep")
	if err != nil {
		return err
	}
	axes, err := parseAxes(varies)
	if err != nil {
		return err
	}
	if *relErr < 0 || *relErr >= 1 {
		return cli.Usagef("--rel-error: must be in (0, 1), or 0 for fixed replications; got %g", *relErr)
	}
	if *relErr > 0 && (*maxReps < max(sf.Replications, 4) || *maxReps > 100000) {
		return cli.Usagef("--max-replications: must be in [%d, 100000] (at least one batch of --replications, and 4), got %d", max(sf.Replications, 4), *maxReps)
	}
	spec := sweep.Spec{Scenario: scenario, Sets: sf.AllSets(), Axes: axes, Replications: sf.Replications, Level: sf.Level, Shards: 1}
	if *relErr > 0 {
		spec.RelError, spec.MaxReplications = *relErr, *maxReps
	}
	if *shardFlag != "" {
		if spec.Shard, spec.Shards, err = parseShard(*shardFlag); err != nil {
			return err
		}
		if *outDir == "" {
			return cli.Usagef("--shard needs --out DIR for the shard file")
		}
	}
	if err := spec.Validate(); err != nil {
		return cli.Usagef("%v", err)
	}
	if *outDir != "" {
		if err := cli.CheckOutDir(*outDir); err != nil {
			return err
		}
	}
	opt := sweep.Options{Parallel: sf.Parallel, Interrupt: e.interrupted}
	var sum *sweep.Summarizer
	if *shardFlag == "" {
		// A whole sweep pools each replication into its point as it
		// completes and summarises the point when the stop rule closes
		// it: memory holds the pooled figures of the points in progress,
		// never their replications.
		if sum, err = sweep.NewSummarizer(spec); err != nil {
			return err
		}
		opt.Result = sum.Result
	}
	// Progress: points closed (a whole sweep's; a shard reports
	// replications only) and replications run.
	prog := cli.NewProgress(e.stderr, "sweep", time.Now)
	var pointsDone, points, reps, repsTotal atomic.Int64
	if sum != nil {
		points.Store(int64(len(spec.Points())))
		opt.PointDone = func(rp *sweep.RawPoint) error {
			pointsDone.Add(1)
			prog.Update(int(pointsDone.Load()), int(points.Load()), int(reps.Load()), int(repsTotal.Load()))
			return sum.Done(rp, false)
		}
	}
	// A shard with a fixed number of replications writes each point's
	// line to a spill file as the point completes, so that memory holds
	// the points in progress, not the shard's results.
	var sw *sweep.ShardWriter
	n := 0 // replications in the shard file
	if *shardFlag != "" && spec.RelError == 0 {
		if sw, err = sweep.NewShardWriter(*outDir, spec); err != nil {
			return err
		}
		defer sw.Close()
		opt.PointDone = func(rp *sweep.RawPoint) error {
			n += len(rp.Results)
			return sw.Add(rp)
		}
	}
	opt.Progress = func(done, scheduled int) {
		reps.Store(int64(done))
		repsTotal.Store(int64(scheduled))
		prog.Update(int(pointsDone.Load()), int(points.Load()), done, scheduled)
	}
	rec, err := sweep.Run(spec, opt)
	prog.Done()
	if err != nil {
		return err
	}
	if *shardFlag != "" {
		if err := writeShard(*outDir, rec, sw); err != nil {
			return err
		}
		for _, p := range rec.Points {
			n += len(p.Results)
		}
		fmt.Fprintf(e.stdout, "shard %d of %d: %d replications of %d points written to %s\n", spec.Shard, spec.Shards, n, len(rec.Points), filepath.Join(*outDir, sweep.ShardFile(spec.Shard, spec.Shards)))
		if rec.Partial {
			return cli.ErrInterrupted
		}
		return nil
	}
	// The points an interrupt cut short are still open.
	for _, rp := range rec.Points {
		if err := sum.Add(rp, rec.Partial); err != nil {
			return err
		}
	}
	sums := sum.Summaries(rec.Partial)
	if n := len(spec.Points()); !rec.Partial && len(sums) != n {
		return fmt.Errorf("sweep: %d of %d points summarised", len(sums), n)
	}
	return e.printSweep(rec, sums, *outDir, sf.Format)
}

// finishSweep summarises a whole-sweep record (from merged shards), writes
// sweep.csv and sweep.json into dir (if set) and prints the table or the
// JSON.
func (e *env) finishSweep(rec *sweep.Record, dir, format string) error {
	sums, err := sweep.Summarize(rec)
	if err != nil {
		return err
	}
	return e.printSweep(rec, sums, dir, format)
}

// printSweep writes sweep.csv and sweep.json into dir (if set) and prints
// the table or the JSON.
func (e *env) printSweep(rec *sweep.Record, sums []sweep.PointSummary, dir, format string) error {
	base, points, err := sweepPoints(rec.Spec, sums)
	if err != nil {
		return err
	}
	var outErr error // the table is printed even when the files cannot be written
	if dir != "" {
		outErr = writeSweep(dir, sums, points)
	}
	if format == "json" {
		sweepWarnings(e.stderr, sums) // stdout is the JSON alone
		if err := render.JSON(e.stdout, points); err != nil {
			return err
		}
	} else {
		if err := sweepTable(e.stdout, rec, base, sums); err != nil {
			return err
		}
		labels := make([]string, len(sums))
		warns := make([][]string, len(sums))
		for i, p := range sums {
			labels[i], warns[i] = p.Label, p.Summary.Warnings
		}
		render.WarningsByLabel(e.stdout, "points", labels, warns)
	}
	if outErr != nil {
		return outFailed(dir, outErr)
	}
	if rec.Partial {
		return cli.ErrInterrupted
	}
	return nil
}

func parseAxes(varies []string) ([]sweep.Axis, error) {
	if len(varies) == 0 {
		return nil, cli.Usagef("--vary: at least one key=a..b:n or key=v1,v2,… is required")
	}
	var axes []sweep.Axis
	points := 1
	for _, v := range varies {
		a, err := sweep.ParseAxis(v)
		if err != nil {
			return nil, cli.Usagef("--vary %v", err)
		}
		for _, b := range axes {
			if b.Key == a.Key {
				return nil, cli.Usagef("--vary %s: %s is varied twice: vary each key once (two --vary of different keys form a grid)", v, a.Key)
			}
		}
		axes = append(axes, a)
		points *= len(a.Values)
		if points > sweep.MaxPoints {
			return nil, cli.Usagef("--vary: the grid has more than %d points", sweep.MaxPoints)
		}
	}
	return axes, nil
}

// parseShard parses "i/n" with 0 ≤ i < n.
func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, cli.Usagef("--shard %q: must be i/n with 0 ≤ i < n (e.g. 0/4 … 3/4; a Kubernetes Indexed Job's JOB_COMPLETION_INDEX is 0-based)", s)
	}
	return i, n, nil
}

// writeShard writes rec's shard file into dir, with the points sw took
// as they completed (sw nil: all of them are in rec).
func writeShard(dir string, rec *sweep.Record, sw *sweep.ShardWriter) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return writeCSV(filepath.Join(dir, sweep.ShardFile(rec.Spec.Shard, rec.Spec.Shards)), func(w io.Writer) error {
		if sw != nil {
			return sw.Finish(w, rec)
		}
		_, err := rec.WriteTo(w)
		return err
	})
}

// sweepPoint is an element of sweep.json: a point's summary after the
// provenance of the scenario it simulated (the sweep's overrides, then
// the point's values).
type sweepPoint struct {
	Provenance provenance.Record `json:"provenance"`
	sweep.PointSummary
}

// sweepPoints returns the provenance of the sweep's scenario (with the
// overrides every point shares) and each point with its own, parsed from
// one reading of the scenario's file.
func sweepPoints(spec sweep.Spec, sums []sweep.PointSummary) (provenance.Record, []sweepPoint, error) {
	var v scenarios.Variants
	base, err := v.Load(spec.Scenario, spec.Sets)
	if err != nil {
		return provenance.Record{}, nil, err
	}
	points := make([]sweepPoint, len(sums))
	for i, p := range sums {
		sets := slices.Clone(spec.Sets)
		for _, kv := range p.Point {
			sets = append(sets, kv.Key+"="+kv.Value)
		}
		sc, err := v.Load(spec.Scenario, sets)
		if err != nil {
			return provenance.Record{}, nil, fmt.Errorf("point %s: %w", p.Label, err)
		}
		points[i] = sweepPoint{provenance.Of(sc), p}
	}
	return provenance.Of(base), points, nil
}

// writeSweep writes sweep.csv and sweep.json into dir, each atomically.
func writeSweep(dir string, sums []sweep.PointSummary, points []sweepPoint) error {
	return writeFiles(dir,
		outFile{"sweep.csv", func(w io.Writer) error { return sweep.WriteCSV(w, sweep.Rows(sums)) }},
		outFile{"sweep.json", func(w io.Writer) error { return render.JSON(w, points) }})
}

// sweepWarnings prints, on stderr, the caveats a reader of the table must
// not miss: thin p99.9 estimates, warm-up and stop-rule notes.
func sweepWarnings(w io.Writer, sums []sweep.PointSummary) {
	// p99.9 needs 10 samples above it: n ≥ 10/(1−0.999) completions.
	const need = 10000
	// A grid of thousands of points names the first few on stderr;
	// sweep.json has every point's warnings.
	const shown = 10
	var thin []string
	notes := 0
	for _, s := range sums {
		if n := s.Summary.Latency.N; n > 0 && n < need {
			thin = append(thin, s.Label)
		}
		if s.Warmup.Note != "" {
			if notes < shown {
				fmt.Fprintf(w, "simulate: warning: %s: %s\n", s.Label, s.Warmup.Note)
			}
			notes++
		}
	}
	if notes > shown {
		fmt.Fprintf(w, "simulate: warning: %d more points have warm-up notes (each point's warnings are in sweep.json)\n", notes-shown)
	}
	if len(thin) > 0 {
		fmt.Fprintf(w, "simulate: warning: %d of %d points have fewer than %d completed runs, so their p99.9 rests on fewer than 10 samples (add --runs or --replications): %s\n",
			len(thin), len(sums), need, render.FirstFew(thin, shown))
	}
}

func sweepTable(w io.Writer, rec *sweep.Record, base provenance.Record, sums []sweep.PointSummary) error {
	spec := rec.Spec
	mode := fmt.Sprintf("%d replication(s) per point", spec.Replications)
	if spec.RelError > 0 {
		mode = fmt.Sprintf("replications until ±%g relative error (batches of %d, at most %d)", spec.RelError, max(spec.Replications, 4), spec.MaxReplications)
	}
	seed := "" // the scenario's, once a point has a summary to say it
	if len(sums) > 0 {
		seed = fmt.Sprintf(" (seed %d)", sums[0].Summary.Seed)
	}
	fmt.Fprintf(w, "%s: %d points on common random numbers%s, %s\n", spec.Scenario, len(sums), seed, mode)
	fmt.Fprintln(w, base.Line())
	if rec.Partial {
		fmt.Fprintf(w, "interrupted: %d of the %d points have results (a point cut short says partial in its warnings); rerun for the rest\n", len(sums), len(spec.Points()))
	}
	var rows [][]string
	for _, p := range sums {
		s := &p.Summary
		success, p99 := render.Percent(s.SuccessRate), render.Seconds(s.Latency.P99)
		if c := s.Confidence; c != nil {
			success = render.PlusMinus(s.SuccessRate, c.SuccessRate.Lo, c.SuccessRate.Hi, render.Percent)
			p99 = render.PlusMinus(s.Latency.P99, c.Latency.P99.Lo, c.Latency.P99.Hi, render.Seconds)
		}
		warm := p.Warmup.Source
		switch p.Warmup.Source {
		case sweep.WarmupMSER5, sweep.WarmupDefault:
			warm = fmt.Sprintf("%d runs (%s)", p.Warmup.Runs, p.Warmup.Source)
		}
		rows = append(rows, []string{p.Label, strconv.Itoa(s.Replications), success,
			render.Seconds(s.Latency.P50), p99, render.Seconds(s.Latency.P999),
			render.Number(s.Little.Throughput) + "/s", render.Number(s.Little.TimeAvgInSystem), render.Number(s.Attempts.PerRun), warm})
	}
	return render.Table(w, []string{"point", "replications", "success", "p50", "p99", "p99.9", "throughput", "in system (L)", "attempts/run", "warm-up"}, rows)
}
