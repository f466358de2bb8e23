// Package adaptive holds adaptive concurrency limits: a limit on the calls
// in flight to one dependency that moves with the latency and loss the
// caller observes, instead of a number fixed in advance. It follows
// Netflix's concurrency-limits library (github.com/Netflix/concurrency-limits,
// concurrency-limits-core): [AIMD] is its AIMDLimit, [Gradient] its
// Gradient2Limit, and [Limiter] its SimpleLimiter. The rules and defaults of
// each are cited in their doc comments.
//
// Time is an argument. [Limiter.Acquire] takes now and returns a [Ticket]
// that remembers it; [Limiter.Success] and [Limiter.Dropped] take the now at
// which the call ended, and the round-trip time is their difference. Instants
// are [time.Duration]s from an arbitrary origin, as in model/ratelimit, so
// the same code runs on a simulator's virtual clock and, with
// now = time.Since(start), on the real clock. There is no package-level
// state.
//
// The package imports nothing else from budgetsim: it is plain policy code
// that a production agent can run unchanged.
package adaptive

import (
	"fmt"
	"sync"
	"time"
)

// Sample is what an [Algorithm] learns from one call that ended.
type Sample struct {
	// RTT is the call's round-trip time.
	RTT time.Duration
	// InFlight is the number of calls in flight when this call started,
	// itself included (concurrency-limits' AbstractLimiter passes the
	// in-flight count taken at acquisition).
	InFlight int
	// Dropped reports that the call failed in a way that signals overload:
	// it was rejected, timed out or shed by the dependency
	// (concurrency-limits' onDropped).
	Dropped bool
}

// Algorithm computes a concurrency limit from samples. [AIMD] and
// [Gradient] implement it. Implementations need not be safe for concurrent
// use: a [Limiter] serialises its calls.
type Algorithm interface {
	// Update takes one sample and returns the new limit, ≥ 1.
	Update(s Sample) int
	// Limit returns the current limit, ≥ 1.
	Limit() int
}

// Ticket is a permit to make one call, returned by [Limiter.Acquire]. Pass
// it to exactly one of Success, Dropped or Ignore.
type Ticket struct {
	Start    time.Duration // the instant the call was permitted
	InFlight int           // calls in flight at that instant, this one included
}

// Counts are a limiter's running totals.
type Counts struct {
	Acquired  uint64 // calls permitted
	Rejected  uint64 // calls refused at the limit
	Succeeded uint64 // Success calls
	Dropped   uint64 // Dropped calls
	Ignored   uint64 // Ignore calls
}

// Limiter admits calls while fewer than the algorithm's limit are in flight
// and feeds each ended call back to the algorithm, as concurrency-limits'
// SimpleLimiter does. It never queues: a refused call is the caller's to
// queue, shed or fall back.
//
// When the limit drops below the calls in flight, no call is admitted until
// enough have ended. A Limiter is safe for concurrent use by multiple
// goroutines.
type Limiter struct {
	mu       sync.Mutex
	alg      Algorithm
	inFlight int
	counts   Counts
}

// NewLimiter returns a limiter driven by alg, with nothing in flight. It
// returns an error if alg is nil.
func NewLimiter(alg Algorithm) (*Limiter, error) {
	if alg == nil {
		return nil, fmt.Errorf("adaptive: algorithm: must not be nil")
	}
	return &Limiter{alg: alg}, nil
}

// Acquire permits a call at now if fewer than Limit() calls are in flight,
// and returns its ticket; otherwise it reports false and changes nothing
// but Counts.Rejected.
func (l *Limiter) Acquire(now time.Duration) (Ticket, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight >= l.alg.Limit() {
		l.counts.Rejected++
		return Ticket{}, false
	}
	l.inFlight++
	l.counts.Acquired++
	return Ticket{Start: now, InFlight: l.inFlight}, true
}

// Success reports that the call of t succeeded at now; the algorithm gets a
// sample with RTT = now − t.Start (0 if now is earlier). It returns the new
// limit.
func (l *Limiter) Success(now time.Duration, t Ticket) int {
	return l.end(now, t, false)
}

// Dropped reports that the call of t ended at now in a way that signals
// overload (a rejection, a timeout, a load-shedding error). It returns the
// new limit.
func (l *Limiter) Dropped(now time.Duration, t Ticket) int {
	return l.end(now, t, true)
}

// Ignore reports that the call of t ended without telling anything about
// the dependency's load (a client-side error, a cancellation): it frees the
// slot and gives the algorithm no sample (concurrency-limits' onIgnore).
func (l *Limiter) Ignore(t Ticket) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.release()
	l.counts.Ignored++
}

func (l *Limiter) end(now time.Duration, t Ticket, dropped bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.release()
	if dropped {
		l.counts.Dropped++
	} else {
		l.counts.Succeeded++
	}
	return l.alg.Update(Sample{RTT: max(0, now-t.Start), InFlight: t.InFlight, Dropped: dropped})
}

func (l *Limiter) release() {
	if l.inFlight <= 0 {
		panic("adaptive: Limiter ended more calls than it acquired")
	}
	l.inFlight--
}

// Limit returns the algorithm's current limit.
func (l *Limiter) Limit() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.alg.Limit()
}

// InFlight returns the number of calls acquired and not yet ended.
func (l *Limiter) InFlight() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inFlight
}

// Counts returns the running totals.
func (l *Limiter) Counts() Counts {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts
}

func checkBounds(initial, lo, hi int) error {
	if lo < 1 {
		return fmt.Errorf("adaptive: Min: must be ≥ 1, got %d", lo)
	}
	if hi < lo {
		return fmt.Errorf("adaptive: Max: must be ≥ Min (%d), got %d", lo, hi)
	}
	if initial < lo || initial > hi {
		return fmt.Errorf("adaptive: Initial: must be in [Min, Max] = [%d, %d], got %d", lo, hi, initial)
	}
	return nil
}
