package analytic

import "math"

// MM1 is the M/M/1 queue: Poisson arrivals at rate Lambda per second, one
// server with exponential service at rate Mu per second, FIFO, infinite
// waiting room (Kleinrock, Queueing Systems Vol. 1, §3.2; Gross et al.,
// Fundamentals of Queueing Theory, 4th ed., §2.2).
//
// Both fields must be finite and > 0, and every method except Rho needs
// rho = Lambda/Mu < 1 (else it returns an *UnstableError). The zero value is
// invalid. An MM1 is an immutable value, safe for concurrent use, and its
// methods do not allocate.
type MM1 struct {
	Lambda float64 // arrival rate, per second
	Mu     float64 // service rate, per second
}

func (q MM1) validate() (rho float64, err error) {
	if err := checkRate("lambda", q.Lambda); err != nil {
		return 0, err
	}
	if err := checkRate("mu", q.Mu); err != nil {
		return 0, err
	}
	return q.Lambda / q.Mu, nil
}

func (q MM1) stable() (rho float64, err error) {
	rho, err = q.validate()
	if err != nil {
		return 0, err
	}
	return rho, checkStable(rho)
}

// Rho returns the utilisation rho = lambda/mu, the long-run fraction of time
// the server is busy when rho < 1. It does not require stability.
func (q MM1) Rho() (float64, error) {
	return q.validate()
}

// Throughput returns the departure rate in steady state, which equals
// lambda (per second) for a stable queue with no losses.
func (q MM1) Throughput() (float64, error) {
	if _, err := q.stable(); err != nil {
		return 0, err
	}
	return q.Lambda, nil
}

// MeanWait returns the mean time in queue before service,
// Wq = rho / (mu - lambda) seconds (Kleinrock, Vol. 1, §3.2; Gross et al.,
// 4th ed., §2.2).
func (q MM1) MeanWait() (float64, error) {
	rho, err := q.stable()
	if err != nil {
		return 0, err
	}
	return rho / (q.Mu - q.Lambda), nil
}

// MeanSojourn returns the mean time in the system,
// W = 1 / (mu - lambda) seconds (Gross et al., 4th ed., §2.2).
func (q MM1) MeanSojourn() (float64, error) {
	if _, err := q.stable(); err != nil {
		return 0, err
	}
	return 1 / (q.Mu - q.Lambda), nil
}

// MeanInSystem returns the mean number in the system, L = rho / (1 - rho)
// (Kleinrock, Vol. 1, §3.2); it equals lambda W by Little's law.
func (q MM1) MeanInSystem() (float64, error) {
	rho, err := q.stable()
	if err != nil {
		return 0, err
	}
	return rho / (1 - rho), nil
}

// MeanQueue returns the mean number waiting, Lq = rho^2 / (1 - rho)
// (Gross et al., 4th ed., §2.2); it equals lambda Wq by Little's law.
func (q MM1) MeanQueue() (float64, error) {
	rho, err := q.stable()
	if err != nil {
		return 0, err
	}
	return rho * rho / (1 - rho), nil
}

// WaitCDF returns P(Wq <= t) = 1 - rho e^{-(mu - lambda) t} for t >= 0, and
// 0 for t < 0; the wait has an atom 1 - rho at 0 (Gross et al., 4th ed.,
// §2.2, waiting-time distribution under FIFO). t is in seconds.
func (q MM1) WaitCDF(t float64) (float64, error) {
	rho, err := q.stable()
	if err != nil {
		return 0, err
	}
	if err := checkTime(t); err != nil {
		return 0, err
	}
	if t < 0 {
		return 0, nil
	}
	return 1 - float64(rho*math.Exp(-(q.Mu-q.Lambda)*t)), nil
}

// WaitQuantile returns the p-quantile of the wait in seconds: the smallest t
// with P(Wq <= t) >= p, from P(Wq > t) = rho e^{-(mu - lambda) t}. It is 0
// when rho <= 1 - p (the atom at 0 covers p), else
// ln(rho / (1 - p)) / (mu - lambda). p must be in [0, 1).
func (q MM1) WaitQuantile(p float64) (float64, error) {
	rho, err := q.stable()
	if err != nil {
		return 0, err
	}
	if err := checkProb(p); err != nil {
		return 0, err
	}
	s := 1 - p
	if rho <= s {
		return 0, nil
	}
	return math.Log(rho/s) / (q.Mu - q.Lambda), nil
}

// SojournCDF returns P(W <= t) = 1 - e^{-(mu - lambda) t} for t >= 0: the
// FIFO M/M/1 sojourn time is exponential with rate mu - lambda (Kleinrock,
// Vol. 1, §3.2; Gross et al., 4th ed., §2.2). t is in seconds.
func (q MM1) SojournCDF(t float64) (float64, error) {
	if _, err := q.stable(); err != nil {
		return 0, err
	}
	if err := checkTime(t); err != nil {
		return 0, err
	}
	if t < 0 {
		return 0, nil
	}
	return -math.Expm1(-(q.Mu - q.Lambda) * t), nil
}

// SojournQuantile returns the p-quantile of the sojourn time in seconds,
// -ln(1 - p) / (mu - lambda), the exponential quantile (see SojournCDF).
// p must be in [0, 1).
func (q MM1) SojournQuantile(p float64) (float64, error) {
	if _, err := q.stable(); err != nil {
		return 0, err
	}
	if err := checkProb(p); err != nil {
		return 0, err
	}
	return -math.Log1p(-p) / (q.Mu - q.Lambda), nil
}
