package recommend_test

import (
	"fmt"
	"math"
	"time"

	"github.com/budgetsim/budgetsim/plan/recommend"
	"gonum.org/v1/gonum/stat/distuv"
)

// Recommend settings for 1000 latencies spread exactly like a lognormal
// with median 40 ms and sigma 0.8 (its quantiles at (i − 0.5)/n), for a
// backend that also fails 2% of calls retryably, a 99.9% success target and
// a 1 s deadline.
func ExampleFromSamples() {
	truth := distuv.LogNormal{Mu: math.Log(0.040), Sigma: 0.8}
	x := make([]float64, 1000)
	for i := range x {
		x[i] = truth.Quantile((float64(i) + 0.5) / float64(len(x)))
	}
	r, err := recommend.FromSamples(x, recommend.Options{
		Success:   0.999,
		ErrorRate: 0.02,
		Deadline:  time.Second,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ms := func(d time.Duration) string { return d.Round(100 * time.Microsecond).String() }
	fmt.Printf("ceiling = p%g = %s: %.1f%% of good calls cut off\n", r.Percentile, ms(r.Ceiling), 100*r.CutOff)
	fmt.Printf("floor = p%g = %s (min_lease)\n", r.FloorPercentile, ms(r.Floor))
	fmt.Printf("q = %.2f%%: %d attempts give %.4f%%\n", 100*r.AttemptFailure, r.Attempts, 100*r.Success)
	fmt.Printf("deadline = %d × %s + %s backoff + %s floor = %s\n", r.Attempts, ms(r.Ceiling), ms(r.Backoff), ms(r.Floor), ms(r.Deadline))
	fmt.Printf("in %v: at most %d attempts\n", r.GivenDeadline, r.MaxAttempts)
	fmt.Printf("fit: %v, tail heavier: %v\n", r.Fit, r.TailHeavier)
	// Output:
	// ceiling = p99 = 253.5ms: 1.1% of good calls cut off
	// floor = p50 = 40ms (min_lease)
	// q = 3.08%: 2 attempts give 99.9053%
	// deadline = 2 × 253.5ms + 50ms backoff + 40ms floor = 596.9ms
	// in 1s: at most 3 attempts
	// fit: lognormal{median: 0.04, sigma: 0.7995}, tail heavier: false
}
