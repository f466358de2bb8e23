package validate

import (
	"fmt"
	"math"

	"github.com/budgetsim/budgetsim/model/system"
)

// Agent loops and prompt caching: the bundled coding-agent scenario
// reduced by overrides to a loop of one call per turn on an unloaded
// system, or to one cached model call per run, against their closed
// forms.

// agentModels are the agent-loop and prompt-cache cases.
func agentModels() []model {
	loop := func(extra string) string {
		return "steps=[{name: agent, loop: {max_turns: 60, stop: 0.25" + extra + ", steps: [{name: think, tool: model}]}}]"
	}
	unloaded := []string{"workers=1000", "deadline=0", "retry.attempts=1", "runs=20000", "warmup=0"}
	return []model{
		{"loop-turns", "an agent loop that stops with probability 0.25 after each turn", []figure{
			{name: "mean turns per run", formula: "geometric turns truncated at N: (1 − (1−p)^N) / p",
				analytic: func(c *system.Config) (float64, error) {
					m, _, err := loopTurns(c)
					return m, err
				}, estimate: func(r *system.Result) float64 { return r.Loops[0].Turns.Mean() }},
			{name: "mean run time (s)", formula: "unloaded: E[turns] × E[turn]",
				analytic: func(c *system.Config) (float64, error) {
					m, _, err := loopTurns(c)
					return float64(m * c.Tools[c.Steps[0].Tool].Latency.Mean()), err
				}, estimate: func(r *system.Result) float64 { return r.Latency.Mean() }},
		}, "coding-agent", append([]string{loop(""), "tools.model={latency: {dist: exponential, mean: 2s}}"}, unloaded...)},
		{"context-growth", "a loop whose context grows by g tokens a turn", []figure{
			{name: "input tokens per run", formula: "n turns send n·s + g·n(n−1)/2, averaged over the turns' distribution",
				analytic: contextTokens, estimate: func(r *system.Result) float64 {
					return float64(r.Tokens[0].Input) / float64(r.Runs.Completed)
				}},
		}, "coding-agent", append([]string{loop(", context: {system: 3000}"),
			"tools.model={latency: {dist: constant, value: 1s}, tokens: {input: {dist: constant, value: 1}, output: {dist: constant, value: 400}}}"}, unloaded...)},
		{"prompt-cache-ttl", "a shared prompt prefix under Poisson traffic, TTL refreshed on every read", []figure{
			{name: "share of calls that read the cache", formula: "a call reads it when the call before came within the TTL: 1 − e^(−λ·TTL)",
				analytic: func(c *system.Config) (float64, error) {
					pc := c.Tools[c.Steps[0].Tool].PromptCache
					if pc == nil {
						return 0, fmt.Errorf("the step's tool has no prompt cache")
					}
					return 1 - math.Exp(-float64(rate(c)*pc.TTL.Seconds())), nil
				}, estimate: func(r *system.Result) float64 {
					return float64(r.Tokens[0].CacheHits) / float64(r.Tokens[0].Calls)
				}},
		}, "coding-agent", append([]string{"steps=[{name: ask, tool: model}]", "arrivals={rate: 0.5/s}",
			"tools.model={ttft: {dist: constant, value: 1ms}, tokens: {input: {dist: constant, value: 3000}, output: {dist: constant, value: 10}}, prompt_cache: {ttl: 2s, prefix: 2000, min_tokens: 1024}}"}, unloaded...)},
		{"first-token-timeout", "a streaming call cut when its first token takes longer than τ, retried up to k attempts", []figure{
			{name: "share of runs that succeed", formula: "1 − q^k, q = P(time to first token > τ)",
				analytic: func(c *system.Config) (float64, error) {
					q, k, err := firstTokenCut(c)
					return 1 - math.Pow(q, k), err
				}, estimate: func(r *system.Result) float64 { return float64(r.Runs.Completed) / float64(r.Runs.Arrived) }},
			{name: "attempts per run", formula: "(1 − q^k) / (1 − q)",
				analytic: func(c *system.Config) (float64, error) {
					q, k, err := firstTokenCut(c)
					return (1 - math.Pow(q, k)) / (1 - q), err
				}, estimate: func(r *system.Result) float64 { return float64(r.Attempts.Attempts) / float64(r.Runs.Arrived) }},
		}, "coding-agent", append(append([]string{"steps=[{name: ask, tool: model, timeout: 60s, first_token_timeout: 1s}]",
			"tools.model={stream: true, ttft: {dist: exponential, mean: 2s}, tokens: {input: {dist: constant, value: 100}, output: {dist: constant, value: 10}}}"}, unloaded...),
			"retry={attempts: 3, idempotent: true, backoff: {base: 1ms, cap: 1ms}}")},
		{"stream-cut", "streams of N output tokens at 10 ms each, cut by a 1.005 s timeout", []figure{
			{name: "output tokens billed per call", formula: "a cut stream bills what it produced: E[min(N, 100)] = Σ_{k<100} P(N > k)",
				analytic: streamCutTokens, estimate: func(r *system.Result) float64 {
					return float64(r.Tokens[0].Output) / float64(r.Tokens[0].Calls)
				}},
		}, "coding-agent", append([]string{"steps=[{name: ask, tool: model, timeout: 1005ms}]",
			"tools.model={stream: true, ttft: {dist: constant, value: 0s}, per_output_token: {dist: constant, value: 10ms}, tokens: {input: {dist: constant, value: 100}, output: {dist: exponential, mean: 200}}}"}, unloaded...)},
	}
}

// firstTokenCut returns, for cfg's first step, the probability q that a
// call's time to first token (its tool's latency) exceeds the step's
// first-token timeout, and its attempts k.
func firstTokenCut(c *system.Config) (q, k float64, err error) {
	st := c.Steps[0]
	if st.FirstTokenTimeout <= 0 {
		return 0, 0, fmt.Errorf("the step has no first-token timeout")
	}
	q = 1 - c.Tools[st.Tool].Latency.CDF(st.FirstTokenTimeout.Seconds())
	return q, float64(st.Retry.Attempts), nil
}

// streamCutTokens is the mean output a call of cfg's first step bills
// when its stream is cut at the step's timeout: a call of n tokens at a
// constant time per token answers if n tokens fit the timeout (m = the
// whole tokens that do) and is otherwise cut after m; with n drawn as
// round(X), P(n > k) = P(X ≥ k + ½).
func streamCutTokens(c *system.Config) (float64, error) {
	st := c.Steps[0]
	tk := c.Tools[st.Tool].Tokens
	if tk == nil || tk.PerOutputToken == nil || st.Timeout <= 0 {
		return 0, fmt.Errorf("the step's tool has no per-token time, or the step no timeout")
	}
	m := int(math.Floor(float64(st.Timeout.Seconds()-c.Tools[st.Tool].Latency.Mean()) / tk.PerOutputToken.Mean()))
	sum := 0.0
	for k := range m {
		sum += 1 - tk.Output.CDF(float64(k)+0.5)
	}
	return sum, nil
}

// loopTurns returns the mean and second moment of the turns of cfg's
// first loop, geometric with its stop probability, truncated at
// max_turns.
func loopTurns(c *system.Config) (mean, second float64, err error) {
	if len(c.Loops) == 0 || c.Loops[0].Stop <= 0 {
		return 0, 0, fmt.Errorf("the scenario has no loop with a stop probability")
	}
	l := c.Loops[0]
	q := 1 - l.Stop
	for k := 1; k <= l.MaxTurns; k++ {
		p := math.Pow(q, float64(k-1)) * l.Stop
		if k == l.MaxTurns {
			p = math.Pow(q, float64(k-1))
		}
		mean += float64(float64(k) * p)
		second += float64(float64(k*k) * p)
	}
	return mean, second, nil
}

// contextTokens is the mean input tokens of a run of cfg's first loop:
// n turns of one model call each, whose constant output g joins the
// context, send n·s + g·n(n−1)/2 (s the system prompt), averaged over
// the turns.
func contextTokens(c *system.Config) (float64, error) {
	mean, second, err := loopTurns(c)
	if err != nil {
		return 0, err
	}
	l := c.Loops[0]
	if l.Context == nil || l.Context.Start != nil {
		return 0, fmt.Errorf("the loop has no context, or one with start tokens")
	}
	g := c.Tools[c.Steps[0].Tool].Tokens.Output.Mean()
	s := float64(l.Context.System)
	// E[n·s + g·n(n−1)/2] = s·E[n] + g·(E[n²] − E[n])/2.
	return float64(s*mean) + float64(float64(g*(second-mean))/2), nil
}
