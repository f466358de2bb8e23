package dist

import (
	"math"
)

// TailIndex returns the index α of d's upper tail when it decays like a
// power law, P(X > x) ~ x^−α: the moments of order α and above are
// infinite (the variance when α <= 2, the mean when α <= 1).
//
//   - A Pareto's α is its parameter (estimated false).
//   - A mixture's is its heaviest component's.
//   - An empirical distribution of n >= 100 samples has every moment
//     finite, but a sample from a power-law tail behaves like one: its α
//     is estimated (estimated true) by Hill's estimator over the top
//     k = ⌈√n⌉ samples, 1/α = (1/k) Σ_{i<k} ln(x_(n−i)/x_(n−k)) (B. M. Hill,
//     "A simple general approach to inference about the tail of a
//     distribution", Annals of Statistics 3(5):1163–1174, 1975).
//
// ok is false for the other families (exponential, lognormal, gamma,
// uniform, constant: every moment finite) and for an empirical
// distribution too small or too flat at its top to estimate.
func TailIndex(d Dist) (alpha float64, estimated, ok bool) {
	switch d := d.(type) {
	case pareto:
		return d.d.Alpha, false, true
	case mixture:
		alpha = math.Inf(1)
		for i, c := range d.comps {
			if d.w[i] == 0 {
				continue
			}
			if a, est, cok := TailIndex(c); cok && a < alpha {
				alpha, estimated, ok = a, est, true
			}
		}
		return alpha, estimated, ok
	case empirical:
		return hill(d.s)
	}
	return 0, false, false
}

// hill is Hill's estimate of the tail index of the ascending sample s.
func hill(s []float64) (alpha float64, estimated, ok bool) {
	n := len(s)
	if n < 100 {
		return 0, false, false
	}
	k := int(math.Ceil(math.Sqrt(float64(n))))
	ref := s[n-1-k]
	if !(ref > 0) {
		return 0, false, false
	}
	sum := 0.0
	for _, x := range s[n-k:] {
		sum += math.Log(x / ref)
	}
	if !(sum > 0) {
		return 0, false, false
	}
	return float64(k) / sum, true, true
}
