package system

import (
	"math"

	"github.com/budgetsim/budgetsim/model/ratelimit"
)

// tokenCharges is what one call of a step charges its tool's per-minute
// token limits over the long run, in tokens: against tpm, itpm and otpm.
type tokenCharges struct{ tpm, itpm, otpm float64 }

// stepTokenCharges returns, per tool (Config.Tools order), the mean
// tokens one call of each step of steps (PlanSteps) charges the tool's
// per-minute limits when its rate_limit.profile keeps a call's admission
// count, uncorrected when the call ends; nil for a tool whose limiter
// corrects the count to the call's actual usage (no profile, and the
// anthropic, bedrock, azure-ptu and vertex-pt profiles), which is charged
// the steps' mean input and output tokens (tokIn, tokOut: stepTokenMeans),
// cache reads counted, since how many calls read the cache is known only
// once they run (for anthropic and azure-ptu, which do not count them, an
// upper bound). A count that stands is kept: azure-openai's input plus
// max_output (reserve_output without one) against tpm and otpm, openai's
// max(max_output, input) against tpm, its mean taken over the step's
// input distribution, and max_output against otpm.
func (c *Config) stepTokenCharges(steps []Step, tokIn, tokOut []float64) [][]tokenCharges {
	out := make([][]tokenCharges, len(c.Tools))
	for i := range c.Tools {
		t := &c.Tools[i]
		if t.TokenLimit == nil || t.TokenLimit.Profile == nil || t.TokenLimit.Profile.Settle || t.Tokens == nil {
			continue
		}
		p := t.TokenLimit.Profile
		mt := float64(t.Tokens.ReserveOutput)
		if t.Tokens.MaxOutput > 0 {
			mt = float64(t.Tokens.MaxOutput)
		}
		est := float64(t.Tokens.ReserveOutput)
		out[i] = make([]tokenCharges, len(steps))
		for j, st := range steps {
			if st.Tool != i {
				continue
			}
			in, o := tokIn[j], tokOut[j]
			switch p.Count {
			case ratelimit.CountMaxTokens:
				out[i][j] = tokenCharges{tpm: in + mt, itpm: in, otpm: mt}
			case ratelimit.CountEstimate:
				out[i][j] = tokenCharges{tpm: in + est, itpm: in, otpm: est}
			case ratelimit.CountMaxOfMaxTokensAndInput:
				out[i][j] = tokenCharges{tpm: c.meanMaxInput(st, mt, in), itpm: in, otpm: mt}
			default: // the input now, the output as it is generated
				out[i][j] = tokenCharges{tpm: in + o, itpm: in, otpm: o}
			}
		}
	}
	return out
}

// meanMaxInput is E[max(mt, input)] for one call of step st, whose mean
// input is in: over the step's input distribution (its own or its
// tool's), each draw rounded to whole tokens as the simulation rounds it,
// by the midpoint rule on 4096 quantiles; max(mt, in) when the input
// comes from an earlier step's tokens (a lower bound).
func (c *Config) meanMaxInput(st Step, mt, in float64) float64 {
	tk := c.Tools[st.Tool].Tokens
	d := tk.Input
	if s := st.Tokens; s != nil {
		if s.InputFrom >= 0 {
			return math.Max(mt, in)
		}
		if s.Input != nil {
			d = s.Input
		}
	}
	if d == nil {
		return mt
	}
	const n = 4096
	sum := 0.0
	for k := range n {
		x := math.Round(d.Quantile((float64(k) + 0.5) / n))
		sum += math.Max(mt, math.Min(math.Max(x, 0), ratelimit.MaxCallTokens))
	}
	return sum / n
}
