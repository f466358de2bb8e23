// Package charts draws budgetsim's results for design reviews with
// gonum/plot: completion-time CDFs, the p99 knee of a sweep, runs in the
// system against Little's law, attempt rates (the retry-storm picture),
// tool utilisation, one run's timeline from a trace, and where the p99
// run's time went.
//
// It draws the files `simulate --out DIR` writes, as internal/outputs
// reads them (ReadDir gathers a directory's; a trace is read here, by
// ReadTrace), and builds one Chart per figure. It depends on no planning
// package: a plan's objectives reach it parsed (ReadDir's objective).
// A Chart is a gonum plot plus a title, a legend and footnotes drawn
// outside the data area; Render writes it as PNG (150 DPI) or SVG, and
// WriteFiles writes files atomically, so a failure (a gonum/plot panic on
// bad data included) never leaves a truncated file.
//
// House style: Liberation Sans (compiled in; no system fonts needed),
// the Okabe–Ito colour-blind-safe palette, tick labels with units ("100ms",
// "1s", "99.9%"), log axes that never receive a value ≤ 0 (filtered or
// clamped first, with a footnote), and footnotes for every approximation.
// Output is byte-identical for identical input. A chart whose input holds
// nothing to draw returns an error wrapping ErrNoData.
package charts

import "errors"

// ErrNoData is wrapped by the chart functions when their input holds
// nothing to draw (no completed run, every bin empty): a caller drawing
// every chart it can skips that one instead of failing.
var ErrNoData = errors.New("no data to draw")
