package calibrate_test

import (
	"testing"

	"github.com/budgetsim/budgetsim/model/dist"
)

// hyperexp is a bursty interarrival: 0.9 at rate 20/s, 0.1 at 0.5/s
// (mean 0.245 s, CV about 2.8).
func hyperexp(t *testing.T) dist.Dist {
	a, _ := dist.Exponential(1.0 / 20)
	b, _ := dist.Exponential(1 / 0.5)
	h, err := dist.Mixture([]float64{0.9, 0.1}, []dist.Dist{a, b})
	if err != nil {
		t.Fatal(err)
	}
	return h
}
