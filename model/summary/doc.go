// Package summary pools the results of a scenario's replications
// (system.Result) into a Summary: the figures a reader of the simulation
// sees (success rate, latency and wait percentiles, Little's law, attempts,
// per-step and per-tool blocks, the p99 tail's stages, cost, recovery after
// outages), their Student-t confidence intervals over replications, and the
// warnings without which they would be misread. An Accumulator pools the
// replications one at a time as they complete, so that memory holds the
// pooled figures and not every replication; Summarize is an Accumulator fed
// a whole slice. A Summary is data: renderers format it at the edge.
package summary
