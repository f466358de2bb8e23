package analytic

import "math"

// OfferedLoad returns the offered load A = lambda/mu in Erlangs: the mean
// number of busy servers an infinite-server system would have (Gross et al.,
// Fundamentals of Queueing Theory, 4th ed., §2.3). A c-server queue is stable
// only if A < c. lambda is in arrivals per second and mu in completions per
// second per server; both must be finite and > 0.
func OfferedLoad(lambda, mu float64) (float64, error) {
	if err := checkRate("lambda", lambda); err != nil {
		return 0, err
	}
	if err := checkRate("mu", mu); err != nil {
		return 0, err
	}
	return lambda / mu, nil
}

// ErlangB returns Erlang's loss formula B(c, A): the probability that an
// arrival finds all c servers busy in an M/M/c/c loss system with offered
// load a Erlangs (Gross et al., 4th ed., §2.6; Kleinrock, Queueing Systems
// Vol. 1, §3.7). It is valid for any a > 0.
//
// It uses the recursion B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)) rather
// than the textbook ratio (a^c/c!) / sum_k a^k/k!, which overflows for a few
// hundred servers; every step is a ratio in [0, 1], so the recursion is
// numerically stable (D. L. Jagerman, "Some properties of the Erlang loss
// function", Bell System Technical Journal 53(3), 1974). The cost is O(c)
// and it does not allocate.
func ErlangB(a float64, c int) (float64, error) {
	if err := checkRate("a", a); err != nil {
		return 0, err
	}
	if err := checkServers("c", c); err != nil {
		return 0, err
	}
	return erlangB(a, c), nil
}

// ErlangC returns the Erlang C formula C(c, A): the probability that an
// arrival to an M/M/c queue with offered load a Erlangs has to wait (Gross et
// al., 4th ed., §2.3; Kleinrock, Vol. 1, §3.5). It needs rho = a/c < 1 and
// returns an *UnstableError otherwise.
//
// It is computed from Erlang B, C = B / (1 - rho (1 - B)), with B from the
// stable recursion documented on ErlangB; the denominator is at least
// 1 - rho > 0, so nothing cancels. The cost is O(c) and it does not
// allocate.
func ErlangC(a float64, c int) (float64, error) {
	if err := checkRate("a", a); err != nil {
		return 0, err
	}
	if err := checkServers("c", c); err != nil {
		return 0, err
	}
	rho := a / float64(c)
	if err := checkStable(rho); err != nil {
		return 0, err
	}
	return erlangCFromB(erlangB(a, c), rho), nil
}

// erlangB runs the Erlang B recursion up to c servers.
func erlangB(a float64, c int) float64 {
	b := 1.0
	for k := 1; k <= c; k++ {
		b = erlangBStep(a, b, k)
	}
	return b
}

// erlangBStep returns B(k) from B(k-1) = b.
func erlangBStep(a, b float64, k int) float64 {
	ab := float64(a * b) // float64(): no fused multiply-add, the same bits on every CPU
	return ab / (float64(k) + ab)
}

// erlangCFromB converts Erlang B to Erlang C at utilisation rho < 1.
func erlangCFromB(b, rho float64) float64 {
	return b / (1 - float64(rho*(1-b)))
}

// expm1Ratio returns (1 - e^{-x})/x for x >= 0, and its limit 1 at x = 0,
// without cancellation for small x.
func expm1Ratio(x float64) float64 {
	if x == 0 {
		return 1
	}
	if math.IsInf(x, 1) {
		return 0
	}
	return -math.Expm1(-x) / x
}
