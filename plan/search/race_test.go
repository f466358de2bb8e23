//go:build race

package search_test

// raceEnabled reports whether the race detector is on: it slows the
// simulator about twentyfold, so the statistical end-to-end test is
// skipped under it (TestSimulatorReusesReplications still runs the
// parallel code under the detector).
const raceEnabled = true
