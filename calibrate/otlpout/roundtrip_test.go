package otlpout_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
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

const loopGenerating = `name: loopgen
seed: 1
runs: 3000
arrivals: {rate: 1/s}
workers: 1000
retry:
  idempotent: true
  attempts: 3
  backoff: {base: 100ms, multiplier: 2, cap: 1s, jitter: full}
  retry_after: honor
steps:
  - name: agent
    loop:
      max_turns: 12
      answer: 0.25
      context: {system: 4000, start: {dist: uniform, min: 200, max: 2000}}
      steps:
        - {name: think, tool: model}
        - name: act
          calls: {dist: uniform, min: 0.5, max: 3.5}
          parallel:
            - {name: t1, choose: [{tool: search, weight: 3}, {tool: read_file, weight: 5}]}
            - {name: t2, choose: [{tool: search, weight: 3}, {tool: read_file, weight: 5}]}
            - {name: t3, choose: [{tool: search, weight: 3}, {tool: read_file, weight: 5}]}
tools:
  model:
    ttft: {dist: lognormal, median: 500ms, sigma: 0.4}
    per_output_token: {dist: uniform, min: 10ms, max: 20ms}
    tokens:
      input: {dist: constant, value: 1}
      output: {dist: lognormal, median: 300, sigma: 0.5}
    prompt_cache: {ttl: 5m, min_tokens: 1024}
  search:
    latency: {dist: lognormal, median: 300ms, sigma: 0.5}
    errors: {rate_limited: 0.05}
    retry_after: {dist: constant, value: 2s}
    result_tokens: {dist: lognormal, median: 1000, sigma: 0.5}
  read_file:
    latency: {dist: lognormal, median: 50ms, sigma: 0.5}
    result_tokens: {dist: lognormal, median: 2000, sigma: 0.6}
`

// bonferroni widens a 95% interval's sides to a family of about 15
// checks at 95% together (Bonferroni: z of 1 − 0.05/30 over z of 0.975),
// so that one test asserting many intervals is not a coin toss.
const bonferroni = 2.935 / 1.96

// inCI checks that the 95% interval [lo, hi] around the estimate v,
// widened by bonferroni, holds want.
func inCI(t *testing.T, what string, v, lo, hi, want float64) {
	t.Helper()
	lo, hi = v-bonferroni*(v-lo), v+bonferroni*(hi-v)
	if !(lo <= want && want <= hi) {
		t.Errorf("%s = %.5g: interval [%.5g, %.5g] misses the generating %.5g", what, v, lo, hi, want)
	}
}

// An agent loop round trip: simulate a loop scenario, export it, calibrate
// the export: the fitted loop's answer chance, mean turns, calls per
// turn, tool shares, system prompt, start and result tokens recover the
// generating values within their intervals; the spans carry the usage,
// cached tokens, time to first token and Retry-After the calibration reads
// back; and the replay's turns and calls per turn agree with the trace.
func TestLoopRoundTrip(t *testing.T) {
	sc, err := scenarios.Parse("loopgen.yaml", []byte(loopGenerating), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := otlpout.New(&b, sc.Config, "loopgen")
	system.New(sc.Config, system.Options{Tracer: w, TraceRuns: math.MaxInt64}).Run()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, attr := range []string{"gen_ai.usage.input_tokens", "gen_ai.usage.cache_read.input_tokens", "gen_ai.server.time_to_first_token", "http.response.header.retry-after", "budgetsim.turn"} {
		if !bytes.Contains(b.Bytes(), []byte(attr)) {
			t.Errorf("the export has no %s", attr)
		}
	}
	path := filepath.Join(t.TempDir(), "loop.otlp.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := calibrate.Calibrate([]string{path}, calibrate.Options{Observe: observe.Options{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	l := r.Loop
	if !r.UseLoop || l == nil || l.Model != "model" {
		t.Fatalf("no loop fitted: %s", r.LoopWhy)
	}
	if l.Shape.K != 3000 {
		t.Errorf("%d runs of the loop's shape, want 3000", l.Shape.K)
	}
	tf := l.Turns
	if tf.Rule != "answer" {
		t.Fatalf("rule %s (%s)", tf.Rule, tf.Why)
	}
	inCI(t, "answer", tf.P.P, tf.P.CI.Lo, tf.P.CI.Hi, 0.25)
	// The generating mean turns under max_turns 12, and the fitted rule's
	// (its own max_turns: none was reached without an answer, or 12).
	inCI(t, "mean turns", tf.ImpliedMean.Value, tf.ImpliedMean.CI.Lo, tf.ImpliedMean.CI.Hi, (1-math.Pow(0.75, float64(tf.MaxTurns)))/0.25)
	if tf.DF < 1 || tf.PValue < 0.01 {
		t.Errorf("constant answer chance rejected: χ² %.3g on %d df, p %.2g", tf.ChiSq, tf.DF, tf.PValue)
	}
	inCI(t, "calls per turn", l.Calls.Mean.Value, l.Calls.Mean.CI.Lo, l.Calls.Mean.CI.Hi, 2)
	if l.Calls.Max != 3 || len(l.Calls.Hist) != 4 || l.Calls.Hist[0] != 0 {
		t.Errorf("calls per turn histogram %v", l.Calls.Hist)
	}
	for _, ts := range l.Tools {
		want := map[string]float64{"search": 3.0 / 8, "read_file": 5.0 / 8}[ts.Tool]
		inCI(t, ts.Tool+" share", ts.Share.P, ts.Share.CI.Lo, ts.Share.CI.Hi, want)
	}
	cf := l.Context
	if cf == nil || cf.System != 4000 {
		t.Fatalf("context %+v", cf)
	}
	inCI(t, "start mean", cf.Start.Mean.Value, cf.Start.Mean.CI.Lo, cf.Start.Mean.CI.Hi, 1100)
	for tool, p := range map[string][2]float64{"search": {1000, 0.5}, "read_file": {2000, 0.6}} {
		m, ok := cf.Results[tool]
		if !ok {
			t.Errorf("no result tokens fitted for %s", tool)
			continue
		}
		// The result tokens are rounded to whole tokens.
		inCI(t, tool+" result tokens mean", m.Mean.Value, m.Mean.CI.Lo-0.5, m.Mean.CI.Hi+0.5, p[0]*math.Exp(p[1]*p[1]/2))
	}
	model := r.Tool("model")
	if model == nil || !model.UseTTFT || model.TTFT.Family != "lognormal" {
		t.Fatalf("model ttft not fitted: %+v", model)
	}
	inCI(t, "output tokens median", model.Output.P50.Value, model.Output.P50.CI.Lo-0.5, model.Output.P50.CI.Hi+0.5, 300)
	inCI(t, "ttft median", model.TTFT.P50.Value, model.TTFT.P50.CI.Lo, model.TTFT.P50.CI.Hi, 0.5)
	if !(model.CachedCalls > 0 && model.CachedShare > 0.5) {
		t.Errorf("cached input: %d calls, share %.3g", model.CachedCalls, model.CachedShare)
	}
	search := r.Tool("search")
	if search.RetryAfter.Family != "constant" || search.RetryAfter.Params["value"] != 2 {
		t.Errorf("search Retry-After %s %v", search.RetryAfter.Family, search.RetryAfter.Params)
	}
	out := r.Scenario("recovered")
	text := string(out.YAML)
	for _, want := range []string{"loop:", "answer: ", "system: 4000", "prompt_cache: {ttl: 5m", "result_tokens: ", "choose: [", "calls: {dist: mixture"} {
		if !strings.Contains(text, want) {
			t.Errorf("the scenario lacks %q:\n%s", want, text)
		}
	}
	loaded, err := out.Load("recovered.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	cal, err := r.Replay(loaded, 3)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, row := range cal.Rows {
		switch row.Metric {
		case "turns per run", "tool calls per turn", "model input tokens/call", "model cached input share":
			seen++
			if !(row.RelErrCI.Lo <= 0.05 && row.RelErrCI.Hi >= -0.05) {
				t.Errorf("%s: observed %.4g, simulated %.4g [%.4g, %.4g]", row.Metric, row.Observed, row.Simulated.Mean, row.Simulated.Lo, row.Simulated.Hi)
			}
		}
	}
	if seen != 4 {
		t.Errorf("the calibration table has %d of the loop's 4 rows", seen)
	}
}

// The bundled coding agent (scenarios/coding-agent.yaml: the model answers
// each turn with probability 0.2, up to 12 turns; 1–3 parallel calls
// choosing search, read_file and run_tests 3:5:1; a 6,000-token system
// prompt and a start uniform on 300–3,000; a model limited to 16 calls at
// once, so that long runs miss their deadline), simulated, exported and
// calibrated: the loop's parameters come back within their intervals
// although 43 % of the runs fail, because runs cut short count for the
// turns they took.
func TestCodingAgentRoundTrip(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "coding-agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse("coding-agent.yaml", src, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := otlpout.New(&b, sc.Config, "coding-agent")
	system.New(sc.Config, system.Options{Tracer: w, TraceRuns: math.MaxInt64}).Run()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "coding.otlp.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := calibrate.Calibrate([]string{path}, calibrate.Options{Observe: observe.Options{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	l := r.Loop
	if !r.UseLoop || l.Shape.P != 1 {
		t.Fatalf("loop used %v, shape %v: %s", r.UseLoop, l.Shape, r.LoopWhy)
	}
	if ok := float64(l.Runs) / float64(len(r.Obs.Runs)); ok > 0.7 {
		t.Fatalf("%.0f%% of runs succeeded: the test needs the saturated agent", 100*ok)
	}
	tf := l.Turns
	if tf.Rule != "answer" || tf.Max != 12 {
		t.Fatalf("rule %s, most turns %d (%s)", tf.Rule, tf.Max, tf.Why)
	}
	inCI(t, "answer", tf.P.P, tf.P.CI.Lo, tf.P.CI.Hi, 0.2)
	// Mean turns under the generating max_turns, from the fitted chance's
	// interval (the cap is not in the trace: no run that succeeded reached
	// it without answering).
	mean := func(p float64) float64 { return (1 - math.Pow(1-p, 12)) / p }
	inCI(t, "mean turns under 12", mean(tf.P.P), mean(tf.P.CI.Hi), mean(tf.P.CI.Lo), (1-math.Pow(0.8, 12))/0.2)
	inCI(t, "calls per turn", l.Calls.Mean.Value, l.Calls.Mean.CI.Lo, l.Calls.Mean.CI.Hi, 2)
	for _, ts := range l.Tools {
		want := map[string]float64{"search": 3.0 / 9, "read_file": 5.0 / 9, "run_tests": 1.0 / 9}[ts.Tool]
		inCI(t, ts.Tool+" share", ts.Share.P, ts.Share.CI.Lo, ts.Share.CI.Hi, want)
	}
	cf := l.Context
	if cf.System != 6000 {
		t.Errorf("system %d, want 6000", cf.System)
	}
	inCI(t, "start mean", cf.Start.Mean.Value, cf.Start.Mean.CI.Lo, cf.Start.Mean.CI.Hi, 1650)
	// Lognormal result tokens given by median and p99: mean median·e^{σ²/2}.
	for tool, q := range map[string][2]float64{"search": {1200, 6000}, "read_file": {2500, 15000}, "run_tests": {800, 5000}} {
		sigma := math.Log(q[1]/q[0]) / 2.3263478740408408
		m := cf.Results[tool]
		inCI(t, tool+" result tokens mean", m.Mean.Value, m.Mean.CI.Lo-0.5, m.Mean.CI.Hi+0.5, q[0]*math.Exp(sigma*sigma/2))
	}
	// (Not the output tokens: the calls that time out are the long ones,
	// and a call that times out reports no usage.)
	text := string(r.Scenario("recovered").YAML)
	for _, want := range []string{"{name: think, tool: model, timeout: 90s}", "          timeout: 60s  # MEASURED"} {
		if !strings.Contains(text, want) {
			t.Errorf("the scenario lacks %q (the generating timeouts):\n%s", want, text)
		}
	}
}

// calibrateYAML simulates the scenario, exports every run and calibrates
// the export.
func calibrateYAML(t *testing.T, yaml string) *calibrate.Result {
	t.Helper()
	sc, err := scenarios.Parse("gen.yaml", []byte(yaml), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := otlpout.New(&b, sc.Config, "gen")
	system.New(sc.Config, system.Options{Tracer: w, TraceRuns: math.MaxInt64}).Run()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gen.otlp.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := calibrate.Calibrate([]string{path}, calibrate.Options{Observe: observe.Options{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.UseLoop {
		t.Fatalf("no loop: %s", r.LoopWhy)
	}
	if _, err := r.Scenario("recovered").Load("recovered.yaml"); err != nil {
		t.Fatal(err)
	}
	return r
}

const loopEnds = `name: gen
seed: 2
runs: 3000
arrivals: {rate: 2/s}
workers: 1000
steps:
  - name: agent
    loop:
      max_turns: MAX
      END
      steps:
        - {name: think, tool: model}
        - name: act
          calls: {dist: uniform, min: 0.5, max: 2.5}
          parallel:
            - {name: a, choose: [{tool: search, weight: 1}, {tool: read, weight: 1}]}
            - {name: b, choose: [{tool: search, weight: 1}, {tool: read, weight: 1}]}
tools:
  model:
    latency: {dist: lognormal, median: 300ms, sigma: 0.3}
    tokens: {input: {dist: constant, value: 500}, output: {dist: constant, value: 50}}
  search: {latency: {dist: lognormal, median: 100ms, sigma: 0.3}}
  read: {latency: {dist: lognormal, median: 50ms, sigma: 0.3}}
`

// A loop that stops after each full turn with a fixed chance is fitted as
// stop with that chance; one whose turns are drawn (uniform on 1–4) fails
// the constant-chance test and is described by the Kaplan–Meier
// distribution of its turns, a quarter each.
func TestLoopStopAndTurns(t *testing.T) {
	r := calibrateYAML(t, strings.NewReplacer("MAX", "40", "END", "stop: 0.3").Replace(loopEnds))
	tf := r.Loop.Turns
	if tf.Rule != "stop" || tf.PValue < 0.01 {
		t.Fatalf("rule %s (%s)", tf.Rule, tf.Why)
	}
	inCI(t, "stop", tf.P.P, tf.P.CI.Lo, tf.P.CI.Hi, 0.3)
	if tf.Capped {
		t.Errorf("a cap found at %d turns (%s)", tf.Max, tf.Why)
	}

	r = calibrateYAML(t, strings.NewReplacer("MAX", "4", "END", "turns: {dist: uniform, min: 0.5, max: 4.5}").Replace(loopEnds))
	tf = r.Loop.Turns
	if tf.Rule != "turns" || len(tf.Dist) != 4 {
		t.Fatalf("rule %s, distribution %v (%s)", tf.Rule, tf.Dist, tf.Why)
	}
	n := float64(r.Loop.Runs)
	for i, p := range tf.Dist {
		within4(t, fmt.Sprintf("P(%d turns)", i+1), p, 0.25, math.Sqrt(0.25*0.75/n))
	}
	if text := string(r.Scenario("recovered").YAML); !strings.Contains(text, "turns: {dist: mixture, of: [{weight: 0.2") {
		t.Errorf("the scenario draws no turns:\n%s", text)
	}
}
