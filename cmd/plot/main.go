// Command plot draws charts for design reviews from the files that
// `simulate run|compare|sweep --out DIR` writes.
//
// Usage:
//
//	plot DIR [--out OUTDIR] [--format png,svg] [--slo OBJECTIVE …] [--trace FILE [--run N]]
//
// Those files and their columns are declared in internal/outputs
// (docs/outputs.md lists them). It renders every chart whose input exists in DIR into OUTDIR (default
// DIR) and prints the files written, one per line:
//
//	latency_cdf.csv               latency_cdf      completion-time CDF, p50/p99/p99.9 marked
//	series.csv (+ summary.json    in_system        runs in the system vs Little's λW
//	            or compare.json)  attempt_rate     attempts per second (retry storms)
//	sweep.csv                     sweep_latency    p99 with its interval vs the parameter
//	                              sweep_success    success rate vs the parameter
//	plan.json (simulate plan)     (on the two above) the objectives as lines, the answer marked
//	summary.json or compare.json  tail             where the p99 run's time went
//	tools.csv                     utilisation      per-tool utilisation over time
//	breakers.csv                  breakers         circuit breaker state over time
//	limits.csv                    concurrency_limit  adaptive concurrency limit over time
//	outages.csv                   (on the time series) outage windows shaded; the warm-up too
//	--trace FILE (JSONL)          timeline_run_N   one run: queue, attempts, leases, backoff, deadline
//
// --slo draws an objective (p99<=2s, success>=0.99) on a sweep's charts,
// as plan.json's are drawn. --run picks the traced run (default: the slowest run that did not
// complete, else the slowest). DIR may be left out
// when --trace is given; OUTDIR then defaults to the trace's directory.
// Files are written atomically. A chart with nothing to draw (no run
// completed, say) is skipped with a note on stderr. Malformed input is an
// error naming the file and line: exit status 1; a usage mistake exits 2.
package main

import "os"

func main() { os.Exit(exitCode(run(os.Stdout, os.Stderr, os.Args[1:]), os.Stderr)) }
