package stats

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// Count is the time average of an integer count that moves one at a time,
// such as the runs in the system or the busy workers: a TimeWeighted for
// the common case, at a fraction of its cost per change. For the same
// history (Start, then steps of +1 and -1) Integral and Mean return exactly
// what TimeWeighted's do, bit for bit: both hold the integral exactly, in
// a 128-bit integer of level·nanoseconds, and round it once.
//
// The cost is in the representation. TimeWeighted adds level·(now − last)
// at every change, a multiplication; Count keeps k such that the integral
// over [Start, t] is k + level·(t − Start) for any t up to the next change,
// so a step of +1 at now subtracts (now − Start) from k, and a step of -1
// adds it: a 128-bit addition. The multiplication happens once, in
// Integral.
//
// Before Start, Inc and Dec only track the level. From Start on, instants
// must not decrease from one call to the next (a programmer error that
// panics), and the count stays within ±2^53 (the range TimeWeighted
// integrates exactly); a Count does not track the largest level (TimeWeighted.Max
// does). The zero value is a Count at level 0 that has not started. Methods
// do not allocate. A Count is not safe for concurrent use.
type Count struct {
	level   int64
	started bool
	start   time.Duration // instant of Start
	last    time.Duration // instant of the last Start, Inc or Dec
	kHi     int64         // k, in level·ns, as the 128-bit two's-complement
	kLo     uint64        // integer kHi:kLo
}

// Start begins (or restarts) measurement at now with the given level,
// discarding everything accumulated before. To start after warm-up while
// keeping the current level, call c.Start(now, c.Level()).
func (c *Count) Start(now time.Duration, level int64) {
	c.level = level
	c.started = true
	c.start, c.last = now, now
	c.kHi, c.kLo = 0, 0
}

// Inc raises the count by one at instant now.
func (c *Count) Inc(now time.Duration) {
	c.level++
	if !c.started {
		return
	}
	c.check("Inc", now)
	var b uint64
	c.kLo, b = bits.Sub64(c.kLo, uint64(now-c.start), 0)
	c.kHi -= int64(b)
	c.last = now
}

// Dec lowers the count by one at instant now.
func (c *Count) Dec(now time.Duration) {
	c.level--
	if !c.started {
		return
	}
	c.check("Dec", now)
	var carry uint64
	c.kLo, carry = bits.Add64(c.kLo, uint64(now-c.start), 0)
	c.kHi += int64(carry)
	c.last = now
}

// Level returns the current count.
func (c *Count) Level() int64 { return c.level }

// Integral returns the integral of the count over [Start, now], in
// level·nanoseconds, rounded once to float64. It returns 0 before Start and
// panics if now precedes the last change.
func (c *Count) Integral(now time.Duration) float64 {
	if !c.started {
		return 0
	}
	c.check("Integral", now)
	return int128Float(add128(c.kHi, c.kLo, c.level, now-c.start))
}

// Mean returns the time-average count over [Start, now]: Integral(now)
// divided by the elapsed nanoseconds. It returns NaN before Start or when
// now equals the Start instant (an empty window), and panics if now
// precedes the last change.
func (c *Count) Mean(now time.Duration) float64 {
	if !c.started {
		return math.NaN()
	}
	return mean(c.Integral(now), now-c.start)
}

func (c *Count) check(method string, now time.Duration) {
	if now < c.last {
		panicCountTime(method, now, c.last)
	}
}

//go:noinline
func panicCountTime(method string, now, last time.Duration) {
	panic(fmt.Sprintf("stats: Count.%s(%v): time went backwards, last change at %v", method, now, last))
}
