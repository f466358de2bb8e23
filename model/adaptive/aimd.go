package adaptive

import (
	"fmt"
	"time"
)

// AIMDConfig configures an [AIMD] limit. [DefaultAIMD] returns
// concurrency-limits' defaults.
type AIMDConfig struct {
	Initial int // the limit before any sample; in [Min, Max]
	Min     int // the smallest limit, ≥ 1
	Max     int // the largest limit, ≥ Min
	// BackoffRatio multiplies the limit on a drop; it must be in [0.5, 1),
	// the range AIMDLimit.Builder accepts.
	BackoffRatio float64
	// Timeout is the round-trip time above which (strictly) a successful
	// call counts as a drop; it must be > 0.
	Timeout time.Duration
}

// DefaultAIMD returns the defaults of concurrency-limits' AIMDLimit.Builder:
// initial limit 20, minimum 20, maximum 200, backoff ratio 0.9, timeout 5s.
// The minimum of 20 keeps the default from ever going below its start; set
// Min lower to let the limit shed load.
func DefaultAIMD() AIMDConfig {
	return AIMDConfig{Initial: 20, Min: 20, Max: 200, BackoffRatio: 0.9, Timeout: 5 * time.Second}
}

// Validate returns an error naming the first field out of range, or nil.
func (c AIMDConfig) Validate() error {
	if err := checkBounds(c.Initial, c.Min, c.Max); err != nil {
		return err
	}
	if !(c.BackoffRatio >= 0.5 && c.BackoffRatio < 1) {
		return fmt.Errorf("adaptive: BackoffRatio: must be in [0.5, 1), got %v", c.BackoffRatio)
	}
	if c.Timeout <= 0 {
		return fmt.Errorf("adaptive: Timeout: must be > 0, got %v", c.Timeout)
	}
	return nil
}

// AIMD is an additive-increase, multiplicative-decrease limit: the loss-based
// rule of TCP congestion control applied to concurrency, as in
// concurrency-limits' AIMDLimit. On each sample:
//
//   - a drop, or an RTT above Timeout: limit = ⌊limit × BackoffRatio⌋;
//   - otherwise, if the caller was using at least half the limit
//     (2 × InFlight ≥ limit): limit = limit + 1;
//   - otherwise (the caller is app-limited, and a success says nothing
//     about a higher limit): unchanged;
//
// and the result is clamped to [Min, Max]. Under sustained drops the limit
// falls geometrically to Min; under sustained success at full use it grows
// by one per sample to Max.
//
// An AIMD is not safe for concurrent use; a [Limiter] serialises it.
type AIMD struct {
	cfg   AIMDConfig
	limit int
}

// NewAIMD returns an AIMD limit at c.Initial, or an error naming the first
// field of c out of range.
func NewAIMD(c AIMDConfig) (*AIMD, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &AIMD{cfg: c, limit: c.Initial}, nil
}

// Limit returns the current limit.
func (a *AIMD) Limit() int { return a.limit }

// Update applies one sample and returns the new limit.
func (a *AIMD) Update(s Sample) int {
	l := a.limit
	if s.Dropped || s.RTT > a.cfg.Timeout {
		l = int(float64(l) * a.cfg.BackoffRatio)
	} else if 2*s.InFlight >= l {
		l++
	}
	a.limit = min(a.cfg.Max, max(a.cfg.Min, l))
	return a.limit
}
