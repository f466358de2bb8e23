package stats

import "math"

// Running accumulates the count, mean and variance of a stream of float64
// values in one pass with Welford's update (B. P. Welford, "Note on a method
// for calculating corrected sums of squares and products", Technometrics
// 4(3), 1962), which avoids the cancellation of the textbook
// sum-of-squares formula.
//
// The zero value is an empty accumulator. Running holds no pointers and is
// 24 bytes, so it can be passed and stored by value. Its methods do not
// allocate. A Running is not safe for concurrent use; give each goroutine its
// own and Merge them.
type Running struct {
	n    int
	mean float64
	m2   float64 // sum of squared deviations from the mean
}

// Add records the observation x. A NaN or infinite x makes Mean and
// Variance NaN (or infinite) from then on.
func (r *Running) Add(x float64) {
	r.n++
	d := x - r.mean
	r.mean += d / float64(r.n)
	r.m2 += float64(d * (x - r.mean))
}

// N returns the number of observations.
func (r *Running) N() int { return r.n }

// Mean returns the sample mean, or NaN if there are no observations.
func (r *Running) Mean() float64 {
	if r.n == 0 {
		return math.NaN()
	}
	return r.mean
}

// Variance returns the unbiased sample variance (divisor n-1), or NaN if
// there are fewer than two observations.
func (r *Running) Variance() float64 {
	if r.n < 2 {
		return math.NaN()
	}
	return r.m2 / float64(r.n-1)
}

// StdDev returns the sample standard deviation, the square root of
// Variance, or NaN if there are fewer than two observations.
func (r *Running) StdDev() float64 { return math.Sqrt(r.Variance()) }

// Merge adds the observations summarised by o to r, using the pairwise
// update of Chan, Golub and LeVeque ("Updating formulae and a pairwise
// algorithm for computing sample variances", Stanford CS report STAN-CS-79-773,
// 1979): with δ = mean_o - mean_r, the merged mean is
// mean_r + δ·n_o/n and M2 = M2_r + M2_o + δ²·n_r·n_o/n. The result equals
// feeding all observations to one Running up to floating-point rounding (not
// bit for bit); merge in a fixed order for reproducible output.
func (r *Running) Merge(o Running) {
	switch {
	case o.n == 0:
		return
	case r.n == 0:
		*r = o
		return
	}
	n := r.n + o.n
	nr, no, nf := float64(r.n), float64(o.n), float64(n)
	d := o.mean - r.mean
	r.mean += d * no / nf
	r.m2 += o.m2 + d*d*nr*no/nf
	r.n = n
}

// MeanCI returns the Student t confidence interval for the mean of the
// observations at confidence level (e.g. 0.95), as MeanCI on the raw values
// would, up to rounding. See MeanCI for the conventions.
func (r *Running) MeanCI(level float64) Interval {
	checkLevel(level)
	return tInterval(r.Mean(), r.StdDev(), r.n, level)
}
