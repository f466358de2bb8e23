package stats_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/budgetsim/budgetsim/sim/stats"
)

// TestStudentsTTable checks the t quantiles MeanCI relies on against
// published values: R's qt(p, df), printed to 7 significant digits (the
// same as the t tables in e.g. the NIST/SEMATECH e-Handbook of Statistical
// Methods, §1.3.6.7.2, to their 3 decimals). Tolerance 1e-6 covers the
// rounding of the quoted digits.
func TestStudentsTTable(t *testing.T) {
	tests := []struct {
		p, df, want float64
	}{
		{0.975, 9, 2.262157},  // qt(0.975, 9)
		{0.975, 1, 12.706205}, // qt(0.975, 1)
		{0.995, 4, 4.604095},  // qt(0.995, 4)
		{0.95, 29, 1.699127},  // qt(0.95, 29)
		{0.975, 1000, 1.962339},
	}
	for _, tt := range tests {
		got := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: tt.df}.Quantile(tt.p)
		if math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("StudentsT{Nu: %v}.Quantile(%v) = %.7f, want %v", tt.df, tt.p, got, tt.want)
		}
	}
}

// TestMeanCIHandWorked checks MeanCI on 1..10: mean 5.5, sample standard
// deviation √(55/6), and t_{0.975,9} = 2.262157 (R qt), so the half-width is
// 2.262157·√(55/6)/√10 = 2.165806, to within MeanCI's rounding of t to 16
// significant bits (relative error ≤ 2^-16, plus R's 7 digits).
func TestMeanCIHandWorked(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	iv := stats.MeanCI(xs, 0.95)
	wantHW := 2.262157 * math.Sqrt(55.0/6) / math.Sqrt(10)
	if iv.Mean != 5.5 || iv.N != 10 || iv.Level != 0.95 {
		t.Errorf("MeanCI(1..10, 0.95) = %+v, want Mean 5.5, N 10, Level 0.95", iv)
	}
	if math.Abs(iv.HalfWidth-wantHW) > wantHW*0x1p-16+1e-6 {
		t.Errorf("MeanCI(1..10, 0.95).HalfWidth = %v, want %v", iv.HalfWidth, wantHW)
	}
	if iv.Lo != iv.Mean-iv.HalfWidth || iv.Hi != iv.Mean+iv.HalfWidth {
		t.Errorf("MeanCI(1..10, 0.95): [Lo, Hi] = [%v, %v], want Mean ∓ HalfWidth", iv.Lo, iv.Hi)
	}
	if got, want := iv.RelativeHalfWidth(), iv.HalfWidth/5.5; got != want {
		t.Errorf("RelativeHalfWidth() = %v, want %v", got, want)
	}
	for _, tt := range []struct {
		x    float64
		want bool
	}{{5.5, true}, {iv.Lo, true}, {iv.Hi, true}, {3.3, false}, {7.7, false}, {math.NaN(), false}} {
		if got := iv.Contains(tt.x); got != tt.want {
			t.Errorf("%v.Contains(%v) = %v, want %v", iv, tt.x, got, tt.want)
		}
	}
	// The streaming form agrees.
	var r stats.Running
	for _, x := range xs {
		r.Add(x)
	}
	if got := r.MeanCI(0.95); math.Abs(got.HalfWidth-iv.HalfWidth) > 1e-12 || got.Mean != iv.Mean || got.N != iv.N {
		t.Errorf("Running.MeanCI(0.95) = %+v, want %+v", got, iv)
	}
}

// TestMeanCISmall checks the documented intervals for fewer than two
// observations, and RelativeHalfWidth's edge cases.
func TestMeanCISmall(t *testing.T) {
	one := stats.MeanCI([]float64{4}, 0.95)
	if one.Mean != 4 || !math.IsInf(one.HalfWidth, 1) || !math.IsInf(one.Lo, -1) || !math.IsInf(one.Hi, 1) || one.N != 1 {
		t.Errorf("MeanCI({4}, 0.95) = %+v, want Mean 4, HalfWidth +Inf, [-Inf, +Inf]", one)
	}
	if !one.Contains(1e300) {
		t.Errorf("MeanCI({4}, 0.95).Contains(1e300) = false, want true")
	}
	none := stats.MeanCI(nil, 0.95)
	if !math.IsNaN(none.Mean) || !math.IsInf(none.HalfWidth, 1) || none.N != 0 {
		t.Errorf("MeanCI(nil, 0.95) = %+v, want Mean NaN, HalfWidth +Inf", none)
	}
	if got := stats.MeanCI([]float64{2, 2, 2}, 0.95).RelativeHalfWidth(); got != 0 {
		t.Errorf("MeanCI({2,2,2}).RelativeHalfWidth() = %v, want 0", got)
	}
	if got := stats.MeanCI([]float64{-1, 1}, 0.95).RelativeHalfWidth(); !math.IsInf(got, 1) {
		t.Errorf("MeanCI({-1,1}).RelativeHalfWidth() = %v, want +Inf", got)
	}
	for _, level := range []float64{0, 1, -0.5, 95, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("MeanCI(xs, %v) did not panic", level)
				}
			}()
			stats.MeanCI([]float64{1, 2}, level)
		}()
	}
}

// TestMeanCICoverage checks that Student t intervals from normal samples of
// size 10 cover the true mean at their nominal rate. Over R = 2000
// replications the number covering is Binomial(R, level), whose standard
// error for the coverage fraction is √(level(1-level)/R) (0.0049 at 0.95);
// we accept ±4 standard errors (normal approximation; a correct
// implementation fails with probability ≈ 6e-5). The band has power: at
// level 0.95 the z interval (1.96 instead of t_{0.975,9} = 2.262) covers
// only P(|T_9| < 1.96) ≈ 0.918, below [0.9305, 0.9695], and the test checks
// that it is rejected on the same samples.
func TestMeanCICoverage(t *testing.T) {
	const (
		reps = 2000
		n    = 10
		mu   = 5.0
		sd   = 2.0
	)
	for _, level := range []float64{0.90, 0.95, 0.99} {
		rng := rand.New(rand.NewPCG(1, 2))
		xs := make([]float64, n)
		covered, zCovered := 0, 0
		z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
		for range reps {
			for i := range xs {
				xs[i] = mu + sd*rng.NormFloat64()
			}
			iv := stats.MeanCI(xs, level)
			if iv.Contains(mu) {
				covered++
			}
			// HalfWidth = t·s/√n, so the z interval's half-width is z/t of it.
			if math.Abs(iv.Mean-mu) <= iv.HalfWidth*z/tq(level, n-1) {
				zCovered++
			}
		}
		se := math.Sqrt(level * (1 - level) / reps)
		lo, hi := level-4*se, level+4*se
		if got := float64(covered) / reps; got < lo || got > hi {
			t.Errorf("level %v: coverage of MeanCI over %d samples of %d = %.4f, want in [%.4f, %.4f]",
				level, reps, n, got, lo, hi)
		}
		if got := float64(zCovered) / reps; level == 0.95 && got >= lo {
			t.Errorf("level %v: z-interval coverage %.4f inside the band [%.4f, %.4f]: the test has no power",
				level, got, lo, hi)
		}
	}
}

// tq returns the Student t quantile used for a two-sided interval.
func tq(level float64, df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - (1-level)/2)
}

func ExampleMeanCI() {
	// Mean latency (seconds) of 10 independent replications.
	reps := []float64{1.21, 1.35, 1.18, 1.42, 1.29, 1.33, 1.25, 1.38, 1.22, 1.31}
	ci := stats.MeanCI(reps, 0.95)
	fmt.Println(ci)
	fmt.Printf("[%.3f, %.3f], ±%.1f%%\n", ci.Lo, ci.Hi, 100*ci.RelativeHalfWidth())
	fmt.Println("contains 1.25:", ci.Contains(1.25))
	// Output:
	// 1.294 ± 0.056 (95% CI, n=10)
	// [1.238, 1.350], ±4.3%
	// contains 1.25: true
}

// TestSectionCI: by hand, sections {1, 2, 3, 4} around a whole-sample
// estimate of 3 give S² = (4+1+0+1)/3 = 2 and a 95 % half-width of
// t₃·√2/2 = 3.182446·0.7071068 = 2.250306; centred on the sections' own
// mean it is MeanCI; any other centre widens it; fewer than two sections
// say nothing.
func TestSectionCI(t *testing.T) {
	xs := []float64{1, 2, 3, 4}
	iv := stats.SectionCI(xs, 3, 0.95)
	if math.Abs(iv.HalfWidth-2.250306) > 2.250306/(1<<16) || // t is rounded to 16 bits (tQuantile)
		iv.Mean != 3 || iv.Lo != 3-iv.HalfWidth || iv.Hi != 3+iv.HalfWidth {
		t.Errorf("SectionCI({1,2,3,4}, 3) = %+v, want 3 ± 2.250306", iv)
	}
	m := stats.MeanCI(xs, 0.95)
	if s := stats.SectionCI(xs, 2.5, 0.95); math.Abs(s.HalfWidth-m.HalfWidth) > 1e-12 || s.Mean != m.Mean {
		t.Errorf("SectionCI at the sections' mean = %+v, want MeanCI %+v", s, m)
	}
	if iv.HalfWidth <= m.HalfWidth {
		t.Errorf("SectionCI off the mean: half-width %v, want wider than MeanCI's %v", iv.HalfWidth, m.HalfWidth)
	}
	if one := stats.SectionCI([]float64{1}, 1, 0.95); !math.IsInf(one.HalfWidth, 1) {
		t.Errorf("SectionCI of one section = %+v, want an infinite half-width", one)
	}
}
