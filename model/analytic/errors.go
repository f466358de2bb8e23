package analytic

import (
	"errors"
	"fmt"
	"math"
)

// ErrUnstable is the error matched by errors.Is when a model has no steady
// state: its utilisation rho is 1 or more, so the queue grows without bound
// and the formula asked for (which assumes rho < 1) does not apply. The
// concrete error is an *UnstableError carrying rho.
var ErrUnstable = errors.New("unstable queue: rho must be < 1")

// UnstableError reports a model whose utilisation Rho is >= 1 where the
// formula needs Rho < 1. It unwraps to ErrUnstable, so callers can test
// errors.Is(err, ErrUnstable) and, with errors.As, read Rho.
type UnstableError struct {
	// Rho is the utilisation of the offending model: lambda/(c mu) for
	// Markovian models, lambda E[S] for M/G/1.
	Rho float64
}

// Error returns "rho: must be < 1 for a steady state, got <rho>".
func (e *UnstableError) Error() string {
	return fmt.Sprintf("rho: must be < 1 for a steady state, got %v", e.Rho)
}

// Unwrap returns ErrUnstable.
func (e *UnstableError) Unwrap() error { return ErrUnstable }

// checkStable returns an *UnstableError unless rho < 1.
func checkStable(rho float64) error {
	if !(rho < 1) {
		return &UnstableError{Rho: rho}
	}
	return nil
}

// checkRate reports an error unless x is finite and > 0.
func checkRate(name string, x float64) error {
	if math.IsInf(x, 0) {
		return fmt.Errorf("%s: must be finite, got %v", name, x)
	}
	if !(x > 0) {
		return fmt.Errorf("%s: must be > 0, got %v", name, x)
	}
	return nil
}

// checkServers reports an error unless c >= 1.
func checkServers(name string, c int) error {
	if c < 1 {
		return fmt.Errorf("%s: must be >= 1, got %d", name, c)
	}
	return nil
}

// checkProb reports an error unless p is a probability in [0, 1), the domain
// of every quantile function here (the 1-quantile is +Inf).
func checkProb(p float64) error {
	if !(p >= 0 && p < 1) {
		return fmt.Errorf("p: must be in [0, 1), got %v", p)
	}
	return nil
}

// checkTime reports an error if t is NaN. Negative times are valid CDF
// arguments (the CDF is 0 there).
func checkTime(t float64) error {
	if math.IsNaN(t) {
		return fmt.Errorf("t: must be a number, got %v", t)
	}
	return nil
}
