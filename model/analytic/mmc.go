package analytic

import "math"

// MMc is the M/M/c queue: Poisson arrivals at rate Lambda per second, C
// identical servers each with exponential service at rate Mu per second,
// FIFO, infinite waiting room (Kleinrock, Queueing Systems Vol. 1, §3.5;
// Gross et al., Fundamentals of Queueing Theory, 4th ed., §2.3). The
// probability of waiting is Erlang C.
//
// Lambda and Mu must be finite and > 0 and C >= 1. Every method except Rho
// needs rho = Lambda/(C Mu) < 1, else it returns an *UnstableError. The zero
// value is invalid. An MMc is an immutable value, safe for concurrent use.
// Its methods do not allocate; each costs O(C) for the Erlang B recursion
// (about 6 µs at C = 1000), and SojournQuantile adds about 60 bisection
// steps of O(1) each.
type MMc struct {
	Lambda float64 // arrival rate, per second
	Mu     float64 // service rate of one server, per second
	C      int     // number of servers
}

// validate checks the fields and returns rho = (lambda/mu)/c. Rho is
// computed as A/c everywhere (here, ErlangC and the planning helpers), so a
// boundary case is classified identically by all of them.
func (q MMc) validate() (rho float64, err error) {
	if err := checkRate("lambda", q.Lambda); err != nil {
		return 0, err
	}
	if err := checkRate("mu", q.Mu); err != nil {
		return 0, err
	}
	if err := checkServers("c", q.C); err != nil {
		return 0, err
	}
	return q.Lambda / q.Mu / float64(q.C), nil
}

// erlangC validates q, checks stability and returns Erlang C and the
// queue's drain rate theta = c mu - lambda (per second).
func (q MMc) erlangC() (pw, theta float64, err error) {
	rho, err := q.validate()
	if err != nil {
		return 0, 0, err
	}
	if err := checkStable(rho); err != nil {
		return 0, 0, err
	}
	return erlangCFromB(erlangB(q.Lambda/q.Mu, q.C), rho), float64(float64(q.C)*q.Mu) - q.Lambda, nil
}

// Rho returns the utilisation rho = lambda/(c mu), the mean fraction of
// servers busy when rho < 1. It does not require stability.
func (q MMc) Rho() (float64, error) {
	return q.validate()
}

// Throughput returns the departure rate in steady state, which equals
// lambda (per second) for a stable queue with no losses.
func (q MMc) Throughput() (float64, error) {
	if _, _, err := q.erlangC(); err != nil {
		return 0, err
	}
	return q.Lambda, nil
}

// ErlangC returns the probability that an arrival waits, the Erlang C
// formula C(c, A) with A = lambda/mu (Gross et al., 4th ed., §2.3),
// computed via the Erlang B recursion for numerical stability; see the
// package-level ErlangC.
func (q MMc) ErlangC() (float64, error) {
	pw, _, err := q.erlangC()
	return pw, err
}

// MeanWait returns the mean time in queue, Wq = C(c, A) / (c mu - lambda)
// seconds (Gross et al., 4th ed., §2.3; Kleinrock, Vol. 1, §3.5).
func (q MMc) MeanWait() (float64, error) {
	pw, theta, err := q.erlangC()
	if err != nil {
		return 0, err
	}
	return pw / theta, nil
}

// MeanSojourn returns the mean time in the system, W = Wq + 1/mu seconds
// (Gross et al., 4th ed., §2.3).
func (q MMc) MeanSojourn() (float64, error) {
	pw, theta, err := q.erlangC()
	if err != nil {
		return 0, err
	}
	return pw/theta + 1/q.Mu, nil
}

// MeanInSystem returns the mean number in the system, L = lambda W (Little's
// law; Gross et al., 4th ed., §2.3).
func (q MMc) MeanInSystem() (float64, error) {
	w, err := q.MeanSojourn()
	if err != nil {
		return 0, err
	}
	return q.Lambda * w, nil
}

// MeanQueue returns the mean number waiting, Lq = lambda Wq (Little's law;
// Gross et al., 4th ed., §2.3).
func (q MMc) MeanQueue() (float64, error) {
	wq, err := q.MeanWait()
	if err != nil {
		return 0, err
	}
	return q.Lambda * wq, nil
}

// WaitCDF returns P(Wq <= t) = 1 - C(c, A) e^{-(c mu - lambda) t} for
// t >= 0, and 0 for t < 0 (FIFO; Gross et al., 4th ed., §2.3). t is in
// seconds.
func (q MMc) WaitCDF(t float64) (float64, error) {
	pw, theta, err := q.erlangC()
	if err != nil {
		return 0, err
	}
	if err := checkTime(t); err != nil {
		return 0, err
	}
	if t < 0 {
		return 0, nil
	}
	return 1 - waitSurvival(pw, theta, t), nil
}

// waitSurvival returns P(Wq > t) = C e^{-theta t} for t >= 0.
func waitSurvival(pw, theta, t float64) float64 {
	return float64(pw * math.Exp(-theta*t))
}

// waitQuantileSurv returns the smallest t with P(Wq > t) <= s.
func waitQuantileSurv(pw, theta, s float64) float64 {
	if pw <= s {
		return 0
	}
	return math.Log(pw/s) / theta
}

// WaitQuantile returns the p-quantile of the wait in seconds: the smallest t
// with P(Wq <= t) >= p, from P(Wq > t) = C(c, A) e^{-(c mu - lambda) t}.
// It is 0 when C(c, A) <= 1 - p (the atom at 0 covers p), else
// ln(C / (1 - p)) / (c mu - lambda) (Gross et al., 4th ed., §2.3).
// p must be in [0, 1).
func (q MMc) WaitQuantile(p float64) (float64, error) {
	pw, theta, err := q.erlangC()
	if err != nil {
		return 0, err
	}
	if err := checkProb(p); err != nil {
		return 0, err
	}
	return waitQuantileSurv(pw, theta, 1-p), nil
}

// SojournCDF returns P(W <= t) for the FIFO M/M/c sojourn time, t in
// seconds. W = Wq + S with S ~ Exp(mu) independent of Wq, and Wq is 0 with
// probability 1 - C and Exp(theta) with probability C, theta = c mu - lambda.
// So
//
//	P(W > t) = (1 - C) e^{-mu t} + C H(t),
//
// where H is the survival function of the hypoexponential sum of Exp(theta)
// and Exp(mu),
//
//	H(t) = (theta e^{-mu t} - mu e^{-theta t}) / (theta - mu),
//
// which becomes (1 + mu t) e^{-mu t} (Erlang-2) when theta = mu, that is when
// lambda = (c-1) mu (Gross et al., 4th ed., §2.3, which treats that case
// separately). To avoid the 0/0 at theta = mu and the cancellation near it,
// H is evaluated as e^{-a t} (1 + a t (1 - e^{-(b-a) t}) / ((b-a) t)) with
// a = min(mu, theta), b = max(mu, theta), using expm1: one expression that
// is continuous through the special case and exact at it.
func (q MMc) SojournCDF(t float64) (float64, error) {
	pw, theta, err := q.erlangC()
	if err != nil {
		return 0, err
	}
	if err := checkTime(t); err != nil {
		return 0, err
	}
	if t < 0 {
		return 0, nil
	}
	return 1 - sojournSurvival(pw, q.Mu, theta, t), nil
}

// sojournSurvival returns P(W > t) for t >= 0; see MMc.SojournCDF.
func sojournSurvival(pw, mu, theta, t float64) float64 {
	if math.IsInf(t, 1) {
		return 0
	}
	a, b := min(mu, theta), max(mu, theta)
	h := math.Exp(-a*t) * (1 + float64(a*t*expm1Ratio((b-a)*t)))
	return float64((1-pw)*math.Exp(-mu*t)) + float64(pw*h)
}

// SojournQuantile returns the p-quantile of the sojourn time in seconds: the
// smallest t with P(W <= t) >= p, found by bisection on the survival
// function of SojournCDF (a survival target 1 - p keeps full relative
// precision for p near 1; gonum exports no scalar root finder).
//
// The bracket is analytic. Below: W >= S, so the quantile is at least the
// service quantile -ln(1-p)/mu. Above: P(W > x + y) <= P(Wq > x) + P(S > y),
// so the wait quantile and the service quantile at (1+p)/2 add up to an
// upper bound. Bisection then runs until the bracket cannot be split in
// float64 (about 60 steps), so the result is exact to a few ulps.
// p must be in [0, 1).
func (q MMc) SojournQuantile(p float64) (float64, error) {
	pw, theta, err := q.erlangC()
	if err != nil {
		return 0, err
	}
	if err := checkProb(p); err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, nil
	}
	s := 1 - p
	lo := -math.Log1p(-p) / q.Mu
	if sojournSurvival(pw, q.Mu, theta, lo) <= s {
		return lo, nil // only when C underflows to 0: W is then S
	}
	half := s / 2
	hi := waitQuantileSurv(pw, theta, half) - math.Log(half)/q.Mu
	for i := 0; i < 64 && sojournSurvival(pw, q.Mu, theta, hi) > s; i++ {
		hi *= 2 // guards against rounding in the bound; not expected to run
	}
	for range 2100 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if sojournSurvival(pw, q.Mu, theta, mid) > s {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}
