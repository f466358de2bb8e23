package analytic

import "fmt"

// PriorityClass is one class of customers of a [PriorityMG1] queue:
// Poisson arrivals at Lambda per second and service times with mean
// MeanService seconds and second moment SecondMoment = E[S²] seconds².
type PriorityClass struct {
	Lambda       float64 // arrival rate, per second
	MeanService  float64 // E[S], seconds
	SecondMoment float64 // E[S²], seconds squared
}

// PriorityMG1 is the M/G/1 queue with non-preemptive priority classes:
// one server, Classes[0] served first, then Classes[1], and so on, first
// come first served within a class, and a customer in service is never
// interrupted (model/sched's Priority discipline with one worker).
//
// The mean wait in queue of class k (counting from 0) is Cobham's formula
//
//	W_k = W0 / ((1 − σ_{k−1}) (1 − σ_k)),  W0 = Σ_i λ_i E[S_i²] / 2,
//
// where σ_k = ρ_0 + … + ρ_k is the load of class k and the classes above
// it (σ_{−1} = 0) and W0 is the mean residual work of the customer in
// service (A. Cobham, "Priority assignment in waiting line problems",
// Operations Research 2(1):70–76, 1954; Kleinrock, Queueing Systems Vol.
// 2, §3.6, eq. 3.30). With one class it is Pollaczek–Khinchine ([MG1]).
//
// Every class needs finite Lambda > 0 and MeanService > 0, and
// SecondMoment finite and ≥ MeanService². Every method except Rho needs the
// total load ρ = Σ λ_i E[S_i] < 1, else it returns an *UnstableError. An
// empty Classes is invalid. A PriorityMG1 is a value and safe for
// concurrent use if its Classes slice is not modified.
type PriorityMG1 struct {
	Classes []PriorityClass // in priority order, most urgent first
}

func (q PriorityMG1) validate() error {
	if len(q.Classes) == 0 {
		return fmt.Errorf("classes: must have at least one class")
	}
	for i, c := range q.Classes {
		if err := (MG1{Lambda: c.Lambda, MeanService: c.MeanService, SecondMoment: c.SecondMoment}).validate(); err != nil {
			return fmt.Errorf("classes[%d].%w", i, err)
		}
	}
	return nil
}

// Rho returns the total utilisation ρ = Σ λ_i E[S_i]. It does not require
// stability.
func (q PriorityMG1) Rho() (float64, error) {
	if err := q.validate(); err != nil {
		return 0, err
	}
	var rho float64
	for _, c := range q.Classes {
		rho += float64(c.Lambda * c.MeanService)
	}
	return rho, nil
}

// ResidualWork returns W0 = Σ λ_i E[S_i²] / 2 seconds: the mean remaining
// service of the customer in service, as seen by an arrival (zero when the
// server is idle).
func (q PriorityMG1) ResidualWork() (float64, error) {
	if _, err := q.stable(); err != nil {
		return 0, err
	}
	return q.residual(), nil
}

func (q PriorityMG1) residual() float64 {
	var w0 float64
	for _, c := range q.Classes {
		w0 += float64(c.Lambda * c.SecondMoment)
	}
	return w0 / 2
}

func (q PriorityMG1) stable() (float64, error) {
	rho, err := q.Rho()
	if err != nil {
		return 0, err
	}
	return rho, checkStable(rho)
}

// MeanWaits returns the mean wait in queue of every class, in the order of
// Classes, by Cobham's formula (see [PriorityMG1]).
func (q PriorityMG1) MeanWaits() ([]float64, error) {
	if _, err := q.stable(); err != nil {
		return nil, err
	}
	w0 := q.residual()
	ws := make([]float64, len(q.Classes))
	var above float64 // σ_{k−1}
	for k, c := range q.Classes {
		sigma := above + float64(c.Lambda*c.MeanService)
		ws[k] = w0 / ((1 - above) * (1 - sigma))
		above = sigma
	}
	return ws, nil
}

// MeanWait returns the mean wait in queue of class k (0 for the most
// urgent) by Cobham's formula. It returns an error naming k if it is not a
// class index.
func (q PriorityMG1) MeanWait(k int) (float64, error) {
	ws, err := q.MeanWaits()
	if err != nil {
		return 0, err
	}
	if k < 0 || k >= len(ws) {
		return 0, fmt.Errorf("k: must be a class index in [0, %d], got %d", len(ws)-1, k)
	}
	return ws[k], nil
}

// MeanSojourn returns the mean time in the system of class k, its mean
// wait plus its mean service.
func (q PriorityMG1) MeanSojourn(k int) (float64, error) {
	w, err := q.MeanWait(k)
	if err != nil {
		return 0, err
	}
	return w + q.Classes[k].MeanService, nil
}
