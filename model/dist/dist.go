// Package dist provides the service-time (and generic value) distributions of
// the simulator: exponential, constant, uniform, lognormal, Pareto, Weibull,
// gamma, finite mixtures and empirical (bootstrap) distributions.
//
// Values are float64 in natural units. The package does not know units: for
// latencies the scenario loader passes seconds, and converts samples to
// time.Duration at its edge. Every distribution here has support in [0, +Inf).
//
// The numerics (mean, variance, quantile, CDF) come from
// gonum.org/v1/gonum/stat/distuv wherever it has the family. Sampling is done
// by inverse transform with one uniform per draw, u = r.Float64(), for every
// family with a cheap inverse (exponential, uniform, lognormal, Pareto,
// Weibull, empirical), so that under common random numbers a draw moves
// monotonically when a parameter changes: the same u gives a larger value for
// a larger mean, median, scale or p99. Gamma has no cheap inverse and uses
// gonum's rejection samplers instead (see Gamma).
//
// A Dist is an immutable value: it is safe for concurrent use by multiple
// goroutines, provided each goroutine passes its own *rand.Rand to Sample.
package dist

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// Dist is a univariate probability distribution on [0, +Inf).
//
// Implementations in this package are immutable and safe for concurrent use.
type Dist interface {
	// Sample draws one value using r. It does not allocate and keeps no
	// random state between calls (no cached second normal, no buffered
	// uniforms), so a caller may reseed r's source between draws to get
	// common random numbers across runs.
	Sample(r *rand.Rand) float64
	// Mean returns the expected value; +Inf where it is infinite.
	Mean() float64
	// Variance returns the variance; +Inf where it is infinite (for
	// example Pareto with alpha <= 2).
	Variance() float64
	// Quantile returns the generalised inverse of the CDF,
	// inf{x : CDF(x) >= p}, for p in [0, 1]. Quantile(1) may be +Inf.
	// Quantile panics if p is outside [0, 1] or NaN: that is a programmer
	// mistake.
	Quantile(p float64) float64
	// CDF returns P(X <= x).
	CDF(x float64) float64
	// String returns a canonical, deterministic description such as
	// "lognormal(median=0.04, sigma=1.2)", using the family and parameter
	// names accepted by Build.
	String() string
}

// ParamError reports an invalid distribution parameter. Param names the
// parameter as spelled in Build's params map (or an indexed element such as
// "weights[2]"), and Msg says what is wrong, including the bad value.
type ParamError struct {
	Param string // parameter name, e.g. "sigma" or "samples[3]"
	Msg   string // e.g. "must be > 0, got -1"
}

// Error returns "param: msg", e.g. "sigma: must be > 0, got -1".
func (e *ParamError) Error() string { return e.Param + ": " + e.Msg }

// SecondMoment returns E[X^2] = Variance + Mean^2 of d, the quantity the
// Pollaczek–Khinchine formula for the M/G/1 mean wait needs:
// Wq = lambda*E[S^2] / (2*(1-rho)). It returns +Inf when either the mean or
// the variance of d is infinite.
func SecondMoment(d Dist) float64 {
	m, v := d.Mean(), d.Variance()
	if math.IsInf(m, 0) || math.IsInf(v, 0) {
		return math.Inf(1)
	}
	return v + float64(m*m)
}

// formatFloat renders x in the shortest form that parses back to the same
// float64, so String is canonical and deterministic.
func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// checkP panics if p is not a probability; a bad p is a programmer mistake.
func checkP(p float64) {
	if !(p >= 0 && p <= 1) {
		panic("dist: Quantile(p=" + formatFloat(p) + "): p must be in [0, 1]")
	}
}

// positive validates 0 < x < +Inf.
func positive(name string, x float64) error {
	if !(x > 0) {
		return &ParamError{Param: name, Msg: "must be > 0, got " + formatFloat(x)}
	}
	if math.IsInf(x, 1) {
		return &ParamError{Param: name, Msg: "must be finite, got " + formatFloat(x)}
	}
	return nil
}

// nonNegative validates 0 <= x < +Inf.
func nonNegative(name string, x float64) error {
	if !(x >= 0) {
		return &ParamError{Param: name, Msg: "must be >= 0, got " + formatFloat(x)}
	}
	if math.IsInf(x, 1) {
		return &ParamError{Param: name, Msg: "must be finite, got " + formatFloat(x)}
	}
	return nil
}
