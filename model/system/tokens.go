package system

import (
	"math"
	"time"

	"github.com/budgetsim/budgetsim/model/cost"
	"github.com/budgetsim/budgetsim/model/dist"
	"github.com/budgetsim/budgetsim/model/ratelimit"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/sim"
)

// Model calls with tokens. A tool with Tokens is a model API: each call
// draws its input and output tokens (from the "tokens" stream, keyed by
// run, step and attempt, so no other draw moves), may take ttft (the
// tool's latency) plus a time per output token, counts its tokens against
// the provider's per-minute limits (model/ratelimit.TokenLimiter: reserve
// before the call, settle after) and bills them at a price per token
// through the cost ledger's reserve/settle. A scenario without tokens
// compiles to a nil tokenModel and pays one nil check per dial, per
// attempt's end and per refusal.

// Tokens declares a tool's calls as model calls that use tokens.
type Tokens struct {
	// Input and Output are each call's token counts, rounded to whole
	// tokens (negative draws count 0). A step may override them
	// (Step.Tokens).
	Input, Output dist.Dist
	// MaxOutput is the call's max_tokens: a longer output is cut to it.
	// 0 means no cap.
	MaxOutput int64
	// ReserveOutput is the output tokens a call reserves against the
	// limits (and prices into its cost reservation) before it is sent,
	// when its length is not known yet: max_tokens, or an estimate. The
	// reservation is corrected to the actual usage when the call ends.
	ReserveOutput int64
	// PerOutputToken, when set, is the time per output token in seconds:
	// a call takes the tool's latency (its time to first token) plus this
	// draw times its output tokens.
	PerOutputToken dist.Dist
	// PerInputToken, when set, is the time per uncached input token in
	// seconds (prefill): a call's time to first token grows by this draw
	// times its input tokens not read from a prompt cache.
	PerInputToken dist.Dist
}

// TokenLimit is a provider's per-minute limits on a tool (requests,
// tokens, input and output tokens; 0 is not enforced), each a token bucket
// of one minute's allowance refilled continuously. With Client
// enforcement a caller reserves its call's tokens before dialing and waits
// until every bucket has them (the wait spends its deadline; a wait that
// would outlast it is refused locally); with provider enforcement a call
// over a limit is answered 429 with a Retry-After of the time until the
// buckets have refilled enough for it.
//
// Profile, when set, is a provider's admission rules
// (model/ratelimit.Profile): how a call is counted (input only, + its
// estimate, + max_tokens), whether cache reads count, whether the count
// is corrected at the end, each limit's window (continuous, fixed,
// quantised, a leaky bucket of utilisation), the header a 429 carries, and
// whether a call that does not fit spills over to pay-as-you-go instead:
// admitted, not counted against the limits, and billed at the tool's token
// prices while the calls within the provisioned quota are covered by it
// (their tokens bill nothing). Under client enforcement a caller paces
// itself by the profile's counting and windows and never spills.
type TokenLimit struct {
	Limits  ratelimit.TokenLimits
	Client  bool
	Profile *ratelimit.Profile
}

// StepTokens overrides the token counts of a step's calls to a tool with
// Tokens. Input and Output replace the tool's distributions (nil keeps
// them); with InputFrom ≥ 0 the input is instead Scale × the output tokens
// (or input tokens, with FromInput) of that earlier step's successful
// call, plus Plus: a summary of fetched pages, a reply to a long prompt.
type StepTokens struct {
	Input, Output dist.Dist
	// InputFrom is the index of an earlier step (-1: none).
	InputFrom int
	FromInput bool
	Scale     float64
	Plus      int64
}

// TokenStats are a token-limited or token-metered tool's figures over the
// measured window (ToolStats' window): the tokens counted against its
// limits (calls that timed out count their reservation: their usage is
// unknown), the waits and 429s each limit caused, and its limiter's
// backlog.
type TokenStats struct {
	// Calls is the calls that reached the tool and counted their tokens.
	Calls  int64 `json:"calls"`
	Input  int64 `json:"input_tokens"`
	Output int64 `json:"output_tokens"`
	// Binding counts, per limit (rpm, tpm, itpm, otpm), the calls that
	// limit made wait (client) or turned away (provider).
	Binding [4]int64 `json:"binding"`
	// Waits and WaitSeconds are the client-side waits for capacity.
	Waits       int64   `json:"waits"`
	WaitSeconds float64 `json:"wait_s"`
	// Backlog sums, over the calls that reserved with a client-side wait,
	// each limit's backlog just after the reservation: the time until
	// that bucket is full again, the sojourn of the single-server queue
	// the waiting calls form (analytic.TokenQueue). Limits a profile
	// windows otherwise than as a continuous bucket add nothing.
	Backlog [4]float64 `json:"backlog_s"`
	Reserve int64      `json:"reservations"`
	// CacheRead and CacheWrite are the input tokens (part of Input) that
	// sent calls read from and wrote to the prompt cache; CacheHits the
	// calls that read some.
	CacheRead  int64 `json:"cache_read_tokens,omitempty"`
	CacheWrite int64 `json:"cache_write_tokens,omitempty"`
	CacheHits  int64 `json:"cache_hits,omitempty"`
	// CountedTPM, CountedITPM and CountedOTPM are, for a tool whose
	// limits follow a provider profile, the tokens each limit counted
	// once the calls ended: the profile's admission charge where it does
	// not correct it (or the call timed out), the actual usage as the
	// profile counts it (cache reads excluded or not) where it does.
	CountedTPM  int64 `json:"counted_tpm,omitempty"`
	CountedITPM int64 `json:"counted_itpm,omitempty"`
	CountedOTPM int64 `json:"counted_otpm,omitempty"`
	// Spilled counts the calls that did not fit a provisioned quota and
	// were served on the pay-as-you-go lane (profiles with spill-over).
	Spilled int64 `json:"spilled,omitempty"`
}

// tokenCall is a run slot's current call to a tool with tokens. Whether
// it holds res is in its attempt's hold set (holdTokens).
type tokenCall struct {
	in, out int64
	res     ratelimit.TokenReservation
	live    bool // drawn for the current attempt, not yet settled
	spilled bool // admitted on the pay-as-you-go lane: holds no reservation
	tool    int32
	// overWindow: the call's input exceeds its loop's context window,
	// which refuses it (loop.go); truncated: the window cut it.
	overWindow, truncated bool
	// cacheRead and cacheWrite are the input tokens read from and written
	// to the tool's prompt cache (promptcache.go); prefill is the time
	// the uncached input adds to the time to first token.
	cacheRead, cacheWrite int64
	prefill               time.Duration
	// first is the time from reaching the tool to the first token, of a
	// call that writes a prompt cache.
	first time.Duration
	// ttft is, for a streaming call, the time from the start of its
	// service to its first token (noLimit: it hangs and sends none).
	ttft time.Duration
	// outTime is the time the call's output takes (its tokens times the
	// time per output token), for the trace's time to first token.
	outTime time.Duration
}

// tokenTool is a tool's token state in one replication.
type tokenTool struct {
	lim   *ratelimit.TokenLimiter // nil: no token limits
	stats TokenStats
}

// tokenStep is a step's compiled token counts.
type tokenStep struct {
	set       bool // the step overrides something
	in, out   dist.Dist
	from      int
	fromInput bool
	scale     float64
	plus      int64
	// loop is the Config.Loops index of the step's loop when that loop
	// has a Context (its input is the context), else -1.
	loop int32
}

// tokenModel is the token state of a Model whose scenario uses tokens.
type tokenModel struct {
	rng *sim.Stream
	// outs holds, per run slot, the tokens of each step's successful call
	// (output, then input), when some step reads them.
	outs  []int64
	nOuts int
	tools []tokenTool
	steps []tokenStep
}

// usesTokens reports whether cfg has a tool with tokens or token limits.
func usesTokens(cfg *Config) bool {
	for i := range cfg.Tools {
		if cfg.Tools[i].Tokens != nil || cfg.Tools[i].TokenLimit != nil {
			return true
		}
	}
	return false
}

// newTokenModel returns the token state of a replication seeded with seed,
// or nil when cfg uses no tokens.
func newTokenModel(cfg *Config, seed uint64) *tokenModel {
	if !usesTokens(cfg) {
		return nil
	}
	plan := cfg.PlanSteps()
	tk := &tokenModel{rng: sim.NewStream(seed, "tokens"), tools: make([]tokenTool, len(cfg.Tools)), steps: make([]tokenStep, len(plan))}
	for i := range cfg.Tools {
		if tl := cfg.Tools[i].TokenLimit; tl != nil {
			lim, err := ratelimit.NewProfileLimiter(tl.Limits, tl.Profile)
			if err != nil {
				panic("system: invalid token limits (the loader validates them): " + err.Error())
			}
			tk.tools[i].lim = lim
		}
	}
	// The plan's steps are the top-level steps, then each class's own:
	// a step's input_from indexes its own list, at first in the plan.
	first := make([]int, len(plan))
	at := len(cfg.Steps)
	for k := range cfg.Classes {
		start := at
		for range cfg.Classes[k].Steps {
			first[at] = start
			at++
		}
	}
	for i, st := range plan {
		ts := &tk.steps[i]
		ts.from = -1
		ts.loop = -1
		if st.Loop > 0 && cfg.Loops[st.Loop-1].Context != nil {
			ts.loop = int32(st.Loop - 1)
		}
		if s := st.Tokens; s != nil {
			ts.set = true
			ts.in, ts.out = s.Input, s.Output
			ts.from, ts.fromInput, ts.scale, ts.plus = s.InputFrom, s.FromInput, s.Scale, s.Plus
			if s.InputFrom >= 0 {
				ts.from = first[i] + s.InputFrom
				tk.nOuts = 2 * len(plan)
			}
		}
	}
	return tk
}

// alloc extends the per-slot tables for a new run slot.
func (tk *tokenModel) alloc() {
	for range tk.nOuts {
		tk.outs = append(tk.outs, 0)
	}
}

// roundTokens rounds a drawn token count to a whole number in [0, 2^40].
func roundTokens(x float64) int64 {
	if !(x > 0) {
		return 0
	}
	return int64(math.Min(math.Round(x), ratelimit.MaxCallTokens))
}

// drawTokens draws the tokens of run ri's current call to a tool with
// tokens and returns the time its output adds to the call's latency. A
// retry repeats the step's input and draws a new output.
func (m *Model) drawTokens(ri int32, r *run, spec *Tokens) time.Duration {
	tk := m.tk
	st := &tk.steps[r.step]
	// The input is the step's request, the same for every attempt (keyed
	// by attempt 0); the output is generated anew by each attempt.
	tk.rng.Key(uint64(r.id), stepKey(r), 0)
	rnd := tk.rng.Rand()
	in, out := spec.Input, spec.Output
	if st.set {
		if st.in != nil {
			in = st.in
		}
		if st.out != nil {
			out = st.out
		}
	}
	c := &m.held[ri].tok
	c.overWindow, c.truncated = false, false
	if st.loop >= 0 {
		c.in, c.overWindow, c.truncated = m.contextInput(ri, r, st.loop)
	} else if st.from >= 0 {
		k := int(m.owner(ri, r))*tk.nOuts + 2*st.from
		if st.fromInput {
			k++
		}
		c.in = min(roundTokens(float64(st.scale*float64(tk.outs[k]))+float64(st.plus)), ratelimit.MaxCallTokens)
	} else {
		c.in = roundTokens(in.Sample(rnd))
	}
	tk.rng.Key(uint64(r.id), stepKey(r), uint64(r.cur.n))
	c.out = roundTokens(out.Sample(rnd))
	if spec.MaxOutput > 0 {
		c.out = min(c.out, spec.MaxOutput)
	}
	if spec.PerOutputToken == nil {
		return 0
	}
	return seconds(float64(spec.PerOutputToken.Sample(rnd) * float64(c.out)))
}

// tokenReserve is what run ri's current call prices into its cost
// reservation: its input and reserved output tokens at the tool's prices.
// ok is false when that is beyond the ledger's range (cost.MaxAmount): no
// budget can hold it, and the caller refuses the call rather than reserve
// a wrapped or zero amount.
func (m *Model) tokenReserve(ri int32, tp *toolPlan) (a cost.Amount, ok bool) {
	c := tp.cost
	if tp.tokens == nil || c.InputToken == 0 && c.OutputToken == 0 {
		return 0, true
	}
	tc := &m.held[ri].tok
	a, err := cost.AmountFromFloat(tokenBill(c, tc, false).input() + float64(c.OutputToken*float64(tp.tokens.ReserveOutput)))
	if err != nil {
		return cost.MaxAmount, false
	}
	return a, true
}

// tokenUsage is what run ri's answered call bills for its tokens: input
// and output at the tool's prices, or input alone when it failed (and
// its output is not known: withOutput is false).
func (m *Model) tokenUsage(ri int32, tp *toolPlan, withOutput bool) cost.Amount {
	c := tp.cost
	if tp.tokens == nil || c.InputToken == 0 && c.OutputToken == 0 {
		return 0
	}
	b := tokenBill(c, &m.held[ri].tok, withOutput)
	a, err := cost.AmountFromFloat(b.input() + b.Output)
	if err != nil {
		// Beyond the ledger's range: saturate. It exceeds the call's
		// reservation, which settle clamps to and counts as an overrun.
		return cost.MaxAmount
	}
	return a
}

// tokenCostSplit is run ri's call's token bill (tokenUsage) by kind,
// scaled by share (at most 1: the part its reservation let it bill).
func (m *Model) tokenCostSplit(ri int32, c *ToolCost, withOutput bool, share float64) TokenCost {
	b := tokenBill(c, &m.held[ri].tok, withOutput)
	share = min(share, 1)
	return TokenCost{Input: float64(b.Input * share), CacheRead: float64(b.CacheRead * share),
		CacheWrite: float64(b.CacheWrite * share), Output: float64(b.Output * share)}
}

// tokenBill is what tc's tokens cost at c's prices, by kind: its input
// read from and written to a prompt cache at their prices, the rest at
// InputToken, and, withOutput, its output at OutputToken.
func tokenBill(c *ToolCost, tc *tokenCall, withOutput bool) TokenCost {
	plain := tc.in - tc.cacheRead - tc.cacheWrite
	b := TokenCost{Input: float64(c.InputToken * float64(plain)), CacheRead: float64(c.CacheReadToken * float64(tc.cacheRead)),
		CacheWrite: float64(c.CacheWriteToken * float64(tc.cacheWrite))}
	if withOutput {
		b.Output = float64(c.OutputToken * float64(tc.out))
	}
	return b
}

// input is the bill of the input tokens, of every kind.
func (b TokenCost) input() float64 { return b.Input + b.CacheRead + b.CacheWrite }

// billsOutput reports whether a call that ended with outcome o and ending
// e bills its output tokens: it succeeded, or its stream was cut after
// its first token (what it produced is known).
func billsOutput(o retry.Outcome, e ending) bool { return o == retry.OK || e == streamCut }

// prepareTokens readies run ri's call to a tool with tokens or token
// limits (not a cache hit): it draws the call's tokens and returns the
// time its output adds to its latency.
func (m *Model) prepareTokens(ri int32, r *run, tp *toolPlan) time.Duration {
	tc := &m.held[ri].tok
	tc.tool, tc.live, tc.spilled = r.tool, true, false
	// A slot's earlier call to a tool with a prompt cache must not lend
	// this one its cache reads and writes.
	tc.cacheRead, tc.cacheWrite = 0, 0
	if tp.tokens == nil {
		tc.in, tc.out = 0, 0
		return 0
	}
	d := m.drawTokens(ri, r, tp.tokens)
	tc.outTime = d
	if tp.promptCache != nil {
		m.cacheLookup(ri, r, tp, m.tk.steps[r.step].loop, m.s.Now())
	}
	tc.prefill = 0
	if per := tp.tokens.PerInputToken; per != nil {
		tc.prefill = m.prefill(ri, per)
	}
	return d + tc.prefill
}

// reservedUsage is what a call reserves against the limits.
func (tc *tokenCall) reservedUsage(spec *Tokens) ratelimit.Usage {
	out := int64(0)
	if spec != nil {
		out = spec.ReserveOutput
	}
	return tc.usage(out)
}

// usage is the call's input (with its cache reads and writes) and output
// tokens out.
func (tc *tokenCall) usage(out int64) ratelimit.Usage {
	return ratelimit.Usage{Input: int(tc.in), Output: int(out), CacheRead: int(tc.cacheRead), CacheWrite: int(tc.cacheWrite)}
}

// request is what a call declares to the limiter: its reserved usage and
// its max_tokens.
func (tc *tokenCall) request(spec *Tokens) ratelimit.Request {
	req := ratelimit.Request{Usage: tc.reservedUsage(spec)}
	if spec != nil {
		req.MaxTokens = int(spec.MaxOutput)
	}
	return req
}

// admitTokens is the client-side token limits' gate: it reserves run
// ri's call at its tool's limiter before it is dialed. The call goes on
// now, or waits for capacity (a wake resumes it, holding the reservation)
// or, when the wait would outlast the run's deadline, is refused.
func (m *Model) admitTokens(ri int32, r *run, tp *toolPlan) admission {
	now := m.s.Now()
	tt := &m.tk.tools[r.tool]
	tc := &m.held[ri].tok
	res, ok, err := tt.lim.AdmitAt(now, tc.request(tp.tokens), waitAllowance(r, now))
	if err != nil {
		panic("system: token limiter: " + err.Error())
	}
	if res.Binding != ratelimit.None {
		tt.stats.Binding[res.Binding]++
	}
	if !ok {
		m.refuse(ri, refusedTokenWait)
		return refused
	}
	a := &r.cur
	tc.res = res
	a.held |= holdTokens
	m.auditTokens.reserved++
	tt.stats.Reserve++
	p := tt.lim.Profile()
	for l := ratelimit.RPM; l <= ratelimit.OTPM; l++ {
		if p != nil && p.Windows[l].Kind != ratelimit.Continuous {
			continue // a backlog is a continuous bucket's time to refill
		}
		if left, on := tt.lim.TokensAt(now, l); on {
			lim := limitOf(tt.lim.Limits(), l)
			tt.stats.Backlog[l] += float64(float64(lim)-left) * 60 / float64(lim)
		}
	}
	if res.Wait <= 0 {
		return admitted
	}
	a.state = tokenWait
	tt.stats.Waits++
	tt.stats.WaitSeconds += secs(res.Wait)
	m.stepTime(ri, res.Wait)
	m.arm(ri, a, now+capped(res.Wait), evWake, false)
	return waiting
}

// limitOf returns limit l of ls.
func limitOf(ls ratelimit.TokenLimits, l ratelimit.Limit) int { return ls.Of(l) }

// tokenAdmit is the provider's side: it admits run ri's call if its tool's
// limits have room for it now, and otherwise answers it 429 with the time
// until they do (as the profile's header says, or none), and reports
// false; under a profile with spill-over the call is admitted instead on
// the pay-as-you-go lane, holding nothing.
func (m *Model) tokenAdmit(ri int32, r *run, tp *toolPlan) bool {
	now := m.s.Now()
	a := &r.cur
	tt := &m.tk.tools[r.tool]
	tc := &m.held[ri].tok
	res, retryAfter, ok, err := tt.lim.TryAdmitAt(now, tc.request(tp.tokens))
	if err != nil {
		panic("system: token limiter: " + err.Error())
	}
	if ok {
		tc.res = res
		a.held |= holdTokens
		m.auditTokens.reserved++
		return true
	}
	if res.Binding != ratelimit.None {
		tt.stats.Binding[res.Binding]++
	}
	p := tt.lim.Profile()
	if p != nil && p.Spill {
		tc.spilled = true
		tt.stats.Spilled++
		return true
	}
	m.tools[r.tool].stats.RateLimited++
	sent := true
	if p != nil {
		retryAfter, sent = p.RetryAfter.Header(retryAfter)
	}
	a.hasRA = sent || tp.retryAfter != nil
	m.turnAway(ri, a, retry.RateLimited, retryAfter, sent && tp.retryAfter == nil)
	return false
}

// billedTokens is what run ri's answered call bills for its tokens: its
// tool's token prices (tokenUsage), except that under a profile with
// spill-over a call served within the provisioned quota bills no tokens
// (the subscription covers them) and only a spilled call pays them.
func (m *Model) billedTokens(ri int32, r *run, o retry.Outcome) cost.Amount {
	tp := &m.toolPlans[r.tool]
	if tp.tokenServer && !m.held[ri].tok.spilled {
		if p := m.tk.tools[r.tool].lim.Profile(); p != nil && p.Spill {
			return 0
		}
	}
	return m.tokenUsage(ri, tp, billsOutput(o, r.cur.ending))
}

// settleTokens ends run ri's call to a tool with tokens (release calls
// it): held says the call holds a reservation at its tool's limiter,
// dialed that it was sent. A call answered settles its actual usage (input
// and output when it succeeded, input alone when it failed); a call turned
// away, or never sent, used nothing and gives its reservation back whole;
// a call that timed out, or was cancelled after it was sent, keeps its
// reservation (its usage is unknown), unless it was a stream cut after
// its first token, which settles its input and the output it produced
// (stream.go). Every sent call counts its tokens;
// a successful one records them for the steps that read them.
func (m *Model) settleTokens(ri int32, r *run, o retry.Outcome, held, dialed bool) {
	tk := m.tk
	tc := &m.held[ri].tok
	a := &r.cur
	var used ratelimit.Usage
	live := tc.live
	tc.live = false
	switch {
	case !live || !dialed || a.ending == turnedAway || o == retry.Overloaded:
		// Never served: a provider's overload turned it away unprocessed.
	case a.ending == timedOut:
		used = tc.reservedUsage(m.toolPlans[r.tool].tokens)
	case billsOutput(o, a.ending):
		used = tc.usage(tc.out)
	default:
		used = tc.usage(0)
	}
	tt := &tk.tools[tc.tool]
	var counted [4]int
	p := (*ratelimit.Profile)(nil)
	if tt.lim != nil {
		p = tt.lim.Profile()
	}
	switch {
	case !held:
	case dialed && a.ending == timedOut:
		m.auditTokens.kept++ // usage unknown: the reservation stays counted
		counted = tc.res.Charged
	case !dialed:
		// Never sent: the provider never counted it, whatever its profile.
		if err := tt.lim.Release(m.s.Now(), tc.res); err != nil {
			panic("system: token release: " + err.Error())
		}
		m.auditTokens.settled++
	default:
		if err := tt.lim.Settle(m.s.Now(), tc.res, used); err != nil {
			panic("system: token settle: " + err.Error())
		}
		m.auditTokens.settled++
		if counted = tc.res.Charged; p != nil && p.Settle {
			counted = p.Actual(used)
		}
	}
	if p != nil {
		tt.stats.CountedTPM += int64(counted[ratelimit.TPM])
		tt.stats.CountedITPM += int64(counted[ratelimit.ITPM])
		tt.stats.CountedOTPM += int64(counted[ratelimit.OTPM])
	}
	if live && dialed && a.ending != turnedAway && o != retry.Overloaded {
		tt.stats.Calls++
		tt.stats.Input += int64(used.Input)
		tt.stats.Output += int64(used.Output)
		tt.stats.CacheRead += tc.cacheRead
		tt.stats.CacheWrite += tc.cacheWrite
		if tc.cacheRead > 0 {
			tt.stats.CacheHits++
		}
	}
	if dialed && o == retry.OK && tk.nOuts > 0 {
		k := int(m.owner(ri, r))*tk.nOuts + 2*int(r.step)
		tk.outs[k], tk.outs[k+1] = int64(used.Output), int64(used.Input)
	}
}

// resetStats starts the token figures again at the end of the warm-up.
func (tk *tokenModel) resetStats() {
	for i := range tk.tools {
		tk.tools[i].stats = TokenStats{}
	}
}

// result returns the token figures per tool.
func (tk *tokenModel) result() []TokenStats {
	out := make([]TokenStats, len(tk.tools))
	for i := range tk.tools {
		out[i] = tk.tools[i].stats
	}
	return out
}

// MeanLatency returns the mean time of a call to t: its latency (the time
// to first token) plus, for a model call with a time per output token, the
// mean time of its output (the two drawn independently, the output capped
// at max_tokens as its mean is not: an upper estimate).
func (t *Tool) MeanLatency() float64 {
	m := t.Latency.Mean()
	if tk := t.Tokens; tk != nil && tk.PerOutputToken != nil {
		out := tk.Output.Mean()
		if tk.MaxOutput > 0 {
			out = math.Min(out, float64(tk.MaxOutput))
		}
		m += float64(tk.PerOutputToken.Mean() * out)
	}
	return m
}

// TokenMoments returns the mean and second moment of a token count drawn
// from d as the simulation draws it: rounded to a whole number, negative
// draws counted 0, and cut to maxTokens when maxTokens > 0. It sums the
// probability of each whole count from d's CDF, exactly; ok is false when
// that would take more than 10^7 terms (d's support is too wide).
func TokenMoments(d dist.Dist, maxTokens int64) (mean, second float64, ok bool) {
	top := d.Quantile(1)
	if math.IsInf(top, 1) || top > 1e7 {
		top = d.Quantile(1 - 1e-15)
	}
	hi := int64(math.Round(top))
	if maxTokens > 0 && hi > maxTokens {
		hi = maxTokens
	}
	if math.IsNaN(top) || hi > 10_000_000 {
		return 0, 0, false
	}
	lo := max(int64(math.Round(d.Quantile(0))), 0)
	below := 0.0 // P(X < k − 0.5) for the k in hand
	if lo > 0 {
		below = d.CDF(float64(lo) - 0.5)
	}
	for k := lo; k <= hi; k++ {
		var p float64
		if k == hi && (maxTokens > 0 && k == maxTokens || math.IsInf(d.Quantile(1), 1)) {
			p = 1 - below // the cut, or the tail past the last term
		} else {
			c := d.CDF(float64(k) + 0.5)
			p = c - below
			below = c
		}
		x := float64(k)
		mean += float64(p * x)
		second += float64(p * float64(x*x))
	}
	return mean, second, true
}
