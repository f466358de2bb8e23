// Package report writes the review report of a simulated scenario: one
// self-contained HTML file with the scenario, the summary tables, the
// recommended timeouts and deadline, the warnings as footnotes, and the
// charts of internal/charts as inline SVG.
//
// The report is a model first ([New] builds a [Report]: tables as rows of
// strings, charts as SVG bytes) and HTML second ([Report.WriteHTML]), so
// that another renderer can reuse the model. [Simulate] runs the
// replications a report needs, tracing replication 0 with [SlowestRun].
//
// The page loads nothing: no script, no stylesheet, no font and no image
// from anywhere (a Content-Security-Policy of default-src 'none' says so
// to the browser), so it can be attached to a design review, mailed or
// archived and still render. The charts name Liberation Sans, then Arial,
// Helvetica and the browser's sans-serif, whose metrics match.
//
// Output is deterministic: the same scenario, seed and replications give
// byte-identical HTML. Nothing in it depends on the clock, the machine or
// the parallelism; the only date shown is one the caller supplies.
package report
