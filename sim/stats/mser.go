package stats

import (
	"fmt"
	"math"
)

// MSER5 returns the number of initial observations of the output series xs
// to discard as warm-up, by the MSER-5 rule (K. P. White Jr., "An effective
// truncation heuristic for bias reduction in simulation output",
// Simulation 69(6):323–334, 1997; the batch size 5 is from White, Cobb and
// Spratt, "A comparison of five steady-state truncation heuristics for
// simulation", WSC 2000). It is MSER(xs, 5); see MSER.
func MSER5(xs []float64) (truncate int) { return MSER(xs, 5) }

// MSER returns the number of initial observations of xs to discard as
// warm-up by the Marginal Standard Error Rule on batch means of size batch.
//
// The series is cut into b = ⌊len(xs)/batch⌋ consecutive batches (a partial
// batch at the end is ignored) with means Z_1..Z_b. For each candidate
// truncation of d batches, d in [0, b/2] and leaving at least two batches,
// MSER(d) = Σ_{j>d} (Z_j - Z̄_d)² / (b-d)², the squared standard error of the
// mean of the retained batch means; the d minimising it wins (the smallest
// on ties) and MSER returns d·batch. A result near len(xs)/2 means the
// series never settled within the searched half: the run is too short and
// the truncation should not be trusted. Fewer than two batches give 0.
//
// MSER takes O(len(xs)) time, does not allocate and does not modify xs. It
// panics if batch < 1.
func MSER(xs []float64, batch int) (truncate int) {
	if batch < 1 {
		panic(fmt.Sprintf("stats: MSER: batch must be >= 1, got %d", batch))
	}
	b := len(xs) / batch
	if b < 2 {
		return 0
	}
	dMax := min(b/2, b-2)
	// Walk the batches backwards, keeping Welford's statistics of the
	// suffix Z_{j..b}, so that each candidate d = j costs O(batch).
	var suffix Running
	best, bestD := math.Inf(1), 0
	for j := b - 1; j >= 0; j-- {
		var s float64
		for _, x := range xs[j*batch : (j+1)*batch] {
			s += x
		}
		suffix.Add(s / float64(batch))
		if j > dMax {
			continue
		}
		k := float64(suffix.n)
		if v := suffix.m2 / (k * k); v <= best {
			best, bestD = v, j
		}
	}
	return bestD * batch
}
