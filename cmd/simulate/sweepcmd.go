package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/budgetsim/budgetsim/internal/cli"
	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/internal/render/sweeps"

	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/plan/sweep"
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
	e.setFormat(sf.Format, sf.Wide)
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
		limitHeap()
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
	base, points, err := sweep.Provenance(rec.Spec, sums)
	if err != nil {
		return err
	}
	var outErr error // the table is printed even when the files cannot be written
	if dir != "" {
		outErr = writeSweep(dir, sums, points)
	}
	if format == "json" {
		sweeps.WriteWarnings(e.stderr, "simulate: warning: ", sums) // stdout is the JSON alone
		if err := render.JSON(e.stdout, points); err != nil {
			return err
		}
	} else if err := sweeps.WriteTable(e.stdout, rec, base.Line(), sums); err != nil {
		return err
	}
	if outErr != nil {
		return outFailed(dir, outErr)
	}
	if rec.Partial {
		return cli.ErrInterrupted
	}
	return nil
}

// parseAxes parses the --vary arguments; sweep.CheckAxes checks them as
// a whole, naming each axis by its argument.
func parseAxes(varies []string) ([]sweep.Axis, error) {
	axes := make([]sweep.Axis, 0, len(varies))
	for _, v := range varies {
		a, err := sweep.ParseAxis(v)
		if err != nil {
			return nil, cli.Usagef("--vary %v", err)
		}
		axes = append(axes, a)
	}
	err := sweep.CheckAxes(axes, func(i int) string {
		if i < 0 {
			return "--vary"
		}
		return "--vary " + varies[i]
	})
	if err != nil {
		return nil, cli.Usagef("%v", err)
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

// writeSweep writes sweep.csv and sweep.json into dir, each atomically.
func writeSweep(dir string, sums []sweep.PointSummary, points []sweep.PointFile) error {
	return writeFiles(dir,
		outFile{outputs.SweepCSV.Name, func(w io.Writer) error { return sweep.WriteCSV(w, sweep.Rows(sums)) }},
		outFile{outputs.SweepJSON.Name, func(w io.Writer) error { return outputs.WriteJSON(w, points) }})
}
