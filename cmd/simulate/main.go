// Command simulate runs budgetsim scenarios: capacity, latency percentiles,
// outcomes, retries and Little's law for systems that call flaky,
// rate-limited backends under one deadline per run.
//
// Usage:
//
//	simulate run SCENARIO [flags]        simulate a scenario (a path or a bundled name)
//	simulate validate [flags]            compare the simulator with queueing theory
//	simulate list                        list the bundled scenarios
//
// Run "simulate help" or "simulate COMMAND -h" for the flags.
package main

import (
	"os"
)

func main() { os.Exit(exitCode(run(os.Stdout, os.Stderr, os.Args[1:]), os.Stderr)) }
