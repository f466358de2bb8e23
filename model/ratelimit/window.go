package ratelimit

import (
	"sync"
	"time"
)

// A meter is one limit's way of spending and replenishing its allowance,
// in the reserve/settle shape of [TokenLimiter]: wait reports how long a
// call charging n must wait before it may be sent, take charges it (for
// the instant wait said), adjust corrects a charge once the call's actual
// usage is known, and available reports what is left. Every method is a
// pure function of its arguments and the meter's state: time is now,
// passed in.
type meter interface {
	wait(now time.Duration, n int) time.Duration
	take(now time.Duration, n int)
	adjust(now time.Duration, n int)
	available(now time.Duration) float64
}

// The continuous bucket: a [TokenBucket] of one minute's allowance
// refilled at a steady rate (Anthropic, Bedrock, Vertex AI).
type bucketMeter struct{ b *TokenBucket }

func (m bucketMeter) wait(now time.Duration, n int) time.Duration { return m.b.waitFor(now, n) }
func (m bucketMeter) take(now time.Duration, n int)               { m.b.ReserveAt(now, n) }
func (m bucketMeter) adjust(now time.Duration, n int)             { m.b.adjust(now, n) }
func (m bucketMeter) available(now time.Duration) float64         { return m.b.TokensAt(now) }

// A FixedWindow counts a limit in consecutive windows of a fixed length,
// each with the same allowance, that start at whole multiples of the
// length from the clock's origin: a call fits while its window's count
// plus its charge stays within the allowance, and the count starts again
// from 0 when the next window begins. Whatever a window held, even a debt
// beyond its allowance, is forgotten when it ends.
//
// A window of one minute is the per-minute counter Azure OpenAI documents
// for its standard deployments' tokens per minute ("added to a running
// token count of all requests that is reset each minute"). Short windows
// are how a per-minute limit is "quantised": OpenAI documents that 60,000
// requests per minute may be enforced as 1,000 requests per second, and
// Azure OpenAI that it evaluates requests per minute over 1 or 10 seconds,
// so that a 600 RPM deployment answers 429 to more than 10 requests in one
// second (see docs/providers.md for the pages and the dates they were
// read).
//
// Calls that wait for a later window (client-side pacing) fill that
// window in order, as a [TokenBucket]'s waiting reservations do. A
// FixedWindow is safe for concurrent use.
type FixedWindow struct {
	mu        sync.Mutex
	length    time.Duration
	allowance int
	start     time.Duration // the window being filled: the current one or, with waiters, a later one
	used      int64         // what that window holds
	started   bool
}

// NewFixedWindow returns windows of the given length, each admitting
// allowance tokens (or requests). It panics unless length > 0 and
// allowance ≥ 1: the callers in this package derive both from validated
// limits.
func NewFixedWindow(length time.Duration, allowance int) *FixedWindow {
	if length <= 0 || allowance < 1 {
		panic("ratelimit: FixedWindow: length must be > 0 and allowance ≥ 1")
	}
	return &FixedWindow{length: length, allowance: allowance}
}

// Length returns the window's length.
func (w *FixedWindow) Length() time.Duration { return w.length }

// Allowance returns what one window admits.
func (w *FixedWindow) Allowance() int { return w.allowance }

// floor returns the start of the window that holds t.
func (w *FixedWindow) floor(t time.Duration) time.Duration {
	r := t % w.length
	if r < 0 {
		r += w.length
	}
	return t - r
}

// cur returns the window being filled as seen from now and its count. It
// requires w.mu.
func (w *FixedWindow) cur(now time.Duration) (time.Duration, int64) {
	s := w.floor(now)
	if !w.started || w.start < s {
		return s, 0
	}
	return w.start, w.used
}

// WaitAt returns how long a call charging n at now waits for a window
// with room for it: 0 if the current window has room, otherwise until the
// next window starts; [InfDuration] if n exceeds a whole window's
// allowance. It takes nothing.
func (w *FixedWindow) WaitAt(now time.Duration, n int) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.waitLocked(now, n)
}

func (w *FixedWindow) waitLocked(now time.Duration, n int) time.Duration {
	if n > w.allowance {
		return InfDuration
	}
	s, u := w.cur(now)
	if u+int64(n) <= int64(w.allowance) {
		return max(0, s-now)
	}
	return s + w.length - now
}

// TakeAt charges n to the window WaitAt(now, n) reports: the current one
// if it has room, else the next. n must not exceed the allowance.
func (w *FixedWindow) TakeAt(now time.Duration, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, u := w.cur(now)
	if u+int64(n) <= int64(w.allowance) {
		w.start, w.used = s, u+int64(n)
	} else {
		w.start, w.used = s+w.length, int64(n)
	}
	w.started = true
}

// AdjustAt corrects the window being filled at now by n: n > 0 adds to
// its count (which may exceed the allowance: later calls then wait for
// the next window), n < 0 returns tokens to it, never below 0.
func (w *FixedWindow) AdjustAt(now time.Duration, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n == 0 {
		return
	}
	s, u := w.cur(now)
	u += int64(n)
	u = max(u, 0)
	u = min(u, int64(MaxCallTokens)*4) // a bound on the debt: no overflow
	w.start, w.used, w.started = s, u, true
}

// AvailableAt returns what the window holding now still admits: negative
// when a correction took it past its allowance, and 0 when calls already
// wait for a later window.
func (w *FixedWindow) AvailableAt(now time.Duration) float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, u := w.cur(now)
	if s > w.floor(now) {
		return 0
	}
	return float64(int64(w.allowance) - u)
}

func (w *FixedWindow) wait(now time.Duration, n int) time.Duration { return w.WaitAt(now, n) }
func (w *FixedWindow) take(now time.Duration, n int)               { w.TakeAt(now, n) }
func (w *FixedWindow) adjust(now time.Duration, n int)             { w.AdjustAt(now, n) }
func (w *FixedWindow) available(now time.Duration) float64         { return w.AvailableAt(now) }

// A LeakyBucket is a leaky bucket of utilisation, as Azure OpenAI
// documents for its provisioned (PTU) deployments: the bucket drains at
// the deployment's throughput (one minute's allowance per minute), a call
// is admitted whenever the utilisation is at most 100 % when it arrives,
// whatever its own size, and then adds its estimate, so that one large
// call may take the utilisation above 100 %; a call arriving above 100 %
// gets a 429 whose retry-after-ms is the time for the bucket to drain
// back to 100 %. When the call completes its estimate is corrected to its
// actual usage. See docs/providers.md for the page and the date it was
// read.
//
// It is a [TokenBucket] of one minute's allowance whose conformance test
// asks for no room at all (utilisation ≤ 100 % is "0 tokens available or
// more"), and whose charge is taken whatever the bucket holds. A
// LeakyBucket is safe for concurrent use.
type LeakyBucket struct{ b *TokenBucket }

// NewLeakyBucket returns an empty leaky bucket of capacity perMinute
// tokens that drains perMinute tokens a minute. It returns an error naming
// the field if perMinute is below 1 or above 60×[MaxRate].
func NewLeakyBucket(perMinute int) (*LeakyBucket, error) {
	b, err := NewTokenBucket(float64(perMinute)/60, perMinute)
	if err != nil {
		return nil, err
	}
	return &LeakyBucket{b: b}, nil
}

// WaitAt returns how long a call arriving at now waits until the
// utilisation is back to 100 %: 0 when it is at most 100 %. The call's own
// size does not matter, and no wait is infinite.
func (l *LeakyBucket) WaitAt(now time.Duration) time.Duration { return l.b.waitFor(now, 0) }

// AddAt adds n tokens of utilisation at now, whatever the bucket holds.
func (l *LeakyBucket) AddAt(now time.Duration, n int) { l.b.adjust(now, n) }

// UtilisationAt returns the utilisation at now as a fraction of the
// capacity: 1 is 100 %.
func (l *LeakyBucket) UtilisationAt(now time.Duration) float64 {
	return 1 - l.b.TokensAt(now)/float64(l.b.Burst())
}

func (l *LeakyBucket) wait(now time.Duration, n int) time.Duration { return l.WaitAt(now) }
func (l *LeakyBucket) take(now time.Duration, n int)               { l.AddAt(now, n) }
func (l *LeakyBucket) adjust(now time.Duration, n int)             { l.b.adjust(now, n) }
func (l *LeakyBucket) available(now time.Duration) float64         { return l.b.TokensAt(now) }
