package otlpout_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/budgetsim/budgetsim/calibrate"
	"github.com/budgetsim/budgetsim/calibrate/ingest"
	"github.com/budgetsim/budgetsim/calibrate/observe"
	"github.com/budgetsim/budgetsim/calibrate/otlpout"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

const generating = `name: gen
seed: 7
runs: 4000
arrivals: {rate: 2/s}
workers: 200
retry:
  idempotent: true
  attempts: 3
  backoff: {base: 100ms, multiplier: 2, cap: 1s, jitter: full}
steps:
  - {name: search, tool: search}
  - {name: answer, tool: llm}
tools:
  search:
    latency: {dist: lognormal, median: 300ms, sigma: 0.5}
    errors: {rate_limited: 0.05, transient: 0.02}
  llm:
    latency: {dist: gamma, mean: 1200ms, cv: 0.4}
`

func within4(t *testing.T, what string, got, want, se float64) {
	t.Helper()
	if math.Abs(got-want) > 4*se {
		t.Errorf("%s = %.5g, want %.5g ± %.3g (4 standard errors)", what, got, want, 4*se)
	}
}

// simulate → export → calibrate recovers the generating scenario's
// parameters within their intervals, and the same simulation gives the
// same file.
func TestRoundTrip(t *testing.T) {
	sc, err := scenarios.Parse("gen.yaml", []byte(generating), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	export := func() []byte {
		var b bytes.Buffer
		w := otlpout.New(&b, sc.Config, "gen")
		system.New(sc.Config, system.Options{Tracer: w, TraceRuns: math.MaxInt64}).Run()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	data := export()
	if !bytes.Equal(data, export()) {
		t.Fatal("the same simulation exported two different files")
	}
	path := filepath.Join(t.TempDir(), "sim.otlp.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := calibrate.Calibrate([]string{path}, calibrate.Options{Observe: observe.Options{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.Obs.Runs); n != 4000 || r.Obs.Partial != 0 || r.Obs.Skewed != 0 {
		t.Fatalf("%d runs, %d partial, %d skewed", n, r.Obs.Partial, r.Obs.Skewed)
	}
	search := r.Tool("search")
	if search == nil || search.Latency.Family != "lognormal" {
		t.Fatalf("search: %+v", search)
	}
	n := float64(search.Latency.N)
	within4(t, "search sigma", search.Latency.Params["sigma"], 0.5, 0.5/math.Sqrt(2*n))
	within4(t, "search ln median", math.Log(search.Latency.Params["median"]), math.Log(0.3), 0.5/math.Sqrt(n))
	calls := float64(search.Calls)
	within4(t, "429 rate", search.Errors[ingest.RateLimited].P, 0.05, math.Sqrt(0.05*0.95/calls))
	within4(t, "5xx rate", search.Errors[ingest.ServerError].P, 0.02, math.Sqrt(0.02*0.98/calls))
	llm := r.Tool("llm")
	if llm == nil || llm.Latency.Family != "gamma" {
		t.Fatalf("llm fitted as %s (%s)", llm.Latency.Family, llm.Latency.Why)
	}
	m := float64(llm.Latency.N)
	within4(t, "llm mean", llm.Latency.Params["mean"], 1.2, 0.48/math.Sqrt(m))
	if a := r.Arrivals; !(a.Rate.CI.Lo < 2 && 2 < a.Rate.CI.Hi) || a.Process != "poisson" {
		t.Errorf("arrivals %s at %v %v (%s); want poisson at 2/s", a.Process, a.Rate.Value, a.Rate.CI, a.Why)
	}
	if seq := r.Modal(); seq.Text != "search → llm" || seq.Steps[0].Attempts != 3 {
		t.Errorf("modal sequence %q, attempts %d", seq.Text, seq.Steps[0].Attempts)
	}
	// The recovered scenario loads and runs.
	out := r.Scenario("recovered")
	if _, err := out.Load("recovered.yaml"); err != nil {
		t.Fatalf("%v\n%s", err, out.YAML)
	}
}
