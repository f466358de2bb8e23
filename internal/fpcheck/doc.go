// Package fpcheck holds a build-level test, TestNoFusedMultiplyAdd: the
// simulator's arithmetic must not depend on whether the compiler fuses a
// multiply and an add into one instruction.
//
// The Go specification lets a compiler fuse x*y + z into a fused
// multiply-add, rounding once instead of twice; Go does so on arm64, and on
// amd64 when built with GOAMD64=v3 or later. A fused result can differ in
// its last bit, and a last bit can move a latency by a nanosecond or a
// confidence bound in its last digit, so the same scenario and seed would
// print different numbers on different machines. Wrapping a product in an
// explicit float64() conversion forces its rounding and prevents the
// fusion (the specification's own remedy); the test finds every fused
// instruction the arm64 compiler emits for this module's code and fails on
// any not listed as harmless (a product by a power of two is exact, so
// fusing it changes nothing).
//
// Charts (internal/charts) are exempt: they place pixels, not numbers a
// reader compares. Code outside this module (Go's math package, gonum)
// is not checked; see docs/determinism.md.
//
// The cross-compilation takes minutes on a cold build cache, so the test
// runs only with BUDGETSIM_FPCHECK=1 (go test ./... skips it); CI runs it
// as a step of its own:
//
//	BUDGETSIM_FPCHECK=1 go test ./internal/fpcheck
package fpcheck
