package arrival

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// Poisson returns a homogeneous Poisson process with rate arrivals per
// second: independent exponential inter-arrival gaps with mean 1/rate.
//
// Each gap is r.ExpFloat64()/rate seconds (the ziggurat method: no
// logarithm on the hot path), so under common random numbers the same draw
// gives a gap inversely proportional to the rate. The first arrival is one gap
// after 0. rate must be finite and > 0.
func Poisson(rate float64) (Process, error) {
	if err := checkRate("rate", rate, true); err != nil {
		return nil, err
	}
	return &poisson{rate: rate}, nil
}

type poisson struct{ rate float64 }

func (p *poisson) Next(n int64, prev time.Duration, r *rand.Rand) (time.Duration, bool) {
	checkN(n)
	return after(prev, r.ExpFloat64()/p.rate)
}

func (p *poisson) MeanRate() float64 { return p.rate }

func (p *poisson) Expected(from, to time.Duration) float64 {
	from, to, ok := clampWindow(from, to)
	if !ok {
		return 0
	}
	return p.rate * (to - from).Seconds()
}

func (p *poisson) String() string { return "poisson(rate=" + formatFloat(p.rate) + "/s)" }

// Constant returns a deterministic process with rate arrivals per second:
// arrival n (from 0) is at (n+1)/rate seconds, rounded to the nearest
// nanosecond. Each instant is computed from n, not by adding a rounded
// period to prev, so a period that is not a whole number of nanoseconds
// (rate 3/s) accumulates no drift: arrival 2 is at exactly 1s. Constant
// ignores prev and draws nothing from r. rate must be finite and > 0.
func Constant(rate float64) (Process, error) {
	if err := checkRate("rate", rate, true); err != nil {
		return nil, err
	}
	return &constant{rate: rate, period: 1e9 / rate}, nil
}

type constant struct {
	rate   float64
	period float64 // nanoseconds
}

func (c *constant) Next(n int64, prev time.Duration, r *rand.Rand) (time.Duration, bool) {
	checkN(n)
	ns := math.Round(float64(n+1) * c.period)
	if !(ns < 0x1p63) {
		return 0, false
	}
	return max(time.Duration(ns), prev), true
}

func (c *constant) MeanRate() float64 { return c.rate }

func (c *constant) Expected(from, to time.Duration) float64 {
	from, to, ok := clampWindow(from, to)
	if !ok {
		return 0
	}
	return c.rate * (to - from).Seconds()
}

func (c *constant) String() string { return "constant(rate=" + formatFloat(c.rate) + "/s)" }

// Batch returns count arrivals, all at instant 0: a thundering herd, such
// as a cron job fanning out or clients reconnecting after an outage. It
// draws nothing from r, and its MeanRate is 0 (it has no long-run rate).
// count must be ≥ 1.
func Batch(count int64) (Process, error) {
	if count < 1 {
		return nil, paramErr("count", "must be ≥ 1, got %d", count)
	}
	return &batch{count: count}, nil
}

type batch struct{ count int64 }

func (b *batch) Next(n int64, prev time.Duration, r *rand.Rand) (time.Duration, bool) {
	checkN(n)
	return prev, n < b.count
}

func (b *batch) MeanRate() float64 { return 0 }

func (b *batch) Expected(from, to time.Duration) float64 {
	if from <= 0 && to > 0 {
		return float64(b.count)
	}
	return 0
}

func (b *batch) String() string { return "batch(count=" + strconv.FormatInt(b.count, 10) + ")" }
