package dist

import (
	"math/rand/v2"
	"testing"
)

// TestTailIndex: a Pareto's α is exact, a mixture takes its heaviest
// component's, and Hill's estimate from 10 000 Pareto(α = 1.5) samples
// lands near 1.5 while 10 000 exponential samples give one far above 2.
func TestTailIndex(t *testing.T) {
	p, _ := Pareto(0.1, 1.5)
	if a, est, ok := TailIndex(p); !ok || est || a != 1.5 {
		t.Fatalf("pareto: %v %v %v", a, est, ok)
	}
	e, _ := Exponential(1)
	if _, _, ok := TailIndex(e); ok {
		t.Fatal("exponential has a power-law tail?")
	}
	m, _ := Mixture([]float64{0.99, 0.01}, []Dist{e, p})
	if a, _, ok := TailIndex(m); !ok || a != 1.5 {
		t.Fatalf("mixture: %v %v", a, ok)
	}
	r := rand.New(rand.NewPCG(1, 2))
	draw := func(d Dist) Dist {
		xs := make([]float64, 10000)
		for i := range xs {
			xs[i] = d.Sample(r)
		}
		emp, err := Empirical(xs)
		if err != nil {
			t.Fatal(err)
		}
		return emp
	}
	if a, est, ok := TailIndex(draw(p)); !ok || !est || a < 1.2 || a > 1.8 {
		t.Fatalf("Hill on Pareto(1.5) samples: %v %v %v", a, est, ok)
	}
	if a, _, ok := TailIndex(draw(e)); !ok || a < 3 {
		t.Fatalf("Hill on exponential samples: %v %v, want a light tail (α > 3)", a, ok)
	}
	small, _ := Empirical([]float64{1, 2, 3})
	if _, _, ok := TailIndex(small); ok {
		t.Fatal("3 samples estimated")
	}
}
