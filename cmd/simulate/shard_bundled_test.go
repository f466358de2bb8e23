package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/budgetsim/budgetsim/scenarios"
)

// TestEveryBundledScenarioShardsByteIdentical: the cluster route merges
// what it runs. For every bundled scenario (parallel steps, hedges,
// adaptive limits, breakers, classes, tokens, budgets, closed and batch
// arrivals among them), a small sweep run in two shards and merged writes
// sweep.json and sweep.csv byte-identical to the unsharded sweep: every
// accumulator a Result carries survives the shard file's encoding.
func TestEveryBundledScenarioShardsByteIdentical(t *testing.T) {
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := scenarios.Load(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			w := sc.Config.Workers
			common := []string{name, "--set", "guards={max_wall: 1m}", "--vary", fmt.Sprintf("workers=%d,%d", w, w+1), "--replications", "2"}
			if sc.Config.Horizon == 0 && sc.Config.Arrivals.Process != 2 { // not a batch: runs can be bounded
				common = append(common, "--set", "runs=1200", "--set", "warmup=100")
			}
			tmp := t.TempDir()
			whole := filepath.Join(tmp, "whole")
			mustRun(t, append([]string{"sweep", "--out", whole}, common...)...)
			shards := filepath.Join(tmp, "shards")
			for i := range 2 {
				mustRun(t, append([]string{"sweep", "--shard", fmt.Sprintf("%d/2", i), "--out", shards}, common...)...)
			}
			merged := filepath.Join(tmp, "merged")
			mustRun(t, "merge", shards, "--out", merged)
			for _, f := range []string{"sweep.json", "sweep.csv"} {
				if !bytes.Equal(readFile(t, filepath.Join(merged, f)), readFile(t, filepath.Join(whole, f))) {
					t.Errorf("%s: two shards merged differ from the unsharded sweep", f)
				}
			}
		})
	}
}
