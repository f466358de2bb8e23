package arrival

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// newRand returns the fixed-seed generator every test uses.
func newRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// generate draws arrivals from p until one falls at or after until, or the
// process ends, and checks the Process contract on the way: instants never
// decrease and never precede 0.
func generate(t testing.TB, p Process, r *rand.Rand, until time.Duration) []time.Duration {
	t.Helper()
	var out []time.Duration
	prev := time.Duration(0)
	for n := int64(0); ; n++ {
		at, ok := p.Next(n, prev, r)
		if !ok {
			return out
		}
		if at < prev {
			t.Fatalf("%v.Next(%d, %v) = %v, before prev", p, n, prev, at)
		}
		if at >= until {
			return out
		}
		out = append(out, at)
		prev = at
	}
}

// countIn returns how many instants lie in [from, to).
func countIn(times []time.Duration, from, to time.Duration) int {
	c := 0
	for _, x := range times {
		if x >= from && x < to {
			c++
		}
	}
	return c
}

// checkPoissonCount checks a count against its Poisson mean. The count of a
// Poisson process in a window is Poisson(mu), with standard deviation
// √mu, so |got − mu| ≤ 4√mu fails a correct generator with probability
// about 6e-5 per check (normal approximation, two-sided 4σ). A window with
// mu = 0 must be empty.
func checkPoissonCount(t *testing.T, what string, got int, mu float64) {
	t.Helper()
	if mu == 0 {
		if got != 0 {
			t.Errorf("%s: %d arrivals, want 0 (rate 0)", what, got)
		}
		return
	}
	if tol := 4 * math.Sqrt(mu); math.Abs(float64(got)-mu) > tol {
		t.Errorf("%s: %d arrivals, want %.1f ± %.1f (4√μ)", what, got, mu, tol)
	}
}

// countingSource wraps a PCG and counts the 64-bit values drawn (each
// Float64 takes one).
type countingSource struct {
	src   rand.Source
	draws int
}

func (c *countingSource) Uint64() uint64 { c.draws++; return c.src.Uint64() }

// randFrom returns a generator over src.
func randFrom(src rand.Source) *rand.Rand { return rand.New(src) }
