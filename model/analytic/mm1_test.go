package analytic

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// M/M/1 reference values, hand-computed from Gross et al., 4th ed., §2.2:
// rho = lambda/mu, Wq = rho/(mu-lambda), W = 1/(mu-lambda),
// L = rho/(1-rho), Lq = rho²/(1-rho).
var mm1Tests = []struct {
	q                   MM1
	rho, wq, w, l, lq   float64
	p99Sojourn, p90Wait float64 // ln(100)/(mu-lambda), ln(rho/0.1)/(mu-lambda)
}{
	{MM1{1, 2}, 0.5, 0.5, 1, 1, 0.5, math.Log(100), math.Log(5)},
	{MM1{9, 10}, 0.9, 0.9, 1, 9, 8.1, math.Log(100), math.Log(9)},
	// rho = 0.05 <= 1 - 0.9: the atom at zero covers the 90th percentile.
	{MM1{0.5, 10}, 0.05, 0.05 / 9.5, 1 / 9.5, 0.05 / 0.95, 0.0025 / 0.95, math.Log(100) / 9.5, 0},
}

func TestMM1(t *testing.T) {
	t.Parallel()
	for _, tt := range mm1Tests {
		ok := val(t)
		q := tt.q
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"Rho()", ok(q.Rho()), tt.rho},
			{"MeanWait()", ok(q.MeanWait()), tt.wq},
			{"MeanSojourn()", ok(q.MeanSojourn()), tt.w},
			{"MeanInSystem()", ok(q.MeanInSystem()), tt.l},
			{"MeanQueue()", ok(q.MeanQueue()), tt.lq},
			{"SojournQuantile(0.99)", ok(q.SojournQuantile(0.99)), tt.p99Sojourn},
			{"WaitQuantile(0.9)", ok(q.WaitQuantile(0.9)), tt.p90Wait},
		} {
			if !near(c.got, c.want, 1e-13) {
				t.Errorf("%+v.%s = %.15g, want %.15g", q, c.name, c.got, c.want)
			}
		}
	}
}

// TestMM1Distributions checks the sojourn against gonum's exponential with
// rate mu - lambda, and the wait CDF/quantile pair against each other.
func TestMM1Distributions(t *testing.T) {
	t.Parallel()
	q := MM1{Lambda: 3, Mu: 4}
	exp := distuv.Exponential{Rate: 1}
	ok := val(t)
	for _, p := range []float64{0, 0.1, 0.5, 0.9, 0.99, 0.999999} {
		if got, want := ok(q.SojournQuantile(p)), exp.Quantile(p); !near(got, want, 1e-12) {
			t.Errorf("%+v.SojournQuantile(%v) = %v, want distuv.Exponential{Rate: 1}.Quantile = %v", q, p, got, want)
		}
		x := ok(q.SojournQuantile(p))
		if got := ok(q.SojournCDF(x)); !near(got, p, 1e-12) {
			t.Errorf("%+v.SojournCDF(SojournQuantile(%v)) = %v, want %v", q, p, got, p)
		}
		wq := ok(q.WaitQuantile(p))
		if p <= 1-0.75 { // rho = 0.75: atom at zero
			if wq != 0 {
				t.Errorf("%+v.WaitQuantile(%v) = %v, want 0 (atom 1-rho = 0.25 at zero)", q, p, wq)
			}
			continue
		}
		if got := ok(q.WaitCDF(wq)); !near(got, p, 1e-12) {
			t.Errorf("%+v.WaitCDF(WaitQuantile(%v)) = %v, want %v", q, p, got, p)
		}
	}
	if got := ok(q.WaitCDF(0)); !near(got, 0.25, 1e-15) {
		t.Errorf("%+v.WaitCDF(0) = %v, want 1 - rho = 0.25", q, got)
	}
	if got := ok(q.WaitCDF(-1)); got != 0 {
		t.Errorf("%+v.WaitCDF(-1) = %v, want 0", q, got)
	}
	if got := ok(q.SojournCDF(math.Inf(1))); got != 1 {
		t.Errorf("%+v.SojournCDF(+Inf) = %v, want 1", q, got)
	}
}

// TestMM1IsMMcWithOneServer: M/M/c with c = 1 is M/M/1 (Erlang C(1, A) = A
// = rho, and the hypoexponential sojourn collapses to Exp(mu - lambda)).
func TestMM1IsMMcWithOneServer(t *testing.T) {
	t.Parallel()
	ok := val(t)
	for _, q1 := range []MM1{{1, 2}, {0.3, 7}, {0.99, 1}} {
		qc := MMc{Lambda: q1.Lambda, Mu: q1.Mu, C: 1}
		pairs := []struct {
			name   string
			c1, cc float64
		}{
			{"ErlangC vs Rho", ok(q1.Rho()), ok(qc.ErlangC())},
			{"MeanWait", ok(q1.MeanWait()), ok(qc.MeanWait())},
			{"MeanSojourn", ok(q1.MeanSojourn()), ok(qc.MeanSojourn())},
			{"MeanInSystem", ok(q1.MeanInSystem()), ok(qc.MeanInSystem())},
			{"MeanQueue", ok(q1.MeanQueue()), ok(qc.MeanQueue())},
			{"WaitQuantile(0.95)", ok(q1.WaitQuantile(0.95)), ok(qc.WaitQuantile(0.95))},
			{"SojournCDF(0.7)", ok(q1.SojournCDF(0.7)), ok(qc.SojournCDF(0.7))},
			{"SojournQuantile(0.99)", ok(q1.SojournQuantile(0.99)), ok(qc.SojournQuantile(0.99))},
		}
		for _, p := range pairs {
			if !near(p.cc, p.c1, 1e-12) {
				t.Errorf("%s: MMc{%v,%v,1} = %.15g, MM1 = %.15g", p.name, q1.Lambda, q1.Mu, p.cc, p.c1)
			}
		}
	}
}
