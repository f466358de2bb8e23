package analytic

import (
	"math"
	"strings"
	"testing"
)

// TestMVAMatchesFiniteSource: exact MVA of one station of c servers
// behind a think time must agree with the birth–death solution of the
// M/M/c//N queue, an independent computation, to rounding, from light to
// saturated populations.
func TestMVAMatchesFiniteSource(t *testing.T) {
	for _, tc := range []struct {
		n, c      int
		think, mu float64
	}{
		{1, 1, 9, 1}, {10, 1, 9, 1}, {40, 1, 9, 1},
		{5, 8, 30, 1}, {200, 8, 30, 1}, {400, 8, 30, 1},
		{50, 3, 2, 0.5}, {1000, 16, 10, 2},
	} {
		fs := FiniteSource{N: tc.n, C: tc.c, Think: tc.think, Mu: tc.mu}
		got, err := Closed{N: tc.n, Think: tc.think, Stations: []Station{{Demand: 1 / tc.mu, Servers: tc.c}}}.MVA()
		if err != nil {
			t.Fatal(err)
		}
		x, w, l := val(t)(fs.Throughput()), val(t)(fs.MeanSojourn()), val(t)(fs.MeanInSystem())
		if !near(got.Throughput, x, 1e-9) || !near(got.Response, w, 1e-9) || !near(got.Queue[0], l, 1e-9) {
			t.Errorf("N=%d c=%d: MVA X=%.10g R=%.10g Q=%.10g, birth–death X=%.10g W=%.10g L=%.10g",
				tc.n, tc.c, got.Throughput, got.Response, got.Queue[0], x, w, l)
		}
		// Little's law on the whole loop: N = X (Z + R).
		if !near(got.Throughput*(tc.think+got.Response), float64(tc.n), 1e-12) {
			t.Errorf("N=%d c=%d: X(Z + R) = %.12g", tc.n, tc.c, got.Throughput*(tc.think+got.Response))
		}
	}
}

// TestMVABounds: with one run there is no queueing, X(1) = 1/(Z + ΣD);
// throughput rises with N and stays under both asymptotic bounds,
// N/(Z + ΣD) and min_k c_k/D_k, and approaches the second (Denning and
// Buzen's operational bounds).
func TestMVABounds(t *testing.T) {
	st := []Station{{Demand: 0.2, Servers: 1}, {Demand: 1.5, Servers: 4}, {Demand: 0.05, Servers: 2}}
	one := must[ClosedMeans](t)(Closed{N: 1, Think: 3, Stations: st}.MVA())
	if !near(one.Throughput, 1/(3+0.2+1.5+0.05), 1e-12) {
		t.Fatalf("X(1) = %v, want 1/(Z + ΣD)", one.Throughput)
	}
	prev := 0.0
	for n := 1; n <= 200; n++ {
		m := must[ClosedMeans](t)(Closed{N: n, Think: 3, Stations: st}.MVA())
		if m.Throughput < prev*(1-1e-12) || m.Throughput > float64(n)/(3+1.75)*(1+1e-12) || m.Throughput > 4/1.5*(1+1e-12) {
			t.Fatalf("N=%d: X = %v (previous %v) outside its bounds", n, m.Throughput, prev)
		}
		for k, u := range m.Utilisation {
			if u < 0 || u > 1+1e-12 {
				t.Fatalf("N=%d: utilisation of station %d is %v", n, k, u)
			}
		}
		prev = m.Throughput
	}
	if prev < 0.999*4/1.5 {
		t.Fatalf("X(200) = %v, want close to the bottleneck's 4/1.5", prev)
	}
}

// TestMVASingleServerRecursion: two single-server stations of equal
// demand D and no think time hold N/2 runs each by symmetry, so
// R(n) = 2D(1 + (n−1)/2) and X(N) = N/((N + 1) D).
func TestMVASingleServerRecursion(t *testing.T) {
	for _, n := range []int{1, 2, 7, 50} {
		m := must[ClosedMeans](t)(Closed{N: n, Stations: []Station{{Demand: 0.5, Servers: 1}, {Demand: 0.5, Servers: 1}}}.MVA())
		want := float64(n) / (float64(n+1) * 0.5)
		if !near(m.Throughput, want, 1e-12) || !near(m.Queue[0], float64(n)/2, 1e-12) {
			t.Errorf("N=%d: X = %v, Q = %v; want %v, %v", n, m.Throughput, m.Queue[0], want, float64(n)/2)
		}
	}
}

func TestMVAErrors(t *testing.T) {
	for _, tc := range []struct {
		q    Closed
		want string
	}{
		{Closed{N: 0, Think: 1, Stations: []Station{{1, 1}}}, "n: must be >= 1"},
		{Closed{N: 1, Think: -1, Stations: []Station{{1, 1}}}, "think: must be finite"},
		{Closed{N: 1, Think: math.Inf(1), Stations: []Station{{1, 1}}}, "think: must be finite"},
		{Closed{N: 1, Think: 1, Stations: []Station{{0, 1}}}, "stations[0].demand: must be > 0"},
		{Closed{N: 1, Think: 1, Stations: []Station{{1, 1}, {1, 0}}}, "stations[1].servers: must be >= 1"},
		{Closed{N: 1}, "stations: need at least one"},
	} {
		_, err := tc.q.MVA()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.q, err, tc.want)
		}
	}
	if _, err := (FiniteSource{N: 3, C: 1, Think: 0, Mu: 1}).Throughput(); err == nil || !strings.Contains(err.Error(), "think") {
		t.Errorf("think 0: error %v", err)
	}
}

// TestFiniteSourceDoesNotAllocate: only Distribution allocates.
func TestFiniteSourceDoesNotAllocate(t *testing.T) {
	q := FiniteSource{N: 200, C: 8, Think: 30, Mu: 1}
	if n := testing.AllocsPerRun(100, func() { _, _ = q.MeanSojourn() }); n != 0 {
		t.Fatalf("MeanSojourn allocates %v times", n)
	}
}
