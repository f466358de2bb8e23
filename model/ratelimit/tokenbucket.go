package ratelimit

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// InfDuration is the wait reported for a request that can never be granted:
// more tokens than the burst, or any request to the zero [TokenBucket]. It is
// also the instant [TokenBucket.NextAt] reports when no token will ever come.
// It mirrors golang.org/x/time/rate.InfDuration.
const InfDuration = time.Duration(math.MaxInt64)

// MaxRate is the largest rate, in tokens per second, that [NewTokenBucket]
// accepts: one token per nanosecond, the resolution of [time.Duration].
const MaxRate = 1e9

// A TokenBucket admits events at a sustained rate with bounded bursts: a
// bucket holds at most Burst tokens, is refilled at one token per Interval,
// and each event takes tokens from it. It has the semantics of
// golang.org/x/time/rate.Limiter, with explicit-time methods only.
//
// It is implemented as the generic cell rate algorithm (GCRA; ITU-T I.371,
// virtual scheduling form), which is equivalent to that token bucket. The
// state is one instant, the theoretical arrival time tat: the instant at
// which the bucket would be full again if nothing more were taken. With
// emission interval T = Interval() and tolerance τ = T×(Burst()−1), a request
// for n tokens at now conforms when
//
//	max(tat, now) + n×T − now ≤ τ + T  (= Burst()×T)
//
// and then tat advances to max(tat, now) + n×T. All of it is integer
// nanoseconds, so a token becomes available exactly on an Interval boundary,
// and a request made exactly on the boundary is admitted.
//
// The three ways to take tokens differ when too few are available:
// [TokenBucket.AllowAt] refuses and takes nothing (drop or skip the event);
// [TokenBucket.ReserveAt] always takes them and says how long to wait before
// acting; [TokenBucket.ReserveWithinAt] takes them only if that wait fits in
// the caller's remaining time (as golang.org/x/time/rate's Wait refuses up
// front a wait that would exceed the context deadline). Tokens taken are not
// returned: there is no cancellation, so a caller that may give up waiting
// should use ReserveWithinAt with the time it is prepared to wait.
//
// If now is earlier than an instant seen by a previous call (the clock went
// backwards), the bucket keeps the token count it had at that later instant
// and time runs on from now, as golang.org/x/time/rate's advance does: a
// backwards jump neither refills nor drains the bucket.
//
// The zero value is a valid TokenBucket that rejects every request, like the
// zero golang.org/x/time/rate.Limiter: AllowAt reports false, ReserveAt
// reports [InfDuration], TokensAt reports 0 and NextAt reports InfDuration.
//
// A TokenBucket is safe for concurrent use by multiple goroutines. Its
// methods do not allocate. It must not be copied after first use.
type TokenBucket struct {
	mu       sync.Mutex
	interval time.Duration // T, nanoseconds per token; 0 only in the zero value
	burst    int           // bucket size in tokens
	capacity time.Duration // burst×T = τ + T, the largest allowed tat − now
	tat      time.Duration // theoretical arrival time; ≥ last once started
	last     time.Duration // the latest now seen by a mutating call
	started  bool          // whether tat and last hold instants yet
}

// NewTokenBucket returns a full bucket of burst tokens refilled at
// ratePerSecond tokens per second.
//
// The emission interval is 1s/ratePerSecond rounded to the nearest
// nanosecond, so the effective rate is 1e9/Interval() tokens per second; the
// relative error is at most 0.5ns/Interval(), which is at most 1e-6 for
// rates up to 2000 per second. Use [NewTokenBucketEvery] to give the interval exactly.
//
// It returns an error naming rate if ratePerSecond is not in (0, [MaxRate]]
// or its interval does not fit in a time.Duration, and naming burst if burst
// is below 1 or Burst×Interval overflows a time.Duration.
func NewTokenBucket(ratePerSecond float64, burst int) (*TokenBucket, error) {
	if !(ratePerSecond > 0) {
		return nil, fmt.Errorf("ratelimit: rate: must be > 0, got %v", ratePerSecond)
	}
	if ratePerSecond > MaxRate {
		return nil, fmt.Errorf("ratelimit: rate: must be ≤ %g per second (an interval of at least 1ns), got %v", float64(MaxRate), ratePerSecond)
	}
	ns := math.Round(float64(time.Second) / ratePerSecond)
	if ns >= math.MaxInt64 { // float64(MaxInt64) is 2^63, itself out of range
		return nil, fmt.Errorf("ratelimit: rate: interval 1s/rate overflows time.Duration, got %v", ratePerSecond)
	}
	return newTokenBucket(time.Duration(ns), burst)
}

// NewTokenBucketEvery returns a full bucket of burst tokens refilled at one
// token per interval, exactly.
//
// It returns an error naming interval if interval ≤ 0, and naming burst if
// burst is below 1 or burst×interval overflows a time.Duration.
func NewTokenBucketEvery(interval time.Duration, burst int) (*TokenBucket, error) {
	if interval <= 0 {
		return nil, fmt.Errorf("ratelimit: interval: must be > 0, got %v", interval)
	}
	return newTokenBucket(interval, burst)
}

func newTokenBucket(interval time.Duration, burst int) (*TokenBucket, error) {
	if burst < 1 {
		return nil, fmt.Errorf("ratelimit: burst: must be ≥ 1, got %d", burst)
	}
	if int64(interval) > math.MaxInt64/int64(burst) {
		return nil, fmt.Errorf("ratelimit: burst: burst × interval (%v) overflows time.Duration, got %d", interval, burst)
	}
	return &TokenBucket{
		interval: interval,
		burst:    burst,
		capacity: interval * time.Duration(burst),
	}, nil
}

// Interval returns the emission interval T: the time to refill one token.
// It is 0 for the zero TokenBucket.
func (b *TokenBucket) Interval() time.Duration { return b.interval }

// Burst returns the bucket size in tokens: the most tokens one request, or
// a burst of requests at one instant, can take. It is 0 for the zero
// TokenBucket.
func (b *TokenBucket) Burst() int { return b.burst }

// Rate returns the effective refill rate in tokens per second,
// 1e9/Interval(). It is 0 for the zero TokenBucket.
func (b *TokenBucket) Rate() float64 {
	if b.interval == 0 {
		return 0
	}
	return float64(time.Second) / float64(b.interval)
}

// AllowAt reports whether n tokens are available at now, and takes them if
// so. If not, it takes nothing. Use it to drop or skip events that exceed
// the rate; use [TokenBucket.ReserveWithinAt] to wait for tokens instead.
//
// AllowAt(now, 0) reports whether no earlier reservation is still waiting
// for its tokens at now. It panics if n is negative.
func (b *TokenBucket) AllowAt(now time.Duration, n int) bool {
	_, ok := b.reserve(now, n, 0)
	return ok
}

// ReserveAt takes n tokens and returns how long the caller must wait from
// now before they are its, that is before it may act (0 if it may act now).
// The tokens are taken whether or not the caller waits; they cannot be
// returned. If n exceeds the burst (or b is the zero TokenBucket), no wait
// is long enough: ReserveAt takes nothing and returns [InfDuration]. It
// panics if n is negative.
func (b *TokenBucket) ReserveAt(now time.Duration, n int) (wait time.Duration) {
	wait, _ = b.reserve(now, n, InfDuration)
	return wait
}

// ReserveWithinAt takes n tokens only if the caller would have to wait at
// most maxWait for them, and reports whether it did. The wait is returned in
// both cases: when ok is false it is the wait that would have been needed
// ([InfDuration] if n exceeds the burst), and nothing is taken.
//
// Pass the caller's remaining time as maxWait, so that a wait that would run
// past its deadline is refused up front instead of timing out later, as
// golang.org/x/time/rate's Wait does with a context deadline. A wait exactly
// equal to maxWait is accepted; a negative maxWait accepts nothing.
// ReserveWithinAt(now, n, 0) is AllowAt(now, n). It panics if n is negative.
func (b *TokenBucket) ReserveWithinAt(now time.Duration, n int, maxWait time.Duration) (wait time.Duration, ok bool) {
	return b.reserve(now, n, maxWait)
}

// reserve is the one mutating path: it takes n tokens at now if the wait is
// at most maxWait.
func (b *TokenBucket) reserve(now time.Duration, n int, maxWait time.Duration) (time.Duration, bool) {
	if n < 0 {
		panic("ratelimit: TokenBucket: negative token count")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.interval == 0 {
		return InfDuration, false
	}
	tat := b.tatAt(now)
	b.tat, b.last, b.started = tat, now, true
	if n > b.burst {
		return InfDuration, false
	}
	newTat := tat + time.Duration(n)*b.interval
	// The request conforms at the first instant t with newTat − t ≤ capacity.
	wait := max(0, newTat-b.capacity-now)
	if wait > maxWait {
		return wait, false
	}
	b.tat = newTat
	return wait, true
}

// tatAt returns the theoretical arrival time as seen from now, never before
// now, without changing b. A now before b.last (time went backwards) keeps
// the pending debt tat − last, so the token count is that of b.last.
// It requires b.mu to be held.
func (b *TokenBucket) tatAt(now time.Duration) time.Duration {
	if !b.started {
		return now
	}
	if now < b.last {
		return now + (b.tat - b.last)
	}
	return max(b.tat, now)
}

// TokensAt returns the number of tokens available at now, without taking
// any. It is Burst() for a bucket that has refilled, and negative when
// reservations made with ReserveAt are still waiting for their tokens.
// It does not change the bucket: in particular a now earlier than a previous
// call is only looked at, not remembered. It is 0 for the zero TokenBucket.
func (b *TokenBucket) TokensAt(now time.Duration) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.interval == 0 {
		return 0
	}
	debt := b.tatAt(now) - now // ≥ 0: the time to refill completely
	whole := int64(debt / b.interval)
	frac := float64(debt%b.interval) / float64(b.interval)
	return float64(int64(b.burst)-whole) - frac
}

// NextAt returns the earliest instant, no earlier than now, at which one
// token is available (so AllowAt(NextAt(now), 1) would succeed if nothing
// else happened in between). It does not change the bucket. It returns
// [InfDuration] for the zero TokenBucket.
func (b *TokenBucket) NextAt(now time.Duration) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.interval == 0 {
		return InfDuration
	}
	return max(now, b.tatAt(now)+b.interval-b.capacity)
}
