package system_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/budgetsim/budgetsim/internal/scenariotest"
	"github.com/budgetsim/budgetsim/model/system"
)

// TestFallbackWaitsForItsOwnToken: a call refused after it waited for its
// tool's client-side token (here by the tool's adaptive concurrency limit,
// which rejects) falls back to a tool whose own client-side limit it must
// wait for too: the backup's calls may not outpace its bucket.
func TestFallbackWaitsForItsOwnToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fallback-wait.yaml")
	err := os.WriteFile(path, []byte(`name: fallback-wait
runs: 400
arrivals: {rate: 20/s}
workers: 1000
queue: {capacity: 0}
deadline: 10m
steps:
  - name: ask
    tool: primary
    fallback: backup
tools:
  primary:
    latency: {dist: constant, value: 1s}
    rate_limit: {rate: 10/s, enforce: client}
    adaptive_concurrency: {algorithm: aimd, initial: 1, min: 1, max: 1, on_limit: reject}
  backup:
    latency: {dist: constant, value: 10ms}
    rate_limit: {rate: 4/s, enforce: client}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cfg := scenariotest.Config(t, path)
	res := system.New(cfg, system.Options{}).Run()
	backup := res.Tools[1]
	if backup.Calls < 300 {
		t.Fatalf("backup calls = %d: want most of the 400 runs refused by the primary's limit of 1", backup.Calls)
	}
	// The backup's calls cannot start faster than 4/s after its first:
	// n calls take at least (n-1)/4 s, and the last run ends after them.
	if got, want := res.End.Seconds(), float64(backup.Calls-1)/4; got < want {
		t.Errorf("the last call ended at %.1fs: the backup's %d calls outpaced its 4/s client-side limit (at least %.1fs)", got, backup.Calls, want)
	}
}
