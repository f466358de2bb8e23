package analytic_test

import (
	"fmt"

	"github.com/budgetsim/budgetsim/model/analytic"
)

// Chat turns are served before research runs on one model worker,
// without interrupting a run in service. Chat: 2 per second of 0.125s
// (deterministic); research: 0.1 per second of 3s (exponential, E[S²] =
// 2×3²).
func ExamplePriorityMG1() {
	q := analytic.PriorityMG1{Classes: []analytic.PriorityClass{
		{Lambda: 2, MeanService: 0.125, SecondMoment: 0.125 * 0.125},
		{Lambda: 0.1, MeanService: 3, SecondMoment: 18},
	}}
	ws, err := q.MeanWaits()
	if err != nil {
		panic(err)
	}
	fmt.Printf("chat waits %.2fs, research waits %.2fs\n", ws[0], ws[1])
	// Output:
	// chat waits 1.22s, research waits 2.71s
}

// A tier of 500 requests and 200,000 tokens per minute, of which 40,000
// output tokens, for calls of 3,000 input and 800 output tokens on average.
func ExampleTokenLimits_CallCap() {
	tier := analytic.TokenLimits{RPM: 500, TPM: 200000, OTPM: 40000}
	c, binding, err := tier.CallCap(3000, 800)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.3f calls/s, %s binds\n", c, binding)
	// Output:
	// 0.833 calls/s, otpm binds
}

// Calls of 500 tokens on average (E[N²] = 300,000) arrive once a second
// and wait for a 45,000 tokens-per-minute limit (750 per second): the
// bucket drains like a single server whose service time is tokens/rate.
func ExampleTokenQueue() {
	q, err := analytic.TokenQueue(1, 45000.0/60, 500, 300000)
	if err != nil {
		panic(err)
	}
	rho, _ := q.Rho()
	w, _ := q.MeanSojourn()
	fmt.Printf("utilisation %.3f, mean backlog %.3fs\n", rho, w)
	// Output:
	// utilisation 0.667, mean backlog 1.467s
}
