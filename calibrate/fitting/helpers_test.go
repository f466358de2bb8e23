package fitting_test

import (
	"math"
	"testing"

	"github.com/budgetsim/budgetsim/model/dist"
)

// The hyperexponential of the bursty test: 0.9 at rate 20/s, 0.1 at 0.5/s.
const hp, hl1, hl2 = 0.9, 20.0, 0.5

var hyperCV = func() float64 {
	m1 := hp/hl1 + (1-hp)/hl2
	m2 := 2 * (hp/(hl1*hl1) + (1-hp)/(hl2*hl2))
	return math.Sqrt(m2/(m1*m1) - 1)
}()

func hyperexp(t *testing.T) dist.Dist {
	a, _ := dist.Exponential(1 / hl1)
	b, _ := dist.Exponential(1 / hl2)
	h, err := dist.Mixture([]float64{hp, 1 - hp}, []dist.Dist{a, b})
	if err != nil {
		t.Fatal(err)
	}
	return h
}
