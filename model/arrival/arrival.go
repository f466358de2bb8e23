package arrival

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// Process generates the arrival instants of an open workload.
//
// Implementations in this package are immutable and safe for concurrent use
// by multiple goroutines, provided each passes its own *rand.Rand. Their
// Next methods do not allocate.
type Process interface {
	// Next returns the instant of arrival n (n = 0 for the first arrival),
	// given prev, the instant of arrival n−1 (0 when n = 0), drawing any
	// randomness from r. It returns false when the process has no arrival
	// n: a finite trace or batch is exhausted, a schedule's rate stays 0
	// forever, or the instant would overflow time.Duration. The instant is
	// never before prev. Next panics if n < 0.
	Next(n int64, prev time.Duration, r *rand.Rand) (at time.Duration, ok bool)
	// MeanRate returns the long-run mean rate in arrivals per second, for
	// utilisation estimates: the rate of Poisson and Constant, the average
	// over one period of a repeating Schedule or a Diurnal, the last rate of
	// a non-repeating Schedule, the mean rate across a Trace's span, and 0
	// for a Batch (no long-run rate). For a finite horizon use
	// Expected(0, horizon)/horizon instead.
	MeanRate() float64
	// Expected returns the expected number of arrivals in [from, to): the
	// integral of the rate, Λ(to) − Λ(from). It is exact for a Trace and a
	// Batch (a count), and for Constant it is rate·(to − from), which differs
	// from the count by less than 1. It returns 0 when to ≤ from; instants
	// before 0 carry no rate.
	Expected(from, to time.Duration) float64
	// String returns a canonical description, e.g. "poisson(rate=5/s)".
	String() string
}

// ParamError reports an invalid constructor parameter. Param names the
// parameter as spelled in the constructor's signature, indexed and with the
// field where it is an element of a slice ("points[2].rate"), and Msg says
// what is wrong, including the bad value.
type ParamError struct {
	Param string // e.g. "rate" or "points[2].at"
	Msg   string // e.g. "must be > 0, got -1"
}

// Error returns "param: msg", e.g. "rate: must be > 0, got -1".
func (e *ParamError) Error() string { return e.Param + ": " + e.Msg }

func paramErr(param, format string, args ...any) error {
	return &ParamError{Param: param, Msg: fmt.Sprintf(format, args...)}
}

// checkRate validates a rate that must be finite and > 0 (positive) or ≥ 0.
func checkRate(param string, rate float64, positive bool) error {
	switch {
	case math.IsNaN(rate):
		return paramErr(param, "must be a number, got NaN")
	case positive && rate <= 0:
		return paramErr(param, "must be > 0, got %s", formatFloat(rate))
	case rate < 0:
		return paramErr(param, "must be ≥ 0, got %s", formatFloat(rate))
	case math.IsInf(rate, 1):
		return paramErr(param, "must be finite, got +Inf")
	}
	return nil
}

// after returns the instant t + s seconds, rounded to the nearest
// nanosecond, and false if it is not a representable time.Duration (past
// about 292 years) or s is NaN or +Inf. It requires t ≥ 0 and s ≥ 0, so the
// result is never before t.
func after(t time.Duration, s float64) (time.Duration, bool) {
	ns := math.Round(s * 1e9)
	if !(ns < 0x1p63) { // also false for NaN
		return 0, false
	}
	d := time.Duration(ns)
	if d > math.MaxInt64-t {
		return 0, false
	}
	return t + d, true
}

// checkN panics on a negative arrival index: a programmer mistake.
func checkN(n int64) {
	if n < 0 {
		panic("arrival: Next called with a negative arrival index")
	}
}

// clampWindow clips [from, to) to [0, +∞) and reports whether it is empty.
func clampWindow(from, to time.Duration) (time.Duration, time.Duration, bool) {
	from = max(from, 0)
	return from, to, to > from
}

// exp1 draws a standard exponential variate by inverse transform from one
// uniform u in [0, 1): −ln(1 − u), finite because 1 − u ∈ (0, 1]. u is a
// multiple of 2⁻⁵³ (rand.Float64), so 1 − u is exact and math.Log (assembly
// on amd64) loses nothing against the slower math.Log1p(−u).
func exp1(r *rand.Rand) float64 { return -math.Log(1 - r.Float64()) }

// formatFloat renders x in the shortest form that parses back to the same
// float64, so String is canonical and deterministic.
func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
