#!/usr/bin/env bash
# scripts/pgo.sh: regenerate cmd/simulate/default.pgo, the CPU profile that
# `go build`, `go run` and `go install` use for profile-guided optimisation
# of the simulate binary (-pgo=auto, Go ≥ 1.21: inlining and devirtualising
# what the profile says is hot).
#
# The profile comes from the system model's benchmarks, 2 s each, so every
# kind of scenario weighs alike: M/M/c (1 M runs, and 2100-run replications
# as sweeps run them), the seed plan under load, the retry storm and the
# agent fleet, and M/M/c again using a spare core (draws made ahead on a
# goroutine of their own), as a single `simulate run` on two cores does. Regenerate it after a change
# that moves the hot path; a stale profile only costs speed, never
# correctness (outputs do not depend on
# it: internal/fpcheck and the golden tests build with it).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -run XXX -bench 'BenchmarkMMc$|BenchmarkMMcSpareCore$|BenchmarkSmallReplication$|BenchmarkSeedPlanLoad$|BenchmarkRetryStorm$|BenchmarkAgentFleet$' \
	-benchtime 2s -cpuprofile "$tmp/cpu.prof" -o "$tmp/system.test" ./model/system/ >&2
# Re-encode without the test binary's path (pprof's proto is gzipped and
# self-contained: function names and line numbers are all PGO reads).
go tool pprof -proto "$tmp/cpu.prof" >"$tmp/default.pgo" 2>/dev/null
mv "$tmp/default.pgo" cmd/simulate/default.pgo
ls -l cmd/simulate/default.pgo >&2
