package analytic

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/sim/stats"
)

func TestHedgedLognormalHandValues(t *testing.T) {
	t.Parallel()
	ok := val(t)
	h := HedgedLognormal{Mu: 0, Sigma: 1, Delay: 1, Attempts: 2}
	// 1 − (1 − Φ(ln 2))(1 − Φ(ln 1)), with Φ from Python's math.erf.
	if got := ok(h.CDF(2)); !near(got, 0.8779457021072086, 1e-13) {
		t.Errorf("CDF(2) = %.16g, want 0.8779457021072086", got)
	}
	// Before the hedge starts, T is the first attempt alone: 1 − S(t).
	if got, want := ok(h.CDF(0.5)), 0.5*math.Erfc(-math.Log(0.5)/math.Sqrt2); !near(got, want, 1e-15) {
		t.Errorf("CDF(0.5) = %v, want F(0.5) = %v", got, want)
	}
	// ∫₀¹ S(t) dt + ∫₁^∞ S(t)S(t−1) dt by Simpson's rule in Python
	// (2·10⁵ panels on [0, 1], 4·10⁵ in log time after 1).
	if got := ok(h.Mean()); !near(got, 1.1416291928743534, 1e-9) {
		t.Errorf("Mean() = %.16g, want 1.1416291928743534", got)
	}
	// One attempt: E[X] = e^{μ+σ²/2}.
	one := HedgedLognormal{Mu: 0.3, Sigma: 0.8, Attempts: 1}
	if got := ok(one.Mean()); !near(got, math.Exp(0.3+0.32), 1e-15) {
		t.Errorf("one attempt: Mean() = %v, want e^{0.62}", got)
	}
}

// TestHedgedLognormalNoDelay checks the quadrature against the closed form
// for two attempts started together: for iid lognormals,
// E[min(X₁, X₂)] = 2·e^{μ+σ²/2}·(1 − Φ(σ/√2)), which follows from
// E[min] = E[X] − E|X₁−X₂|/2 and the lognormal's Gini mean difference
// E|X₁−X₂| = 2e^{μ+σ²/2}(2Φ(σ/√2) − 1).
func TestHedgedLognormalNoDelay(t *testing.T) {
	t.Parallel()
	ok := val(t)
	for _, sigma := range []float64{0.1, 0.5, 1, 2, 3} {
		for _, mu := range []float64{-4, 0, 2} {
			h := HedgedLognormal{Mu: mu, Sigma: sigma, Delay: 0, Attempts: 2}
			want := 2 * math.Exp(mu+sigma*sigma/2) * 0.5 * math.Erfc(sigma/2)
			if got := ok(h.Mean()); !near(got, want, 1e-10) {
				t.Errorf("mu=%v sigma=%v: Mean() = %.15g, want %.15g", mu, sigma, got, want)
			}
		}
	}
}

// TestHedgedLognormalLongDelay: a hedge that starts long after nearly
// every first attempt is done changes nothing: the mean is E[X].
func TestHedgedLognormalLongDelay(t *testing.T) {
	t.Parallel()
	ok := val(t)
	h := HedgedLognormal{Mu: 0, Sigma: 0.25, Delay: 1e3, Attempts: 3}
	if got, want := ok(h.Mean()), math.Exp(0.25*0.25/2); !near(got, want, 1e-10) {
		t.Errorf("Mean() = %.15g, want E[X] = %.15g", got, want)
	}
}

// TestHedgedLognormalMonteCarlo samples min(X₁, d + X₂, …) directly and
// requires the mean inside the sample's confidence interval at level
// 1−1e-6 and each quantile's empirical proportion within its binomial
// interval.
func TestHedgedLognormalMonteCarlo(t *testing.T) {
	t.Parallel()
	ok := val(t)
	rng := rand.New(rand.NewPCG(22, 2))
	const n = 200_000
	for _, h := range []HedgedLognormal{
		{Mu: 0, Sigma: 1, Delay: 1, Attempts: 2},
		{Mu: -2, Sigma: 0.6, Delay: 0.1, Attempts: 2},
		{Mu: -1, Sigma: 1.5, Delay: 0.3, Attempts: 4},
		{Mu: 0, Sigma: 0.5, Delay: 0, Attempts: 3},
	} {
		xs := make([]float64, n)
		for i := range xs {
			best := math.Inf(1)
			for a := range h.Attempts {
				best = min(best, float64(a)*h.Delay+math.Exp(h.Mu+h.Sigma*rng.NormFloat64()))
			}
			xs[i] = best
		}
		ci := stats.MeanCI(xs, mcLevel)
		if m := ok(h.Mean()); !ci.Contains(m) {
			t.Errorf("%+v: Mean() = %v outside Monte Carlo %v", h, m, ci)
		}
		slices.Sort(xs)
		for _, p := range []float64{0.05, 0.5, 0.95, 0.99} {
			x := ok(h.Quantile(p))
			if c := ok(h.CDF(x)); !near(c, p, 1e-11) {
				t.Errorf("%+v: CDF(Quantile(%v)) = %v", h, p, c)
			}
			emp := float64(sortedCount(xs, x)) / n
			if math.Abs(emp-p) > proportionTol(p, n) {
				t.Errorf("%+v: empirical P(T ≤ %v) = %v, want %v ± %v", h, x, emp, p, proportionTol(p, n))
			}
		}
	}
}

func TestHedgedLognormalErrors(t *testing.T) {
	t.Parallel()
	good := HedgedLognormal{Sigma: 1, Delay: 1, Attempts: 2}
	bad := func(edit func(*HedgedLognormal)) HedgedLognormal { h := good; edit(&h); return h }
	tests := []struct {
		field string
		err   error
	}{
		{"mu:", second(bad(func(h *HedgedLognormal) { h.Mu = math.NaN() }).Mean())},
		{"sigma:", second(bad(func(h *HedgedLognormal) { h.Sigma = 0 }).CDF(1))},
		{"delay:", second(bad(func(h *HedgedLognormal) { h.Delay = -1 }).Mean())},
		{"delay:", second(bad(func(h *HedgedLognormal) { h.Delay = math.Inf(1) }).Mean())},
		{"attempts:", second(bad(func(h *HedgedLognormal) { h.Attempts = 0 }).Quantile(0.5))},
		{"t:", second(good.CDF(math.NaN()))},
		{"p:", second(good.Quantile(1))},
	}
	for _, tt := range tests {
		if tt.err == nil || !strings.HasPrefix(tt.err.Error(), tt.field) {
			t.Errorf("err = %v, want one starting %q", tt.err, tt.field)
		}
	}
}
