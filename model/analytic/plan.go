package analytic

import (
	"fmt"
	"math"
)

// MinServersForWait returns the smallest number of servers c for which an
// M/M/c queue with arrival rate lambda and per-server service rate mu (per
// second) is stable and meets the service level
//
//	P(Wq <= maxWait) = 1 - C(c, A) e^{-(c mu - lambda) maxWait} >= p,
//
// the Erlang C staffing rule (Gross et al., Fundamentals of Queueing Theory,
// 4th ed., §2.4 and §2.3). maxWait is in seconds (finite, >= 0) and p in
// [0, 1); with p = 0 the answer is the smallest stable c, floor(A) + 1.
//
// The service level rises with c, so the scan runs upward from the first
// stable c, carrying the Erlang B recursion along: O(c) in total, no
// allocation. The result is exactly the first c at which
// MMc{lambda, mu, c}.WaitCDF(maxWait) >= p, since both evaluate the same
// expressions.
func MinServersForWait(lambda, mu, p, maxWait float64) (int, error) {
	if err := checkRate("lambda", lambda); err != nil {
		return 0, err
	}
	if err := checkRate("mu", mu); err != nil {
		return 0, err
	}
	if err := checkProb(p); err != nil {
		return 0, err
	}
	if !(maxWait >= 0) || math.IsInf(maxWait, 1) {
		return 0, fmt.Errorf("maxWait: must be finite and >= 0, got %v", maxWait)
	}
	a := lambda / mu
	b := 1.0
	for c := 1; c > 0; c++ { // c > 0 stops at int overflow
		b = erlangBStep(a, b, c)
		rho := a / float64(c)
		if !(rho < 1) {
			continue
		}
		pw := erlangCFromB(b, rho)
		theta := float64(float64(c)*mu) - lambda
		if 1-waitSurvival(pw, theta, maxWait) >= p {
			return c, nil
		}
	}
	return 0, fmt.Errorf("no server count in int range meets p = %v within maxWait = %v s", p, maxWait)
}

// MinServersForMeanWait returns the smallest number of servers c for which
// an M/M/c queue with arrival rate lambda and per-server service rate mu
// (per second) is stable and has mean wait
//
//	Wq = C(c, A) / (c mu - lambda) <= maxMeanWait
//
// (Erlang C; Gross et al., 4th ed., §2.3–2.4). maxMeanWait is in seconds and
// must be finite and > 0 (Wq is positive for every finite c). Wq falls as c
// rises, so the scan runs upward with the Erlang B recursion: O(c), no
// allocation. The result is exactly the first c at which
// MMc{lambda, mu, c}.MeanWait() <= maxMeanWait.
func MinServersForMeanWait(lambda, mu, maxMeanWait float64) (int, error) {
	if err := checkRate("lambda", lambda); err != nil {
		return 0, err
	}
	if err := checkRate("mu", mu); err != nil {
		return 0, err
	}
	if err := checkRate("maxMeanWait", maxMeanWait); err != nil {
		return 0, err
	}
	a := lambda / mu
	b := 1.0
	for c := 1; c > 0; c++ {
		b = erlangBStep(a, b, c)
		rho := a / float64(c)
		if !(rho < 1) {
			continue
		}
		if erlangCFromB(b, rho)/(float64(float64(c)*mu)-lambda) <= maxMeanWait {
			return c, nil
		}
	}
	return 0, fmt.Errorf("no server count in int range meets maxMeanWait = %v s", maxMeanWait)
}

// Little returns L = lambda W, Little's law: in any system in steady state,
// the mean number inside equals the arrival rate times the mean time spent
// inside, whatever the arrival process, service discipline or distribution
// (J. D. C. Little, "A proof for the queuing formula: L = λW", Operations
// Research 9(3):383–387, 1961). With lambda in runs per second and w in
// seconds, L is a number of runs: 5 runs/s staying 2 s each means 10 in
// flight on average. It is plain arithmetic and does not validate; the law
// holds for any non-negative inputs, and the same identity gives
// W = L/lambda and lambda = L/W.
func Little(lambda, w float64) float64 {
	return lambda * w
}
