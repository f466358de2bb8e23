package system

import (
	"time"

	"github.com/budgetsim/budgetsim/model/dist"
	"github.com/budgetsim/budgetsim/model/hedge"
	"github.com/budgetsim/budgetsim/model/retry"
)

// The scenario compiled. New turns each tool and step of the Config into a
// plan that says what a call can run into, and the handlers read the plan,
// not the Config, for everything that may or may not happen. A feature a
// scenario does not use is an empty table or a false flag: its calls pay
// one predictable branch for it, and the textbook queues, whose calls can
// only succeed, take the same handlers as a retry storm. A new feature
// adds a field here and its check in one handler.

// toolPlan is what a call to one tool can run into.
type toolPlan struct {
	// outcomes is the tool's own outcome table: the first rule whose
	// below exceeds the attempt's uniform decides, and past the last the
	// call succeeds. Rules of zero probability are left out, so the table
	// is empty when every call succeeds.
	outcomes []outcomeRule
	// outages are the outages that override the drawn outcome of calls
	// dialed inside them, in scenario order (the last that applies wins);
	// stalls are events of their own (evStall).
	outages []Outage
	// script fixes the outcome of given attempts.
	script []ScriptEntry
	// cache, when set, answers a share of the calls (hit ratio > 0).
	cache *Cache
	// clientLimit: a caller waits for a token before dialing;
	// serverLimit: the tool answers 429 over its rate.
	clientLimit, serverLimit bool
	// cost, when set, meters the calls.
	cost *ToolCost
	// capacity: calls wait for one of the tool's concurrency servers in
	// its queue of queueCapacity (Unbounded: no limit).
	capacity                   bool
	concurrency, queueCapacity int
	// deadlineAware: at dequeue the tool drops work whose caller's lease
	// has less than dropFloor left.
	deadlineAware bool
	dropFloor     time.Duration
	// contention: a successful write conflicts with a newer one.
	contention bool
	// retryAfter is what the tool sends with a 503 or 429, or nil.
	retryAfter dist.Dist
	// adaptive: callers hold a permit of the tool's adaptive concurrency
	// limiter (Model.limiters) from dial to the attempt's end.
	adaptive bool
	// breaker: a client-side circuit breaker (Model.breakers) permits or
	// refuses each call that would reach the tool.
	breaker bool
	// tokened: calls draw tokens (tokens, nil if only limits) and count
	// them against per-minute limits, waited for by the caller
	// (tokenClient) or answered 429 by the provider (tokenServer).
	tokened                  bool
	tokens                   *Tokens
	tokenClient, tokenServer bool
	// promptCache, when set, caches the prefixes of the calls' prompts.
	promptCache *PromptCache
	// stream: a model API whose calls stream their output (stream.go).
	stream bool
	// gates are the admission gates a call passes before it is dialed, in
	// order (lifecycle.go): only those the tool declares.
	gates []gateKind
}

// outcomeRule is one row of a tool's outcome table.
type outcomeRule struct {
	below   float64 // cumulative probability: the rows before plus this one
	outcome retry.Outcome
}

// stepPlan is a step compiled: its tool, ceiling and retry budget.
type stepPlan struct {
	tool    int32
	timeout time.Duration
	// firstToken is the step's first-token timeout (0: none).
	firstToken time.Duration
	budget     retry.Budget // nil: none
	// group, when > 0, is the Config.Groups entry (1-based) the step
	// belongs to: a run reaching it starts the group (group.go).
	group int32
	// loop, when > 0, is the Config.Loops entry (1-based) the step
	// belongs to (loop.go).
	loop int32
	// choose, when not empty, draws the step's tool by weight (choose.go).
	choose []choice
	// hedger keeps a hedged step's delay, and its percentile estimate.
	hedger *hedge.Hedger
}

// compileTool builds t's plan.
func compileTool(t *Tool) toolPlan {
	p := toolPlan{
		script:        t.Script,
		cost:          t.Cost,
		capacity:      t.Concurrency > 0,
		concurrency:   t.Concurrency,
		queueCapacity: t.QueueCapacity,
		deadlineAware: t.DeadlineAware,
		contention:    t.Contention,
		retryAfter:    t.RetryAfter,
		adaptive:      t.Adaptive != nil,
		breaker:       t.CircuitBreaker != nil,
	}
	if t.DeadlineAware {
		p.dropFloor = dropFloor(t)
	}
	// The cumulative sums are formed in the order draw has always compared
	// them (hang, permanent, rate limited, transient; overloaded, added
	// later, last), so each threshold is the same float; a zero-probability
	// row has the threshold of the row before it and can never be the
	// first to exceed u.
	e := t.Errors
	below := 0.0
	for _, r := range [...]struct {
		p float64
		o retry.Outcome
	}{{e.Hang, retry.Timeout}, {e.Permanent, retry.Permanent}, {e.RateLimited, retry.RateLimited}, {e.Transient, retry.Transient}, {e.Overloaded, retry.Overloaded}} {
		below += r.p
		if r.p > 0 {
			p.outcomes = append(p.outcomes, outcomeRule{below: below, outcome: r.o})
		}
	}
	for _, o := range t.Outages {
		if !o.Stall {
			p.outages = append(p.outages, o)
		}
	}
	if c := t.Cache; c != nil && c.HitRatio > 0 {
		p.cache = c
	}
	if rl := t.RateLimit; rl != nil {
		p.clientLimit, p.serverLimit = rl.Client, !rl.Client
	}
	p.tokens = t.Tokens
	if t.Tokens != nil {
		p.promptCache = t.PromptCache
		p.stream = t.Stream
	}
	if tl := t.TokenLimit; tl != nil {
		p.tokenClient, p.tokenServer = tl.Client, !tl.Client
	}
	p.tokened = p.tokens != nil || t.TokenLimit != nil
	// The gates' order: a breaker refuses before anything is taken; the
	// rate-limit token and the token reservation are waited for before
	// a concurrency permit is held; the cost reservation comes last, for
	// the call about to be sent.
	if p.breaker {
		p.gates = append(p.gates, gateBreaker)
	}
	if p.clientLimit {
		p.gates = append(p.gates, gateRate)
	}
	if p.tokenClient {
		p.gates = append(p.gates, gateTokens)
	}
	if p.adaptive {
		p.gates = append(p.gates, gateLimit)
	}
	if p.cost != nil {
		p.gates = append(p.gates, gateCost)
	}
	return p
}
