// Package stats holds the streaming statistics the simulator records while it
// runs: a log-linear quantile histogram ([Histogram]), the time average of a
// piecewise-constant level ([TimeWeighted], for Little's law), a Welford
// running mean and variance ([Running]), Student t confidence intervals over
// replications ([MeanCI], [Interval]) and MSER-5 warm-up truncation
// ([MSER5]).
//
// Every accumulator keeps all of its state in one value and reads no clock:
// times are passed in as time.Duration instants of a virtual monotonic clock
// (only differences matter). There is no package-level mutable state, so
// replications can run in parallel goroutines, each with its own
// accumulators, and be combined afterwards with the Merge methods. No type in
// this package is safe for concurrent use by several goroutines.
//
// The hot-path methods (Histogram.Add, TimeWeighted.Set, Running.Add, ...)
// do not allocate.
//
// The package imports no other budgetsim package.
package stats
