package system_test

import (
	"math"
	"testing"

	"github.com/budgetsim/budgetsim/model/cost"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// parseTokens loads an inline scenario.
func parseTokens(t *testing.T, src string, sets ...string) *system.Config {
	t.Helper()
	sc, err := scenarios.Parse("t.yaml", []byte(src), sets, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Config
}

// A model call of constant tokens: the arithmetic of its latency, its
// cost and a later step's input that follows its output is exact.
const constTokens = `name: tokens
arrivals: {rate: 1/s}
workers: 100
runs: 1000
tools:
  llm:
    ttft: {dist: constant, value: 1s}
    per_output_token: {dist: constant, value: 10ms}
    tokens:
      input: {dist: constant, value: 100}
      output: {dist: constant, value: 50}
      max_output: 80
    cost: {input_token: 0.01, output_token: 0.02}
steps:
  - {name: draft, tool: llm}
  - name: summary
    tool: llm
    tokens: {input_from: draft.output, input_scale: 2, input_plus: 10, output: {dist: constant, value: 500}}
`

// TestTokensExact: every call takes ttft + 10 ms × output tokens (the
// summary's output is cut to max_output 80), the summary's input is
// 2 × 50 + 10 tokens, and each run costs its tokens at their prices,
// settled on actual usage: nothing stays reserved.
func TestTokensExact(t *testing.T) {
	cfg := parseTokens(t, constTokens)
	s := summary.Summarize(cfg, []*system.Result{system.New(cfg, system.Options{}).Run()}, 0.95)
	if s.Runs.Completed != 1000 {
		t.Fatalf("completed %d of 1000", s.Runs.Completed)
	}
	if got := s.Steps[0].Latency.Max; math.Abs(got-1.5) > 1e-6 {
		t.Errorf("draft latency %v, want 1 s + 50 × 10 ms = 1.5 s", got)
	}
	if got := s.Steps[1].Latency.Max; math.Abs(got-1.8) > 0.01 {
		t.Errorf("summary latency %v, want 1 s + 80 × 10 ms = 1.8 s (output cut to max_output)", got)
	}
	tk := s.Tools[0].Tokens
	if tk == nil {
		t.Fatal("no token summary for a tool with tokens")
	}
	if tk.Calls != 2000 || tk.InputTokens != 1000*(100+110) || tk.OutputTokens != 1000*(50+80) {
		t.Errorf("calls %d, input %d, output %d; want 2000, %d, %d", tk.Calls, tk.InputTokens, tk.OutputTokens, 1000*210, 1000*130)
	}
	perRun := (100+110)*0.01 + (50+80)*0.02
	if s.Cost == nil || math.Abs(s.Cost.PerSuccess-perRun) > 1e-6 || s.Cost.Unsettled != 0 {
		t.Errorf("cost %+v; want %v per successful run, nothing unsettled", s.Cost, perRun)
	}
	if tc := s.Cost.Tokens; math.Abs(tc.Input-1000*210*0.01) > 1e-6 || math.Abs(tc.Output-1000*130*0.02) > 1e-6 || tc.CacheRead != 0 || tc.CacheWrite != 0 {
		t.Errorf("token cost by kind %+v; want input 2100, output 2600, no cache", tc)
	}
}

// TestTokensTimedOutKeepReservation: a call cut off by its timeout keeps
// its cost reservation (input + max_output at their prices), never settled
// as zero.
func TestTokensTimedOutKeepReservation(t *testing.T) {
	cfg := parseTokens(t, constTokens, "steps=[{name: draft, tool: llm, timeout: 1200ms}]")
	s := summary.Summarize(cfg, []*system.Result{system.New(cfg, system.Options{}).Run()}, 0.95)
	if s.Runs.Completed != 0 {
		t.Fatalf("completed %d; every 1.5 s call must time out at 1.2 s", s.Runs.Completed)
	}
	if want := 1000 * (100*0.01 + 80*0.02); s.Cost == nil || math.Abs(s.Cost.Unsettled-want) > 1e-6 || s.Cost.Spent != 0 {
		t.Errorf("cost %+v; want %v held unsettled, nothing spent", s.Cost, want)
	}
}

// TestTokensWithoutTokensUnchanged: a scenario that does not use tokens
// draws the same numbers whether or not another tool's tokens exist: the
// token draws come from their own stream.
func TestTokensOwnStream(t *testing.T) {
	plain := parseTokens(t, constTokens, "tools.llm={latency: {dist: exponential, mean: 1s}}", "steps=[{name: draft, tool: llm}]")
	withTokens := parseTokens(t, constTokens, "tools.llm={latency: {dist: exponential, mean: 1s}, tokens: {input: {dist: uniform, min: 1, max: 9}, output: {dist: uniform, min: 1, max: 9}}}", "steps=[{name: draft, tool: llm}]")
	a := system.New(plain, system.Options{}).Run()
	b := system.New(withTokens, system.Options{}).Run()
	if a.Latency.Mean() != b.Latency.Mean() || a.Latency.Max() != b.Latency.Max() {
		t.Errorf("latency moved when tokens were declared: %v/%v vs %v/%v", a.Latency.Mean(), a.Latency.Max(), b.Latency.Mean(), b.Latency.Max())
	}
	if b.Tokens == nil || a.Tokens != nil {
		t.Errorf("token figures: plain %v, with tokens %v; want none and some", a.Tokens, b.Tokens)
	}
}

// TestTokensClientWaitSpendsDeadline: with a client-side limit the caller
// waits for capacity; a wait beyond its deadline is refused before the
// call, and the limit is named as binding.
func TestTokensClientWait(t *testing.T) {
	cfg := parseTokens(t, constTokens, "steps=[{name: draft, tool: llm}]", "tools.llm.rate_limit={tpm: 1500, enforce: client}", "deadline=30s", "arrivals.rate=1/s", "runs=5000")
	s := summary.Summarize(cfg, []*system.Result{system.New(cfg, system.Options{}).Run()}, 0.95)
	tk := s.Tools[0].Tokens
	if tk.Waits == 0 || s.Runs.Refused == 0 {
		t.Fatalf("waits %d, refused %d; a 1500 tpm limit at 1 call/s of 150 tokens must make calls wait and refuse some", tk.Waits, s.Runs.Refused)
	}
	if tk.Binding != "tpm" || tk.Limits[0].Blocked == 0 {
		t.Errorf("binding %q, limits %+v; want tpm binding and blocking", tk.Binding, tk.Limits)
	}
	// Admitted calls reserve 100 + 80 and settle 150 tokens: the long-run
	// rate is 1500/60/150 = 1/6 calls/s, more than 1500/60/180.
	if got := float64(tk.Calls) / s.Rates.Window; got > 1.0/6*1.05 || got < 1.0/7.2 {
		t.Errorf("%.4f calls/s; want about 1500/60/150 = 0.1667", got)
	}
}

// TestTokenMoments: the moments of rounded, capped token counts, against
// sums worked by hand.
func TestTokenMoments(t *testing.T) {
	cfg := parseTokens(t, constTokens, "tools.llm.tokens={input: {dist: uniform, min: 10, max: 12}, output: {dist: uniform, min: 0, max: 4}, max_output: 3}")
	tk := cfg.Tools[0].Tokens
	// uniform(10, 12) rounds to 10, 11, 12 with probability 1/4, 1/2, 1/4.
	m, s, ok := system.TokenMoments(tk.Input, 0)
	if !ok || math.Abs(m-11) > 1e-12 || math.Abs(s-(100.0/4+121.0/2+144.0/4)) > 1e-9 {
		t.Errorf("input: mean %v, E[N²] %v, ok %v; want 11, 121.5", m, s, ok)
	}
	// uniform(0, 4) rounds to 0…4 with 1/8, 1/4, 1/4, 1/4, 1/8; cut at 3.
	m, s, ok = system.TokenMoments(tk.Output, 3)
	wantM := 0.25*1 + 0.25*2 + (0.25+0.125)*3
	wantS := 0.25*1 + 0.25*4 + (0.25+0.125)*9
	if !ok || math.Abs(m-wantM) > 1e-12 || math.Abs(s-wantS) > 1e-9 {
		t.Errorf("output: mean %v, E[N²] %v; want %v, %v", m, s, wantM, wantS)
	}
}

// TestTokenMoneyBeyondTheLedger: a Config built without the loader's
// money check, whose token prices put a call beyond the ledger's range.
// A reservation that cannot be represented is refused, never reserved as
// 0 past the run budget; a bill beyond the range saturates to the call's
// reservation and counts as an overrun, never billed as 0.
func TestTokenMoneyBeyondTheLedger(t *testing.T) {
	cfg := parseTokens(t, constTokens, "steps=[{name: draft, tool: llm}]", "runs=200")
	cfg.Tools[0].Cost.InputToken = 1e12 // 100 input tokens: 1e14 units, beyond 9.2e12
	cfg.RunBudget = 1000 * cost.Unit
	r := system.New(cfg, system.Options{}).Run()
	if r.Runs.Completed != 0 || r.Cost.Refused != 200 || r.Cost.Spent != 0 {
		t.Errorf("completed %d, refused %d, spent %v; want every call refused by the run budget, nothing spent", r.Runs.Completed, r.Cost.Refused, r.Cost.Spent)
	}

	cfg = parseTokens(t, constTokens, "steps=[{name: draft, tool: llm}]", "runs=200", "tools.llm.tokens.reserve_output=1")
	cfg.Tools[0].Cost.InputToken = 0
	cfg.Tools[0].Cost.OutputToken = 1e12 // reserves 1 token (1e12 units), bills 50 (5e13: beyond the range)
	r = system.New(cfg, system.Options{}).Run()
	if want := 200 * 1e12; r.Runs.Completed != 200 || r.Cost.Overrun != 200 || math.Abs(r.Cost.Spent-want) > 1e-6*want {
		t.Errorf("completed %d, overruns %d, spent %v; want 200 calls each billed its reservation of 1e12 and counted as overruns (spent %v)", r.Runs.Completed, r.Cost.Overrun, r.Cost.Spent, want)
	}
}

// TestUnsettledSaturates: the reservations that timed-out calls hold
// (usage unknown) add up over the measured runs; past the ledger's range
// the sum stays at cost.MaxAmount instead of wrapping negative.
func TestUnsettledSaturates(t *testing.T) {
	cfg := parseTokens(t, constTokens, "steps=[{name: draft, tool: llm, timeout: 1200ms}]", "runs=200")
	cfg.Tools[0].Cost.InputToken = 1e9 // 100 input tokens: 1e11 units a call; 200 calls: 2e13, beyond 9.2e12
	r := system.New(cfg, system.Options{}).Run()
	if max := cost.MaxAmount.Float64(); r.Cost.Unsettled != max {
		t.Errorf("unsettled %v; want the sum saturated at %v", r.Cost.Unsettled, max)
	}
}
