package analytic_test

import (
	"fmt"

	"github.com/budgetsim/budgetsim/model/analytic"
)

// An agent fetches five pages at once, each taking an exponential time
// with mean 200ms. Waiting for all five costs the harmonic number H₅ times
// the mean; waiting for the first three costs much less.
func ExampleExpGroup() {
	g := analytic.ExpGroup{Rates: []float64{5, 5, 5, 5, 5}}
	anyMean, _ := g.AnyMean()
	first3, _ := g.KthMean(3)
	allMean, _ := g.AllMean()
	allP99, _ := g.KthQuantile(5, 0.99)
	fmt.Printf("any: %.3fs  first 3: %.3fs  all: %.3fs (p99 %.3fs)\n", anyMean, first3, allMean, allP99)
	// Output:
	// any: 0.040s  first 3: 0.157s  all: 0.457s (p99 1.242s)
}

// A model call's latency is lognormal with median 1s and σ = 1. A hedge
// sent after 2s (about the p75) cuts the mean and, far more, the p99.
func ExampleHedgedLognormal() {
	for _, attempts := range []int{1, 2} {
		h := analytic.HedgedLognormal{Mu: 0, Sigma: 1, Delay: 2, Attempts: attempts}
		mean, _ := h.Mean()
		p99, _ := h.Quantile(0.99)
		fmt.Printf("attempts %d: mean %.3fs, p99 %.3fs\n", attempts, mean, p99)
	}
	// Output:
	// attempts 1: mean 1.649s, p99 10.240s
	// attempts 2: mean 1.319s, p99 4.675s
}
