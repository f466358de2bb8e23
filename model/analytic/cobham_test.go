package analytic

import (
	"errors"
	"strings"
	"testing"
)

// Two M/M/1 classes with E[S] = 1 s (E[S²] = 2 s²), λ = 0.3 and 0.4:
// W0 = (0.3×2 + 0.4×2)/2 = 0.7, σ = 0.3 and 0.7, so by Cobham
// W_0 = 0.7/(1×0.7) = 1 s and W_1 = 0.7/(0.7×0.3) = 10/3 s.
func TestCobhamHand(t *testing.T) {
	ok := val(t)
	q := PriorityMG1{Classes: []PriorityClass{{0.3, 1, 2}, {0.4, 1, 2}}}
	if w := ok(q.MeanWait(0)); !near(w, 1, 1e-12) {
		t.Errorf("W_0 = %v, want 1", w)
	}
	if w := ok(q.MeanWait(1)); !near(w, 10.0/3, 1e-12) {
		t.Errorf("W_1 = %v, want 10/3", w)
	}
	if w := ok(q.MeanSojourn(1)); !near(w, 13.0/3, 1e-12) {
		t.Errorf("T_1 = %v, want 13/3", w)
	}
	if w := ok(q.ResidualWork()); !near(w, 0.7, 1e-12) {
		t.Errorf("W0 = %v, want 0.7", w)
	}
}

// Kleinrock's conservation law: Σ ρ_k W_k = ρ W0/(1 − ρ) for any
// non-preemptive work-conserving discipline, the ρ-weighted FIFO wait; and
// one class is Pollaczek–Khinchine.
func TestCobhamConservation(t *testing.T) {
	ok := val(t)
	q := PriorityMG1{Classes: []PriorityClass{{0.2, 1, 2}, {0.3, 0.5, 0.25}, {0.4, 0.75, 1.125}}}
	ws, err := q.MeanWaits()
	if err != nil {
		t.Fatal(err)
	}
	// Hand values: W0 = (0.4 + 0.075 + 0.45)/2 = 0.4625; σ = 0.2, 0.35, 0.65.
	for k, want := range []float64{0.4625 / 0.8, 0.4625 / (0.8 * 0.65), 0.4625 / (0.65 * 0.35)} {
		if !near(ws[k], want, 1e-12) {
			t.Errorf("W_%d = %v, want %v", k, ws[k], want)
		}
	}
	rho := ok(q.Rho())
	var sum float64
	for k, c := range q.Classes {
		sum += c.Lambda * c.MeanService * ws[k]
	}
	if want := rho * 0.4625 / (1 - rho); !near(sum, want, 1e-12) {
		t.Errorf("Σ ρ_k W_k = %v, want ρ W0/(1−ρ) = %v", sum, want)
	}
	one := PriorityMG1{Classes: []PriorityClass{{0.5, 1, 3}}}
	pk := ok(MG1{Lambda: 0.5, MeanService: 1, SecondMoment: 3}.MeanWait())
	if w := ok(one.MeanWait(0)); !near(w, pk, 1e-12) {
		t.Errorf("one class: %v, want Pollaczek–Khinchine %v", w, pk)
	}
}

func TestCobhamErrors(t *testing.T) {
	q := PriorityMG1{Classes: []PriorityClass{{0.5, 1, 2}, {0.6, 1, 2}}}
	if _, err := q.MeanWaits(); !errors.Is(err, ErrUnstable) {
		t.Errorf("ρ = 1.1: err = %v, want ErrUnstable", err)
	}
	if _, err := q.Rho(); err != nil {
		t.Errorf("Rho needs no stability: %v", err)
	}
	bad := PriorityMG1{Classes: []PriorityClass{{0.1, 1, 2}, {0.1, 1, 0.5}}}
	if _, err := bad.MeanWaits(); err == nil || !strings.Contains(err.Error(), "classes[1].secondMoment") {
		t.Errorf("E[S²] < E[S]²: err = %v, want one naming classes[1].secondMoment", err)
	}
	if _, err := (PriorityMG1{}).MeanWaits(); err == nil || !strings.Contains(err.Error(), "classes") {
		t.Errorf("no classes: err = %v", err)
	}
	ok := PriorityMG1{Classes: []PriorityClass{{0.1, 1, 2}}}
	if _, err := ok.MeanWait(1); err == nil || !strings.Contains(err.Error(), "k:") {
		t.Errorf("MeanWait(1) of one class: err = %v, want one naming k", err)
	}
}
