package system_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/budgetsim/budgetsim/internal/scenariotest"
	"github.com/budgetsim/budgetsim/model/system"
)

// TestOfferedTokenLoadCountsAsTheProfile: the token load the arrivals
// offer a model API's per-minute limits (OfferedToolLoads' TokenLoad,
// plan's peak load) counts each call as its rate_limit.profile does, one
// case per counting rule. One call a second of 1,000 to 3,000 input tokens
// (uniform) and 500 output tokens against 60,000 tpm: a limiter that
// corrects its count at the end (the generic rule, anthropic, bedrock) is
// charged the actual 2,000 + 500 tokens a call, load 2.5; azure-openai
// keeps input + max_output (2,000 + 2,000), load 4; openai keeps
// max(max_output, input), whose mean over the uniform input is
// 0.5 × 2,000 + 0.5 × 2,500 = 2,250, load 2.25.
func TestOfferedTokenLoadCountsAsTheProfile(t *testing.T) {
	const text = `name: offered-tokens
runs: 100
arrivals: {rate: 1/s}
workers: 50
steps:
  - {name: answer, tool: llm}
tools:
  llm:
    ttft: {dist: constant, value: 300ms}
    tokens: {input: {dist: uniform, min: 1000, max: 3000}, output: {dist: constant, value: 500}, max_output: 2000}
    rate_limit: {tpm: 60000}
`
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		profile string
		want    float64
		tol     float64 // relative
	}{
		{"", 2.5, 1e-12},
		{"anthropic", 2.5, 1e-12},
		{"bedrock", 2.5, 1e-12},
		{"azure-openai", 4, 1e-12},
		// The midpoint rule on 4096 quantiles of draws rounded to whole
		// tokens: within half a token of 2,250.
		{"openai", 2.25, 0.5 / 2250},
	} {
		var sets []string
		if tc.profile != "" {
			sets = []string{"tools.llm.rate_limit={profile: " + tc.profile + ", tpm: 60000}"}
		}
		cfg := scenariotest.Config(t, path, sets...)
		var got *system.ToolOffer
		for _, o := range system.OfferedToolLoads(cfg) {
			if cfg.Tools[o.Tool].Name == "llm" {
				got = &o
			}
		}
		switch {
		case got == nil:
			t.Errorf("profile %q: no offered load for llm", tc.profile)
		case got.TokenBinding != "tpm" || math.Abs(got.TokenLoad-tc.want) > tc.tol*tc.want:
			t.Errorf("profile %q: token load %g on %q, want %g on tpm", tc.profile, got.TokenLoad, got.TokenBinding, tc.want)
		}
	}
}
