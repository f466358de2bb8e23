package recommend

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/latencylog"
)

// TestFromLogFileBoundsMemory: a log within maxSamples gives exactly what
// FromLog gives for its samples; a longer one is recommended from a
// histogram of every sample, whose percentiles agree with the exact ones
// within the histogram's relative error (1/256), and a warning says so.
func TestFromLogFileBoundsMemory(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "%dms\n", 10+(i*37)%90)
	}
	path := filepath.Join(t.TempDir(), "log.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	exact, err := FromLogFile(path, latencylog.Options{}, 1000, Options{})
	if err != nil {
		t.Fatal(err)
	}
	log, err := latencylog.ReadFile(path, latencylog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := FromLog(log, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := mustJSON(t, exact), mustJSON(t, want); g != w {
		t.Errorf("within maxSamples: FromLogFile gave\n%s\nFromLog\n%s", g, w)
	}

	sketch, err := FromLogFile(path, latencylog.Options{}, 100, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sketch.Samples != 1000 || sketch.Estimator != EstimatorHistogram || sketch.File != path {
		t.Errorf("past maxSamples: %d samples, estimator %q, file %q; want 1000, the histogram's, %q", sketch.Samples, sketch.Estimator, sketch.File, path)
	}
	for _, p := range [][2]float64{{sketch.P50, exact.P50}, {sketch.P99, exact.P99}, {sketch.Max, exact.Max}} {
		if math.Abs(p[0]-p[1]) > p[1]/256 {
			t.Errorf("histogram percentile %v, exact %v: more than 1/256 apart", p[0], p[1])
		}
	}
	if w := sketch.Warnings; len(w) == 0 || !strings.Contains(w[len(w)-1], "1000 samples, more than --max-samples 100") {
		t.Errorf("past maxSamples: warnings %q name neither the count nor the limit", w)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
