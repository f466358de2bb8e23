package collectorcheck

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/budgetsim/budgetsim/calibrate"
	"github.com/budgetsim/budgetsim/calibrate/fitting"
	"github.com/budgetsim/budgetsim/calibrate/ingest"
	"github.com/budgetsim/budgetsim/calibrate/internal/synth"
	"github.com/budgetsim/budgetsim/calibrate/observe"
)

// widen scales a reported 95% interval (±1.96 standard errors) to ±4
// standard errors, so that a correct estimator misses the truth with
// probability about 6e-5 rather than 5% per check.
const widen = 4 / 1.96

// within checks that want lies within the reported interval of est,
// widened on the side of want.
func within(t *testing.T, what string, est float64, ci fitting.Interval, want float64) {
	t.Helper()
	lo, hi := est-widen*(est-ci.Lo), est+widen*(ci.Hi-est)
	if !(lo <= want && want <= hi) {
		t.Errorf("%s = %.5g, 95%% interval [%.5g, %.5g] (±4 se: [%.5g, %.5g]): misses the generating %g", what, est, ci.Lo, ci.Hi, lo, hi, want)
	}
}

// writeWithFileExporter hands each batch of the trace (one OTLP JSON
// export request a line) to the collector's file exporter, configured as
// a collector configuration `file: {path: PATH}` configures it, and
// returns the number of batches and of spans it was given.
func writeWithFileExporter(t *testing.T, batches []byte, path string) (n, spans int) {
	t.Helper()
	f := fileexporter.NewFactory()
	cfg := f.CreateDefaultConfig()
	if err := confmap.NewFromStringMap(map[string]any{"path": path}).Unmarshal(cfg); err != nil {
		t.Fatal(err)
	}
	// The defaults calibrate relies on: OTLP JSON, one export request a
	// line, in one file (no rotation, no compression).
	c := cfg.(*fileexporter.Config)
	if c.FormatType != "json" || c.Rotation != nil || c.Compression != "" || c.Append || c.GroupBy.Enabled {
		t.Fatalf("file exporter defaults changed: %+v", c)
	}
	if err := componenttest.CheckConfigStruct(cfg); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	exp, err := f.CreateTraces(ctx, exportertest.NewNopSettings(f.Type()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.Start(ctx, componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(batches))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if err := exp.ConsumeTraces(ctx, td); err != nil {
			t.Fatal(err)
		}
		n++
		spans += td.SpanCount()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := exp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	return n, spans
}

// A trace made by the OpenTelemetry Go SDK from known parameters
// (synth.Default: Poisson arrivals at 2/s, a lognormal search tool of
// median 300 ms with 5% 429s carrying a 2 s Retry-After and 2% 503s, a
// model with a lognormal time to first token of median 400 ms and 20 ms
// per output token), written by the collector's file exporter, gives
// those parameters back within the intervals calibrate reports.
func TestCalibrateReadsFileExporterOutput(t *testing.T) {
	const runs = 3000
	a := synth.Default(runs, 17)
	// The SDK's batches, exported over OTLP/HTTP and decoded with pdata.
	batches, _, err := synth.Trace(a)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "traces.json")
	n, spans := writeWithFileExporter(t, batches, path)

	// The exporter wrote one line per batch it was given.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(data, []byte("\n")); lines != n || n == 0 {
		t.Fatalf("the file exporter wrote %d lines for %d batches", lines, n)
	}
	// calibrate's other tests and the bundled example trace
	// (scenarios/traces/agent.otlp.jsonl) are written by synth in what it
	// calls the file exporter's layout: the exporter writes exactly that.
	if !bytes.Equal(data, batches) {
		t.Errorf("the file exporter's output (%d bytes) differs from synth's layout (%d bytes)", len(data), len(batches))
	}

	r, err := calibrate.Calibrate([]string{path}, calibrate.Options{Observe: observe.Options{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	o := r.Obs
	if o.Spans != int64(spans) {
		t.Errorf("calibrate read %d spans of the %d given to the file exporter", o.Spans, spans)
	}
	if len(o.Runs) != runs || o.Partial != 0 || o.Skewed != 0 {
		t.Fatalf("%d runs (%d partial, %d skewed), want %d whole", len(o.Runs), o.Partial, o.Skewed, runs)
	}
	tool, model := r.Tool(synth.ToolName), r.Tool(synth.ModelName)
	if tool == nil || model == nil || len(r.Tools) != 2 {
		t.Fatalf("tools %v", r.Tools)
	}
	if m := r.Modal(); m.Text != "m1 → search → m1" || m.Share.K != runs {
		t.Errorf("most common sequence %q in %d runs, want m1 → search → m1 in all %d", m.Text, m.Share.K, runs)
	}

	// Search: lognormal latency of median 0.3 s, error rates per call.
	if tool.Latency.Family != "lognormal" {
		t.Errorf("search latency fitted as %s (%s), want lognormal", tool.Latency.Family, tool.Latency.Why)
	}
	within(t, "search latency p50", tool.Latency.P50.Value, tool.Latency.P50.CI, 0.3)
	within(t, "search 429 rate", tool.Errors[ingest.RateLimited].P, tool.Errors[ingest.RateLimited].CI, 0.05)
	within(t, "search 5xx rate", tool.Errors[ingest.ServerError].P, tool.Errors[ingest.ServerError].CI, 0.02)
	if ra := tool.RetryAfter; ra.Family != "constant" || ra.Params["value"] != 2 {
		t.Errorf("Retry-After fitted as %s %v, want constant 2", ra.Family, ra.Params)
	}

	// Model: lognormal time to first token of median 0.4 s, 20 ms per
	// output token, uniform token counts truncated to whole tokens
	// (means 1999.5 input, 249.5 output and cached).
	if !model.UseTTFT || model.TTFT.Family != "lognormal" {
		t.Errorf("model: UseTTFT %v, ttft %s (%s)", model.UseTTFT, model.TTFT.Family, model.TTFT.Why)
	}
	within(t, "ttft p50", model.TTFT.P50.Value, model.TTFT.P50.CI, 0.4)
	if pt := model.PerToken; pt.Family != "constant" || math.Abs(pt.Params["value"]-0.02) > 1e-6 {
		t.Errorf("per-token time fitted as %s %v, want constant 0.02", pt.Family, pt.Params)
	}
	within(t, "input tokens mean", model.Input.Mean.Value, model.Input.Mean.CI, 1999.5)
	within(t, "output tokens mean", model.Output.Mean.Value, model.Output.Mean.CI, 249.5)
	within(t, "cached tokens mean", model.Cached.Mean.Value, model.Cached.Mean.CI, 249.5)

	// Arrivals: Poisson at 2/s.
	within(t, "arrival rate", r.Arrivals.Rate.Value, r.Arrivals.Rate.CI, 2)
	if r.Arrivals.Process != "poisson" {
		t.Errorf("arrivals fitted as %s (%s), want poisson", r.Arrivals.Process, r.Arrivals.Why)
	}
}
