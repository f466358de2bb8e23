package summary_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/budgetsim/budgetsim/internal/scenariotest"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// loadText loads a scenario from text with sets applied.
func loadText(t *testing.T, text string, sets ...string) *system.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return scenariotest.Config(t, path, sets...)
}

// overloadNumbers reads the utilisation, the calls per second and the
// mean call time out of tool name's overload warning; ok is false when
// there is none.
func overloadNumbers(s summary.Summary, name string) (rho, rate, mean float64, ok bool) {
	w := warningWith(s, "tool "+name+": utilisation")
	if w == "" {
		return 0, 0, 0, false
	}
	var slots int
	var skip string
	if _, err := fmt.Sscanf(w, "tool "+name+": utilisation %g ≥ 1 (%g calls/s", &rho, &rate); err != nil {
		return 0, 0, 0, false
	}
	for i := 0; i+4 < len(w); i++ {
		if w[i:i+4] == " of " {
			if n, _ := fmt.Sscanf(w[i:], " of %g s each on %d %s", &mean, &slots, &skip); n >= 2 {
				return rho, rate, mean, true
			}
		}
	}
	return 0, 0, 0, false
}

// hedgeOverload hedges every call at once, three attempts: 4 runs/s send
// 12 calls/s to a tool whose 5 slots serve 5/0.551 = 9.07 calls/s
// (lognormal, median 400 ms, σ 0.8: mean 0.4·e^0.32 s). The plan's one
// call per step offers it 0.44 of its capacity; the calls dialed, 1.32.
const hedgeOverload = `name: hedge-overload
seed: 1
runs: 21000
warmup: 1000
arrivals: {rate: 4/s}
workers: 200
steps:
  - name: answer
    tool: model
    timeout: 30s
    idempotent: true
    hedge: {delay: 0s, max_attempts: 3}
tools:
  model:
    latency: {dist: lognormal, median: 400ms, sigma: 0.8}
    concurrency: 5
`

// TestHedgeOverloadWarns: the overload warning counts every attempt the
// hedged step dialed. Its numbers are the calls that reached the tool per
// measured run (exactly 3: every hedge is sent at once) times the
// arrival rate measured, 4/s within 5 standard errors of a Poisson count
// (5/√n relative), each at the tool's mean latency.
func TestHedgeOverloadWarns(t *testing.T) {
	s := summarize(t, loadText(t, hedgeOverload), 1)
	rho, rate, mean, ok := overloadNumbers(s, "model")
	if !ok {
		t.Fatalf("no overload warning for a tool offered 1.32 of its capacity by hedges: %q", s.Warnings)
	}
	wantMean := 0.4 * math.Exp(0.32)
	tol := 5 / math.Sqrt(float64(s.Runs.Arrived))
	if math.Abs(mean/wantMean-1) > 1e-3 || math.Abs(rate/12-1) > tol || math.Abs(rho/(12*wantMean/5)-1) > tol+1e-3 {
		t.Errorf("warning says utilisation %g, %g calls/s of %g s; want %.4g, 12, %.4g (relative tolerance %.2g): %q", rho, rate, mean, 12*wantMean/5, wantMean, tol, s.Warnings)
	}
}

// retryOverload is a backend at 90 % of its capacity whose 10 s stall
// makes every caller time out and retry, twice: the retries keep it
// overloaded after the stall ends (a metastable failure). The plan's one
// call per step offers it 0.9; the calls dialed, about 2.6.
const retryOverload = `name: retry-overload
seed: 1
horizon: 600s
warmup: 30s
arrivals: {rate: 90/s}
workers: 100000
retry:
  idempotent: true
  attempts: 3
  backoff: {base: 50ms, multiplier: 2, cap: 1s, jitter: full}
steps:
  - {name: call, tool: backend, timeout: 1s}
tools:
  backend:
    latency: {dist: exponential, mean: 100ms}
    concurrency: 10
    outages: [{start: 60s, end: 70s, mode: stall}]
`

// TestRetryOverloadWarns: a retry-driven overload warns, with the calls
// that reached the tool per measured run times the measured arrival rate,
// at the tool's mean latency of 0.1 s, on its 10 slots.
func TestRetryOverloadWarns(t *testing.T) {
	s := summarize(t, loadText(t, retryOverload), 1)
	rho, rate, mean, ok := overloadNumbers(s, "backend")
	if !ok {
		t.Fatalf("no overload warning for a retry-driven overload: %q", s.Warnings)
	}
	wantRate := float64(s.Tools[0].Calls) / float64(s.Runs.Arrived) * s.Rates.OfferedPerSecond
	if mean != 0.1 || math.Abs(rate/wantRate-1) > 1e-3 || math.Abs(rho/(wantRate*0.1/10)-1) > 1e-3 || rho < 2 {
		t.Errorf("warning says utilisation %g, %g calls/s of %g s; want %.4g, %.4g, 0.1, from %d calls for %d runs arriving at %.4g/s: %q",
			rho, rate, mean, wantRate*0.1/10, wantRate, s.Tools[0].Calls, s.Runs.Arrived, s.Rates.OfferedPerSecond, s.Warnings)
	}
	// The same backend without the stall keeps up: no warning, though it
	// is 90 % busy.
	s = summarize(t, loadText(t, retryOverload, "tools.backend.outages=[]"), 1)
	if _, _, _, ok := overloadNumbers(s, "backend"); ok {
		t.Errorf("a stable backend at 90%% load warns of overload: %q", s.Warnings)
	}
}

// TestModelAPIWarningUsesMeanCallTime: the overload warning of a model
// API gives the mean time of a call, ttft plus the per-token time of the
// output tokens (Tool.MeanLatency), not the time to first token: with a
// 300 ms ttft and 10 ms for each of 500 output tokens, 5.3 s.
func TestModelAPIWarningUsesMeanCallTime(t *testing.T) {
	const text = `name: llm
seed: 1
runs: 3000
warmup: 100
arrivals: {rate: 1/s}
workers: 1000
steps:
  - {name: answer, tool: llm}
tools:
  llm:
    ttft: {dist: constant, value: 300ms}
    per_output_token: {dist: constant, value: 10ms}
    tokens: {input: {dist: constant, value: 100}, output: {dist: constant, value: 500}}
    concurrency: 4
`
	s := summarize(t, loadText(t, text), 1)
	rho, rate, mean, ok := overloadNumbers(s, "llm")
	if !ok {
		t.Fatalf("no overload warning at utilisation 1.325: %q", s.Warnings)
	}
	if math.Abs(mean-5.3) > 1e-9 || math.Abs(rho-rate*5.3/4) > 1e-3 || rho < 1.2 {
		t.Errorf("warning says utilisation %g, %g calls/s of %g s each on 4 slots; want a call of 5.3 s: %q", rho, rate, mean, s.Warnings)
	}
}

// TestRunLoadFromWhatHappened: retries at the workers' own step (the runs
// hold their workers through every attempt and backoff) overload workers
// the plan's one call per step leaves at 0.7: runs arrive at 0.7/s on
// one worker, and each attempt of 1 s fails half the time and is retried
// up to 5 times in all, so a run holds its worker for 1.9375 s on average
// (Σ 0.5^k, k < 5) plus its backoffs: 1.36 of the worker. The warning
// comes from the measured worker time per run; with the queue growing,
// its figure is at least that.
func TestRunLoadFromWhatHappened(t *testing.T) {
	const text = `name: retry-workers
seed: 1
horizon: 2000s
warmup: 100s
arrivals: {rate: 0.7/s}
workers: 1
retry:
  idempotent: true
  attempts: 5
  backoff: {base: 10ms, multiplier: 1, cap: 10ms}
steps:
  - {name: work, tool: api}
tools:
  api:
    latency: {dist: constant, value: 1s}
    errors: {transient: 0.5}
`
	s := summarize(t, loadText(t, text), 1)
	w := warningWith(s, "with an unbounded queue: the system is unstable")
	var rho float64
	if w == "" {
		t.Fatalf("no instability warning: %q", s.Warnings)
	}
	t.Logf("%s", w)
	if _, err := fmt.Sscanf(w, "utilisation %g", &rho); err != nil || rho < 0.7*1.9375 {
		t.Errorf("warning %q: want a utilisation of at least 1.36 = 0.7/s × 1.9375 s", w)
	}
}
