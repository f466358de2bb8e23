package analytic

import (
	"fmt"
	"math"
)

// HedgedLognormal is a call with lognormal latency X = e^{Mu + Sigma·Z}
// (seconds, Z standard normal) that is hedged: attempt i (i = 0, …,
// Attempts−1) starts at i·Delay, all attempts have independent latencies
// with the same distribution, nothing queues, and the first answer wins. The
// latency is
//
//	T = minᵢ (i·Delay + Xᵢ),  P(T > t) = Πᵢ S(t − i·Delay),
//
// with S = 1 − F the lognormal survival function and S(x) = 1 for x ≤ 0. For
// two attempts, P(T ≤ t) = 1 − (1 − F(t))(1 − F(t − d)). This is the
// latency of gRPC's hedging policy (gRFC A6) and Polly's hedging strategy
// without queueing and without cancellation costs; with a shared, loaded
// tool the extra attempts also raise the load, which only a simulation
// shows.
//
// Mu and Sigma must be finite and Sigma > 0; Delay must be finite and ≥ 0;
// Attempts must be in [1, 64]. The zero value is invalid. A HedgedLognormal
// is an immutable value, safe for concurrent use.
type HedgedLognormal struct {
	Mu       float64 // mean of ln X
	Sigma    float64 // standard deviation of ln X, > 0
	Delay    float64 // seconds between the starts of successive attempts, ≥ 0
	Attempts int     // total attempts, the first included, in [1, 64]
}

func (h HedgedLognormal) validate() error {
	if math.IsNaN(h.Mu) || math.IsInf(h.Mu, 0) {
		return fmt.Errorf("mu: must be finite, got %v", h.Mu)
	}
	if err := checkRate("sigma", h.Sigma); err != nil {
		return err
	}
	if !(h.Delay >= 0) || math.IsInf(h.Delay, 0) {
		return fmt.Errorf("delay: must be finite and >= 0, got %v", h.Delay)
	}
	if h.Attempts < 1 || h.Attempts > 64 {
		return fmt.Errorf("attempts: must be in [1, 64], got %d", h.Attempts)
	}
	return nil
}

// single returns the survival function of one attempt's latency, P(X > x).
func (h HedgedLognormal) single(x float64) float64 {
	if x <= 0 {
		return 1
	}
	return 0.5 * math.Erfc((math.Log(x)-h.Mu)/(h.Sigma*math.Sqrt2))
}

func (h HedgedLognormal) survival(t float64) float64 {
	s := 1.0
	for i := range h.Attempts {
		x := t - float64(float64(i)*h.Delay)
		if x <= 0 {
			break
		}
		s *= h.single(x)
	}
	return s
}

// CDF returns P(T ≤ t) = 1 − Πᵢ (1 − F(t − i·Delay)). It is 0 for t ≤ 0.
func (h HedgedLognormal) CDF(t float64) (float64, error) {
	if err := h.validate(); err != nil {
		return 0, err
	}
	if err := checkTime(t); err != nil {
		return 0, err
	}
	return 1 - h.survival(t), nil
}

// Mean returns E[T] = ∫₀^∞ Πᵢ S(t − i·Delay) dt in seconds, by numerical
// integration: between successive attempt starts, where the integrand has
// its kinks, and after the last start, up to e^{Mu + Sigma(12 + Sigma)}
// past it, where the neglected tail is below 1e-30 of E[X], each piece by
// 16-point Gauss–Legendre (gonum quad.Fixed) in the log of the time since
// the piece's start (see integrateSurvival). The relative error is near 1e-12. For one attempt it is
// E[X] = e^{Mu + Sigma²/2} exactly.
func (h HedgedLognormal) Mean() (float64, error) {
	if err := h.validate(); err != nil {
		return 0, err
	}
	if h.Attempts == 1 {
		return math.Exp(h.Mu + float64(h.Sigma*h.Sigma/2)), nil
	}
	var total float64
	last := float64(float64(h.Attempts-1) * h.Delay)
	eps := math.Exp(h.Mu-float64(12*h.Sigma)) * 1e-14
	if h.Delay > 0 {
		for i := range h.Attempts - 1 {
			a := float64(float64(i) * h.Delay)
			total += integrateSurvival(h.survival, a, eps, a+h.Delay)
		}
	}
	end := last + math.Exp(h.Mu+float64(h.Sigma*(12+h.Sigma)))
	return total + integrateSurvival(h.survival, last, eps, end), nil
}

// Quantile returns the p-quantile of T in seconds, by bisection on CDF to
// a relative precision of 1e-13. p must be in [0, 1).
func (h HedgedLognormal) Quantile(p float64) (float64, error) {
	if err := h.validate(); err != nil {
		return 0, err
	}
	if err := checkProb(p); err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, nil
	}
	return bisectCDF(func(t float64) float64 { return 1 - h.survival(t) }, p, math.Exp(h.Mu)), nil
}
