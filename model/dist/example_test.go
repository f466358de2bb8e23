package dist_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/budgetsim/budgetsim/model/dist"
)

// A backend's dashboard says: median 40 ms, p99 500 ms. LogNormalP99 turns
// those two numbers into a distribution (in seconds) with a long tail: the
// mean sits well above the median.
func ExampleLogNormalP99() {
	d, err := dist.LogNormalP99(0.040, 0.500)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d)
	for _, p := range []float64{0.5, 0.9, 0.99, 0.999} {
		fmt.Printf("p%-4g %.4f s\n", 100*p, d.Quantile(p))
	}
	fmt.Printf("mean  %.4f s\n", d.Mean())

	r := rand.New(rand.NewPCG(1, 2))
	fmt.Printf("draw  %.4f s\n", d.Sample(r))

	_, err = dist.LogNormalP99(0.040, 0.030)
	fmt.Println(err)
	// Output:
	// lognormal(median=0.04, p99=0.5)
	// p50   0.0400 s
	// p90   0.1608 s
	// p99   0.5000 s
	// p99.9 1.1459 s
	// mean  0.0721 s
	// draw  0.0658 s
	// p99: must be > median (0.04), got 0.03
}

// The scenario loader builds distributions by name.
func ExampleBuild() {
	d, err := dist.Build("gamma", map[string]float64{"mean": 0.2, "cv": 0.5})
	fmt.Println(d, err)
	fmt.Printf("E[S^2] = %.3f\n", dist.SecondMoment(d)) // mean^2*(1+cv^2)

	_, err = dist.Build("gamma", map[string]float64{"mean": 0.2})
	fmt.Println(err)
	_, err = dist.Build("normal", nil)
	fmt.Println(err)
	// Output:
	// gamma(mean=0.2, cv=0.5) <nil>
	// E[S^2] = 0.050
	// cv: required
	// family: unknown family "normal"; want one of constant, exponential, gamma, lognormal, pareto, uniform, weibull
}

// Most calls are fast; one in ten hits a cold cache and takes a flat second.
func ExampleMixture() {
	fast, _ := dist.LogNormal(0.05, 0.5)
	cold, _ := dist.Constant(1)
	d, _ := dist.Mixture([]float64{9, 1}, []dist.Dist{fast, cold})
	fmt.Println(d)
	fmt.Printf("p50 %.3f s, p95 %.3f s, mean %.3f s\n", d.Quantile(0.5), d.Quantile(0.95), d.Mean())
	// Output:
	// mixture(0.9*lognormal(median=0.05, sigma=0.5), 0.1*constant(value=1))
	// p50 0.054 s, p95 1.000 s, mean 0.151 s
}
