package analytic

import (
	"fmt"
	"math"
)

// MG1 is the M/G/1 queue: Poisson arrivals at rate Lambda per second, one
// server whose service times are independent with mean MeanService seconds
// and second moment SecondMoment = E[S^2] seconds², FIFO, infinite waiting
// room. Only the first two moments of service enter the mean-value results
// (Pollaczek–Khinchine; Kleinrock, Queueing Systems Vol. 1, ch. 5; Gross et
// al., Fundamentals of Queueing Theory, 4th ed., §5.1).
//
// Lambda and MeanService must be finite and > 0, and SecondMoment must be
// finite and >= MeanService² (a variance cannot be negative; one that is
// negative by rounding alone, within a relative 1e-12, counts as zero). Every method
// except Rho needs rho = Lambda·MeanService < 1, else it returns an
// *UnstableError. The zero value is invalid. An MG1 is an immutable value,
// safe for concurrent use, and its methods do not allocate.
type MG1 struct {
	Lambda       float64 // arrival rate, per second
	MeanService  float64 // E[S], seconds
	SecondMoment float64 // E[S^2], seconds squared
}

// MD1 returns the M/D/1 queue: arrivals at rate lambda per second and a
// constant service time of d seconds, so E[S^2] = d² (Gross et al., 4th
// ed., §5.1; its mean wait is half the M/M/1 wait at the same rho).
func MD1(lambda, d float64) (MG1, error) {
	if err := checkRate("lambda", lambda); err != nil {
		return MG1{}, err
	}
	if err := checkRate("d", d); err != nil {
		return MG1{}, err
	}
	q := MG1{Lambda: lambda, MeanService: d, SecondMoment: d * d}
	if err := q.validate(); err != nil { // d² overflow
		return MG1{}, err
	}
	return q, nil
}

// MG1FromCV returns the M/G/1 queue whose service time has the given mean
// (seconds) and coefficient of variation cv = stddev/mean, so
// E[S^2] = mean² (1 + cv²). cv = 0 is deterministic (M/D/1) and cv = 1
// matches the exponential's first two moments (M/M/1); cv must be finite
// and >= 0.
func MG1FromCV(lambda, mean, cv float64) (MG1, error) {
	if err := checkRate("lambda", lambda); err != nil {
		return MG1{}, err
	}
	if err := checkRate("mean", mean); err != nil {
		return MG1{}, err
	}
	if !(cv >= 0) || math.IsInf(cv, 1) {
		return MG1{}, fmt.Errorf("cv: must be finite and >= 0, got %v", cv)
	}
	q := MG1{Lambda: lambda, MeanService: mean, SecondMoment: mean * mean * (1 + float64(cv*cv))}
	if err := q.validate(); err != nil { // mean² (1 + cv²) overflow
		return MG1{}, err
	}
	return q, nil
}

// momentSlack is the relative rounding error a second moment may carry
// below meanService² and still describe a constant service time.
const momentSlack = 1e-12

func (q MG1) validate() error {
	if err := checkRate("lambda", q.Lambda); err != nil {
		return err
	}
	if err := checkRate("meanService", q.MeanService); err != nil {
		return err
	}
	m2 := q.MeanService * q.MeanService
	// A second moment computed or written down for a constant service
	// time (0.1 s, 0.01 s²) can round a few ulps below meanService²; such
	// a variance is zero, not negative.
	if math.IsInf(q.SecondMoment, 0) || !(q.SecondMoment >= m2*(1-momentSlack)) {
		return fmt.Errorf("secondMoment: must be finite and >= meanService² = %v, got %v", m2, q.SecondMoment)
	}
	return nil
}

func (q MG1) stable() (rho float64, err error) {
	if err := q.validate(); err != nil {
		return 0, err
	}
	rho = q.Lambda * q.MeanService
	return rho, checkStable(rho)
}

// Rho returns the utilisation rho = lambda E[S], the fraction of time the
// server is busy when rho < 1. It does not require stability.
func (q MG1) Rho() (float64, error) {
	if err := q.validate(); err != nil {
		return 0, err
	}
	return q.Lambda * q.MeanService, nil
}

// Throughput returns the departure rate in steady state, which equals
// lambda (per second) for a stable queue with no losses.
func (q MG1) Throughput() (float64, error) {
	if _, err := q.stable(); err != nil {
		return 0, err
	}
	return q.Lambda, nil
}

// MeanWait returns the Pollaczek–Khinchine mean wait in queue,
// Wq = lambda E[S^2] / (2 (1 - rho)) seconds (Kleinrock, Vol. 1, ch. 5;
// Gross et al., 4th ed., §5.1).
func (q MG1) MeanWait() (float64, error) {
	rho, err := q.stable()
	if err != nil {
		return 0, err
	}
	return q.Lambda * q.SecondMoment / (2 * (1 - rho)), nil
}

// MeanSojourn returns the mean time in the system, W = Wq + E[S] seconds,
// with Wq from Pollaczek–Khinchine (see MeanWait).
func (q MG1) MeanSojourn() (float64, error) {
	wq, err := q.MeanWait()
	if err != nil {
		return 0, err
	}
	return wq + q.MeanService, nil
}

// MeanInSystem returns the mean number in the system, L = lambda W
// (Little's law; the Pollaczek–Khinchine mean-value formula, Gross et al.,
// 4th ed., §5.1).
func (q MG1) MeanInSystem() (float64, error) {
	w, err := q.MeanSojourn()
	if err != nil {
		return 0, err
	}
	return q.Lambda * w, nil
}

// MeanQueue returns the mean number waiting, Lq = lambda Wq =
// lambda² E[S^2] / (2 (1 - rho)) (Little's law on Pollaczek–Khinchine).
func (q MG1) MeanQueue() (float64, error) {
	wq, err := q.MeanWait()
	if err != nil {
		return 0, err
	}
	return q.Lambda * wq, nil
}
