package analytic_test

import (
	"errors"
	"fmt"

	"github.com/budgetsim/budgetsim/model/analytic"
)

// Little's law sizes concurrency: 5 runs per second that each take 2 s
// means 10 runs in flight on average, whatever the distributions.
func ExampleLittle() {
	fmt.Println(analytic.Little(5, 2), "runs in flight")
	// Output: 10 runs in flight
}

// The operating point of the measured study: 9 runs/s arriving at 10
// workers that take 1 s on average.
func ExampleMMc() {
	q := analytic.MMc{Lambda: 9, Mu: 1, C: 10}
	pw, _ := q.ErlangC()
	wq, _ := q.MeanWait()
	w, _ := q.MeanSojourn()
	p99, _ := q.SojournQuantile(0.99)
	fmt.Printf("P(wait) = %.4f\n", pw)
	fmt.Printf("mean wait = %.5f s, mean sojourn = %.5f s\n", wq, w)
	fmt.Printf("p99 sojourn = %.4f s\n", p99)
	// Output:
	// P(wait) = 0.6687
	// mean wait = 0.66873 s, mean sojourn = 1.66873 s
	// p99 sojourn = 6.2499 s
}

// How many workers so that 95% of runs start within 100 ms, at 9 runs/s of
// 1 s work each? Erlang C says 15; 10 workers only manage 40%.
func ExampleMinServersForWait() {
	c, err := analytic.MinServersForWait(9, 1, 0.95, 0.1)
	if err != nil {
		panic(err)
	}
	at10, _ := analytic.MMc{Lambda: 9, Mu: 1, C: 10}.WaitCDF(0.1)
	atC, _ := analytic.MMc{Lambda: 9, Mu: 1, C: c}.WaitCDF(0.1)
	fmt.Printf("10 workers: P(wait <= 100ms) = %.3f\n", at10)
	fmt.Printf("%d workers: P(wait <= 100ms) = %.3f\n", c, atC)
	// Output:
	// 10 workers: P(wait <= 100ms) = 0.395
	// 15 workers: P(wait <= 100ms) = 0.974
}

// A bounded queue under overload: 12 runs/s offered to 10 workers (1 s
// each) with room for 20 runs in all. The system stays finite; the excess
// is rejected. (Exact: p_K = 0.179666, X = 9.84401, W = 1.63597, from the
// M/M/c/K sums in Python fractions.)
func ExampleMMcK() {
	q := analytic.MMcK{Lambda: 12, Mu: 1, C: 10, K: 20}
	block, _ := q.BlockingProbability()
	x, _ := q.Throughput()
	w, _ := q.MeanSojourn()
	fmt.Printf("rejected %.1f%%, throughput %.2f runs/s, mean sojourn %.2f s\n", 100*block, x, w)
	// Output: rejected 18.0%, throughput 9.84 runs/s, mean sojourn 1.64 s
}

// Service-time variability costs waiting time at the same load
// (Pollaczek–Khinchine): cv 0, 1 and 3 at 80% utilisation.
func ExampleMG1FromCV() {
	for _, cv := range []float64{0, 1, 3} {
		q, err := analytic.MG1FromCV(0.8, 1, cv)
		if err != nil {
			panic(err)
		}
		wq, _ := q.MeanWait()
		fmt.Printf("cv %v: mean wait %.0f s\n", cv, wq)
	}
	// Output:
	// cv 0: mean wait 2 s
	// cv 1: mean wait 4 s
	// cv 3: mean wait 20 s
}

// An overloaded infinite queue has no steady state: the error says so and
// carries rho.
func ExampleUnstableError() {
	_, err := analytic.MMc{Lambda: 12, Mu: 1, C: 10}.MeanWait()
	var ue *analytic.UnstableError
	fmt.Println(errors.Is(err, analytic.ErrUnstable), errors.As(err, &ue), ue.Rho)
	fmt.Println(err)
	// Output:
	// true true 1.2
	// rho: must be < 1 for a steady state, got 1.2
}

// 200 agents think 30 s between runs, each of which holds one of 8
// workers for an exponential 1 s: exact MVA gives the throughput, and
// Little's law on the loop, N = X (Z + R), holds to rounding.
func ExampleClosed_MVA() {
	m, err := analytic.Closed{N: 200, Think: 30, Stations: []analytic.Station{{Demand: 1, Servers: 8}}}.MVA()
	if err != nil {
		panic(err)
	}
	fmt.Printf("X = %.4f runs/s, R = %.4f s, U = %.4f, N = X(Z + R) = %.6f\n",
		m.Throughput, m.Response, m.Utilisation[0], m.Throughput*(30+m.Response))
	// Output:
	// X = 6.4021 runs/s, R = 1.2395 s, U = 0.8003, N = X(Z + R) = 200.000000
}
