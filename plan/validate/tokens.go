package validate

import (
	"fmt"
	"math"

	"github.com/budgetsim/budgetsim/model/analytic"
	"github.com/budgetsim/budgetsim/model/system"
)

// Model APIs: the bundled model-api scenario reduced to one model call per
// run, against the closed forms of model/analytic for token-weighted
// limits.

// tokenModels are the token-limit cases.
func tokenModels() []model {
	oneCall := "steps=[{name: answer, tool: llm}]"
	return []model{
		{"token-limit", "provider tpm limit, saturated", []figure{
			{name: "admitted calls/s", formula: "token limit: calls/s = tpm / 60 / E[input + output tokens], E over the rounded, max_output-cut draws",
				analytic: tokenCap, estimate: llmCallRate},
		}, "model-api", []string{
			// 40 agents that never think keep the provider's bucket empty:
			// every call either fits or gets a 429 and retries after it.
			"arrivals={process: closed, users: 40, think: {dist: constant, value: 0s}}",
			"runs=20000", "warmup=2000", "deadline=0", oneCall, "retry.attempts=1000",
			"tools.llm.errors={transient: 0}", "tools.llm.rate_limit={tpm: 60000}",
			// Calls of one input size reserve alike (input + max_output),
			// so the limit admits them in no particular order of size; the
			// output varies and is settled on its actual length.
			"tools.llm.tokens.input={dist: constant, value: 5000}",
		}},
		{"token-limit-openai", "provider tpm limit, openai profile, saturated", []figure{
			{name: "admitted calls/s", formula: "openai counts max(max_tokens, input) and never corrects it: calls/s = tpm / 60 / max(max_output, input)",
				analytic: openaiCap, estimate: llmCallRate},
		}, "model-api", []string{
			"arrivals={process: closed, users: 40, think: {dist: constant, value: 0s}}",
			"runs=20000", "warmup=2000", "deadline=0", oneCall, "retry.attempts=1000",
			"tools.llm.errors={transient: 0}", "tools.llm.rate_limit={tpm: 60000, profile: openai}",
			"tools.llm.tokens.input={dist: constant, value: 5000}",
		}},
		{"token-limit-azure", "provider tpm counter, azure-openai profile, saturated", []figure{
			{name: "admitted calls/s", formula: "azure-openai counts input + max_tokens in a counter reset each minute: calls/s = ⌊tpm / (input + max_output)⌋ / 60",
				analytic: azureCap, estimate: llmCallRate},
		}, "model-api", []string{
			"arrivals={process: closed, users: 40, think: {dist: constant, value: 0s}}",
			"runs=12000", "warmup=1000", "deadline=0", oneCall, "retry.attempts=1000",
			"tools.llm.errors={transient: 0}", "tools.llm.rate_limit={tpm: 60000, profile: azure-openai}",
			"tools.llm.tokens.input={dist: constant, value: 5000}",
		}},
		{"token-queue", "client-side itpm wait, M/G/1", []figure{
			{name: "mean limiter backlog (s)", formula: "single-server queue of service time tokens / rate (TokenQueue): backlog = Pollaczek–Khinchine sojourn",
				analytic: tokenQueueSojourn, estimate: llmBacklog},
		}, "model-api", []string{
			"runs=80000", "warmup=2000", "deadline=0", oneCall,
			"tools.llm.errors={transient: 0}", "tools.llm.rate_limit={itpm: 118000, enforce: client}",
		}},
	}
}

// llm returns the index of the model API tool.
func llm(cfg *system.Config) int {
	for i := range cfg.Tools {
		if cfg.Tools[i].Name == "llm" {
			return i
		}
	}
	panic("validate: the token cases need a tool llm")
}

// llmIndex is the llm tool's index in model-api: search, then llm.
const llmIndex = 1

// llmCallRate is the calls per second that reached the llm tool over the
// tool window.
func llmCallRate(r *system.Result) float64 {
	return float64(r.Tokens[llmIndex].Calls) / r.ToolWindow.Seconds()
}

// llmBacklog is the mean backlog of the llm tool's itpm bucket just after
// each reservation.
func llmBacklog(r *system.Result) float64 {
	t := r.Tokens[llmIndex]
	return t.Backlog[2] / float64(t.Reserve)
}

// callTokens returns the moments of a call's input and output tokens.
func callTokens(cfg *system.Config) (in, in2, out float64, err error) {
	tk := cfg.Tools[llm(cfg)].Tokens
	in, in2, ok := system.TokenMoments(tk.Input, 0)
	if !ok {
		return 0, 0, 0, fmt.Errorf("input tokens %v: support too wide to sum", tk.Input)
	}
	out, _, ok = system.TokenMoments(tk.Output, tk.MaxOutput)
	if !ok {
		return 0, 0, 0, fmt.Errorf("output tokens %v: support too wide to sum", tk.Output)
	}
	return in, in2, out, nil
}

func tokenCap(cfg *system.Config) (float64, error) {
	in, _, out, err := callTokens(cfg)
	if err != nil {
		return 0, err
	}
	l := cfg.Tools[llm(cfg)].TokenLimit.Limits
	c, _, err := analytic.TokenLimits{RPM: float64(l.RPM), TPM: float64(l.TPM), ITPM: float64(l.ITPM), OTPM: float64(l.OTPM)}.CallCap(in, out)
	return c, err
}

func tokenQueueSojourn(cfg *system.Config) (float64, error) {
	in, in2, _, err := callTokens(cfg)
	if err != nil {
		return 0, err
	}
	rate := float64(cfg.Tools[llm(cfg)].TokenLimit.Limits.ITPM) / 60
	q, err := analytic.TokenQueue(cfg.Arrivals.Rate, rate, in, in2)
	if err != nil {
		return 0, err
	}
	return q.MeanSojourn()
}

// profileCallTokens returns a case's constant input tokens and its
// max_output: the profile cases draw one input size, so that the counted
// tokens are the same for every call.
func profileCallTokens(cfg *system.Config) (in, maxOutput float64, tpm int, err error) {
	in, in2, _, err := callTokens(cfg)
	if err != nil {
		return 0, 0, 0, err
	}
	if in2 != in*in {
		return 0, 0, 0, fmt.Errorf("input tokens %v: the profile cases need a constant input", cfg.Tools[llm(cfg)].Tokens.Input)
	}
	i := llm(cfg)
	return in, float64(cfg.Tools[i].Tokens.MaxOutput), cfg.Tools[i].TokenLimit.Limits.TPM, nil
}

func openaiCap(cfg *system.Config) (float64, error) {
	in, mo, tpm, err := profileCallTokens(cfg)
	if err != nil {
		return 0, err
	}
	return float64(tpm) / 60 / max(in, mo), nil
}

func azureCap(cfg *system.Config) (float64, error) {
	in, mo, tpm, err := profileCallTokens(cfg)
	if err != nil {
		return 0, err
	}
	return math.Floor(float64(tpm)/(in+mo)) / 60, nil
}
