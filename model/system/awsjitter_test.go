package system_test

import (
	"testing"

	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// TestAWSJitterOrdering reproduces the published ordering of "Exponential
// Backoff And Jitter" (AWS Architecture Blog, Marc Brooker, 2015) on the
// bundled contention scenario: 100 clients racing for one row under
// optimistic concurrency. The blog's findings: no jitter is the clear loser
// on both work and time; among the jittered policies Full Jitter does the
// least work, Equal Jitter "does slightly more work than Full Jitter, and
// takes much longer", and Decorrelated Jitter takes slightly less time than
// Full but more work. Means are over 20 replications on common random
// numbers; each ordering must hold with the 95% Student-t intervals of the
// paired differences excluding 0 where the blog calls the gap clear.
func TestAWSJitterOrdering(t *testing.T) {
	const reps = 20
	type figs struct{ work, time []float64 }
	get := func(jitter string) figs {
		cfg := load(t, "aws-jitter", "retry.backoff.jitter="+jitter)
		var f figs
		for _, r := range replicate.All(cfg, reps, 0, system.Options{}) {
			if r.Runs.Completed != 100 {
				t.Fatalf("%s: %d of 100 clients completed", jitter, r.Runs.Completed)
			}
			f.work = append(f.work, float64(r.Attempts.Attempts))
			f.time = append(f.time, r.Latency.Max())
		}
		return f
	}
	none, full, equal, decor := get("none"), get("full"), get("equal"), get("decorrelated")
	diff := func(a, b []float64) stats.Interval {
		d := make([]float64, len(a))
		for i := range a {
			d[i] = a[i] - b[i]
		}
		return stats.MeanCI(d, 0.95)
	}
	clearlyLess := func(what string, a, b []float64, na, nb string) {
		t.Helper()
		if iv := diff(a, b); iv.Hi >= 0 {
			t.Errorf("%s: %s − %s = %v, want clearly < 0", what, na, nb, iv)
		}
	}
	clearlyLess("work", full.work, none.work, "full", "none")
	clearlyLess("time", full.time, none.time, "full", "none")
	clearlyLess("time", full.time, equal.time, "full", "equal")
	clearlyLess("work", full.work, decor.work, "full", "decorrelated")
	// The smaller gaps: orderings of the means.
	mean := func(xs []float64) float64 { return stats.MeanCI(xs, 0.95).Mean }
	if !(mean(full.work) < mean(equal.work)) {
		t.Errorf("work: full %.0f ≥ equal %.0f; the blog has Equal doing slightly more work", mean(full.work), mean(equal.work))
	}
	if !(mean(decor.time) < mean(full.time)) {
		t.Errorf("time: decorrelated %.3fs ≥ full %.3fs; the blog has Full taking slightly more time", mean(decor.time), mean(full.time))
	}
}
