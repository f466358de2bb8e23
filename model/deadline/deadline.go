// Package deadline gives a run one deadline, fixed once on a monotonic clock,
// and leases every per-attempt timeout and backoff sleep out of what remains
// of it.
//
// # Instants
//
// An instant is a time.Duration on a monotonic clock whose origin is
// arbitrary: only differences between two instants mean anything. In the
// simulator it is virtual time; in production it is time.Since(origin) for an
// origin read once at start-up:
//
//	origin := time.Now()
//	now := func() time.Duration { return time.Since(origin) }
//	d := deadline.After(now(), 2*time.Second).WithFloor(20 * time.Millisecond)
//
// The package never reads a clock: every method takes now.
//
// # Leases
//
// A Deadline is a value: one instant that is never extended, a floor (time
// reserved at the end to record the outcome and return a partial answer) and
// a minimum lease (the shortest timeout worth dialing). Each attempt gets
//
//	lease = min(ceiling, remaining − floor)
//
// and is refused locally, before dialing, when remaining − floor ≤ 0 or
// remaining − floor < min lease. A backoff or Retry-After sleep may start only
// if the lease available after it would not be refused (FitsSleep).
//
// # Across a process boundary
//
// An instant means nothing outside the process that read it, so a deadline
// travels as a duration: the sender sends what remains (usually the lease it
// granted the call), the receiver turns it back into its own instant with
// FromWire. FormatMillis/ParseMillis encode a header value in milliseconds
// (HeaderRemaining); FormatGRPCTimeout/ParseGRPCTimeout encode gRPC's
// grpc-timeout header.
//
// Everything here is a value or a pure function, safe for concurrent use.
package deadline

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Unlimited is what Remaining and Lease return when there is no deadline and
// no ceiling: the largest time.Duration (about 292 years). Compare against it
// rather than adding to it.
const Unlimited time.Duration = math.MaxInt64

// ErrRefused is matched (errors.Is) by every *RefusedError.
var ErrRefused = errors.New("deadline: lease refused")

// RefusedError reports a lease refused locally, before dialing, because too
// little of the deadline remains. All fields are durations.
type RefusedError struct {
	// Remaining is deadline − now when the lease was asked for (may be ≤ 0).
	Remaining time.Duration
	// Floor and MinLease are the deadline's settings.
	Floor, MinLease time.Duration
	// Need is the smallest remaining that would have been granted a lease:
	// Floor + max(MinLease, 1ns).
	Need time.Duration
}

// Error implements error.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("deadline: lease refused: %v remaining, need at least %v (floor %v, min lease %v)",
		e.Remaining, e.Need, e.Floor, e.MinLease)
}

// Is reports whether target is ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Deadline is one instant on a monotonic clock plus the floor and minimum
// lease that every lease out of it respects. The zero value is no deadline,
// no floor and no minimum lease: Remaining returns Unlimited and Lease never
// refuses. A Deadline is an immutable value; the With methods return copies.
type Deadline struct {
	at       time.Duration
	floor    time.Duration
	minLease time.Duration
	set      bool
}

// After returns the deadline budget after now (an instant: now + budget,
// saturating at the largest instant). It is the only place a relative budget
// becomes an absolute instant, like context.WithTimeout.
func After(now, budget time.Duration) Deadline {
	return Deadline{at: add(now, budget), set: true}
}

// At returns the deadline at the given instant.
func At(instant time.Duration) Deadline {
	return Deadline{at: instant, set: true}
}

// None returns no deadline; it equals the zero Deadline.
func None() Deadline { return Deadline{} }

// FromWire converts a remaining duration received from another process into
// a deadline on the receiver's clock: now + remaining − transit, where now is
// the receiver's instant on arrival and transit an allowance for the time the
// message spent in flight (0 if unknown). A negative remaining counts as 0,
// so the result is already expired. The result has no floor or minimum
// lease: those are the receiver's own choice (chain WithFloor).
func FromWire(now, remaining, transit time.Duration) Deadline {
	remaining = max(remaining, 0)
	transit = max(transit, 0)
	return At(add(now, remaining-transit))
}

// WithFloor returns a copy of d that reserves floor at its end: every lease
// is at most remaining − floor and refused when that is ≤ 0. It panics if
// floor is negative (a programmer mistake; validate configuration first).
func (d Deadline) WithFloor(floor time.Duration) Deadline {
	if floor < 0 {
		panic(fmt.Sprintf("deadline: WithFloor(%v): floor must be ≥ 0", floor))
	}
	d.floor = floor
	return d
}

// WithMinLease returns a copy of d that refuses any lease shorter than m:
// the smallest timeout worth dialing (the "minimum call" window). A lease of
// exactly m is granted. It panics if m is negative.
func (d Deadline) WithMinLease(m time.Duration) Deadline {
	if m < 0 {
		panic(fmt.Sprintf("deadline: WithMinLease(%v): min lease must be ≥ 0", m))
	}
	d.minLease = m
	return d
}

// Within returns d bounded by parent, like context.WithDeadline: the instant
// is the earlier of the two (a child never ends later than its parent), and
// the floor and minimum lease are the larger of the two. So the result never
// grants a lease that either would refuse, and never a longer one.
func (d Deadline) Within(parent Deadline) Deadline {
	out := d
	switch {
	case !parent.set:
	case !d.set || parent.at < d.at:
		out.at, out.set = parent.at, true
	}
	out.floor = max(d.floor, parent.floor)
	out.minLease = max(d.minLease, parent.minLease)
	return out
}

// Instant returns the deadline's instant and true, or 0 and false when there
// is no deadline (the shape of context.Context.Deadline).
func (d Deadline) Instant() (time.Duration, bool) { return d.at, d.set }

// Floor returns the time reserved at the end of the deadline.
func (d Deadline) Floor() time.Duration { return d.floor }

// MinLease returns the shortest lease the deadline grants.
func (d Deadline) MinLease() time.Duration { return d.minLease }

// Remaining returns deadline − now, negative once the deadline has passed,
// or Unlimited when there is no deadline. It ignores the floor.
func (d Deadline) Remaining(now time.Duration) time.Duration {
	if !d.set {
		return Unlimited
	}
	return sub(d.at, now)
}

// Expired reports whether the deadline has been reached: now ≥ the instant.
// It ignores the floor; a deadline can refuse every lease (see Lease) before
// it expires. It is false when there is no deadline.
func (d Deadline) Expired(now time.Duration) bool {
	return d.set && now >= d.at
}

// TryLease is Lease without the error value, for hot paths: it returns the
// lease and true, or 0 and false when Lease would refuse. It never allocates.
func (d Deadline) TryLease(now, ceiling time.Duration) (time.Duration, bool) {
	if ceiling <= 0 {
		ceiling = Unlimited
	}
	if !d.set {
		return ceiling, true
	}
	avail := sub(sub(d.at, now), d.floor)
	if avail <= 0 || avail < d.minLease {
		return 0, false
	}
	return min(ceiling, avail), true
}

// Lease returns the timeout to grant an attempt starting at now:
// min(ceiling, remaining − floor). A ceiling ≤ 0 means no ceiling. It refuses,
// with a *RefusedError matching ErrRefused, when remaining − floor ≤ 0 or is
// below the minimum lease: such a call cannot finish and would still take a
// connection and a rate-limit slot (and, on metered APIs, may be charged).
// With no deadline it returns the ceiling, or Unlimited if there is none.
// The refusal path allocates its error; TryLease does not.
func (d Deadline) Lease(now, ceiling time.Duration) (time.Duration, error) {
	lease, ok := d.TryLease(now, ceiling)
	if !ok {
		return 0, &RefusedError{
			Remaining: d.Remaining(now),
			Floor:     d.floor,
			MinLease:  d.minLease,
			Need:      add(d.floor, max(d.minLease, 1)),
		}
	}
	return lease, nil
}

// FitsSleep reports whether a sleep of the given length may start at now: it
// may only if the lease available when it ends would not be refused, i.e.
// remaining − sleep − floor > 0 and ≥ the minimum lease. A sleep is spending,
// so a backoff or Retry-After that fails this check means give up now, while
// there is still time to report. A negative sleep counts as 0; with no
// deadline every sleep fits.
func (d Deadline) FitsSleep(now, sleep time.Duration) bool {
	_, ok := d.TryLease(add(now, max(sleep, 0)), 0)
	return ok
}

// Propagate returns what remains of the deadline at now as a duration to
// send across a process boundary, clamped at 0, and true; or 0 and false when
// there is no deadline (send nothing). It ignores the floor, which is the
// sender's own reserve. When the value goes with a call, the lease granted to
// that call is usually the better value to send: it already subtracts the
// floor and respects the ceiling.
func (d Deadline) Propagate(now time.Duration) (time.Duration, bool) {
	if !d.set {
		return 0, false
	}
	return max(d.Remaining(now), 0), true
}

// String describes d for logs, e.g. "deadline at 2s (floor 20ms, min lease 0s)"
// or "no deadline".
func (d Deadline) String() string {
	if !d.set {
		return "no deadline"
	}
	return fmt.Sprintf("deadline at %v (floor %v, min lease %v)", d.at, d.floor, d.minLease)
}

// add returns a + b, saturating at the int64 limits instead of wrapping.
func add(a, b time.Duration) time.Duration {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// sub returns a − b, saturating at the int64 limits instead of wrapping.
func sub(a, b time.Duration) time.Duration {
	s := a - b
	switch {
	case b < 0 && s < a:
		return math.MaxInt64
	case b > 0 && s > a:
		return math.MinInt64
	}
	return s
}
