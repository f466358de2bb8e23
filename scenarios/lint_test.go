package scenarios_test

import (
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/scenarios"
)

// metered is a model API billed per token.
const metered = `name: money
runs: 10
arrivals: {rate: 1/s}
workers: 1
steps:
  - {name: answer, tool: llm}
tools:
  llm:
    ttft: {dist: constant, value: 300ms}
    tokens: {input: {dist: uniform, min: 1000, max: 100000}, output: {dist: lognormal, median: 400, p99: 1500}, reserve_output: 100}
    cost: {input_token: 0.000003, output_token: 0.000015}
`

// TestMoneyBeyondTheLedgerIsRefused: a metered model API whose largest
// call would reserve or bill more than the cost ledger's int64 micro-units
// hold is refused at load, naming the tool's cost block and its line;
// each price and reserve alone is inside its documented range. Realistic
// prices pass, even with an unbounded output distribution (capped at the
// per-call token cap).
func TestMoneyBeyondTheLedgerIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		sets []string
		want string // "" for no error
	}{
		{"realistic prices", nil, ""},
		{"input price × tokens", []string{"tools.llm.cost.input_token=1000000000"}, "money.yaml:11: tools.llm.cost: a call can reserve 1e+14 cost units"},
		{"reserve + tokens", []string{"tools.llm.cost.reserve=9223372036000", "tools.llm.cost.input_token=100"}, "tools.llm.cost: a call can reserve 9.223e+12 cost units"},
		{"output billed", []string{"tools.llm.cost.output_token=1000000"}, "tools.llm.cost: a call can bill"},
		{"output cut by max_output", []string{"tools.llm.cost.output_token=1000000", "tools.llm.tokens.max_output=1000"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scenarios.Parse("money.yaml", []byte(metered), tc.sets, nil)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
