package arrival

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/budgetsim/budgetsim/model/dist"
)

// Renewal returns a renewal process: independent inter-arrival gaps drawn
// from inter, in seconds. With an exponential inter it is a Poisson
// process; with a coefficient of variation above 1 (a hyperexponential
// mixture, a lognormal, a gamma with cv > 1) its arrivals come in bursts
// at the same long-run rate, the traffic that production traces of agents
// often show.
//
// The first arrival is one gap after 0 (an ordinary renewal process, not
// the stationary one). Each gap is one inter.Sample(r), so the number of
// uniforms drawn per arrival is the distribution's. A negative draw counts
// as 0. inter must have a finite mean > 0.
//
// MeanRate is 1/mean(inter); Expected(from, to) is the stationary
// process's rate·(to − from), which an ordinary renewal process reaches
// after a few gaps (exactly, from the start, for exponential gaps).
func Renewal(inter dist.Dist) (Process, error) {
	if inter == nil {
		return nil, paramErr("interarrival", "must be given")
	}
	m := inter.Mean()
	if !(m > 0) || math.IsInf(m, 1) {
		return nil, paramErr("interarrival", "must have a finite mean > 0, got %s (mean %s)", inter, formatFloat(m))
	}
	return &renewal{inter: inter, rate: 1 / m}, nil
}

type renewal struct {
	inter dist.Dist
	rate  float64
}

func (p *renewal) Next(n int64, prev time.Duration, r *rand.Rand) (time.Duration, bool) {
	checkN(n)
	return after(prev, max(p.inter.Sample(r), 0))
}

func (p *renewal) MeanRate() float64 { return p.rate }

func (p *renewal) Expected(from, to time.Duration) float64 {
	from, to, ok := clampWindow(from, to)
	if !ok {
		return 0
	}
	return p.rate * (to - from).Seconds()
}

func (p *renewal) String() string { return "renewal(interarrival=" + p.inter.String() + ")" }
