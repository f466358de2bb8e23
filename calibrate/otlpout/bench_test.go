package otlpout_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/calibrate"
	"github.com/budgetsim/budgetsim/calibrate/observe"
	"github.com/budgetsim/budgetsim/calibrate/otlpout"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// BenchmarkCalibrateLoopTrace calibrates an exported agent-loop trace of
// about 300,000 spans (25,000 runs): reading, the loop fit, the arrivals'
// fit and the scenario, without the replay. It reports the spans per
// second and the heap in use after the fit.
func BenchmarkCalibrateLoopTrace(b *testing.B) {
	sc, err := scenarios.Parse("loopgen.yaml", []byte(strings.Replace(loopGenerating, "runs: 3000", "runs: 25000", 1)), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	w := otlpout.New(&buf, sc.Config, "loopgen")
	system.New(sc.Config, system.Options{Tracer: w, TraceRuns: math.MaxInt64}).Run()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "loop.otlp.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	buf = bytes.Buffer{}
	b.ResetTimer()
	var spans int64
	for range b.N {
		r, err := calibrate.Calibrate([]string{path}, calibrate.Options{Observe: observe.Options{Seed: 1}})
		if err != nil {
			b.Fatal(err)
		}
		_ = r.Scenario("bench")
		spans = r.Obs.Spans
	}
	b.StopTimer()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(spans)*float64(b.N)/b.Elapsed().Seconds(), "spans/s")
	b.ReportMetric(float64(spans), "spans")
	b.ReportMetric(float64(ms.HeapInuse), "heap-bytes")
}
