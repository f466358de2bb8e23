package analytic

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// TestMMcReference pins the measured study's operating point: lambda = 9/s,
// mu = 1/s, c = 10. Study values: mean wait 0.66873 s, mean sojourn
// 1.66873 s, p99 sojourn 6.2499 s. Exact values: Erlang C = 43046721/64370707
// (Python fractions, see erlangTests), Wq = C/(c mu - lambda) = C/1. Here
// c mu - lambda = mu = 1, the special case of the sojourn CDF,
// P(W > t) = (1 - C) e^{-t} + C (1 + t) e^{-t}; its 0.01 point by
// independent bisection in Python is 6.249876698854015.
func TestMMcReference(t *testing.T) {
	t.Parallel()
	q := MMc{Lambda: 9, Mu: 1, C: 10}
	ok := val(t)
	const c = 43046721.0 / 64370707
	tests := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"Rho()", ok(q.Rho()), 0.9, 1e-15},
		{"ErlangC()", ok(q.ErlangC()), c, 1e-13},
		{"MeanWait()", ok(q.MeanWait()), c, 1e-13},
		{"MeanSojourn()", ok(q.MeanSojourn()), 1 + c, 1e-13},
		{"MeanInSystem()", ok(q.MeanInSystem()), 9 * (1 + c), 1e-13},
		{"MeanQueue()", ok(q.MeanQueue()), 9 * c, 1e-13},
		{"SojournQuantile(0.99)", ok(q.SojournQuantile(0.99)), 6.249876698854015, 1e-12},
		// Study's rounding, as published.
		{"MeanWait() vs study", ok(q.MeanWait()), 0.66873, 1e-5},
		{"MeanSojourn() vs study", ok(q.MeanSojourn()), 1.66873, 1e-5},
		{"SojournQuantile(0.99) vs study", ok(q.SojournQuantile(0.99)), 6.2499, 1e-4},
		// P(Wq > t) = C e^{-t}: the 0.99 point is ln(100 C).
		{"WaitQuantile(0.99)", ok(q.WaitQuantile(0.99)), math.Log(100 * c), 1e-13},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > tt.tol*max(1, math.Abs(tt.want)) {
			t.Errorf("%+v.%s = %.15g, want %.15g ± %g", q, tt.name, tt.got, tt.want, tt.tol)
		}
	}
}

// TestMMcSojournCDFQuadrature checks the closed-form sojourn CDF against a
// direct numerical convolution of its definition,
//
//	P(W <= t) = (1-C)(1 - e^{-mu t}) + C ∫_0^t theta e^{-theta x} (1 - e^{-mu (t-x)}) dx,
//
// integrated by composite 16-point Gauss–Legendre (gonum quad.Fixed) on
// panels no wider than 1/max(theta, mu), so each panel sees a smooth,
// slowly varying integrand and the rule is accurate to near machine
// precision.
// The cases straddle the special point theta = c mu - lambda = mu.
func TestMMcSojournCDFQuadrature(t *testing.T) {
	t.Parallel()
	tests := []MMc{
		{Lambda: 9, Mu: 1, C: 10},           // theta = mu exactly
		{Lambda: 9 - 1e-9, Mu: 1, C: 10},    // theta = mu + 1e-9
		{Lambda: 9 + 1e-7, Mu: 1, C: 10},    // theta = mu - 1e-7
		{Lambda: 5, Mu: 1, C: 10},           // theta = 5 mu
		{Lambda: 9.8, Mu: 1, C: 10},         // theta = 0.2 mu
		{Lambda: 0.5, Mu: 3, C: 2},          // light load
		{Lambda: 450, Mu: 1, C: 470},        // large c, theta = 20 mu
		{Lambda: 2 - 1e-12, Mu: 1, C: 3},    // theta - mu = 1e-12
		{Lambda: 1.5, Mu: 0.25, C: 7},       // theta = mu
		{Lambda: 0.0001, Mu: 0.001, C: 100}, // C underflows to ~0
	}
	for _, q := range tests {
		pw, theta := val(t)(q.ErlangC()), float64(q.C)*q.Mu-q.Lambda
		for _, t0 := range []float64{0, 0.01, 0.5, 1, 3, 10, 40} {
			t0 := t0 / q.Mu
			got := val(t)(q.SojournCDF(t0))
			f := func(x float64) float64 {
				return theta * math.Exp(-theta*x) * -math.Expm1(-q.Mu*(t0-x))
			}
			panels := max(1, int(math.Ceil(t0*max(theta, q.Mu))))
			h := t0 / float64(panels)
			var conv float64
			for i := range panels {
				conv += quad.Fixed(f, float64(i)*h, float64(i+1)*h, 16, nil, 0)
			}
			want := (1-pw)*-math.Expm1(-q.Mu*t0) + pw*conv
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("%+v.SojournCDF(%v) = %.15g, want %.15g (quadrature)", q, t0, got, want)
			}
		}
	}
}

// TestMMcQuantiles checks that each quantile inverts its CDF, that the
// sojourn quantile is non-decreasing in p and bracketed by its analytic
// bounds, and the "0 when ErlangC <= 1-p" rule of WaitQuantile.
func TestMMcQuantiles(t *testing.T) {
	t.Parallel()
	ok := val(t)
	models := []MMc{
		{9, 1, 10}, {5, 1, 10}, {9.8, 1, 10}, {0.5, 3, 2}, {450, 1, 470}, {99, 0.1, 1000},
	}
	ps := []float64{1e-9, 0.01, 0.3, 0.5, 0.9, 0.99, 0.999, 1 - 1e-9}
	for _, q := range models {
		pw := ok(q.ErlangC())
		prev := 0.0
		for _, p := range ps {
			x := ok(q.SojournQuantile(p))
			if x < prev {
				t.Errorf("%+v.SojournQuantile(%v) = %v < quantile at smaller p = %v", q, p, x, prev)
			}
			prev = x
			// Inverse: F(x) >= p and F just below x is < p (x is the smallest
			// such point up to a few ulps).
			if f := ok(q.SojournCDF(x)); !(f >= p-1e-15) {
				t.Errorf("%+v.SojournCDF(SojournQuantile(%v) = %v) = %.17g, want >= p", q, p, x, f)
			}
			if f := ok(q.SojournCDF(x * (1 - 1e-12))); !(f < p+1e-15) {
				t.Errorf("%+v.SojournCDF(%v) = %.17g just below the %v-quantile, want < p", q, x*(1-1e-12), f, p)
			}
			if s := -math.Log1p(-p) / q.Mu; x < s*(1-1e-15) {
				t.Errorf("%+v.SojournQuantile(%v) = %v, below the service quantile %v", q, p, x, s)
			}
			wq := ok(q.WaitQuantile(p))
			if pw <= 1-p {
				if wq != 0 {
					t.Errorf("%+v.WaitQuantile(%v) = %v, want 0 (ErlangC = %v <= 1-p)", q, p, wq, pw)
				}
			} else if f := ok(q.WaitCDF(wq)); !near(f, p, 1e-12) {
				t.Errorf("%+v.WaitCDF(WaitQuantile(%v)) = %v, want %v", q, p, f, p)
			}
		}
		if got := ok(q.SojournQuantile(0)); got != 0 {
			t.Errorf("%+v.SojournQuantile(0) = %v, want 0", q, got)
		}
		if got := ok(q.WaitCDF(0)); !near(got, 1-pw, 1e-15) {
			t.Errorf("%+v.WaitCDF(0) = %v, want 1 - ErlangC = %v", q, got, 1-pw)
		}
	}
}
