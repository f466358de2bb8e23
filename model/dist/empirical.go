package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"

	"gonum.org/v1/gonum/stat"
)

// Empirical returns the empirical distribution of samples, for replaying
// measured latencies. samples must be non-empty and every value finite and
// >= 0; the error names the first bad index, e.g. "samples[3]: must be >= 0,
// got -1". The slice is copied and sorted.
//
// It is the distribution a bootstrap resamples from, x_(1) <= ... <= x_(n)
// each with probability 1/n:
//
//   - Sample draws one of the n samples uniformly, by inverse transform:
//     x_(floor(u*n)+1) with u = r.Float64(), so it is monotone in u.
//   - Mean and Variance are exact for that distribution: the sample mean and
//     the population variance (divisor n, not n-1), from gonum's
//     stat.PopMeanVariance.
//   - CDF is the empirical step function #{i : x_i <= x}/n.
//   - Quantile is NOT the inverse of that step function: it is the
//     continuous estimator that interpolates linearly between order
//     statistics, definition 7 of Hyndman & Fan (1996), the default of R's
//     quantile() and NumPy's percentile(): with h = (n-1)p,
//     Q(p) = x_(floor h+1) + (h - floor h)*(x_(floor h+2) - x_(floor h+1)),
//     so Q(0) is the minimum, Q(1) the maximum, and the median of an even
//     sample is the mid-point of the two middle values.
func Empirical(samples []float64) (Dist, error) {
	if len(samples) == 0 {
		return nil, &ParamError{Param: "samples", Msg: "must not be empty"}
	}
	for i, x := range samples {
		if err := nonNegative("samples["+strconv.Itoa(i)+"]", x); err != nil {
			return nil, err
		}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	mean, variance := stat.PopMeanVariance(s, nil)
	return empirical{s: s, mean: mean, variance: math.Max(0, variance)}, nil
}

type empirical struct {
	s              []float64 // sorted ascending
	mean, variance float64
}

func (e empirical) Sample(r *rand.Rand) float64 {
	i := int(r.Float64() * float64(len(e.s)))
	if i >= len(e.s) { // u*n can round up to n for u just below 1
		i = len(e.s) - 1
	}
	return e.s[i]
}

func (e empirical) Mean() float64     { return e.mean }
func (e empirical) Variance() float64 { return e.variance }

func (e empirical) CDF(x float64) float64 {
	n := sort.Search(len(e.s), func(i int) bool { return e.s[i] > x })
	return float64(n) / float64(len(e.s))
}

func (e empirical) Quantile(p float64) float64 {
	checkP(p)
	h := float64(float64(len(e.s)-1) * p)
	lo := int(h)
	if lo >= len(e.s)-1 {
		return e.s[len(e.s)-1]
	}
	return e.s[lo] + float64((h-float64(lo))*(e.s[lo+1]-e.s[lo]))
}

// String returns "empirical(n=…, min=…, mean=…, max=…)": a summary, not
// the samples.
func (e empirical) String() string {
	return "empirical(n=" + strconv.Itoa(len(e.s)) +
		", min=" + formatFloat(e.s[0]) +
		", mean=" + formatFloat(e.mean) +
		", max=" + formatFloat(e.s[len(e.s)-1]) + ")"
}
