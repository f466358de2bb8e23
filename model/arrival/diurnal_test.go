package arrival

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// TestDiurnalQuarterCounts: counts per quarter period, summed over 20
// periods, match the integral of the rate over each quarter.
func TestDiurnalQuarterCounts(t *testing.T) {
	const (
		mean, amp = 5.0, 0.8
		period    = 1000 * time.Second
		periods   = 20
	)
	// ∫ over a quarter = mean·T/4 ± mean·amp·(T/2π)·|Δcos|, with |Δcos| = 1
	// for each quarter of a sine: 1250 ± 5·0.8·1000/(2π) = 1250 ± 636.62.
	bump := mean * amp * period.Seconds() / (2 * math.Pi)
	tests := []struct {
		phase float64
		want  [4]float64
	}{
		// phase 0: rising from the mean, peak at T/4, trough at 3T/4.
		{0, [4]float64{1250 + bump, 1250 + bump, 1250 - bump, 1250 - bump}},
		// phase π/2: peak at 0, trough at T/2.
		{math.Pi / 2, [4]float64{1250 + bump, 1250 - bump, 1250 - bump, 1250 + bump}},
	}
	for _, tt := range tests {
		p, err := Diurnal(mean, amp, period, tt.phase)
		if err != nil {
			t.Fatal(err)
		}
		times := generate(t, p, newRand(), periods*period)
		var counts [4]int
		for _, x := range times {
			counts[4*(x%period)/period]++
		}
		for q := range 4 {
			from, to := time.Duration(q)*period/4, time.Duration(q+1)*period/4
			if got := p.Expected(from, to); math.Abs(got-tt.want[q]) > 1e-9*tt.want[q] {
				t.Errorf("%v.Expected(%v, %v) = %g, want %g", p, from, to, got, tt.want[q])
			}
			checkPoissonCount(t, fmt.Sprintf("%v quarter %d over %d periods", p, q, periods),
				counts[q], periods*tt.want[q])
		}
		checkPoissonCount(t, fmt.Sprintf("%v over %d periods", p, periods), len(times),
			p.Expected(0, periods*period))
	}
}

// TestDiurnalDraws: thinning draws two uniforms per candidate, and the
// candidates form a Poisson process at rate_max = mean(1+amplitude), so
// the draws over [0, T) are 2·Poisson(rate_max·T) (plus the final
// candidate at or past T).
func TestDiurnalDraws(t *testing.T) {
	const mean, amp, horizon = 5.0, 0.6, 2000 * time.Second
	p, _ := Diurnal(mean, amp, 100*time.Second, 0)
	src := &countingSource{src: newRand()}
	times := generate(t, p, randFrom(src), horizon)
	if src.draws%2 != 0 {
		t.Errorf("Diurnal drew %d uniforms, want an even number (2 per candidate)", src.draws)
	}
	checkPoissonCount(t, "Diurnal candidates", src.draws/2-1, mean*(1+amp)*horizon.Seconds())
	if per := float64(src.draws) / float64(len(times)); math.Abs(per-2*(1+amp)) > 0.1 {
		t.Errorf("draws per arrival = %.3f, want ≈ 2(1+amplitude) = %.1f", per, 2*(1+amp))
	}
}

// TestDiurnalLateInstants: reducing t modulo the period in integers keeps
// the rate exact far from 0: the integral over one period is mean·T at any
// starting instant.
func TestDiurnalLateInstants(t *testing.T) {
	p, _ := Diurnal(2, 1, 24*time.Hour, 0.3)
	for _, from := range []time.Duration{0, 7 * time.Hour, 100 * 365 * 24 * time.Hour, math.MaxInt64 - 25*time.Hour} {
		want := 2 * 86400.0
		if got := p.Expected(from, from+24*time.Hour); math.Abs(got-want) > 1e-9*want {
			t.Errorf("Expected(%v, +24h) = %.6f, want %g", from, got, want)
		}
	}
	// Amplitude 1 reaches rate 0 at the trough (phase 0.3: θ = 3π/2 at
	// t = (3π/2 − 0.3)/2π · 24h); no arrival can be kept there.
	d := p.(*diurnal)
	frac := (3*math.Pi/2 - 0.3) / (2 * math.Pi)
	trough := time.Duration(math.Round(frac * float64(24*time.Hour)))
	if r := d.rateAt(trough); r > 1e-9 {
		t.Errorf("rateAt(trough %v) = %g, want ≈ 0", trough, r)
	}
}
