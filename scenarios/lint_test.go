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

// meteredTool is a tool billed by drawn usage and priced dimensions.
const meteredTool = `name: usage
runs: 10
arrivals: {rate: 1/s}
workers: 1
steps:
  - {name: call, tool: api}
tools:
  api:
    latency: {dist: constant, value: 100ms}
    cost:
      reserve: 1000
      usage: {dist: uniform, min: 10, max: 70}
      dims:
        fee: {price: 0.5, dist: constant, value: 1}
        output_tokens: {price: 0.002, dist: lognormal, median: 400, p99: 1500}
`

// TestUsageBeyondTheLedgerIsRefused: a metered tool whose drawn usage
// (usage, plus each dim's draw × its price) can exceed what the cost
// ledger holds is refused at load, naming the largest term and its line:
// a bounded distribution at its largest value, an unbounded one at its
// one-in-a-billion quantile (not at infinity: realistic unbounded dims
// pass). Usage plus the tokens a model API bills is checked together.
func TestUsageBeyondTheLedgerIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		sets []string
		want string // "" for no error
	}{
		{"realistic usage", meteredTool, nil, ""},
		{"bounded usage beyond", strings.Replace(meteredTool, "max: 70", "max: 1e13", 1), nil, "usage.yaml:12: tools.api.cost.usage: a call's usage can reach 1e+13 cost units (usage up to 1e+13 + dims.fee up to 1 × price 0.5"},
		{"dim price × bounded draw", strings.Replace(meteredTool, "price: 0.5, dist: constant, value: 1}", "price: 1e9, dist: constant, value: 1e5}", 1), nil, "usage.yaml:14: tools.api.cost.dims.fee: a call's usage can reach 1e+14 cost units"},
		{"unbounded dim at its quantile", meteredTool, []string{"tools.api.cost.dims.output_tokens.price=1e9"}, "tools.api.cost.dims.output_tokens: a call's usage can reach 1.208e+13 cost units"},
		{"unbounded dim below it", meteredTool, []string{"tools.api.cost.dims.output_tokens.price=1e8"}, ""},
		{"usage with tokens", strings.Replace(metered, "cost: {", "cost: {usage: {dist: constant, value: 9223372036850}, ", 1), nil, "money.yaml:11: tools.llm.cost: a call can bill 9.223e+12 cost units (usage up to 9.223e+12, plus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := "usage.yaml"
			if strings.HasPrefix(tc.src, "name: money") {
				file = "money.yaml"
			}
			_, err := scenarios.Parse(file, []byte(tc.src), tc.sets, nil)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
