package calibrate_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/budgetsim/budgetsim/calibrate"
	"github.com/budgetsim/budgetsim/calibrate/observe"
)

// Whatever a call log holds, a calibration either fails with an error or
// gives a scenario that the loader reads: a loop, a sequence, arrivals of
// any kind, empirical files.
func FuzzScenarioLoads(f *testing.F) {
	f.Add([]byte(`{"run": "r1", "tool": "m", "op": "chat", "start": 1, "end": 2, "input_tokens": 5000, "output_tokens": 10, "cached_tokens": 4000}
{"run": "r1", "tool": "s", "start": 2, "end": 3, "status": 200}
{"run": "r1", "tool": "m", "op": "chat", "start": 3, "end": 4, "input_tokens": 5200, "output_tokens": 20, "cached_tokens": 5010}
{"run": "r2", "tool": "m", "op": "chat", "start": 5, "end": 6, "input_tokens": 4500, "output_tokens": 10, "cached_tokens": 4000}
{"run": "r3", "tool": "m", "op": "chat", "start": 5.5, "end": 6, "input_tokens": 4500, "output_tokens": 10, "cached_tokens": 0, "ttft_s": 0.2}
{"run": "r3", "tool": "s", "start": 6, "end": 6.5, "status": 429, "retry_after_s": 1}
{"run": "r3", "tool": "s", "start": 6.6, "end": 7, "status": 200}
{"run": "r3", "tool": "t", "start": 6.6, "end": 7, "status": "error", "error_type": "TimeoutError"}
`))
	f.Add([]byte(`{"run": 1, "tool": "a", "start": 0, "end": 0.5}
{"run": 2, "tool": "a", "start": 0.1, "end": 0.5}
{"run": 3, "tool": "a", "start": 9, "end": 9.5, "status": 503}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "calls.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := calibrate.Calibrate([]string{path}, calibrate.Options{Observe: observe.Options{Seed: 1, MaxSamples: 200}})
		if err != nil {
			return
		}
		sc := r.Scenario("fuzz")
		if _, err := sc.Load("fuzz.yaml"); err != nil {
			t.Fatalf("the calibrated scenario does not load: %v\n%s", err, sc.YAML)
		}
	})
}
