package fitting_test

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/calibrate/fitting"
	"github.com/budgetsim/budgetsim/calibrate/ingest"
	"github.com/budgetsim/budgetsim/calibrate/internal/synth"
	"github.com/budgetsim/budgetsim/calibrate/observe"
	"github.com/budgetsim/budgetsim/model/arrival"
)

// within4 checks an estimate against the truth with a tolerance of four
// standard errors: a correct estimator fails it with probability about
// 6e-5.
func within4(t *testing.T, what string, got, want, se float64) {
	t.Helper()
	if math.Abs(got-want) > 4*se {
		t.Errorf("%s = %.5g, want %.5g ± %.3g (4 standard errors)", what, got, want, 4*se)
	}
}

// A trace produced by the OpenTelemetry Go SDK from known parameters,
// exported over OTLP/HTTP and written as the collector's file exporter
// writes it, gives those parameters back within their intervals.
func TestRecoverKnownAgent(t *testing.T) {
	const runs = 3000
	a := synth.Default(runs, 11)
	data, _, err := synth.Trace(a)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := observe.Observe([]string{path}, observe.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Runs) != runs || o.Partial != 0 || o.Skewed != 0 {
		t.Fatalf("%d runs (%d partial, %d skewed), want %d whole", len(o.Runs), o.Partial, o.Skewed, runs)
	}
	var tool, model *fitting.Tool
	for _, ot := range o.Tools {
		f := fitting.FitTool(ot)
		switch ot.Name {
		case synth.ToolName:
			tool = &f
		case synth.ModelName:
			model = &f
		}
	}
	if tool == nil || model == nil || len(o.Tools) != 2 {
		t.Fatalf("tools %v", o.Tools)
	}
	// Tool latency: lognormal(median 0.3, sigma 0.6). The MLE of sigma
	// has standard error sigma/√(2n), of ln median sigma/√n.
	lat := tool.Latency
	if lat.Family != "lognormal" {
		t.Fatalf("tool latency fitted as %s (%s), want lognormal", lat.Family, lat.Why)
	}
	n := float64(lat.N)
	within4(t, "tool sigma", lat.Params["sigma"], 0.6, 0.6/math.Sqrt(2*n))
	within4(t, "tool ln median", math.Log(lat.Params["median"]), math.Log(0.3), 0.6/math.Sqrt(n))
	// Error rates by class, over every call (binomial standard errors).
	calls := float64(tool.Calls)
	within4(t, "429 rate", tool.Errors[ingest.RateLimited].P, 0.05, math.Sqrt(0.05*0.95/calls))
	within4(t, "5xx rate", tool.Errors[ingest.ServerError].P, 0.02, math.Sqrt(0.02*0.98/calls))
	if r := tool.Errors[ingest.RateLimited]; !(r.CI.Lo < r.P && r.P < r.CI.Hi) {
		t.Errorf("Wilson interval %v does not hold its estimate %v", r.CI, r.P)
	}
	if ra := tool.RetryAfter; ra.Family != "constant" || ra.Params["value"] != 2 {
		t.Errorf("Retry-After fitted as %s %v, want constant 2", ra.Family, ra.Params)
	}
	// Model: ttft lognormal(0.4, 0.4), 20 ms per output token.
	if !model.UseTTFT || model.TTFT.Family != "lognormal" {
		t.Fatalf("model: UseTTFT %v, ttft %s (%s)", model.UseTTFT, model.TTFT.Family, model.TTFT.Why)
	}
	m := float64(model.TTFT.N)
	within4(t, "ttft sigma", model.TTFT.Params["sigma"], 0.4, 0.4/math.Sqrt(2*m))
	if pt := model.PerToken; pt.Family != "constant" || math.Abs(pt.Params["value"]-0.02) > 1e-6 {
		t.Errorf("per-token time fitted as %s %v, want constant 0.02", pt.Family, pt.Params)
	}
	// Tokens: uniform(1000, 3000) input (sd 577), uniform(50, 450) output
	// (whole tokens: the draw truncated, so mean 249.5).
	within4(t, "input mean", model.Input.Mean.Value, 1999.5, 577.4/math.Sqrt(m))
	within4(t, "output mean", model.Output.Mean.Value, 249.5, 115.5/math.Sqrt(m))
	within4(t, "cached mean", model.Cached.Mean.Value, 249.5, 144.3/math.Sqrt(m))
	// Every run follows model → tool → model.
	seqs := fitting.Sequences(o.Runs)
	if seqs[0].Text != "m1 → search → m1" || seqs[0].Share.K != runs {
		t.Errorf("sequences %+v", seqs[:min(len(seqs), 3)])
	}
	if seqs[0].Steps[1].Attempts != 3 {
		t.Errorf("most attempts at search: %d, want 3", seqs[0].Steps[1].Attempts)
	}
	// Arrivals: Poisson at 2/s.
	starts := make([]int64, len(o.Runs))
	for i, r := range o.Runs {
		starts[i] = r.Start
	}
	arr := fitting.FitArrivals(starts, 1, 50_000)
	if !(arr.Rate.CI.Lo < 2 && 2 < arr.Rate.CI.Hi) {
		t.Errorf("rate %v %v, want 2 inside", arr.Rate.Value, arr.Rate.CI)
	}
	if arr.Process != "poisson" {
		t.Errorf("process %s (%s), want poisson", arr.Process, arr.Why)
	}
}

// Bursty arrivals (hyperexponential gaps, CV ≈ 2.6) are recognised as such.
func TestRecoverBurstyArrivals(t *testing.T) {
	a := synth.Default(2000, 5)
	a.Interarrival = hyperexp(t)
	data, _, err := synth.Trace(a)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	os.WriteFile(path, data, 0o644)
	o, err := observe.Observe([]string{path}, observe.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	starts := make([]int64, len(o.Runs))
	for i, r := range o.Runs {
		starts[i] = r.Start
	}
	arr := fitting.FitArrivals(starts, 1, 50_000)
	if arr.Process != "renewal" || !(arr.CV.CI.Lo > 1) {
		t.Errorf("process %s, CV %v %v (%s); want renewal, CV > 1", arr.Process, arr.CV.Value, arr.CV.CI, arr.Why)
	}
	if want := hyperCV; !(arr.CV.CI.Lo < want && want < arr.CV.CI.Hi) {
		t.Errorf("CV interval %v does not hold the true %v", arr.CV.CI, want)
	}
}

// Arrivals from a known two-state MMPP (bursts at 20/s lasting 30 s on
// average, quiet spells at 1/s lasting 60 s) are described by an MMPP,
// not a renewal process, with the generating rates and sojourns within
// the fit's intervals.
func TestRecoverMMPP(t *testing.T) {
	p, err := arrival.MMPP([]arrival.State{{Rate: 20, Sojourn: 30 * time.Second}, {Rate: 1, Sojourn: 60 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p = arrival.Instance(p)
	rng := rand.New(rand.NewPCG(7, 9))
	starts := make([]int64, 40_000)
	var at time.Duration
	for i := range starts {
		at, _ = p.Next(int64(i), at, rng)
		starts[i] = int64(at)
	}
	arr := fitting.FitArrivals(starts, 1, 50_000)
	if arr.Process != "mmpp" || !arr.HasMMPP {
		t.Fatalf("process %s (%s; %s)", arr.Process, arr.Why, arr.MMPPWhy)
	}
	m := arr.MMPP
	for _, c := range []struct {
		what string
		e    fitting.Estimate
		want float64
	}{{"busy rate", m.Rates[0], 20}, {"quiet rate", m.Rates[1], 1}, {"busy sojourn", m.Sojourns[0], 30}, {"quiet sojourn", m.Sojourns[1], 60}} {
		if !(c.e.CI.Lo <= c.want && c.want <= c.e.CI.Hi) {
			t.Errorf("%s %.4g: interval [%.4g, %.4g] misses the generating %g", c.what, c.e.Value, c.e.CI.Lo, c.e.CI.Hi, c.want)
		}
	}
	t.Logf("%+v\n%s", m, arr.MMPPWhy)
	if !(m.Lag1.CI.Lo > 0) || !(m.RenewalAIC-m.AIC > fitting.MMPPMinDeltaAIC) {
		t.Errorf("lag-1 %v, AIC %v against renewal %v", m.Lag1, m.AIC, m.RenewalAIC)
	}
}
