package stats

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// maxExactLevel bounds the levels TimeWeighted integrates exactly: integers
// of magnitude up to 2^53 are exactly representable in a float64 and their
// product with a duration (< 2^63 ns) fits in 116 bits.
const maxExactLevel = 1 << 53

// TimeWeighted is the time average of a piecewise-constant level, such as the
// number of runs in the system or of busy workers, over virtual time. With L
// the mean number in system, it gives the L of Little's law L = λW.
//
// Measurement begins with Start (typically at the end of warm-up); before
// that, Set and Add only track the level. From Start on, TimeWeighted
// accumulates the integral of the level over time in level·nanoseconds.
// Segments whose level is an integer of magnitude <= 2^53 (counts, the common
// case) are accumulated exactly in a 128-bit integer, so for integer levels
// Integral is the exact integral rounded once to float64, whatever the number
// of changes; segments with a non-integer level are accumulated in float64
// (relative rounding error about 1e-16 per segment). Levels may be negative.
//
// Times are instants of a virtual monotonic clock (time.Duration since an
// arbitrary origin); they must not decrease from one call to the next, which
// is a programmer error that panics, as is a NaN or infinite level.
//
// The zero value is a TimeWeighted at level 0 that has not started. Methods
// do not allocate. A TimeWeighted is not safe for concurrent use.
type TimeWeighted struct {
	level   float64
	ilevel  int64 // level as an integer, valid when !frac
	frac    bool  // level is not an integer of magnitude <= 2^53
	started bool
	start   time.Duration // instant of Start
	last    time.Duration // instant of the last Start, Set or Add
	max     float64
	accHi   int64   // exact integral of integer-level segments (level·ns),
	accLo   uint64  // as a 128-bit two's-complement integer accHi:accLo
	accF    float64 // integral of non-integer-level segments (level·ns)
}

// Start begins (or restarts) measurement at now with the given level,
// discarding everything accumulated before: a later Mean covers [now, then].
// To start after warm-up while keeping the current level, call
// tw.Start(now, tw.Level()).
func (tw *TimeWeighted) Start(now time.Duration, level float64) {
	tw.setLevel("Start", level)
	tw.started = true
	tw.start, tw.last = now, now
	tw.max = level
	tw.accHi, tw.accLo, tw.accF = 0, 0, 0
}

// Set changes the level to level at instant now. Before Start it only
// records the level.
func (tw *TimeWeighted) Set(now time.Duration, level float64) {
	tw.advance("Set", now)
	tw.setLevel("Set", level)
	if tw.started {
		tw.max = max(tw.max, level)
	}
}

// Add changes the level by delta at instant now; it is Set(now,
// Level()+delta).
func (tw *TimeWeighted) Add(now time.Duration, delta float64) {
	if d := int64(delta); float64(d) == delta && !tw.frac {
		// Integer level, integer step (a count going up or down): the
		// same result as Set without its float checks.
		if l := tw.ilevel + d; l >= -maxExactLevel && l <= maxExactLevel {
			tw.advance("Add", now)
			tw.ilevel = l
			tw.level = float64(l)
			if tw.started {
				tw.max = max(tw.max, tw.level)
			}
			return
		}
	}
	tw.Set(now, tw.level+delta)
}

// Level returns the current level.
func (tw *TimeWeighted) Level() float64 { return tw.level }

// Max returns the largest level held at any instant since Start, including
// the level given to Start, or NaN before Start.
func (tw *TimeWeighted) Max() float64 {
	if !tw.started {
		return math.NaN()
	}
	return tw.max
}

// Integral returns the integral of the level over [Start, now], in
// level·nanoseconds (for the number of runs in the system, it is the total
// time spent in the system by all runs in that window, in ns). It returns 0
// before Start and panics if now precedes the last change.
func (tw *TimeWeighted) Integral(now time.Duration) float64 {
	if !tw.started {
		return 0
	}
	tw.checkTime("Integral", now)
	hi, lo, f := tw.accHi, tw.accLo, tw.accF
	dt := now - tw.last
	if tw.frac {
		f += float64(tw.level * float64(dt))
	} else {
		hi, lo = add128(hi, lo, tw.ilevel, dt)
	}
	return int128Float(hi, lo) + f
}

// Mean returns the time-average level over [Start, now]: Integral(now)
// divided by the elapsed nanoseconds. It returns NaN before Start or when
// now equals the Start instant (an empty window), and panics if now
// precedes the last change.
func (tw *TimeWeighted) Mean(now time.Duration) float64 {
	if !tw.started {
		return math.NaN()
	}
	return mean(tw.Integral(now), now-tw.start)
}

// mean is an integral over elapsed nanoseconds divided by them, NaN for
// an empty window.
func mean(integral float64, elapsed time.Duration) float64 {
	if elapsed == 0 {
		return math.NaN()
	}
	return integral / float64(elapsed)
}

// advance accumulates the current level from the last change up to now.
func (tw *TimeWeighted) advance(method string, now time.Duration) {
	if !tw.started {
		return
	}
	tw.checkTime(method, now)
	dt := now - tw.last
	if tw.frac {
		tw.accF += float64(tw.level * float64(dt))
	} else {
		tw.accHi, tw.accLo = add128(tw.accHi, tw.accLo, tw.ilevel, dt)
	}
	tw.last = now
}

func (tw *TimeWeighted) checkTime(method string, now time.Duration) {
	if now < tw.last {
		panicTime(method, now, tw.last)
	}
}

func (tw *TimeWeighted) setLevel(method string, level float64) {
	if math.IsNaN(level) || math.IsInf(level, 0) {
		panicLevel(method, level)
	}
	tw.level = level
	tw.frac = level != math.Trunc(level) || math.Abs(level) > maxExactLevel
	tw.ilevel = 0
	if !tw.frac {
		tw.ilevel = int64(level)
	}
}

//go:noinline
func panicTime(method string, now, last time.Duration) {
	panic(fmt.Sprintf("stats: TimeWeighted.%s(%v): time went backwards, last change at %v", method, now, last))
}

//go:noinline
func panicLevel(method string, level float64) {
	panic(fmt.Sprintf("stats: TimeWeighted.%s: level must be finite, got %v", method, level))
}

// add128 returns hi:lo + level*dt, where hi:lo is a 128-bit two's-complement
// integer, |level| <= 2^53 and dt >= 0.
func add128(hi int64, lo uint64, level int64, dt time.Duration) (int64, uint64) {
	neg := level < 0
	if neg {
		level = -level
	}
	ph, pl := bits.Mul64(uint64(level), uint64(dt))
	if neg { // two's-complement negation of ph:pl
		pl = ^pl + 1
		ph = ^ph
		if pl == 0 {
			ph++
		}
	}
	var c uint64
	lo, c = bits.Add64(lo, pl, 0)
	uh, _ := bits.Add64(uint64(hi), ph, c)
	return int64(uh), lo
}

// int128Float returns the 128-bit two's-complement integer hi:lo rounded to
// the nearest float64 (ties to even).
func int128Float(hi int64, lo uint64) float64 {
	neg := hi < 0
	uh := uint64(hi)
	if neg {
		lo = ^lo + 1
		uh = ^uh
		if lo == 0 {
			uh++
		}
	}
	var f float64
	if uh == 0 {
		f = float64(lo)
	} else {
		// Top 64 significant bits with a sticky bit, as in exactSum.float64.
		// (Go defines x<<64 and x>>64 as 0, which covers shift == 64.)
		shift := uint(bits.Len64(uh)) // 1..64
		top := uh<<(64-shift) | lo>>shift
		if lo<<(64-shift) != 0 {
			top |= 1
		}
		f = math.Ldexp(float64(top), int(shift))
	}
	if neg {
		return -f
	}
	return f
}
