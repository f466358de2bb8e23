package summary

import (
	"github.com/budgetsim/budgetsim/model/ratelimit"
	"github.com/budgetsim/budgetsim/model/system"
)

// TokenSummary is a model API's token figures over the measured window,
// pooled over replications: the tokens its calls used, and each enforced
// per-minute limit's use.
type TokenSummary struct {
	// Enforce is "client" (callers wait for capacity) or "provider" (429
	// with Retry-After), or "" without limits.
	Enforce string `json:"enforce,omitempty"`
	// Profile is the provider profile of the limits (rate_limit.profile),
	// or "" for the generic rules.
	Profile string `json:"profile,omitempty"`
	// Spilled counts the calls served on the pay-as-you-go lane because
	// they did not fit the provisioned quota (a profile with spill-over).
	// Under a profile, each limit's use (Limits) is what the profile
	// counted, over the calls it counted.
	Spilled int64 `json:"spilled,omitempty"`
	// Calls counts the calls that reached the tool; InputPerCall and
	// OutputPerCall their mean tokens (a call that timed out counts its
	// reservation; a failed answer no output).
	Calls         int64   `json:"calls"`
	InputTokens   int64   `json:"input_tokens"`
	OutputTokens  int64   `json:"output_tokens"`
	InputPerCall  float64 `json:"input_per_call"`
	OutputPerCall float64 `json:"output_per_call"`
	// TokensPerSecond is input plus output tokens per second.
	TokensPerSecond float64 `json:"tokens_per_s"`
	// Limits are the enforced limits, in the order rpm, tpm, itpm, otpm.
	Limits []LimitUse `json:"limits,omitempty"`
	// Binding is the limit nearest its allowance (the largest
	// utilisation), or "" without limits.
	Binding string `json:"binding,omitempty"`
	// Waits and WaitSeconds are the client-side waits for capacity.
	Waits       int64   `json:"waits"`
	WaitSeconds float64 `json:"wait_s"`
	// CacheReadTokens and CacheWriteTokens are the input tokens read from
	// and written to the tool's prompt cache; CacheHits the calls that
	// read some. CacheReadShare is the share of input tokens read from the
	// cache, CacheHitRatio the share of calls that read some.
	CacheReadTokens  int64   `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64   `json:"cache_write_tokens,omitempty"`
	CacheHits        int64   `json:"cache_hits,omitempty"`
	CacheReadShare   float64 `json:"cache_read_share,omitempty"`
	CacheHitRatio    float64 `json:"cache_hit_ratio,omitempty"`
}

// LimitUse is one per-minute limit's use: requests (rpm) or tokens per
// second against its allowance per second.
type LimitUse struct {
	Limit     string `json:"limit"`
	PerMinute int    `json:"per_minute"`
	// UsedPerSecond is the requests or tokens counted against the limit
	// per second; LimitPerSecond is PerMinute / 60.
	UsedPerSecond  float64 `json:"used_per_s"`
	LimitPerSecond float64 `json:"limit_per_s"`
	Utilisation    float64 `json:"utilisation"`
	// Blocked counts the calls this limit made wait (client) or turned
	// away with a 429 (provider), as the longest wait of the limits.
	Blocked int64 `json:"blocked"`
	// CallCap is the long-run calls per second the limit admits at the
	// measured tokens per call: PerMinute / 60 / E[tokens per call].
	CallCap float64 `json:"call_cap_per_s"`
}

// addTokens pools a replication's token figures of tool i.
func (tp *toolPool) addTokens(r *system.Result, i int) {
	if i >= len(r.Tokens) {
		return
	}
	t, s := &tp.tokens, r.Tokens[i]
	t.Calls += s.Calls
	t.Input += s.Input
	t.Output += s.Output
	for l := range t.Binding {
		t.Binding[l] += s.Binding[l]
		t.Backlog[l] += s.Backlog[l]
	}
	t.Waits += s.Waits
	t.WaitSeconds += s.WaitSeconds
	t.Reserve += s.Reserve
	t.CacheRead += s.CacheRead
	t.CacheWrite += s.CacheWrite
	t.CacheHits += s.CacheHits
	t.Spilled += s.Spilled
	t.CountedTPM += s.CountedTPM
	t.CountedITPM += s.CountedITPM
	t.CountedOTPM += s.CountedOTPM
}

// tokenSummary returns tool t's token summary from its pooled figures s
// over window seconds, or nil when t uses no tokens.
func tokenSummary(t *system.Tool, s *system.TokenStats, window float64) *TokenSummary {
	if t.Tokens == nil && t.TokenLimit == nil {
		return nil
	}
	o := &TokenSummary{Calls: s.Calls, InputTokens: s.Input, OutputTokens: s.Output, Waits: s.Waits, WaitSeconds: s.WaitSeconds,
		CacheReadTokens: s.CacheRead, CacheWriteTokens: s.CacheWrite, CacheHits: s.CacheHits}
	if s.Input > 0 {
		o.CacheReadShare = float64(s.CacheRead) / float64(s.Input)
	}
	if s.Calls > 0 {
		o.CacheHitRatio = float64(s.CacheHits) / float64(s.Calls)
	}
	if s.Calls > 0 {
		o.InputPerCall = float64(s.Input) / float64(s.Calls)
		o.OutputPerCall = float64(s.Output) / float64(s.Calls)
	}
	if window > 0 {
		o.TokensPerSecond = float64(s.Input+s.Output) / window
	}
	tl := t.TokenLimit
	if tl == nil {
		return o
	}
	o.Enforce = "provider"
	if tl.Client {
		o.Enforce = "client"
	}
	if tl.Profile != nil {
		o.Profile = tl.Profile.Name
	}
	o.Spilled = s.Spilled
	best := -1.0
	for l := ratelimit.RPM; l <= ratelimit.OTPM; l++ {
		n := tl.Limits.Of(l)
		if n == 0 {
			continue
		}
		var used, perCall float64
		switch l {
		case ratelimit.RPM:
			used, perCall = float64(s.Calls), 1
		case ratelimit.TPM:
			used, perCall = float64(s.Input+s.Output), o.InputPerCall+o.OutputPerCall
		case ratelimit.ITPM:
			used, perCall = float64(s.Input), o.InputPerCall
		case ratelimit.OTPM:
			used, perCall = float64(s.Output), o.OutputPerCall
		}
		if tl.Profile != nil {
			// What the profile counted against the limit, over the calls
			// it counted (not those spilled to another lane).
			counted := s.Calls - s.Spilled
			switch l {
			case ratelimit.RPM:
				used = float64(counted)
			case ratelimit.TPM:
				used = float64(s.CountedTPM)
			case ratelimit.ITPM:
				used = float64(s.CountedITPM)
			case ratelimit.OTPM:
				used = float64(s.CountedOTPM)
			}
			perCall = 0
			if counted > 0 {
				perCall = used / float64(counted)
			}
		}
		u := LimitUse{Limit: l.String(), PerMinute: n, LimitPerSecond: float64(n) / 60, Blocked: s.Binding[l]}
		if window > 0 {
			u.UsedPerSecond = used / window
			u.Utilisation = u.UsedPerSecond / u.LimitPerSecond
		}
		if perCall > 0 {
			u.CallCap = u.LimitPerSecond / perCall
		}
		if u.Utilisation > best {
			best, o.Binding = u.Utilisation, u.Limit
		}
		o.Limits = append(o.Limits, u)
	}
	return o
}
