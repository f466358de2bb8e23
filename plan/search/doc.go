// Package search answers capacity questions by simulation — the machinery
// behind "simulate plan": the smallest value of a scenario key (workers,
// queue.capacity, tools.NAME.concurrency, tools.NAME.rate_limit.rate, …)
// at which every service-level objective holds.
//
// Objectives (SLO, parsed by ParseSLO from "p99<=2s", "wait_p99<=500ms",
// "success>=0.99") are checked against Student-t confidence intervals over
// replications, never against a point estimate alone: a probe passes when
// the whole interval is on the good side of every threshold, fails when an
// interval is wholly on the bad side, and otherwise is re-run with twice the
// replications until it clears or a cap is reached (then it is marked
// unresolved). The answer is the smallest value whose intervals clear
// every threshold; a value whose offered load exceeds a capacity (an
// unstable system, where every run "succeeds" eventually), whose
// simulations a guard stopped, or that left runs in flight is never the
// answer, whatever its figures (Probe.NotAnAnswer). Search bisects (from an analytic start when AnalyticStart
// recognises an M/M/c queue) and reports every probe, so the p99-versus-
// parameter knee can be drawn, and a Confidence statement: the deciding
// interval at the answer and just below it.
//
// Simulator is the Prober that runs the scenario; tests can pass any
// function. WriteTable writes an Answer as "simulate plan" prints it, and
// Answer.Rows gives its probes as sweep.csv rows.
package search
