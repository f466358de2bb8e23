package fit_test

import (
	"fmt"
	"math"

	"github.com/budgetsim/budgetsim/plan/fit"
	"gonum.org/v1/gonum/stat/distuv"
)

// Fit 1000 latencies spread exactly like a lognormal with median 40 ms and
// sigma 0.8 (its quantiles at (i - 0.5)/n), then the same data with its
// slowest 2% made 10 times slower.
func ExampleFit() {
	truth := distuv.LogNormal{Mu: math.Log(0.040), Sigma: 0.8}
	x := make([]float64, 1000)
	for i := range x {
		x[i] = truth.Quantile((float64(i) + 0.5) / float64(len(x)))
	}
	r, err := fit.Fit(x)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range r.Candidates {
		fmt.Printf("%-40v KS %.3f\n", c, c.KS)
	}
	fmt.Printf("p99.9: data %.3fs, model %.3fs, heavier tail: %v\n", r.TailEmpirical, r.Best.Quantile(r.TailP), r.TailHeavier)

	for i := 980; i < len(x); i++ {
		x[i] *= 10
	}
	r, _ = fit.Fit(x)
	fmt.Printf("slow 2%%: best %v, tail ratio %.1f, heavier tail: %v\n", r.Best.Dist, r.TailRatio, r.TailHeavier)
	// Output:
	// lognormal{median: 0.04, sigma: 0.7995}   KS 0.001
	// gamma{cv: 0.7636, mean: 0.05503}         KS 0.057
	// weibull{scale: 0.05967, shape: 1.255}    KS 0.061
	// exponential{mean: 0.05503}               KS 0.131
	// pareto{alpha: 0.3799, min: 0.002876}     KS 0.358
	// p99.9: data 0.430s, model 0.473s, heavier tail: false
	// slow 2%: best lognormal, tail ratio 5.3, heavier tail: true
}
