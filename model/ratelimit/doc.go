// Package ratelimit provides admission policies that bound how fast and how
// many calls may be in flight: a token bucket ([TokenBucket]), a counting
// semaphore ([Concurrency]), and the per-minute request and token limits
// that model APIs are sold with ([TokenLimiter]: tokens reserved before a
// call, corrected by its actual usage after it).
//
// Time is an argument. Every method that depends on time takes now, an
// instant on a monotonic clock expressed as a [time.Duration] whose origin is
// arbitrary: only differences between instants are meaningful. The same code
// therefore runs on a simulator's virtual clock and on the real clock, where
// a caller passes time.Since(start) for some fixed start.
//
// Arithmetic is exact integer nanoseconds. A [TokenBucket] is implemented as
// the generic cell rate algorithm (GCRA, ITU-T I.371 / ATM Forum TM 4.0), which
// keeps one instant of state instead of a fractional token count, so a
// simulation gives the same admissions on every platform, and the refill
// boundaries fall on exact nanoseconds.
//
// The package imports nothing else from budgetsim: it is plain policy code
// that a production agent can run unchanged.
package ratelimit
