package system_test

import (
	"math"
	"testing"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// profileBase is a model API of constant tokens and latency, called once
// per run with no retry, so that each profile's admission is read off the
// counts.
const profileBase = `name: profile
arrivals: {rate: 10/s}
workers: 1000
runs: 3000
retry: {attempts: 1}
tools:
  llm:
    ttft: {dist: constant, value: 5s}
    tokens:
      input: {dist: constant, value: 500}
      output: {dist: constant, value: 300}
      max_output: 1000
    cost: {input_token: 0.001, output_token: 0.002}
steps:
  - {name: ask, tool: llm}
`

// runProfile runs the inline scenario with the sets, audited: token
// reservations made = settled + kept + held, whatever the profile.
func runProfile(t *testing.T, sets ...string) (*system.Result, summary.Summary) {
	t.Helper()
	cfg := parseTokens(t, profileBase, sets...)
	res := audited(t, cfg)
	return res, summary.Summarize(cfg, []*system.Result{res}, 0.95)
}

// Bedrock reserves input + max_tokens when a call starts. Its
// documentation's example, run: with 2,000,000 tpm and 500 input tokens,
// a burst of 2,000 calls gets 1,333 admitted with max_tokens 1,000 and 31
// with a 64,000 default; the rest are throttled without a Retry-After.
func TestBedrockMaxTokensCutsConcurrency(t *testing.T) {
	for _, c := range []struct {
		maxOutput string
		ok        int64
	}{{"1000", 1333}, {"64000", 31}} {
		res, _ := runProfile(t, "arrivals={process: batch, count: 2000}", "!runs", "workers=2000",
			"tools.llm.rate_limit={tpm: 2000000, profile: bedrock}", "tools.llm.tokens.max_output="+c.maxOutput)
		if res.Attempts.OK != c.ok || res.Attempts.RateLimited != 2000-c.ok {
			t.Errorf("max_output %s: %d admitted, %d throttled; want %d and %d", c.maxOutput, res.Attempts.OK, res.Attempts.RateLimited, c.ok, 2000-c.ok)
		}
		if res.Attempts.RetryAfterHonored != 0 {
			t.Errorf("max_output %s: %d Retry-After honoured: Bedrock throttles without one", c.maxOutput, res.Attempts.RetryAfterHonored)
		}
	}
	// The generic limiter reserves the output estimate, which a caller
	// may set below max_tokens (reserve_output: 300): then every call of
	// the burst fits. Bedrock reserves max_tokens whatever the estimate.
	res, _ := runProfile(t, "arrivals={process: batch, count: 2000}", "!runs", "workers=2000",
		"tools.llm.rate_limit={tpm: 2000000}", "tools.llm.tokens.max_output=64000", "tools.llm.tokens.reserve_output=300")
	if res.Attempts.OK != 2000 {
		t.Errorf("generic with reserve_output 300: %d of 2000 admitted, want all (800 tokens each)", res.Attempts.OK)
	}
}

// Azure OpenAI evaluates 600 RPM over 1 s windows: of 30 calls at one
// instant 10 are admitted, where the continuous bucket admits all 30.
func TestAzureOpenAIBurstIn1sWindow(t *testing.T) {
	for _, c := range []struct {
		profile string
		ok      int64
	}{{"", 30}, {", profile: azure-openai", 10}} {
		res, _ := runProfile(t, "arrivals={process: batch, count: 30}", "!runs", "tools.llm.rate_limit={rpm: 600"+c.profile+"}")
		if res.Attempts.OK != c.ok || res.Attempts.RateLimited != 30-c.ok {
			t.Errorf("rate_limit {rpm: 600%s}: %d ok, %d 429s; want %d and %d", c.profile, res.Attempts.OK, res.Attempts.RateLimited, c.ok, 30-c.ok)
		}
	}
}

// OpenAI counts max(max_tokens, input) against TPM and never corrects
// it: 60,000 tpm admits 60,000 / 1,000 = 60 calls a minute, where the
// generic limiter, settling each call to its 800 tokens, admits 75.
func TestOpenAIUncorrectedMaxTokens(t *testing.T) {
	rate := func(profile string) float64 {
		_, s := runProfile(t, "runs=6000", "tools.llm.rate_limit={tpm: 60000"+profile+"}")
		return float64(s.Tools[0].Tokens.Calls) / s.Rates.Window * 60
	}
	if got := rate(", profile: openai"); math.Abs(got-60) > 60*0.1 {
		t.Errorf("openai: %.1f calls a minute, want about 60", got)
	}
	res, s := runProfile(t, "runs=600", "tools.llm.rate_limit={tpm: 60000, profile: openai}")
	if tk := res.Tokens[0]; tk.CountedTPM != tk.Calls*1000 {
		t.Errorf("openai counted %d tpm tokens for %d calls, want 1,000 each", tk.CountedTPM, tk.Calls)
	}
	if l := s.Tools[0].Tokens.Limits[0]; math.Abs(l.CallCap-1) > 1e-9 {
		t.Errorf("the summary says the tpm limit admits %v calls/s, want 60000 / 60 / 1000 = 1", l.CallCap)
	}
	if got := rate(""); math.Abs(got-75) > 75*0.1 {
		t.Errorf("generic: %.1f calls a minute, want about 75", got)
	}
}

// Anthropic counts output tokens as they are generated, not at
// max_tokens: 10,000 otpm with max_tokens 1,000 lets the generic limiter
// admit 10 calls at once, Anthropic's every call of a 30-call burst (each
// adds its 300 output tokens only when it ends).
func TestAnthropicOutputAsGenerated(t *testing.T) {
	for _, c := range []struct {
		profile string
		ok      int64
	}{{"", 10}, {", profile: anthropic", 30}} {
		res, _ := runProfile(t, "arrivals={process: batch, count: 30}", "!runs", "tools.llm.rate_limit={otpm: 10000"+c.profile+"}")
		if res.Attempts.OK != c.ok {
			t.Errorf("rate_limit {otpm: 10000%s}: %d of 30 admitted, want %d", c.profile, res.Attempts.OK, c.ok)
		}
	}
}

// Azure provisioned throughput admits a call whenever utilisation is at
// most 100 %, whatever its size: calls larger than a minute's throughput,
// which a continuous bucket can never admit, are served one per drain.
func TestAzurePTUAdmitsOversizedCalls(t *testing.T) {
	sets := []string{"tools.llm.tokens.input={dist: constant, value: 100000}", "arrivals.rate=0.1/s", "runs=300"}
	res, _ := runProfile(t, append(sets, "tools.llm.rate_limit={tpm: 60000}")...)
	if res.Attempts.OK != 0 {
		t.Errorf("generic: %d calls of 101,000 tokens admitted by 60,000 tpm, want 0", res.Attempts.OK)
	}
	res, s := runProfile(t, append(sets, "tools.llm.rate_limit={tpm: 60000, profile: azure-ptu}")...)
	// An admitted call adds 101,000 to a utilisation of at most 60,000
	// (100 %), drained at 1,000 a second: the next call may go 41 to 101 s
	// later, and one arrives within 10 s of that: between 1/111 and 1/41
	// calls a second get through.
	got := float64(res.Attempts.OK) / s.Rates.Window
	if got < 1.0/111 || got > 1.0/41 {
		t.Errorf("azure-ptu: %.4f oversized calls/s admitted, want within [1/111, 1/41]", got)
	}
}

// Vertex AI provisioned throughput spills the calls that do not fit to
// pay-as-you-go: none is turned away, and only the spilled calls bill
// their tokens (each 500 × 0.001 + 300 × 0.002 = 1.1); the calls within
// the quota are covered by the subscription.
func TestVertexPTSpillsOver(t *testing.T) {
	res, _ := runProfile(t, "tools.llm.rate_limit={tpm: 60000, profile: vertex-pt}")
	spilled := res.Tokens[0].Spilled
	if res.Attempts.RateLimited != 0 || spilled == 0 || res.Attempts.OK != 3000 {
		t.Fatalf("429s %d, spilled %d, ok %d: want no 429, some spilled, all 3000 served", res.Attempts.RateLimited, spilled, res.Attempts.OK)
	}
	if want := float64(spilled) * 1.1; math.Abs(res.Cost.Spent-want) > 1e-6*want {
		t.Errorf("spent %v, want the spilled calls' tokens only: %d × 1.1 = %v", res.Cost.Spent, spilled, want)
	}
	gen, _ := runProfile(t, "tools.llm.rate_limit={tpm: 60000}")
	if gen.Attempts.RateLimited == 0 {
		t.Error("the same limits without the profile turn no call away: the test does not show the spill")
	}
}

// A provider's overload is its own outcome: counted apart from 429s,
// retried without a Retry-After although the tool sends one, billed
// nothing, and its tokens returned.
func TestOverloadedIsNot429(t *testing.T) {
	res, _ := runProfile(t, "retry={attempts: 4, backoff: {base: 100ms}}", "tools.llm.errors={overloaded: 0.3}",
		"tools.llm.retry_after={dist: constant, value: 2s}", "tools.llm.rate_limit={tpm: 10000000, profile: anthropic}")
	a := res.Attempts
	if a.Overloaded == 0 || a.RateLimited != 0 || a.Transient != 0 {
		t.Fatalf("overloaded %d, 429 %d, 503 %d: want only overloads", a.Overloaded, a.RateLimited, a.Transient)
	}
	if a.RetryAfterHonored != 0 {
		t.Errorf("%d retries slept a Retry-After: an overload carries none", a.RetryAfterHonored)
	}
	if want := float64(a.OK) * 1.1; math.Abs(res.Cost.Spent-want) > 1e-6*want {
		t.Errorf("spent %v, want only the %d successes billed: %v", res.Cost.Spent, a.OK, want)
	}
	if in := res.Tokens[0].Input; in != a.OK*500 {
		t.Errorf("%d input tokens counted, want %d: overloaded calls count none", in, a.OK*500)
	}
}

// Under client enforcement the caller paces itself by the profile's
// windows: a burst of 30 against azure-openai's 600 RPM goes out 10 per
// 1 s window, with no 429.
func TestAzureOpenAIClientPacesByWindow(t *testing.T) {
	res, _ := runProfile(t, "arrivals={process: batch, count: 30}", "!runs", "tools.llm.rate_limit={rpm: 600, profile: azure-openai, enforce: client}")
	tk := res.Tokens[0]
	if res.Attempts.OK != 30 || res.Attempts.RateLimited != 0 || tk.Waits != 20 {
		t.Fatalf("%d ok, %d 429s, %d waits; want 30, 0 and 20 (two later windows of 10)", res.Attempts.OK, res.Attempts.RateLimited, tk.Waits)
	}
	if math.Abs(tk.WaitSeconds-30) > 1e-9 {
		t.Errorf("waited %v s in all, want 10 × 1 s + 10 × 2 s = 30 s", tk.WaitSeconds)
	}
}

// Prompt-cache reads do not count against Anthropic's ITPM: with a 4,000
// token shared prefix cached, each 5,000-token call counts 1,000. A
// 30,000 itpm bucket (500 tokens a second) admits, over a window of W
// seconds, its first 30,000 (six calls that find no cache yet: it is
// readable once the first call answers, 5 s later) and then one call per
// 1,000 tokens refilled, 6 + 500·W / 1,000; the generic limiter, counting
// every input token, (30,000 + 500·W) / 5,000. Both within 5 calls: the
// refill before the cache is readable, and the window's last arrivals,
// move a few calls at the ends.
func TestAnthropicCacheReadsFreeITPM(t *testing.T) {
	calls := func(profile string) (int64, float64) {
		res, s := runProfile(t, "runs=3000", "tools.llm.tokens.input={dist: constant, value: 5000}",
			"tools.llm.prompt_cache={ttl: 5m, prefix: 4000}", "tools.llm.rate_limit={itpm: 30000"+profile+"}")
		if res.Tokens[0].CacheRead == 0 {
			t.Fatalf("%q: no cache read: the test does not reach the rule", profile)
		}
		return s.Tools[0].Tokens.Calls, s.Rates.Window
	}
	n, w := calls(", profile: anthropic")
	if want := 6 + 500*w/1000; math.Abs(float64(n)-want) > 5 {
		t.Errorf("anthropic: %d calls in %.0f s, want about %.0f", n, w, want)
	}
	n, w = calls("")
	if want := (30000 + 500*w) / 5000; math.Abs(float64(n)-want) > 5 {
		t.Errorf("generic: %d calls in %.0f s, want about %.0f", n, w, want)
	}
}
