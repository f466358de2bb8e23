package system_test

import (
	"math"
	"testing"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// TestPromptCacheSharedHitRatio: a shared prefix under Poisson traffic at
// rate λ, with a TTL refreshed on every read, is read by a call when the
// call before it came within the TTL: the hit ratio is 1 − e^(−λ·TTL).
// Every miss writes the prefix, every hit reads it whole.
func TestPromptCacheSharedHitRatio(t *testing.T) {
	const lambda, ttl, prefix = 0.5, 2.0, 2000
	sc, err := scenarios.Parse("cache.yaml", []byte(`
name: cache
runs: 20000
warmup: 0
arrivals: {rate: 0.5/s}
workers: 1000
steps: [{name: ask, tool: llm}]
tools:
  llm:
    ttft: {dist: constant, value: 1ms}
    tokens: {input: {dist: constant, value: 3000}, output: {dist: constant, value: 10}}
    prompt_cache: {ttl: 2s, prefix: 2000, min_tokens: 1024}
`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := audited(t, sc.Config)
	tk := res.Tokens[0]
	n := float64(tk.Calls)
	p := 1 - math.Exp(-lambda*ttl)
	within(t, "hit ratio", float64(tk.CacheHits)/n, p, math.Sqrt(p*(1-p)/n))
	if tk.CacheRead != prefix*tk.CacheHits || tk.CacheWrite != prefix*(tk.Calls-tk.CacheHits) {
		t.Errorf("read %d and wrote %d tokens in %d calls, %d hits: want the %d-token prefix read by each hit and written by each miss",
			tk.CacheRead, tk.CacheWrite, tk.Calls, tk.CacheHits, prefix)
	}
}

// TestPromptCacheAgentLoop: in an agent loop with a context, each turn's
// input starts with the previous turn's whole input, which that call
// cached: turns 2 … 5 of a run read it and write only what was appended
// since (500 tokens), and the first turn reads the shared system prompt
// when another run cached it. With cache prices, a run costs less.
func TestPromptCacheAgentLoop(t *testing.T) {
	const loop = "max_turns: 5\n      context: {system: 2000}"
	cfg := agentConfig(t, loop, "tools.llm.prompt_cache={ttl: 1h, min_tokens: 1024}")
	res := audited(t, cfg)
	tk := res.Tokens[0]
	runs := res.Runs.Completed
	shared := tk.CacheHits - 4*runs // first turns that read the system prompt
	if shared < 0 || shared > runs {
		t.Fatalf("%d cache hits for %d runs: want the four later turns of every run, and some first turns", tk.CacheHits, runs)
	}
	// Inputs 2000, 2500, 3000, 3500, 4000: turns 2 … 5 read 11000.
	if want := 11000*runs + 2000*shared; tk.CacheRead != want {
		t.Errorf("cache read %d tokens, want %d", tk.CacheRead, want)
	}
	if want := 4*500*runs + 2000*(runs-shared); tk.CacheWrite != want {
		t.Errorf("cache wrote %d tokens, want %d", tk.CacheWrite, want)
	}

	// The same loop billed: input at 3, cache reads at 0.3, writes at
	// 3.75 per million tokens, output at 15.
	priced := func(extra ...string) *system.Result {
		sets := append([]string{"tools.llm.cost={input_token: 0.000003, output_token: 0.000015" + extra[0] + "}", "runs=2000"}, extra[1:]...)
		return audited(t, agentConfig(t, loop, sets...))
	}
	plain := priced("").Cost.Spent
	cres := priced(", cache_read_token: 0.0000003, cache_write_token: 0.00000375", "tools.llm.prompt_cache={ttl: 1h, min_tokens: 1024}")
	if cached := cres.Cost.Spent; !(cached < 0.5*plain) {
		t.Errorf("cost with the prompt cache %v, without %v: want less than half", cached, plain)
	}
	// The spend by kind: each kind's tokens at its price (every run is
	// measured and succeeds), summing to the spend.
	ctk, split := cres.Tokens[0], cres.Cost.Tokens
	for _, c := range []struct {
		kind      string
		got, want float64
	}{
		{"input", split.Input, 0.000003 * float64(ctk.Input-ctk.CacheRead-ctk.CacheWrite)},
		{"cache read", split.CacheRead, 0.0000003 * float64(ctk.CacheRead)},
		{"cache write", split.CacheWrite, 0.00000375 * float64(ctk.CacheWrite)},
		{"output", split.Output, 0.000015 * float64(ctk.Output)},
	} {
		if math.Abs(c.got-c.want) > 1e-9*max(c.want, 1) {
			t.Errorf("%s spend %v, want %v", c.kind, c.got, c.want)
		}
	}
	if sum := split.Input + split.CacheRead + split.CacheWrite + split.Output; math.Abs(sum-cres.Cost.Spent) > 1e-6*cres.Cost.Spent {
		t.Errorf("spend by kind sums to %v, spent %v", sum, cres.Cost.Spent)
	}
}

// TestPromptCacheParallelCallsMiss: calls sent before the call that
// writes an entry has started to answer miss it, and write it again.
func TestPromptCacheParallelCallsMiss(t *testing.T) {
	sc, err := scenarios.Parse("cache.yaml", []byte(`
name: cache
runs: 1
warmup: 0
arrivals: {rate: 1/s}
workers: 1
steps:
  - name: fan
    parallel:
      - {name: a, tool: llm}
      - {name: b, tool: llm}
      - {name: c, tool: llm}
  - {name: after, tool: llm}
tools:
  llm:
    ttft: {dist: constant, value: 500ms}
    tokens: {input: {dist: constant, value: 3000}, output: {dist: constant, value: 10}}
    prompt_cache: {ttl: 5m, prefix: 2000, min_tokens: 1024}
`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tk := audited(t, sc.Config).Tokens[0]
	if tk.Calls != 4 || tk.CacheHits != 1 || tk.CacheWrite != 3*2000 || tk.CacheRead != 2000 {
		t.Errorf("calls %d, hits %d, written %d, read %d: want the three parallel calls to miss and write, the last to read", tk.Calls, tk.CacheHits, tk.CacheWrite, tk.CacheRead)
	}
}
