package arrival

import (
	"math"
	"math/rand/v2"
	"time"
)

// Diurnal returns a non-homogeneous Poisson process with the sinusoidal rate
//
//	rate(t) = mean·(1 + amplitude·sin(2π·t/period + phase))
//
// in arrivals per second, t in seconds from 0. The rate averages mean over
// each period and peaks at mean·(1 + amplitude) when 2π·t/period + phase =
// π/2 (mod 2π): phase 0 peaks a quarter period in, phase π/2 at t = 0, and
// phase π/2 − 2π·h/24 at hour h of a 24h period.
//
// The process is simulated exactly by thinning (Lewis & Shedler, 1979,
// "Simulation of nonhomogeneous Poisson processes by thinning", Naval
// Research Logistics Quarterly 26(3), algorithm 1): candidates arrive as a
// Poisson process with rate_max = mean·(1 + amplitude), one uniform per gap
// by inverse transform, and a candidate at t is kept when a second uniform
// is below rate(t)/rate_max. Next therefore draws a variable number of
// uniforms: on average 2·(1 + amplitude) per arrival, at most 4. Because the
// count varies, changing a parameter shifts every later arrival's draws, so
// common random numbers line up less well than with [Schedule], which draws
// exactly one uniform per arrival.
//
// mean must be finite and > 0, amplitude in [0, 1] (so the rate is never
// negative), period > 0 and phase (radians) finite.
func Diurnal(mean, amplitude float64, period time.Duration, phase float64) (Process, error) {
	if err := checkRate("mean", mean, true); err != nil {
		return nil, err
	}
	if !(amplitude >= 0 && amplitude <= 1) {
		return nil, paramErr("amplitude", "must be in [0, 1], got %s", formatFloat(amplitude))
	}
	if period <= 0 {
		return nil, paramErr("period", "must be > 0, got %v", period)
	}
	if math.IsNaN(phase) || math.IsInf(phase, 0) {
		return nil, paramErr("phase", "must be finite, got %s", formatFloat(phase))
	}
	return &diurnal{
		mean: mean, amplitude: amplitude, period: period, phase: phase,
		max: mean * (1 + amplitude),
	}, nil
}

type diurnal struct {
	mean, amplitude float64
	period          time.Duration
	phase           float64 // radians
	max             float64 // mean·(1 + amplitude), the thinning envelope
}

// angle returns 2π·t/period + phase, reducing t modulo the period in
// integer nanoseconds first so late instants lose no precision.
func (d *diurnal) angle(t time.Duration) float64 {
	o := t % d.period
	if o < 0 {
		o += d.period
	}
	return float64(2*math.Pi*(float64(o)/float64(d.period))) + d.phase
}

// rateAt returns rate(t) in arrivals per second.
func (d *diurnal) rateAt(t time.Duration) float64 {
	return max(d.mean*(1+float64(d.amplitude*math.Sin(d.angle(t)))), 0)
}

func (d *diurnal) Next(n int64, prev time.Duration, r *rand.Rand) (time.Duration, bool) {
	checkN(n)
	t := max(prev, 0)
	for {
		var ok bool
		if t, ok = after(t, exp1(r)/d.max); !ok {
			return 0, false
		}
		// Keep the candidate with probability rate(t)/rate_max; u < 1, so
		// a candidate at the peak is always kept.
		if r.Float64()*d.max < d.rateAt(t) {
			return t, true
		}
	}
}

func (d *diurnal) MeanRate() float64 { return d.mean }

// Expected integrates the rate in closed form:
// mean·(to − from) + mean·amplitude·(period/2π)·(cos θ(from) − cos θ(to)).
func (d *diurnal) Expected(from, to time.Duration) float64 {
	from, to, ok := clampWindow(from, to)
	if !ok {
		return 0
	}
	w := d.period.Seconds() / (2 * math.Pi)
	return float64(d.mean*(to-from).Seconds()) +
		float64(d.mean*d.amplitude*w*(math.Cos(d.angle(from))-math.Cos(d.angle(to))))
}

func (d *diurnal) String() string {
	return "diurnal(mean=" + formatFloat(d.mean) + "/s, amplitude=" + formatFloat(d.amplitude) +
		", period=" + d.period.String() + ", phase=" + formatFloat(d.phase) + ")"
}
