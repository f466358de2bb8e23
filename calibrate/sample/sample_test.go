package sample

import (
	"math"
	"slices"
	"testing"
)

func TestReservoirKeepsAllBelowCap(t *testing.T) {
	s := New(10, 1, "x")
	for i := range 7 {
		s.Add(float64(i), float64(-i))
	}
	if !s.Complete() || len(s.Values()) != 7 || s.N() != 7 || s.Mean() != 3 || s.Min() != 0 || s.Max() != 6 {
		t.Fatalf("got %v n=%d mean=%v", s.Values(), s.N(), s.Mean())
	}
	for i, v := range s.Values() {
		if s.Aux()[i] != -v {
			t.Fatalf("companion of %v is %v", v, s.Aux()[i])
		}
	}
}

// Each of 1000 values should be kept with probability cap/n = 0.1; the
// mean of the kept values estimates 499.5 with standard error
// sd/sqrt(cap)·sqrt(1 − cap/n) ≈ 288.7/10·0.95 ≈ 27.4; 4 standard errors.
func TestReservoirUniformAndDeterministic(t *testing.T) {
	run := func() []float64 {
		s := New(100, 7, "tool")
		for i := range 1000 {
			s.Add(float64(i), float64(i))
		}
		if s.Complete() || len(s.Values()) != 100 {
			t.Fatalf("len %d", len(s.Values()))
		}
		return slices.Clone(s.Values())
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Fatal("same input, different sample")
	}
	var m float64
	for _, v := range a {
		m += v
	}
	m /= 100
	if math.Abs(m-499.5) > 4*27.4 {
		t.Fatalf("sample mean %v, want 499.5 ± 110", m)
	}
}
