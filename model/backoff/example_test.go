package backoff_test

import (
	"fmt"
	"time"

	"github.com/budgetsim/budgetsim/model/backoff"
)

// The sleep after each failed attempt for a 100 ms base doubling to a 10 s
// cap, with the range each jitter draws from (u = 0 and u → 1), in the
// manner of cenkalti/backoff's documentation table.
func Example() {
	p := backoff.Policy{Base: 100 * time.Millisecond, Cap: 10 * time.Second, Multiplier: 2}
	top := 0.9999999999
	fmt.Printf("%-5s %-8s %-14s %-14s %s\n", "retry", "ceiling", "full", "equal", "proportional")
	for retry := 1; retry <= 10; retry++ {
		r := func(j backoff.Jitter) string {
			p.Jitter = j
			lo, hi := p.Delay(retry, 0, 0), p.Delay(retry, 0, top)
			return fmt.Sprintf("[%v, %v]", lo.Round(time.Millisecond), hi.Round(time.Millisecond))
		}
		fmt.Printf("%-5d %-8v %-14s %-14s %s\n", retry, p.Ceiling(retry),
			r(backoff.Full), r(backoff.Equal), r(backoff.Proportional))
	}
	// Output:
	// retry ceiling  full           equal          proportional
	// 1     100ms    [0s, 100ms]    [50ms, 100ms]  [80ms, 120ms]
	// 2     200ms    [0s, 200ms]    [100ms, 200ms] [160ms, 240ms]
	// 3     400ms    [0s, 400ms]    [200ms, 400ms] [320ms, 480ms]
	// 4     800ms    [0s, 800ms]    [400ms, 800ms] [640ms, 960ms]
	// 5     1.6s     [0s, 1.6s]     [800ms, 1.6s]  [1.28s, 1.92s]
	// 6     3.2s     [0s, 3.2s]     [1.6s, 3.2s]   [2.56s, 3.84s]
	// 7     6.4s     [0s, 6.4s]     [3.2s, 6.4s]   [5.12s, 7.68s]
	// 8     10s      [0s, 10s]      [5s, 10s]      [8s, 12s]
	// 9     10s      [0s, 10s]      [5s, 10s]      [8s, 12s]
	// 10    10s      [0s, 10s]      [5s, 10s]      [8s, 12s]
}

// Decorrelated jitter feeds each sleep into the next: the range grows to
// three times the previous sleep, from Base, until Cap.
func ExamplePolicy_Delay_decorrelated() {
	p := backoff.Policy{Base: 100 * time.Millisecond, Cap: 2 * time.Second, Multiplier: 1, Jitter: backoff.Decorrelated}
	draws := []float64{0.9, 0.1, 0.7, 0.5, 0.95}
	var prev time.Duration
	for i, u := range draws {
		prev = p.Delay(i+1, prev, u)
		fmt.Println(prev)
	}
	// Output:
	// 280ms
	// 174ms
	// 395.4ms
	// 643.1ms
	// 1.837835s
}
