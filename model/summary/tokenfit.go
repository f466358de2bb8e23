package summary

import (
	"fmt"
	"math"
	"time"

	"github.com/budgetsim/budgetsim/model/ratelimit"
	"github.com/budgetsim/budgetsim/model/system"
)

// tokenFitWarnings says when a step's calls to a model API are counted
// against one of its per-minute token limits for more than a window of it
// holds: such a call is never admitted, and its run waits (or is turned
// away with 429s) until its deadline or a guard ends it; under a profile
// that spills (vertex-pt, enforced by the provider) it is served
// pay-as-you-go instead. A call is counted as the limiter counts it at
// admission (ratelimit.Profile.Charges): without a profile, its input
// plus tokens.reserve_output; under a profile, by the profile's rule
// (input only; input + max_output; max(max_output, input) against tpm),
// its input less the tokens read from a prompt cache when the profile
// does not count them. It names the step, the limit, the rule and the
// smallest count: the least input the step's distribution draws (all of
// it possibly read from the cache) — or, when only the largest draws do
// not fit, the largest count (no cache read). A step whose input comes
// from an earlier step's tokens is not checked, nor a limit enforced as
// a leaky bucket of utilisation (azure-ptu), which admits a call of any
// size while it is at most full.
func tokenFitWarnings(cfg *system.Config) []string {
	var w []string
	for _, st := range cfg.PlanSteps() {
		t := &cfg.Tools[st.Tool]
		tl := t.TokenLimit
		if tl == nil || t.Tokens == nil {
			continue
		}
		in := t.Tokens.Input
		if st.Tokens != nil && st.Tokens.InputFrom >= 0 {
			continue
		}
		if st.Tokens != nil && st.Tokens.Input != nil {
			in = st.Tokens.Input
		}
		lo, hi := 0.0, 0.0
		if in != nil {
			lo, hi = math.Max(math.Round(in.Quantile(0)), 0), math.Round(in.Quantile(1))
		}
		unbounded := math.IsInf(hi, 1)
		hi = math.Min(hi, ratelimit.MaxCallTokens)
		p := tl.Profile
		request := func(in, cached float64) ratelimit.Request {
			return ratelimit.Request{
				Usage:     ratelimit.Usage{Input: int(in), CacheRead: int(cached), Output: int(t.Tokens.ReserveOutput)},
				MaxTokens: int(t.Tokens.MaxOutput),
			}
		}
		cached := 0.0
		if t.PromptCache != nil {
			cached = lo // the whole input may be a cached prefix
		}
		least, most := p.Charges(request(lo, cached)), p.Charges(request(hi, 0))
		for _, l := range []ratelimit.Limit{ratelimit.TPM, ratelimit.ITPM, ratelimit.OTPM} {
			perMinute := tl.Limits.Of(l)
			if perMinute <= 0 {
				continue
			}
			window, allowance := time.Minute, perMinute
			if p != nil {
				if p.Windows[l].Kind == ratelimit.Leaky {
					continue
				}
				window, allowance = p.Windows[l].Fit(perMinute)
			}
			room := "a minute's allowance"
			if window != time.Minute {
				room = fmt.Sprintf("the %v window's allowance of %d", window, allowance)
			}
			fate := "no call can ever be admitted, and every run waits at this step until its deadline or a guard ends it"
			some := "a call counted for more than " + room + " is never admitted, and its run waits at this step until its deadline or a guard ends it"
			if p != nil && p.Spill && !tl.Client {
				fate = "every call spills over to pay-as-you-go, served outside the quota and billed at the token prices"
				some = "a call counted for more than " + room + " spills over to pay-as-you-go, billed at the token prices"
			}
			rule := countingRule(p, l, t.Tokens.MaxOutput > 0)
			a, b := float64(least[l]), float64(most[l])
			switch {
			case a > float64(allowance):
				w = append(w, fmt.Sprintf("step %s: every call to %s counts at least %.0f tokens against its %s limit of %d (%s), more than %s: %s", st.Name, t.Name, a, l, perMinute, rule, room, fate))
			case b > float64(allowance) && !unbounded:
				w = append(w, fmt.Sprintf("step %s: calls to %s may count up to %.0f tokens against its %s limit of %d (%s): %s", st.Name, t.Name, b, l, perMinute, rule, some))
			case b > float64(allowance):
				w = append(w, fmt.Sprintf("step %s: calls to %s draw input tokens without bound, and are counted against its %s limit of %d (%s): %s", st.Name, t.Name, l, perMinute, rule, some))
			}
		}
	}
	return w
}

// countingRule says how a call is counted against limit l at admission
// under profile p (nil: the generic rule); maxOut says that the calls
// have a max_output (max_tokens).
func countingRule(p *ratelimit.Profile, l ratelimit.Limit, maxOut bool) string {
	count, name := ratelimit.CountEstimate, "the generic rule"
	input := "input"
	if p != nil {
		count, name = p.Count, "as the "+p.Name+" profile counts"
		if !p.CacheReadsCount {
			input = "input less cache reads"
		}
	}
	mt := "max_output"
	if !maxOut {
		mt = "reserve_output, without a max_output"
	}
	var what string
	switch count {
	case ratelimit.CountInput:
		what = map[ratelimit.Limit]string{ratelimit.TPM: input + " only", ratelimit.ITPM: input, ratelimit.OTPM: "nothing: output counts as it is generated"}[l]
	case ratelimit.CountMaxTokens:
		what = map[ratelimit.Limit]string{ratelimit.TPM: input + " + " + mt, ratelimit.ITPM: input, ratelimit.OTPM: mt}[l]
	case ratelimit.CountMaxOfMaxTokensAndInput:
		what = map[ratelimit.Limit]string{ratelimit.TPM: "max(" + mt + ", " + input + ")", ratelimit.ITPM: input, ratelimit.OTPM: mt}[l]
	default:
		what = map[ratelimit.Limit]string{ratelimit.TPM: input + " + reserve_output", ratelimit.ITPM: input, ratelimit.OTPM: "reserve_output"}[l]
	}
	return "counted as " + what + ", " + name
}
