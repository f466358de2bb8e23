package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a two-sided confidence interval for a mean: [Lo, Hi] =
// Mean ± HalfWidth at confidence Level, from N observations.
type Interval struct {
	Mean      float64 // sample mean; NaN when N == 0
	HalfWidth float64 // t_{1-(1-Level)/2, N-1} · s/√N; +Inf when N < 2
	Lo, Hi    float64 // Mean - HalfWidth, Mean + HalfWidth
	N         int     // number of observations
	Level     float64 // confidence level in (0, 1), e.g. 0.95
}

// MeanCI returns the Student t confidence interval for the mean of xs at
// confidence level (e.g. 0.95): Mean ± t·s/√n, where s is the sample
// standard deviation (divisor n-1) and t the 1-(1-level)/2 quantile of
// Student's t distribution with n-1 degrees of freedom (gonum
// distuv.StudentsT, rounded: see tQuantile). The interval assumes independent, roughly normal
// observations, such as the means of independent replications.
//
// With fewer than two observations the spread is unknown: HalfWidth is +Inf
// and [Lo, Hi] is [-Inf, +Inf] (Mean is NaN for no observations). MeanCI
// panics if level is not in (0, 1). It does not modify xs.
func MeanCI(xs []float64, level float64) Interval {
	checkLevel(level)
	if len(xs) == 0 {
		return tInterval(math.NaN(), math.NaN(), 0, level)
	}
	mean, sd := meanSD(xs)
	return tInterval(mean, sd, len(xs), level)
}

// meanSD returns the sample mean and standard deviation (divisor n-1) of
// xs by the corrected two-pass algorithm (Chan, Golub and LeVeque), as
// gonum's stat.MeanStdDev does, but summing in order and rounding every
// product (float64()), so that every CPU gets the same bits: gonum sums
// with SIMD on amd64, and compilers may fuse its products elsewhere.
func meanSD(xs []float64) (mean, sd float64) {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	n := float64(len(xs))
	mean = sum / n
	var ss, comp float64
	for _, x := range xs {
		d := x - mean
		ss += float64(d * d)
		comp += d
	}
	return mean, math.Sqrt((ss - float64(comp*comp)/n) / (n - 1))
}

// SectionCI returns the sectioning confidence interval for an estimator
// whose whole-sample value is center and whose values on n independent
// sections (replications) are xs: center ± t·S/√n with S² = Σ(xᵢ −
// center)²/(n−1), deviations taken from center rather than from the mean
// of the xᵢ (Asmussen & Glynn, Stochastic Simulation, 2007, §III.5a;
// Nakayama, 2014). For a nonlinear estimator such as a quantile, the
// sections' estimates are biased (each sees fewer samples) while center
// is not as much: the interval is centred on the better estimate, and the
// sections' bias widens it instead of moving it. Fewer than two sections
// give [-Inf, +Inf]; it panics if level is not in (0, 1).
func SectionCI(xs []float64, center, level float64) Interval {
	checkLevel(level)
	n := len(xs)
	if n < 2 {
		return tInterval(center, math.NaN(), n, level)
	}
	var ss float64
	for _, x := range xs {
		d := x - center
		ss += float64(d * d)
	}
	return tInterval(center, math.Sqrt(ss/float64(n-1)), n, level)
}

// tQuantile returns the p quantile of Student's t distribution with nu
// degrees of freedom (gonum's distuv.StudentsT), rounded to 16 significant
// bits (about 5 decimal digits, more than a printed t table carries).
// gonum computes it by iterations whose last digits depend on the CPU (up
// to 3.5e4 units in the last place between amd64 and arm64, measured over
// nu < 10^4 at the usual levels); on a grid 2^37 units wide, that moves the
// rounded value with a chance of about 5e-7, where the unrounded one moved
// two times in three. The rounding moves a half-width by at most 2^-16
// (1.5e-5) of itself.
func tQuantile(nu, p float64) float64 {
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(p)
	frac, exp := math.Frexp(q)
	return math.Ldexp(math.Round(frac*(1<<16))/(1<<16), exp)
}

func checkLevel(level float64) {
	if !(level > 0 && level < 1) {
		panic(fmt.Sprintf("stats: MeanCI: level must be in (0, 1), got %v", level))
	}
}

// tInterval builds the Student t interval from a sample mean, sample
// standard deviation and size.
func tInterval(mean, sd float64, n int, level float64) Interval {
	iv := Interval{Mean: mean, N: n, Level: level}
	if n < 2 {
		iv.HalfWidth, iv.Lo, iv.Hi = math.Inf(1), math.Inf(-1), math.Inf(1)
		return iv
	}
	t := tQuantile(float64(n-1), 1-(1-level)/2)
	iv.HalfWidth = t * sd / math.Sqrt(float64(n))
	iv.Lo, iv.Hi = mean-iv.HalfWidth, mean+iv.HalfWidth
	return iv
}

// Contains reports whether x lies in the closed interval [Lo, Hi].
func (iv Interval) Contains(x float64) bool { return iv.Lo <= x && x <= iv.Hi }

// RelativeHalfWidth returns HalfWidth/|Mean|, the relative precision of the
// estimate (0.05 means ±5%). It is 0 when HalfWidth is 0, +Inf when Mean is
// 0 and HalfWidth is not, and NaN when Mean is NaN.
func (iv Interval) RelativeHalfWidth() float64 {
	if iv.HalfWidth == 0 {
		return 0
	}
	return iv.HalfWidth / math.Abs(iv.Mean)
}

// String formats the interval as "mean ± halfwidth (95% CI, n=10)", with
// four significant digits for the mean and two for the half-width.
func (iv Interval) String() string {
	return fmt.Sprintf("%.4g ± %.2g (%g%% CI, n=%d)", iv.Mean, iv.HalfWidth, 100*iv.Level, iv.N)
}
