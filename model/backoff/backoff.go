// Package backoff computes retry sleeps: capped exponential growth with
// jitter, as pure functions of the retry number and a uniform draw u.
//
// The caller draws u in [0, 1) from its own random stream and passes it in,
// so a simulation can give each component its own seeded stream (common
// random numbers) and tests can pin the edges. Nothing here reads a clock,
// keeps state or allocates; everything is safe for concurrent use.
//
// The jitter variants come from two sources:
//
//   - Full, Equal and Decorrelated: Marc Brooker, "Exponential Backoff And
//     Jitter", AWS Architecture Blog, 2015
//     (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/).
//   - Proportional: gRPC connection backoff
//     (https://github.com/grpc/grpc/blob/master/doc/connection-backoff.md),
//     as implemented by grpc-go's internal/backoff.
//
// A sleep is spending: check it against what remains of the deadline before
// starting it (deadline.Deadline.FitsSleep).
package backoff

import (
	"fmt"
	"math"
	"time"
)

// Jitter selects how a sleep is randomised around the exponential ceiling.
// The zero value is None.
type Jitter int

// The jitter variants. c is the ceiling for the retry (Policy.Ceiling) and u
// the uniform draw in [0, 1).
const (
	// None sleeps exactly c.
	None Jitter = iota
	// Full sleeps random_between(0, c) = u·c (Brooker 2015, "Full Jitter").
	Full
	// Equal sleeps c/2 + random_between(0, c/2) (Brooker 2015, "Equal Jitter").
	Equal
	// Decorrelated sleeps min(Cap, random_between(Base, 3·prev)), where prev
	// is the previous sleep (Base before the first). It ignores Multiplier
	// and the ceiling; the growth factor 3 is Brooker's (2015,
	// "Decorrelated Jitter").
	Decorrelated
	// Proportional sleeps c·(1 + Spread·(2u − 1)), uniform in
	// [c·(1−Spread), c·(1+Spread)] (gRPC connection backoff, JITTER = 0.2).
	// As in grpc-go the jitter is applied after the cap, so a sleep may
	// exceed Cap by up to Spread·Cap.
	Proportional
)

var jitterNames = [...]string{"none", "full", "equal", "decorrelated", "proportional"}

// String returns the name ParseJitter accepts, or "Jitter(n)" for an unknown
// value.
func (j Jitter) String() string {
	if j >= 0 && int(j) < len(jitterNames) {
		return jitterNames[j]
	}
	return fmt.Sprintf("Jitter(%d)", int(j))
}

// ParseJitter returns the Jitter named s: "none", "full", "equal",
// "decorrelated" or "proportional".
func ParseJitter(s string) (Jitter, error) {
	for i, n := range jitterNames {
		if s == n {
			return Jitter(i), nil
		}
	}
	return 0, fmt.Errorf("jitter: want one of none, full, equal, decorrelated, proportional, got %q", s)
}

// MarshalText implements encoding.TextMarshaler.
func (j Jitter) MarshalText() ([]byte, error) {
	if j < 0 || int(j) >= len(jitterNames) {
		return nil, fmt.Errorf("jitter: unknown value %d", int(j))
	}
	return []byte(j.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseJitter.
func (j *Jitter) UnmarshalText(b []byte) error {
	v, err := ParseJitter(string(b))
	if err != nil {
		return err
	}
	*j = v
	return nil
}

// DefaultSpread is the Proportional spread used when Policy.Spread is 0:
// gRPC connection backoff's JITTER = 0.2.
const DefaultSpread = 0.2

// Policy is a capped exponential backoff. The zero value sleeps 0 every time
// (and fails Validate, since Multiplier 0 is below 1). A Policy is a plain
// value, safe for concurrent use.
type Policy struct {
	// Base is the ceiling for the first retry (and Decorrelated's lower
	// bound). Must be ≥ 0.
	Base time.Duration
	// Cap bounds every ceiling, and every sleep except Proportional's (see
	// Proportional). 0 means no cap (growth saturates at the largest
	// time.Duration); otherwise it must be ≥ Base.
	Cap time.Duration
	// Multiplier is the growth factor between consecutive ceilings. Must be
	// ≥ 1 and finite. Decorrelated ignores it.
	Multiplier float64
	// Jitter selects the randomisation.
	Jitter Jitter
	// Spread is Proportional's relative half-width, in [0, 1]; 0 means
	// DefaultSpread. Other jitters ignore it.
	Spread float64
}

// GRPCConnection returns the gRPC connection-backoff parameters from
// connection-backoff.md: INITIAL_BACKOFF 1 s, MULTIPLIER 1.6, JITTER 0.2,
// MAX_BACKOFF 120 s, with Proportional jitter.
func GRPCConnection() Policy {
	return Policy{Base: time.Second, Cap: 120 * time.Second, Multiplier: 1.6, Jitter: Proportional, Spread: 0.2}
}

// Validate reports the first invalid field, naming it and its value.
func (p Policy) Validate() error {
	switch {
	case p.Base < 0:
		return fmt.Errorf("base: must be ≥ 0, got %v", p.Base)
	case p.Cap != 0 && p.Cap < p.Base:
		return fmt.Errorf("cap: must be 0 (no cap) or ≥ base (%v), got %v", p.Base, p.Cap)
	case !(p.Multiplier >= 1) || math.IsInf(p.Multiplier, 0):
		return fmt.Errorf("multiplier: must be ≥ 1 and finite, got %v", p.Multiplier)
	case p.Jitter < None || p.Jitter > Proportional:
		return fmt.Errorf("jitter: unknown value %d", int(p.Jitter))
	case !(p.Spread >= 0 && p.Spread <= 1):
		return fmt.Errorf("spread: must be in [0, 1], got %v", p.Spread)
	}
	return nil
}

// Ceiling returns the un-jittered sleep after the retry-th failure:
// min(Cap, Base·Multiplier^(retry−1)), rounded to the nearest nanosecond.
// retry 1 is the sleep after the first failed attempt. Huge retry counts and
// multipliers saturate at Cap (or at the largest time.Duration when there is
// no cap) instead of overflowing. It panics if retry < 1.
func (p Policy) Ceiling(retry int) time.Duration {
	if retry < 1 {
		panic(fmt.Sprintf("backoff: Ceiling(%d): retry must be ≥ 1", retry))
	}
	limit := p.limit()
	if retry == 1 || p.Base >= limit {
		return min(p.Base, limit)
	}
	// Pow of a huge exponent is +Inf (or NaN for odd inputs); both fail
	// the comparison and return the cap, never an overflowed conversion.
	f := float64(p.Base) * math.Pow(p.Multiplier, float64(retry-1))
	if !(f < float64(limit)) {
		return limit
	}
	return time.Duration(math.Round(f))
}

// limit is the effective cap: Cap, or the largest Duration when Cap is 0.
func (p Policy) limit() time.Duration {
	if p.Cap <= 0 {
		return math.MaxInt64
	}
	return p.Cap
}

// Delay returns the sleep after the retry-th failure (retry ≥ 1) for a
// uniform draw u in [0, 1). prev is the previous sleep; only Decorrelated
// uses it, and prev ≤ 0 (the first retry) means Base. The result is ≥ 0 and
// within:
//
//	None          c
//	Full          [0, c]
//	Equal         [c/2, c]
//	Decorrelated  [Base, min(Cap, max(Base, 3·prev))]   (no Cap: no min)
//	Proportional  [c·(1−Spread), c·(1+Spread)]
//
// where c = Ceiling(retry). It panics if retry < 1 or u is outside [0, 1):
// both are programmer mistakes. It does not allocate.
func (p Policy) Delay(retry int, prev time.Duration, u float64) time.Duration {
	if !(u >= 0 && u < 1) {
		panic(fmt.Sprintf("backoff: Delay(%d, %v, %v): u must be in [0, 1)", retry, prev, u))
	}
	c := p.Ceiling(retry)
	switch p.Jitter {
	case Full:
		return between(0, c, u)
	case Equal:
		h := c / 2
		return between(h, c, u)
	case Decorrelated:
		if prev <= 0 {
			prev = p.Base
		}
		hi := time.Duration(math.MaxInt64)
		if prev <= math.MaxInt64/3 {
			hi = 3 * prev
		}
		hi = max(hi, p.Base)
		return min(p.limit(), between(p.Base, hi, u))
	case Proportional:
		spread := p.Spread
		if spread == 0 {
			spread = DefaultSpread
		}
		return fromFloat(float64(c) * (1 + float64(spread*float64(2*u-1))))
	default:
		return c
	}
}

// between returns lo + u·(hi − lo) for lo ≤ hi, rounded to the nearest
// nanosecond and kept within [lo, hi].
func between(lo, hi time.Duration, u float64) time.Duration {
	return min(hi, lo+fromFloat(u*float64(hi-lo)))
}

// fromFloat converts nanoseconds to a Duration, rounding to the nearest and
// saturating at [0, MaxInt64] (a float64 above MaxInt64 has no defined
// conversion).
func fromFloat(f float64) time.Duration {
	switch {
	case !(f > 0):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	}
	return time.Duration(math.Round(f))
}
