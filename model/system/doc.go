// Package system is budgetsim's model of an agent service: runs arrive,
// wait for a worker, and call tools step by step (a step may make several
// calls in parallel, or hedge one) under timeouts, retries with backoff, a
// run deadline, rate limits, budgets, caches, outages, circuit breakers,
// adaptive concurrency limits and token limits. It is
// the one simulation every command runs, from the textbook queues to a
// retry storm; it builds on the engine in package sim and on the policy
// packages (model/retry, model/backoff, model/breaker, model/adaptive,
// model/ratelimit, model/sched, …), which take the time as an argument
// and know nothing of the simulator.
//
// # Config, Model, Result
//
// A Config is a scenario in exact units (durations in nanoseconds, rates
// per second). The scenarios package builds it from YAML and checks it,
// reporting errors with file and line; New trusts it. New compiles the
// Config into a Model, Run simulates it once and returns a Result: outcome
// and attempt counts, latency and wait histograms, per-step and per-tool
// figures, the p99 tail's stages, cost, and a time series. A Model is
// used once and is not safe for concurrent use; Options select the
// replication, a tracer (Tracer, one record per attempt and per run) and
// an interrupt flag.
//
// # Plans
//
// New turns each tool and step into a plan (plan.go) that says what a
// call can run into: an outcome table that is empty when every call
// succeeds, the list of admission gates the tool declares, and tables for
// the cache, outages, scripts, contention and tokens. The handlers read
// the plan, not the Config, for everything that may or may not happen, so
// a feature a scenario does not use is a gate not in the list or an empty
// table, and every scenario takes the same handlers. A new admission rule
// is a gate: its admit, and its case in release.
//
// # Attempts
//
// A run's current call is an attempt with a named state (attempt.go):
// idle, waiting at an admission gate (a rate-limit token, token-limit
// capacity, an adaptive concurrency permit), backing off, in flight or
// hanging; it ends answered, timed out or turned away. Before it is
// dialed it passes its tool's admission gates (lifecycle.go), compiled
// from what the tool declares: circuit breaker, client rate limit, client
// token limits, adaptive limit, cost reservation. Each admits, makes the
// caller wait holding what it granted, or refuses; the attempt records
// what it holds, and one function, release, gives all of it back whatever
// ended the attempt: an answer, a timeout, a turn-away, a local refusal,
// or cancellation by its group or hedge. Every event that names a run
// slot carries the generation of the slot's attempt, and an attempt arms
// at most one timer: Run drops stale events before any handler sees them.
// When an attempt ends, the handler accounts for it (counters, cost,
// stage time), decides what follows with retry.Decide, the pure function
// a production client would run, and advances the run to its next step,
// a retry, a fallback or its end. The calls of a parallel or hedged step
// are member runs of a group (group.go) that take the same handlers and
// report to the group instead of going on. With Options.Audit the model
// checks its own bookkeeping as it runs (audit.go).
//
// # Determinism
//
// Every component draws from its own named stream (sim.Stream), and an
// attempt's draws are keyed by run, step and attempt, so a feature that
// is not configured draws nothing and moves no other component's numbers.
// The same Config, replication and seed give the same Result, bit for
// bit, on any GOMAXPROCS. With Options.SpareCore, an open workload's
// arrival instants and first draws are made ahead on an otherwise idle
// core (ahead.go, spare.go): the very values the simulation would draw,
// so only the wall time changes. Processing an event allocates nothing
// once the tables have grown; finished results hand their histograms and
// series back for reuse (Result.Recycle).
//
// # Elsewhere
//
// Pooling replications into the figures a reader sees, with confidence
// intervals and warnings, is package model/summary; running replications
// in parallel, in replication order, is model/replicate; a Result's
// encoding for sweep shard files is in plan/sweep; the run and request
// tables are internal/container's.
package system
