// Package arrival generates the arrival instants of an open workload: when
// runs enter the simulated system.
//
// A [Process] is an immutable description (Poisson, constant, a
// piecewise-constant rate schedule, a sinusoidal diurnal rate, a batch, or a
// replayed trace). The simulator asks it for one arrival at a time:
//
//	at, ok := p.Next(n, prev, r) // instant of arrival n, after arrival n−1 at prev
//
// and keeps the only state, the count n and the last instant prev, itself.
// That keeps every Process safe for concurrent use by parallel replications
// (each with its own *rand.Rand), and lets a replayed trace hold duplicate
// instants and a constant process place arrival n at exactly n+1 periods
// without accumulating rounding drift.
//
// # Time and randomness
//
// Instants are time.Duration values on the simulator's virtual clock, which
// starts at 0: exact integer nanoseconds. Rates are arrivals per second.
// Where a process computes a gap in float64 seconds (an exponential draw,
// 1/rate), the instant is rounded to the nearest nanosecond once; instants
// never decrease (Next(n, prev, r) ≥ prev), and an instant that would pass
// the largest time.Duration (about 292 years) ends the process (ok is
// false) instead of wrapping around.
//
// Randomness comes only from the *rand.Rand passed to Next. Poisson and
// Schedule draw exactly one uniform per arrival, by inverse transform, so
// under common random numbers the same stream of uniforms gives arrivals
// that move monotonically when a rate changes. Diurnal uses thinning and
// draws a variable number of uniforms (see [Diurnal]). Constant, Batch and
// Trace draw nothing.
//
// # Errors
//
// Constructors return a [*ParamError] naming the parameter and the bad value
// ("points[2].rate: must be ≥ 0, got -1"); [ReadTrace] returns a
// [*LineError] carrying the input's name and line ("trace.txt:7: ...").
// Calling Next with n < 0 is a programmer mistake and panics.
package arrival
