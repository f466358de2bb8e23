package scenarios

import (
	"math"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/model/ratelimit"
	"github.com/budgetsim/budgetsim/model/system"
)

// Model calls with tokens: a tool's tokens, its ttft and per_output_token,
// its per-minute limits (rate_limit.rpm, tpm, itpm, otpm) and token
// prices (cost.input_token, output_token), and a step's token overrides.

// maxTokensPerCall bounds a token count of one call in a scenario.
const maxTokensPerCall = ratelimit.MaxCallTokens

// tokens reads a tool's tokens mapping.
func (l *loader) tokens(n *yaml.Node, path string) *system.Tokens {
	d := l.d
	f := d.keys(n, path, "tokens")
	if f == nil {
		return nil
	}
	t := &system.Tokens{}
	if v := f.get("input"); v != nil {
		t.Input = l.dist(v, f.field("input"), false)
	}
	if v := f.get("output"); v != nil {
		t.Output = l.dist(v, f.field("output"), false)
	}
	t.MaxOutput, _ = f.integer("max_output")
	if v, ok := f.integer("reserve_output"); ok {
		t.ReserveOutput = v
		if t.MaxOutput > 0 && t.ReserveOutput > t.MaxOutput {
			d.errorf(f.get("reserve_output"), f.field("reserve_output"), "%d is above max_output %d: a call never uses more than max_output", t.ReserveOutput, t.MaxOutput)
		}
	} else {
		switch {
		case t.MaxOutput > 0:
			t.ReserveOutput = t.MaxOutput
		case t.Output != nil:
			mean := t.Output.Mean()
			if math.IsInf(mean, 0) || mean > maxTokensPerCall {
				d.errorf(n, f.field("reserve_output"), "required: the output's mean is %v; give max_output or reserve_output", mean)
			} else {
				t.ReserveOutput = int64(math.Ceil(max(mean, 0)))
			}
		}
	}
	f.finish()
	return t
}

// tokenLimits reads the per-minute limits of a rate_limit mapping f and
// its provider profile, or returns nil when it has no per-minute limits.
func (l *loader) tokenLimits(f *fields) *system.TokenLimit {
	tl := system.TokenLimit{}
	any := false
	for _, k := range []struct {
		key string
		to  *int
	}{{"rpm", &tl.Limits.RPM}, {"tpm", &tl.Limits.TPM}, {"itpm", &tl.Limits.ITPM}, {"otpm", &tl.Limits.OTPM}} {
		if v, ok := f.integer(k.key); ok {
			*k.to = int(v)
			any = true
		}
	}
	if w, ok := f.word("profile"); ok {
		tl.Profile = ratelimit.LookupProfile(w) // nil after an unknown word, already reported
		if !any {
			l.d.errorf(f.get("profile"), f.field("rpm"), "required by profile %s (or tpm, itpm, otpm): a profile says how a model API counts, settles and windows its per-minute limits", w)
		}
	}
	if !any {
		return nil
	}
	return &tl
}

// profileOutputCharge is the most output tokens a call to a tool with
// tokens t is charged when admitted under the profile p (nil: generic),
// and false when the profile admits a call whatever its size (a leaky
// bucket of utilisation).
func profileOutputCharge(p *ratelimit.Profile, t *system.Tokens) (int64, bool) {
	if p == nil {
		return t.ReserveOutput, true
	}
	if p.Windows[ratelimit.TPM].Kind == ratelimit.Leaky {
		return 0, false
	}
	switch p.Count {
	case ratelimit.CountInput:
		return 0, true
	case ratelimit.CountMaxTokens, ratelimit.CountMaxOfMaxTokensAndInput:
		if t.MaxOutput > 0 {
			return t.MaxOutput, true
		}
	}
	return t.ReserveOutput, true
}

// maxPerMinute is the largest per-minute limit: a bucket of rate L/60 must
// fit model/ratelimit.MaxRate.
const maxPerMinute = 60_000_000_000

// checkTokenTool checks that a tool's token keys fit together.
func (l *loader) checkTokenTool(t *system.Tool, tf *fields) {
	d := l.d
	if t.Tokens == nil {
		if tf.has("per_output_token") {
			d.errorf(tf.get("per_output_token"), tf.field("per_output_token"), "needs tokens: {input, output}: the time per output token multiplies a call's output tokens")
		}
		if tl := t.TokenLimit; tl != nil {
			rl := tf.get("rate_limit")
			for _, k := range []struct {
				key string
				n   int
			}{{"tpm", tl.Limits.TPM}, {"itpm", tl.Limits.ITPM}, {"otpm", tl.Limits.OTPM}} {
				if k.n > 0 {
					d.errorf(rl, tf.field("rate_limit."+k.key), "counts tokens: the tool needs tokens: {input, output}")
				}
			}
		}
		if t.Stream {
			d.errorf(tf.get("stream"), tf.field("stream"), "needs tokens: {input, output}: a model call streams its output tokens")
		}
		for _, key := range []string{"per_input_token", "prompt_cache"} {
			if tf.has(key) {
				d.errorf(tf.get(key), tf.field(key), "needs tokens: {input, output}: it applies to a model call's input tokens")
			}
		}
		if c := t.Cost; c != nil && tokenPriced(c) {
			d.errorf(tf.get("cost"), tf.field("cost"), "input_token and output_token price tokens: the tool needs tokens: {input, output}")
		}
		return
	}
	if tl := t.TokenLimit; tl != nil {
		rl := tf.get("rate_limit")
		if p := tl.Profile; p != nil && p.NeedsMaxTokens && t.Tokens.MaxOutput == 0 {
			d.errorf(rl, tf.field("tokens.max_output"), "required by rate_limit.profile %s, which reserves each call's max_tokens (a call without max_tokens reserves the model's own maximum output, e.g. 64000: write that)", p.Name)
		}
		res, bounded := profileOutputCharge(tl.Profile, t.Tokens)
		what := "tokens.reserve_output or max_output"
		if tl.Profile != nil {
			what = "as the " + tl.Profile.Name + " profile counts it"
		}
		for _, k := range []struct {
			key string
			n   int
		}{{"tpm", tl.Limits.TPM}, {"otpm", tl.Limits.OTPM}} {
			if bounded && k.n > 0 && res > int64(k.n) {
				d.errorf(rl, tf.field("rate_limit."+k.key), "%d is below the %d output tokens a call reserves (%s): no call could ever be admitted", k.n, res, what)
			}
		}
	}
}

// stepTokens reads a step's tokens mapping; steps maps the earlier steps'
// names to their indexes.
func (l *loader) stepTokens(n *yaml.Node, path string, steps map[string]int) *system.StepTokens {
	d := l.d
	f := d.keys(n, path, "step_tokens")
	if f == nil {
		return nil
	}
	st := &system.StepTokens{InputFrom: -1, Scale: 1}
	if v := f.get("input"); v != nil {
		st.Input = l.dist(v, f.field("input"), false)
	}
	if v := f.get("output"); v != nil {
		st.Output = l.dist(v, f.field("output"), false)
	}
	if v := f.get("input_from"); v != nil {
		s, _ := f.str("input_from")
		name, what, ok := strings.Cut(s, ".")
		switch {
		case !ok || what != "output" && what != "input":
			d.errorf(v, f.field("input_from"), "must be STEP.output or STEP.input (an earlier step's tokens), got %q", s)
		default:
			i, found := steps[name]
			if !found {
				names := sortedKeys(steps)
				d.errorf(v, f.field("input_from"), "step %q is not an earlier step%s (earlier: %s)", name, suggest(name, names), strings.Join(names, ", "))
			}
			st.InputFrom, st.FromInput = i, what == "input"
		}
		if st.Input != nil {
			d.errorf(v, f.field("input_from"), "give input or input_from, not both")
		}
	}
	if v, ok := f.number("input_scale"); ok {
		st.Scale = v
		if !f.has("input_from") {
			d.errorf(f.get("input_scale"), f.field("input_scale"), "needs input_from")
		}
	}
	if v, ok := f.integer("input_plus"); ok {
		st.Plus = v
		if !f.has("input_from") {
			d.errorf(f.get("input_plus"), f.field("input_plus"), "needs input_from")
		}
	}
	f.finish()
	return st
}

// tokenCostNeeded reports whether a tool cost mapping prices tokens.
func tokenPriced(c *system.ToolCost) bool {
	return c.InputToken > 0 || c.OutputToken > 0 || c.CacheReadToken > 0 || c.CacheWriteToken > 0
}

// promptCache reads a model API's prompt_cache mapping.
func (l *loader) promptCache(n *yaml.Node, path string) *system.PromptCache {
	f := l.d.keys(n, path, "prompt_cache")
	if f == nil {
		return nil
	}
	pc := &system.PromptCache{Refresh: true}
	pc.TTL, _ = f.duration("ttl")
	if v, ok := f.boolean("refresh"); ok {
		pc.Refresh = v
	}
	pc.MinTokens, _ = f.integer("min_tokens")
	pc.Prefix, _ = f.integer("prefix")
	f.finish()
	return pc
}
