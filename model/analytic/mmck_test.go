package analytic

import (
	"math"
	"testing"
)

// TestMMcKHand pins a case small enough to do by hand: lambda = 2, mu = 1,
// c = 2, K = 3, so A = 2 and rho = 1 (valid: the capacity is finite).
// Unnormalised weights q_n = A^n/n! for n <= 2, then times rho per extra
// run: q = (1, 2, 2, 2), sum 7, so p = (1, 2, 2, 2)/7 and
//
//	p_K = 2/7, L = (0+2+4+6)/7 = 12/7, Lq = (1·2)/7 = 2/7,
//	X = lambda (1 - p_K) = 10/7 (= mu E[min(N,c)] = (2+4+4)/7),
//	W = L/X = 6/5, Wq = Lq/X = 1/5.
func TestMMcKHand(t *testing.T) {
	t.Parallel()
	q := MMcK{Lambda: 2, Mu: 1, C: 2, K: 3}
	ok := val(t)
	p := must[[]float64](t)(q.Distribution())
	want := []float64{1.0 / 7, 2.0 / 7, 2.0 / 7, 2.0 / 7}
	if len(p) != len(want) {
		t.Fatalf("%+v.Distribution() has %d entries, want %d", q, len(p), len(want))
	}
	for n := range want {
		if !near(p[n], want[n], 1e-15) {
			t.Errorf("%+v.Distribution()[%d] = %v, want %v", q, n, p[n], want[n])
		}
	}
	tests := []struct {
		name      string
		got, want float64
	}{
		{"Rho()", ok(q.Rho()), 1},
		{"BlockingProbability()", ok(q.BlockingProbability()), 2.0 / 7},
		{"MeanInSystem()", ok(q.MeanInSystem()), 12.0 / 7},
		{"MeanQueue()", ok(q.MeanQueue()), 2.0 / 7},
		{"Throughput()", ok(q.Throughput()), 10.0 / 7},
		{"MeanSojourn()", ok(q.MeanSojourn()), 1.2},
		{"MeanWait()", ok(q.MeanWait()), 0.2},
	}
	for _, tt := range tests {
		if !near(tt.got, tt.want, 1e-14) {
			t.Errorf("%+v.%s = %.15g, want %.15g", q, tt.name, tt.got, tt.want)
		}
	}
}

// TestMMcKSingleServer compares c = 1 with the M/M/1/K closed form
// p_n = (1 - rho) rho^n / (1 - rho^{K+1}), or 1/(K+1) at rho = 1
// (Kleinrock, Vol. 1, §3.6; Gross et al., 4th ed., §2.5), including
// overload, and checks the throughput identity X = lambda (1 - p_K).
func TestMMcKSingleServer(t *testing.T) {
	t.Parallel()
	ok := val(t)
	for _, tt := range []struct {
		lambda, mu float64
		k          int
	}{
		{0.5, 1, 1}, {0.5, 1, 5}, {0.9, 1, 30}, {1, 1, 9}, {3, 2, 10}, {7, 1, 4}, {0.01, 1, 200},
	} {
		q := MMcK{Lambda: tt.lambda, Mu: tt.mu, C: 1, K: tt.k}
		rho := tt.lambda / tt.mu
		p := must[[]float64](t)(q.Distribution())
		var l float64
		for n := 0; n <= tt.k; n++ {
			want := 1 / float64(tt.k+1)
			if rho != 1 {
				want = (1 - rho) * math.Pow(rho, float64(n)) / (1 - math.Pow(rho, float64(tt.k+1)))
			}
			if !near(p[n], want, 1e-12) {
				t.Errorf("%+v.Distribution()[%d] = %.15g, want M/M/1/K %.15g", q, n, p[n], want)
			}
			l += float64(n) * want
		}
		if got, want := ok(q.BlockingProbability()), p[tt.k]; !near(got, want, 1e-12) {
			t.Errorf("%+v.BlockingProbability() = %v, want p_K = %v", q, got, want)
		}
		if got := ok(q.MeanInSystem()); !near(got, l, 1e-12) {
			t.Errorf("%+v.MeanInSystem() = %v, want sum n p_n = %v", q, got, l)
		}
		pk := ok(q.BlockingProbability())
		if got, want := ok(q.Throughput()), tt.lambda*(1-pk); !near(got, want, 1e-12) {
			t.Errorf("%+v.Throughput() = %v, want lambda (1 - p_K) = %v", q, got, want)
		}
	}
}

// TestMMcKLimits checks the two models M/M/c/K interpolates: with K = c it
// is Erlang's loss system, p_K = B(c, A) (Gross et al., 4th ed., §2.6); and
// as K grows at rho < 1 it tends to M/M/c (the tail beyond K is
// O(rho^(K-c)); 0.9^3000 is far below float64 resolution).
func TestMMcKLimits(t *testing.T) {
	t.Parallel()
	ok := val(t)
	for _, tt := range []struct {
		a float64
		c int
	}{{2, 3}, {9, 10}, {30, 10}, {0.1, 1}, {400, 450}} {
		loss := MMcK{Lambda: tt.a, Mu: 1, C: tt.c, K: tt.c}
		if got, want := ok(loss.BlockingProbability()), ok(ErlangB(tt.a, tt.c)); !near(got, want, 1e-12) {
			t.Errorf("%+v.BlockingProbability() = %v, want ErlangB(%v, %d) = %v", loss, got, tt.a, tt.c, want)
		}
		if got := ok(loss.MeanWait()); got != 0 {
			t.Errorf("%+v.MeanWait() = %v, want 0 (no waiting room)", loss, got)
		}
	}
	for _, inf := range []MMc{{9, 1, 10}, {0.5, 3, 2}, {450, 1, 470}} {
		q := MMcK{Lambda: inf.Lambda, Mu: inf.Mu, C: inf.C, K: inf.C + 3000}
		pairs := []struct {
			name       string
			got, want  float64
			wantSource string
		}{
			{"MeanWait()", ok(q.MeanWait()), ok(inf.MeanWait()), "M/M/c MeanWait"},
			{"MeanSojourn()", ok(q.MeanSojourn()), ok(inf.MeanSojourn()), "M/M/c MeanSojourn"},
			{"MeanQueue()", ok(q.MeanQueue()), ok(inf.MeanQueue()), "M/M/c MeanQueue"},
			{"Throughput()", ok(q.Throughput()), inf.Lambda, "lambda"},
		}
		for _, p := range pairs {
			if !near(p.got, p.want, 1e-11) {
				t.Errorf("%+v.%s = %.15g, want %s = %.15g", q, p.name, p.got, p.wantSource, p.want)
			}
		}
		// P(N >= c) is the probability of waiting: Erlang C (PASTA).
		p := must[[]float64](t)(q.Distribution())
		var wait float64
		for n := inf.C; n <= q.K; n++ {
			wait += p[n]
		}
		if want := ok(inf.ErlangC()); !near(wait, want, 1e-11) {
			t.Errorf("%+v: sum_{n>=c} p_n = %v, want ErlangC = %v", q, wait, want)
		}
	}
}

// TestMMcKExtreme checks inputs where a textbook implementation overflows
// (A^c/c! with A = 1e4) or loses precision (p_K within 1e-20 of 1).
func TestMMcKExtreme(t *testing.T) {
	t.Parallel()
	ok := val(t)
	// A = 1e20 on one server with no queue: p_1 = A/(1+A), so the
	// throughput mu p_1 is 1 to 1e-20, while lambda (1 - p_K) would be
	// 1e20 times a rounding error.
	q := MMcK{Lambda: 1e20, Mu: 1, C: 1, K: 1}
	if got := ok(q.Throughput()); !near(got, 1, 1e-15) {
		t.Errorf("%+v.Throughput() = %v, want 1 (server always busy)", q, got)
	}
	if got := ok(q.MeanSojourn()); !near(got, 1, 1e-15) {
		t.Errorf("%+v.MeanSojourn() = %v, want 1/mu = 1", q, got)
	}
	// Heavy overload with many servers: nearly every server busy, the
	// queue nearly full.
	q = MMcK{Lambda: 1e4, Mu: 1, C: 500, K: 2000}
	p := must[[]float64](t)(q.Distribution())
	var sum float64
	for n, pn := range p {
		if math.IsNaN(pn) || pn < 0 {
			t.Fatalf("%+v.Distribution()[%d] = %v", q, n, pn)
		}
		sum += pn
	}
	if !near(sum, 1, 1e-12) {
		t.Errorf("%+v: sum of Distribution() = %v, want 1", q, sum)
	}
	// For rho = 20 the tail from K is geometric with ratio 1/rho:
	// p_K ≈ 1 - 1/rho = 0.95 and throughput ≈ c mu = 500.
	if got := ok(q.BlockingProbability()); !near(got, 0.95, 1e-12) {
		t.Errorf("%+v.BlockingProbability() = %v, want 1 - 1/rho = 0.95", q, got)
	}
	if got := ok(q.Throughput()); !near(got, 500, 1e-12) {
		t.Errorf("%+v.Throughput() = %v, want c mu = 500", q, got)
	}
	// A tiny load: only the empty state matters.
	q = MMcK{Lambda: 1e-300, Mu: 1e10, C: 3, K: 10}
	if got := ok(q.MeanSojourn()); !near(got, 1e-10, 1e-12) {
		t.Errorf("%+v.MeanSojourn() = %v, want 1/mu = 1e-10", q, got)
	}
}
