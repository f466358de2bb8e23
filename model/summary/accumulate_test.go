package summary_test

import (
	"bytes"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// TestReplicateEachMatchesSummarize: replications handed one at a time to
// an Accumulator (what simulate run does) give the summary Summarize gives
// for the same replications all at once, byte for byte, on every bundled
// scenario and for any number of workers.
func TestReplicateEachMatchesSummarize(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every bundled scenario")
	}
	for _, name := range scenarios.Names() {
		cfg := load(t, name)
		if cfg.Runs > 5000 {
			cfg.Runs = 5000
			cfg.WarmupRuns = min(cfg.WarmupRuns, 500)
		}
		if cfg.Horizon > 0 && name == "launch-day" {
			cfg.Horizon /= 4 // 12 h of its 48: past the warm-up and the morning ramp
		}
		want, _ := json.Marshal(summary.Summarize(cfg, replicate.All(cfg, 3, 1, system.Options{}), 0.95))
		for _, workers := range []int{1, 3} {
			acc := summary.NewAccumulator(cfg, 0.95)
			next := 0
			replicate.Each(cfg, 3, workers, system.Options{}, func(i int, r *system.Result) {
				if i != next {
					t.Fatalf("%s: replication %d handed over before %d", name, i, next)
				}
				next++
				acc.Add(r)
			})
			if got, _ := json.Marshal(acc.Summary()); !bytes.Equal(got, want) {
				t.Errorf("%s, %d workers: the accumulated summary differs from Summarize's", name, workers)
			}
		}
	}
}

// TestAccumulatorMemory: 200 replications pooled as they come never hold
// more than a few results at once (each is ~800 KB here: all 200 would be
// 160 MB).
func TestAccumulatorMemory(t *testing.T) {
	cfg := load(t, "mmc", "runs=2000", "warmup=100")
	acc := summary.NewAccumulator(cfg, 0.95)
	var peak uint64
	replicate.Each(cfg, 200, 2, system.Options{}, func(i int, r *system.Result) {
		acc.Add(r)
		if i%10 == 9 {
			runtime.GC() // what is live, not what awaits collection
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
		}
	})
	if peak > 40<<20 {
		t.Fatalf("heap reached %d MB while pooling 200 replications: results are held", peak>>20)
	}
	if s := acc.Summary(); s.Replications != 200 || s.Confidence == nil {
		t.Fatalf("summary of %d replications, confidence %v", s.Replications, s.Confidence)
	}
}
