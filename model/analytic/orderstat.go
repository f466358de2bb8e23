package analytic

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/integrate/quad"
)

// ExpGroup is a parallel group of independent calls whose latencies are
// exponential with the given Rates (per second), started together and
// without queueing: the group latency when the caller waits for any one
// call, for all of them, or for the first k is the k-th order statistic
// T₍ₖ₎ of the n latencies (David and Nagaraja, Order Statistics, 3rd ed.,
// Wiley, 2003, §2.1 and, for exponentials, §2.5).
//
//   - Any (k = 1): the minimum of independent exponentials is exponential
//     with the summed rate Λ = Σλᵢ, so P(T₍₁₎ ≤ t) = 1 − e^{−Λt} and
//     E[T₍₁₎] = 1/Λ.
//   - All (k = n): the maximum, P(T₍ₙ₎ ≤ t) = Πᵢ (1 − e^{−λᵢt}).
//   - First k: P(T₍ₖ₎ ≤ t) is the probability that at least k of the n
//     calls are done by t, a Poisson-binomial tail with success
//     probabilities pᵢ = 1 − e^{−λᵢt}. For equal rates λ the spacings are
//     independent exponentials (Rényi's representation), so
//     E[T₍ₖ₎] = Σ_{j=0}^{k−1} 1/((n−j)λ).
//
// Rates must hold 1 to 1024 finite rates > 0; k must be in [1, n]. The
// zero value is invalid. An ExpGroup is a value, safe for concurrent use;
// its methods do not modify Rates.
type ExpGroup struct {
	Rates []float64 // rate of each member's exponential latency, per second
}

const maxGroup = 1024

func (g ExpGroup) validate() error {
	if len(g.Rates) < 1 || len(g.Rates) > maxGroup {
		return fmt.Errorf("rates: must hold 1 to %d rates, got %d", maxGroup, len(g.Rates))
	}
	for i, r := range g.Rates {
		if err := checkRate(fmt.Sprintf("rates[%d]", i), r); err != nil {
			return err
		}
	}
	return nil
}

func (g ExpGroup) checkK(k int) error {
	if err := g.validate(); err != nil {
		return err
	}
	if k < 1 || k > len(g.Rates) {
		return fmt.Errorf("k: must be in [1, %d], got %d", len(g.Rates), k)
	}
	return nil
}

// identical reports whether all rates are equal.
func (g ExpGroup) identical() bool {
	for _, r := range g.Rates[1:] {
		if r != g.Rates[0] {
			return false
		}
	}
	return true
}

// doneDist returns P(exactly j members done by t) for j = 0..n, by the
// standard Poisson-binomial recursion over members.
func (g ExpGroup) doneDist(t float64) []float64 {
	n := len(g.Rates)
	p := make([]float64, n+1)
	p[0] = 1
	if t <= 0 {
		return p
	}
	for i, r := range g.Rates {
		done := -math.Expm1(-r * t)
		left := math.Exp(-r * t)
		for j := i + 1; j >= 1; j-- {
			p[j] = float64(p[j]*left) + float64(p[j-1]*done)
		}
		p[0] *= left
	}
	return p
}

// kthSurvival returns P(T₍ₖ₎ > t): fewer than k members done by t.
func (g ExpGroup) kthSurvival(k int, t float64) float64 {
	p := g.doneDist(t)
	var s float64
	for j := range k {
		s += p[j]
	}
	return min(1, s)
}

// KthCDF returns P(T₍ₖ₎ ≤ t), the probability that at least k of the n
// members are done by t seconds. It is 0 for t ≤ 0.
func (g ExpGroup) KthCDF(k int, t float64) (float64, error) {
	if err := g.checkK(k); err != nil {
		return 0, err
	}
	if err := checkTime(t); err != nil {
		return 0, err
	}
	if t <= 0 {
		return 0, nil
	}
	if k == 1 {
		return -math.Expm1(-g.sum() * t), nil
	}
	p := g.doneDist(t)
	var c float64
	for j := k; j <= len(g.Rates); j++ {
		c += p[j]
	}
	return min(1, c), nil
}

func (g ExpGroup) sum() float64 {
	var s float64
	for _, r := range g.Rates {
		s += r
	}
	return s
}

// KthMean returns E[T₍ₖ₎] in seconds. It is exact for k = 1 (1/Σλᵢ) and for
// equal rates (Σ_{j=0}^{k−1} 1/((n−j)λ)); otherwise it integrates the
// survival function, E[T₍ₖ₎] = ∫₀^∞ P(T₍ₖ₎ > t) dt, by Gauss–Legendre
// quadrature in log time (see integrateSurvival), to a relative error near
// 1e-12.
func (g ExpGroup) KthMean(k int) (float64, error) {
	if err := g.checkK(k); err != nil {
		return 0, err
	}
	if k == 1 {
		return 1 / g.sum(), nil
	}
	n := len(g.Rates)
	if g.identical() {
		var m float64
		for j := range k {
			m += 1 / (float64(n-j) * g.Rates[0])
		}
		return m, nil
	}
	lo, hi := math.Inf(1), 0.0
	for _, r := range g.Rates {
		lo, hi = min(lo, 1/r), max(hi, 1/r)
	}
	// P(T₍ₖ₎ > t) ≤ C(n, k−1)·e^{−(n−k+1)t/hi}: past the end below, the
	// remaining integral is under 1e-20 of hi.
	end := hi * (50 + float64(float64(n)*math.Ln2))
	return integrateSurvival(func(t float64) float64 { return g.kthSurvival(k, t) }, 0, lo*1e-14, end), nil
}

// KthQuantile returns the p-quantile of T₍ₖ₎ in seconds: the t with
// P(T₍ₖ₎ ≤ t) = p, exact for k = 1 and found by bisection to a relative
// precision of 1e-13 otherwise. p must be in [0, 1).
func (g ExpGroup) KthQuantile(k int, p float64) (float64, error) {
	if err := g.checkK(k); err != nil {
		return 0, err
	}
	if err := checkProb(p); err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, nil
	}
	if k == 1 {
		return -math.Log1p(-p) / g.sum(), nil
	}
	return bisectCDF(func(t float64) float64 { return 1 - g.kthSurvival(k, t) }, p, 1/g.sum()), nil
}

// AnyCDF returns P(T₍₁₎ ≤ t) = 1 − e^{−Σλᵢ t}: the CDF of a group that waits
// for any one member.
func (g ExpGroup) AnyCDF(t float64) (float64, error) { return g.KthCDF(1, t) }

// AnyMean returns E[T₍₁₎] = 1/Σλᵢ seconds.
func (g ExpGroup) AnyMean() (float64, error) { return g.KthMean(1) }

// AllCDF returns P(T₍ₙ₎ ≤ t) = Πᵢ (1 − e^{−λᵢt}): the CDF of a group that
// waits for all members.
func (g ExpGroup) AllCDF(t float64) (float64, error) { return g.KthCDF(len(g.Rates), t) }

// AllMean returns E[T₍ₙ₎] seconds; for equal rates, H_n/λ with H_n the n-th
// harmonic number.
func (g ExpGroup) AllMean() (float64, error) { return g.KthMean(len(g.Rates)) }

// integrateSurvival returns ∫₀^end s(t) dt for a survival function s
// (non-increasing, s ≤ 1) that is smooth on (start, end): the piece
// [start, start+eps] is taken as eps·s(start), and the rest is integrated
// in u = ln(t − start), where functions spread over many time scales are
// smooth, by 16-point Gauss–Legendre on panels of width at most 1/8 in u.
// [0, start] is left to the caller.
func integrateSurvival(s func(float64) float64, start, eps, end float64) float64 {
	total := float64(eps * s(start))
	if end <= start+eps {
		return total
	}
	ulo, uhi := math.Log(eps), math.Log(end-start)
	panels := int(math.Ceil((uhi - ulo) * 8))
	h := (uhi - ulo) / float64(panels)
	f := func(u float64) float64 {
		x := math.Exp(u)
		return s(start+x) * x
	}
	for i := range panels {
		total += quad.Fixed(f, ulo+float64(float64(i)*h), ulo+float64(float64(i+1)*h), 16, nil, 0)
	}
	return total
}

// bisectCDF returns the t ≥ 0 with cdf(t) = p for a continuous,
// non-decreasing cdf, to a relative precision of 1e-13; scale is a guess of
// the magnitude of t.
func bisectCDF(cdf func(float64) float64, p, scale float64) float64 {
	lo, hi := 0.0, scale
	for cdf(hi) < p {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1e-13*hi {
		mid := lo + (hi-lo)/2
		if cdf(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}
