package adaptive

import (
	"fmt"
	"math"
)

// GradientConfig configures a [Gradient] limit. [DefaultGradient] returns
// concurrency-limits' Gradient2Limit defaults.
type GradientConfig struct {
	Initial int // the limit before any sample; in [Min, Max]
	Min     int // the smallest limit, ≥ 1
	Max     int // the largest limit, ≥ Min (Gradient2Limit's maxConcurrency)
	// Smoothing is the weight of a new estimate against the current
	// limit, in (0, 1].
	Smoothing float64
	// QueueSize is the number of calls the limit may grow by per update
	// while latency stays at its long-term level (before smoothing); ≥ 0.
	QueueSize int
	// LongWindow is the window, in samples, of the exponential average of
	// the RTT that serves as the baseline: its weight for a new sample is
	// 2/(LongWindow+1); ≥ 1.
	LongWindow int
	// RTTTolerance is how many times the baseline the current RTT may be
	// before the limit shrinks; ≥ 1.
	RTTTolerance float64
}

// DefaultGradient returns the defaults of concurrency-limits'
// Gradient2Limit.Builder: initial limit 20, minimum 20, maximum 200,
// smoothing 0.2, queue size 4, long window 600 samples, RTT tolerance 1.5.
func DefaultGradient() GradientConfig {
	return GradientConfig{Initial: 20, Min: 20, Max: 200, Smoothing: 0.2, QueueSize: 4, LongWindow: 600, RTTTolerance: 1.5}
}

// Validate returns an error naming the first field out of range, or nil.
func (c GradientConfig) Validate() error {
	if err := checkBounds(c.Initial, c.Min, c.Max); err != nil {
		return err
	}
	if !(c.Smoothing > 0 && c.Smoothing <= 1) {
		return fmt.Errorf("adaptive: Smoothing: must be in (0, 1], got %v", c.Smoothing)
	}
	if c.QueueSize < 0 {
		return fmt.Errorf("adaptive: QueueSize: must be ≥ 0, got %d", c.QueueSize)
	}
	if c.LongWindow < 1 {
		return fmt.Errorf("adaptive: LongWindow: must be ≥ 1, got %d", c.LongWindow)
	}
	if !(c.RTTTolerance >= 1) || math.IsInf(c.RTTTolerance, 0) {
		return fmt.Errorf("adaptive: RTTTolerance: must be finite and ≥ 1, got %v", c.RTTTolerance)
	}
	return nil
}

// warmup is the number of first samples whose plain mean starts the long
// RTT average (concurrency-limits' ExpAvgMeasurement(longWindow, 10)).
const warmup = 10

// Gradient is a latency-based limit after concurrency-limits'
// Gradient2Limit. It keeps a long-term exponential average of the RTT as
// the baseline and compares each sample's RTT with it:
//
//	long     = long·(1 − 2/(LongWindow+1)) + rtt·2/(LongWindow+1)
//	           (the plain mean of the first 10 samples)
//	if long/rtt > 2: long = 0.95·long     (latency recovered: catch up)
//	if InFlight < limit/2: no change       (app-limited)
//	gradient = max(0.5, min(1, RTTTolerance·long/rtt))
//	new      = limit·gradient + QueueSize
//	limit    = clamp(limit·(1 − Smoothing) + new·Smoothing, Min, Max)
//
// While latency stays within RTTTolerance of the baseline the gradient is 1
// and the limit grows by QueueSize·Smoothing per sample; when latency rises
// the gradient falls below 1 and the limit shrinks, by at most half per
// update before smoothing. The limit is kept as a float64 and [Gradient.Limit]
// truncates it, as Gradient2Limit does. Drops are not used: the rule is
// driven by latency alone, like Gradient2Limit's.
//
// A Gradient is not safe for concurrent use; a [Limiter] serialises it.
type Gradient struct {
	cfg      GradientConfig
	estimate float64 // the limit, before truncation
	long     float64 // the baseline RTT, nanoseconds
	samples  int     // samples taken into long during warm-up
	sum      float64 // their sum
}

// NewGradient returns a Gradient limit at c.Initial, or an error naming the
// first field of c out of range.
func NewGradient(c GradientConfig) (*Gradient, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &Gradient{cfg: c, estimate: float64(c.Initial)}, nil
}

// Limit returns the current limit, the estimate truncated.
func (g *Gradient) Limit() int { return int(g.estimate) }

// Estimate returns the limit before truncation.
func (g *Gradient) Estimate() float64 { return g.estimate }

// LongRTT returns the baseline RTT in nanoseconds, 0 before any sample.
func (g *Gradient) LongRTT() float64 { return g.long }

// Update applies one sample and returns the new limit. A zero RTT is taken
// as 1ns.
func (g *Gradient) Update(s Sample) int {
	rtt := float64(max(1, s.RTT))
	if g.samples < warmup {
		g.samples++
		g.sum += rtt
		g.long = g.sum / float64(g.samples)
	} else {
		f := 2 / float64(g.cfg.LongWindow+1)
		g.long = float64(g.long*(1-f)) + float64(rtt*f)
	}
	long := g.long
	if long/rtt > 2 {
		g.long *= 0.95
	}
	if float64(s.InFlight) < g.estimate/2 {
		return g.Limit()
	}
	gradient := max(0.5, min(1, g.cfg.RTTTolerance*long/rtt))
	next := float64(g.estimate*gradient) + float64(g.cfg.QueueSize)
	next = float64(g.estimate*(1-g.cfg.Smoothing)) + float64(next*g.cfg.Smoothing)
	g.estimate = max(float64(g.cfg.Min), min(float64(g.cfg.Max), next))
	return g.Limit()
}
