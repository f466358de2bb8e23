package analytic

import (
	"testing"

	"pgregory.net/rapid"
)

// bruteMinServers scans c = 1, 2, ... with the MMc model itself and returns
// the first stable c whose P(Wq <= maxWait) reaches p.
func bruteMinServers(t fataler, lambda, mu, p, maxWait float64) int {
	for c := 1; ; c++ {
		q := MMc{Lambda: lambda, Mu: mu, C: c}
		if rho := val(t)(q.Rho()); rho >= 1 {
			continue
		}
		if val(t)(q.WaitCDF(maxWait)) >= p {
			return c
		}
	}
}

func bruteMinServersMean(t fataler, lambda, mu, maxMeanWait float64) int {
	for c := 1; ; c++ {
		q := MMc{Lambda: lambda, Mu: mu, C: c}
		if rho := val(t)(q.Rho()); rho >= 1 {
			continue
		}
		if val(t)(q.MeanWait()) <= maxMeanWait {
			return c
		}
	}
}

// TestMinServersForWait pins a few staffing answers and checks a grid
// against a brute-force scan of MMc.WaitCDF.
func TestMinServersForWait(t *testing.T) {
	t.Parallel()
	// Reference: lambda 9/s, mean service 1 s (the study's load, A = 9).
	// With 10 servers P(Wq <= 0.1) = 1 - 0.66873 e^{-0.1} = 0.395; the
	// first c reaching 0.95 is 15: P(Wq > 0.1) = C(c, 9) e^{-(c-9) 0.1} is
	// C(14, 9) e^{-0.5} = 0.0541 > 0.05 and C(15, 9) e^{-0.6} = 0.0265
	// (C from exact Python fractions).
	pinned := []struct {
		lambda, mu, p, maxWait float64
		want                   int
	}{
		{9, 1, 0.95, 0.1, 15},
		{9, 1, 0, 0.1, 10},   // p = 0: smallest stable c = floor(A) + 1
		{9, 1, 0.3, 0.1, 10}, // 10 servers already give 0.395
		// maxWait 0: P(Wq <= 0) = 1 - C. By the Erlang B recursion,
		// B(1..3, 0.5) = 1/3, 1/13, 1/79, so C(1, 0.5) = 1/2, C(2, 0.5) =
		// 1/10 and C(3, 0.5) = (1/79)/(1 - (1/6)(78/79)) = 1/66.
		{0.5, 1, 0.95, 0, 3},
		{0.5, 1, 0.85, 0, 2},
		{0.5, 1, 0.5, 0, 1},
	}
	for _, tt := range pinned {
		got, err := MinServersForWait(tt.lambda, tt.mu, tt.p, tt.maxWait)
		if err != nil || got != tt.want {
			t.Errorf("MinServersForWait(%v, %v, %v, %v) = %d, %v, want %d", tt.lambda, tt.mu, tt.p, tt.maxWait, got, err, tt.want)
		}
	}
	for _, lambda := range []float64{0.1, 0.9, 1, 3.7, 9, 50, 200} {
		for _, p := range []float64{0, 0.5, 0.8, 0.95, 0.99, 0.9999} {
			for _, maxWait := range []float64{0, 0.01, 0.25, 1, 5} {
				got, err := MinServersForWait(lambda, 0.5, p, maxWait)
				want := bruteMinServers(t, lambda, 0.5, p, maxWait)
				if err != nil || got != want {
					t.Errorf("MinServersForWait(%v, 0.5, %v, %v) = %d, %v, want %d (brute force)", lambda, p, maxWait, got, err, want)
				}
			}
		}
	}
}

// TestMinServersForWaitMonotone: more traffic never needs fewer servers,
// for the same service level.
func TestMinServersForWaitMonotone(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		mu := rapid.Float64Range(0.05, 20).Draw(rt, "mu")
		l1 := rapid.Float64Range(0.01, 100).Draw(rt, "lambda1")
		l2 := l1 * (1 + rapid.Float64Range(0, 2).Draw(rt, "growth"))
		p := rapid.Float64Range(0, 0.9999).Draw(rt, "p")
		maxWait := rapid.Float64Range(0, 10).Draw(rt, "maxWait")
		c1, err1 := MinServersForWait(l1, mu, p, maxWait)
		c2, err2 := MinServersForWait(l2, mu, p, maxWait)
		if err1 != nil || err2 != nil {
			rt.Fatalf("errors: %v, %v", err1, err2)
		}
		if c2 < c1 {
			rt.Fatalf("MinServersForWait(%v, ...) = %d < MinServersForWait(%v, ...) = %d", l2, c2, l1, c1)
		}
		if want := bruteMinServers(rt, l1, mu, p, maxWait); c1 != want {
			rt.Fatalf("MinServersForWait(%v, %v, %v, %v) = %d, want %d (brute force)", l1, mu, p, maxWait, c1, want)
		}
	})
}

func TestMinServersForMeanWait(t *testing.T) {
	t.Parallel()
	// lambda 9, mu 1: Wq = C(c, 9)/(c - 9) is 0.669 s at c = 10 (the study),
	// 0.215 s at 11 and 0.0887 s at 12 (exact Python fractions), so a 1 s
	// target needs 10 servers and a 0.1 s target 12.
	for _, tt := range []struct {
		target float64
		want   int
	}{{1, 10}, {0.1, 12}} {
		if got, err := MinServersForMeanWait(9, 1, tt.target); err != nil || got != tt.want {
			t.Errorf("MinServersForMeanWait(9, 1, %v) = %d, %v, want %d", tt.target, got, err, tt.want)
		}
	}
	for _, lambda := range []float64{0.1, 0.9, 1, 3.7, 9, 50, 200} {
		for _, target := range []float64{1e-6, 0.01, 0.1, 1, 100} {
			got, err := MinServersForMeanWait(lambda, 0.5, target)
			want := bruteMinServersMean(t, lambda, 0.5, target)
			if err != nil || got != want {
				t.Errorf("MinServersForMeanWait(%v, 0.5, %v) = %d, %v, want %d (brute force)", lambda, target, got, err, want)
			}
		}
	}
}

func TestLittle(t *testing.T) {
	t.Parallel()
	// 5 runs/s, each staying 2 s: 10 in flight on average.
	if got := Little(5, 2); got != 10 {
		t.Errorf("Little(5, 2) = %v, want 10", got)
	}
}
