package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"

	"github.com/budgetsim/budgetsim/internal/cli"

	"github.com/budgetsim/budgetsim/plan/sweep"
	"github.com/budgetsim/budgetsim/scenarios"
)

func init() {
	register(command{name: "merge", synopsis: "simulate merge DIR|FILE… --out DIR             combine 'sweep --shard' files into sweep.csv and sweep.json (identical to an unsharded sweep)", run: (*env).merge})
}

func (e *env) merge(args []string) error {
	fs := newFlagSet("merge", e.stderr, "merge DIR|FILE… --out DIR [--scenario PATH] [--format table|markdown|json]")
	outDir := fs.String("out", "", "write sweep.csv and sweep.json to `DIR` (required)")
	scenario := fs.String("scenario", "", "load the scenario from `PATH` instead of the path the shards recorded (it must have the same text)")
	var format string
	var wide bool
	cli.RegisterOutput(fs, &format, &wide)
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if err := cli.CheckFormat(format, "table", "markdown", "json"); err != nil {
		return err
	}
	e.setFormat(format, wide)
	if len(pos) == 0 {
		return cli.Usagef("merge needs the shard files, or directories holding shard-i-of-n.json files")
	}
	if *outDir == "" {
		return cli.Usagef("merge needs --out DIR for sweep.csv and sweep.json")
	}
	limitHeap()
	var files []string
	for _, p := range pos {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		found, _ := filepath.Glob(filepath.Join(p, "shard-*-of-*.json"))
		if len(found) == 0 {
			return cli.Usagef("%s: no shard-i-of-n.json files in it", p)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	// The files are read point by point, all at once, and a point's
	// replications one at a time: memory holds one replication's result
	// and the point's pooled figures, whatever the number of shards.
	var shards []*sweep.ShardReader
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		s, err := sweep.NewShardReader(name, f)
		if err != nil {
			return err
		}
		if *scenario != "" {
			s.Header.Spec.Scenario = *scenario
		}
		shards = append(shards, s)
	}
	err = e.mergeShards(shards, *outDir, format)
	var spec string
	if len(shards) > 0 {
		spec = shards[0].Header.Spec.Scenario
	}
	switch {
	case err == nil:
	case *scenario == "" && errors.Is(err, scenarios.ErrNotFound):
		return fmt.Errorf("%w; the shards name the scenario %q as the sweep was given it, relative to where it ran: run merge there, or give --scenario PATH", err, spec)
	case *scenario != "" && errors.Is(err, sweep.ErrScenarioChanged):
		return fmt.Errorf("%w: --scenario %s is not the scenario the sweep ran", err, *scenario)
	}
	return err
}

// mergeShards merges shard files point by point, a replication at a time
// (sweep.MergeShards), into summaries, and
// writes and prints them as sweep does once every file has checked out.
func (e *env) mergeShards(shards []*sweep.ShardReader, dir, format string) error {
	var sum *sweep.Summarizer
	rec, err := sweep.MergeShards(shards, func(whole *sweep.Record) (func(*sweep.RawPoint) error, error) {
		var err error
		if sum, err = sweep.NewSummarizer(whole.Spec); err != nil {
			return nil, err
		}
		if err := sum.CheckScenario(whole.ScenarioSHA256); err != nil {
			return nil, err
		}
		return func(rp *sweep.RawPoint) error { return sum.Add(rp, false) }, nil
	})
	if err != nil {
		return err
	}
	return e.printSweep(rec, sum.Summaries(false), dir, format)
}

// heapLimit is the heap the shard commands (merge, sweep --shard) ask the
// garbage collector to stay under: shard lines are up to
// sweep.MaxShardLineBytes, and without a limit the collector lets the heap
// grow to twice what is live before collecting, past docs/limits.md's
// 4 GB for the largest lines.
const heapLimit = 3 << 30

// limitHeap sets the garbage collector's soft memory limit to heapLimit,
// unless GOMEMLIMIT chose one.
func limitHeap() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(heapLimit)
	}
}
