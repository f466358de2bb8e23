package stats_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/budgetsim/budgetsim/sim/stats"
)

// TestMSER5 runs MSER-5 on 200 independent series of 5000 N(0,1) values,
// once stationary and once with the first 500 values offset by +10.
//
// Transient: keeping any offset batch (mean ≈ 10, batch-mean SD 1/√5) in
// the retained set inflates the MSER statistic by orders of magnitude, so
// the truncation can never be below 500; we require it within 100 (20
// batches, 2% of the series) above. Stationary: the rule should truncate
// little, and always far less than the 500 it finds for a real transient;
// we require a median of at most 25 (5 batches) and every truncation below
// 250, half the transient. (Over 500 seeds the observed stationary
// truncations had median 0 and maximum 170; transient ones 500 to 670.)
func TestMSER5(t *testing.T) {
	const (
		n     = 5000
		trans = 500
		reps  = 200
	)
	var stationary, transient []int
	xs, ys := make([]float64, n), make([]float64, n)
	for seed := range uint64(reps) {
		rng := rand.New(rand.NewPCG(seed, 2))
		for i := range xs {
			xs[i] = rng.NormFloat64()
			ys[i] = rng.NormFloat64()
			if i < trans {
				ys[i] += 10
			}
		}
		stationary = append(stationary, stats.MSER5(xs))
		d := stats.MSER5(ys)
		if d < trans || d > trans+100 {
			t.Errorf("seed %d: MSER5(transient of %d) = %d, want in [%d, %d]", seed, trans, d, trans, trans+100)
		}
		transient = append(transient, d)
	}
	slices.Sort(stationary)
	if med := stationary[reps/2]; med > 25 {
		t.Errorf("MSER5(stationary): median truncation %d over %d series, want <= 25", med, reps)
	}
	if mx := stationary[reps-1]; mx >= trans/2 {
		t.Errorf("MSER5(stationary): max truncation %d over %d series, want < %d", mx, reps, trans/2)
	}
}

// TestMSERSmall checks short and degenerate inputs and a hand-worked case.
func TestMSERSmall(t *testing.T) {
	tests := []struct {
		name  string
		xs    []float64
		batch int
		want  int
	}{
		{"empty", nil, 5, 0},
		{"one batch", []float64{9, 9, 9, 9, 9, 1}, 5, 0},
		{"constant", slices.Repeat([]float64{3}, 50), 5, 0},
		// Batch size 1, d <= min(6/2, 6-2) = 3; MSER(d) = SS/(6-d)²:
		// d=0: SS 78, 2.167; d=1: {0,1,0,1,0} SS 1.2, 0.048;
		// d=2: {1,0,1,0} SS 1, 0.0625; d=3: {0,1,0} SS 2/3, 0.074.
		{"batch 1", []float64{10, 0, 1, 0, 1, 0}, 1, 1},
		// Batch size 2: batch means 5, 0.5, 0.5; d <= min(3/2, 3-2) = 1;
		// d=0: SS 13.5, 1.5; d=1: SS 0. One batch = 2 observations.
		{"batch 2", []float64{10, 0, 1, 0, 0, 1}, 2, 2},
	}
	for _, tt := range tests {
		if got := stats.MSER(tt.xs, tt.batch); got != tt.want {
			t.Errorf("%s: MSER(%v, %d) = %d, want %d", tt.name, tt.xs, tt.batch, got, tt.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("MSER(xs, 0) did not panic")
		}
	}()
	stats.MSER([]float64{1, 2, 3}, 0)
}

// TestMSERAllocs checks that MSER does not allocate.
func TestMSERAllocs(t *testing.T) {
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64(i % 7)
	}
	if a := testing.AllocsPerRun(100, func() { _ = stats.MSER5(xs) }); a != 0 {
		t.Errorf("MSER5: AllocsPerRun = %v, want 0", a)
	}
}

func BenchmarkMSER5(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 100000)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = stats.MSER5(xs)
	}
}

func ExampleMSER5() {
	// A queue that starts empty: waits ramp up over the first 100
	// observations, then fluctuate around 2.
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = 2 + 0.1*float64(i%3-1)
		if i < 100 {
			xs[i] = 2 * float64(i) / 100
		}
	}
	fmt.Println("discard", stats.MSER5(xs), "of", len(xs))
	// Output:
	// discard 100 of 1000
}
