package summary_test

import (
	"strings"
	"testing"
)

// TestTokenFitCountsAsTheProfile: the warning that a model call can never
// fit a per-minute limit counts the call as the tool's rate_limit.profile
// counts it at admission, one case per counting rule, and names the rule.
// Each case is chosen so that the generic count (input + reserve_output)
// would say otherwise: a warning the profile does not give, or none where
// the profile's count exceeds the limit.
func TestTokenFitCountsAsTheProfile(t *testing.T) {
	const text = `name: fit
seed: 1
runs: 20
warmup: 0
arrivals: {rate: 0.01/s}
workers: 4
deadline: 1m
steps:
  - {name: answer, tool: llm}
tools:
  llm:
    ttft: {dist: constant, value: 300ms}
    tokens: {input: {dist: uniform, min: 4000, max: 6000}, output: {dist: constant, value: 100}}
    rate_limit: {tpm: 100000}
`
	for _, tc := range []struct {
		name string
		sets []string
		want string // a warning containing it; "" for no token warning
	}{
		{"generic: input + reserve_output", []string{"tools.llm.tokens.reserve_output=1000", "tools.llm.rate_limit={tpm: 4500}"},
			"every call to llm counts at least 5000 tokens against its tpm limit of 4500 (counted as input + reserve_output, the generic rule)"},
		// OpenAI: max(max_tokens, input) against TPM, where the generic
		// count adds them (4000 + 8000 > 9000; 4000 + 3000 beyond 3500,
		// the generic figure 7000).
		{"openai: max(max_tokens, input) fits", []string{"tools.llm.tokens.max_output=8000", "tools.llm.rate_limit={profile: openai, tpm: 9000}"}, ""},
		{"openai: max(max_tokens, input) beyond", []string{"tools.llm.tokens.max_output=3000", "tools.llm.rate_limit={profile: openai, tpm: 3500}"},
			"every call to llm counts at least 4000 tokens against its tpm limit of 3500 (counted as max(max_output, input), as the openai profile counts)"},
		// Bedrock: input + max_tokens, where the generic count takes the
		// smaller reserve_output (6000 + 100 fits 7000).
		{"bedrock: input + max_tokens", []string{"tools.llm.tokens.max_output=4000", "tools.llm.tokens.reserve_output=100", "tools.llm.rate_limit={profile: bedrock, tpm: 7000}"},
			"every call to llm counts at least 8000 tokens against its tpm limit of 7000 (counted as input + max_output, as the bedrock profile counts)"},
		// Anthropic: the input alone against TPM (output as generated),
		// where the generic count adds reserve_output (4000 + 1000).
		{"anthropic: input only", []string{"tools.llm.tokens.reserve_output=1000", "tools.llm.rate_limit={profile: anthropic, tpm: 4500}"},
			"calls to llm may count up to 6000 tokens against its tpm limit of 4500 (counted as input less cache reads only, as the anthropic profile counts)"},
		// Anthropic with a prompt cache: cache reads are not counted
		// against ITPM, so a call need not exceed it, where every call
		// would by the generic count.
		{"anthropic: cache reads excluded from itpm", []string{"tools.llm.prompt_cache={ttl: 5m, prefix: 4000}", "tools.llm.rate_limit={profile: anthropic, itpm: 3000}"},
			"calls to llm may count up to 6000 tokens against its itpm limit of 3000 (counted as input less cache reads, as the anthropic profile counts)"},
		// Azure PTU: a leaky bucket admits a call of any size while it is
		// at most full.
		{"azure-ptu: leaky bucket", []string{"tools.llm.rate_limit={profile: azure-ptu, tpm: 3000}"}, ""},
		// Vertex provisioned throughput: a call beyond the quota spills
		// over to pay-as-you-go.
		{"vertex-pt: spills", []string{"tools.llm.rate_limit={profile: vertex-pt, tpm: 3000}"},
			"every call to llm counts at least 4100 tokens against its tpm limit of 3000 (counted as input + reserve_output, as the vertex-pt profile counts), more than a minute's allowance: every call spills over to pay-as-you-go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := summarize(t, loadText(t, text, tc.sets...), 1)
			var got []string
			for _, w := range s.Warnings {
				if strings.Contains(w, "tokens against its") {
					got = append(got, w)
				}
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("unexpected warnings %q", got)
			case tc.want != "" && warningWith(s, tc.want) == "":
				t.Errorf("warnings %q: want one containing %q", got, tc.want)
			}
		})
	}
}
