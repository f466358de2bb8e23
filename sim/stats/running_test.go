package stats_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/budgetsim/budgetsim/sim/stats"
)

// closeRel reports whether got is within a relative tol of want.
func closeRel(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Abs(want)
}

// TestRunningVsGonum compares Running with gonum's two-pass
// stat.MeanVariance on the same data. Both are backward stable; 1e-12
// relative covers float64 rounding over 10^4 terms.
func TestRunningVsGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{2, 3, 10, 10000} {
		xs := make([]float64, n)
		var r stats.Running
		for i := range xs {
			xs[i] = 100 + 15*rng.NormFloat64()
			r.Add(xs[i])
		}
		mean, variance := stat.MeanVariance(xs, nil)
		if r.N() != n {
			t.Errorf("n=%d: N() = %d, want %d", n, r.N(), n)
		}
		if got := r.Mean(); !closeRel(got, mean, 1e-12) {
			t.Errorf("n=%d: Mean() = %v, want %v", n, got, mean)
		}
		if got := r.Variance(); !closeRel(got, variance, 1e-12) {
			t.Errorf("n=%d: Variance() = %v, want %v", n, got, variance)
		}
		if got := r.StdDev(); !closeRel(got, math.Sqrt(variance), 1e-12) {
			t.Errorf("n=%d: StdDev() = %v, want %v", n, got, math.Sqrt(variance))
		}
	}
}

// TestRunningStable checks the case that defeats the sum-of-squares
// formula: 10^9 + {4, 7, 13, 16} has sample variance exactly 30 (the
// example in Wikipedia's "Algorithms for calculating variance").
func TestRunningStable(t *testing.T) {
	var r stats.Running
	for _, x := range []float64{4, 7, 13, 16} {
		r.Add(1e9 + x)
	}
	if got, want := r.Variance(), 30.0; !closeRel(got, want, 1e-9) {
		t.Errorf("Variance() of 1e9+{4,7,13,16} = %v, want %v", got, want)
	}
	if got, want := r.Mean(), 1e9+10; got != want {
		t.Errorf("Mean() of 1e9+{4,7,13,16} = %v, want %v", got, want)
	}
}

// TestRunningMerge checks Chan et al.'s merge against one accumulator fed
// everything, for splits including empty sides.
func TestRunningMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 1000)
	var all stats.Running
	for i := range xs {
		xs[i] = rng.ExpFloat64() * 3
		all.Add(xs[i])
	}
	for _, split := range []int{0, 1, 2, 500, 999, 1000} {
		var a, b stats.Running
		for _, x := range xs[:split] {
			a.Add(x)
		}
		for _, x := range xs[split:] {
			b.Add(x)
		}
		a.Merge(b)
		if a.N() != all.N() || !closeRel(a.Mean(), all.Mean(), 1e-13) || !closeRel(a.Variance(), all.Variance(), 1e-12) {
			t.Errorf("split %d: Merge gives (n=%d, mean %v, var %v), want (n=%d, mean %v, var %v)",
				split, a.N(), a.Mean(), a.Variance(), all.N(), all.Mean(), all.Variance())
		}
	}
}

// TestRunningEmpty checks the NaN results documented for too few
// observations.
func TestRunningEmpty(t *testing.T) {
	var r stats.Running
	if got := r.Mean(); !math.IsNaN(got) {
		t.Errorf("empty Running: Mean() = %v, want NaN", got)
	}
	r.Add(3)
	if got := r.Mean(); got != 3 {
		t.Errorf("Running{3}: Mean() = %v, want 3", got)
	}
	if got := r.Variance(); !math.IsNaN(got) {
		t.Errorf("Running{3}: Variance() = %v, want NaN", got)
	}
	if got := r.StdDev(); !math.IsNaN(got) {
		t.Errorf("Running{3}: StdDev() = %v, want NaN", got)
	}
}

// TestRunningAllocs checks that Add and Merge do not allocate.
func TestRunningAllocs(t *testing.T) {
	var r, o stats.Running
	o.Add(1)
	o.Add(2)
	f := func() {
		r.Add(1.5)
		r.Merge(o)
		_ = r.StdDev()
	}
	if a := testing.AllocsPerRun(1000, f); a != 0 {
		t.Errorf("Running Add/Merge/StdDev: AllocsPerRun = %v, want 0", a)
	}
}

func BenchmarkRunningAdd(b *testing.B) {
	var r stats.Running
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Add(float64(i & 1023))
	}
}
