package system

import (
	"math"
	"time"

	"github.com/budgetsim/budgetsim/model/cost"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/sim"
)

// callState is where a run's current attempt stands. Events for an attempt
// check it (with the attempt's generation) before they act: a reply that
// comes after its caller gave up finds the run elsewhere.
type callState uint8

const (
	// idle: no call is outstanding (the run waits for a worker, is between
	// steps, or has ended).
	idle callState = iota
	// tokenWait: the caller holds a client-side rate-limit token it waits
	// for; its wake dials without reserving another.
	tokenWait
	// limitWait: the caller waits for a permit of the tool's adaptive
	// concurrency limit (having its rate-limit token, if any); the grant
	// wakes it to dial with the permit.
	limitWait
	// backingOff: the caller sleeps before its next attempt; its wake
	// dials.
	backingOff
	// inFlight: dialed; the tool's answer ends it, or the lease if the
	// answer would come later.
	inFlight
	// hanging: dialed, and the call will never answer (the tool's hang
	// rate, an outage or a scripted hang): only the lease ends it.
	hanging
)

// outstanding reports whether a dialed call waits for its end.
func (s callState) outstanding() bool { return s >= inFlight }

// ending is how an attempt ended, as its caller saw it.
type ending uint8

const (
	// answered: the tool answered, with its outcome (ok or an error class).
	answered ending = iota
	// timedOut: the lease ran out first; the call may have executed, and
	// a metered call's usage is unknown.
	timedOut
	// streamCut: the caller cut a streaming call after its first token
	// (its lease ran out, or its group cancelled it): the tokens produced
	// by then are known, counted and billed (stream.go).
	streamCut
	// turnedAway: refused unserved, with an answer: a rate limiter's 429, a
	// full tool queue's 503, a deadline-aware tool's drop. It used nothing.
	turnedAway
)

// attempt is a run's current call to a tool: its number, where it stands,
// and what the tool drew for it.
type attempt struct {
	n        int32  // 1-based, at the current step and tool
	gen      uint32 // generation: an event for an older attempt is stale
	state    callState
	ending   ending
	outcome  retry.Outcome // the answer's class; Timeout once the lease ends it
	leaseCut bool          // the lease was bounded by the deadline, not the ceiling
	hasRA    bool          // the answer carries a Retry-After
	held     holdSet       // what the attempt holds (lifecycle.go)
	hit      bool          // a cache answered the call
	dialed   time.Duration
	lease    time.Duration
	latency  time.Duration // drawn
	served   time.Duration // when a tool with concurrency started serving it, or -1
	// firstBy is the instant by which a streaming call queued at a tool
	// with concurrency must send its first token (its timer is armed for
	// it), or 0 (stream.go).
	firstBy time.Duration
	timer   sim.Timer // the attempt's one pending event: a wake, a give-up, its answer or timeout
	// retryAfter is the limiter's time to its next token (a tool without a
	// retry_after of its own); raU the uniform of the tool's retry_after.
	retryAfter time.Duration
	raU        float64
	version    uint64      // contention: the row version read at dial
	reserved   cost.Amount // run budget: the outstanding reservation
	// prevSleep and prevOutcome are the previous attempt's at this step:
	// decorrelated jitter grows from the one, retry budgets read the other.
	prevSleep   time.Duration
	prevOutcome retry.Outcome
}

// stepTime adds d to the current step's stage time.
func (m *Model) stepTime(ri int32, d time.Duration) {
	if st := m.stagesOf(ri); st != nil { // a member's time is its span (memberSpan)
		st[1+int(m.runs.At(ri).step)] += d
	}
}

// dial starts attempt r.cur.n of step r.step at tool r.tool, or refuses it
// locally. A call back from a wait at a gate comes here again and resumes
// at the gates it does not hold yet.
func (m *Model) dial(ri int32) {
	r := m.runs.At(ri)
	a := &r.cur
	now := m.s.Now()
	sp := &m.steps[r.step]
	tp := &m.toolPlans[r.tool]
	ts := &m.tools[r.tool]
	lease, ok := r.dl.TryLease(now, sp.timeout)
	if !ok {
		m.refuse(ri, refusedLease)
		return
	}
	// A cache in front of the tool answers hits without passing a gate: no
	// token, no permit, no server slot, no charge.
	hit := tp.cache != nil && m.cacheHit(r, tp.cache)
	a.hit = hit
	// A model call draws its tokens (keyed draws: the same on every
	// pass) before the gates that count or price them.
	var tokLat time.Duration
	if tp.tokened && !hit {
		tokLat = m.prepareTokens(ri, r, tp)
		if m.held[ri].tok.overWindow {
			m.refuse(ri, refusedWindow)
			return
		}
	}
	if !hit && len(tp.gates) > 0 && !m.admit(ri, r, tp, lease) {
		return
	}
	a.state = idle
	a.gen++ // a new call: whatever its slot's earlier calls left at a tool is not its
	a.dialed = now
	a.served = -1
	a.lease = lease
	a.leaseCut = sp.timeout <= 0 || lease < sp.timeout
	if sp.loop > 0 && tp.tokens != nil && !hit {
		m.sentInput(ri, r, sp.loop-1)
	}
	if sp.budget != nil {
		sp.budget.OnAttempt(now, int(a.n))
	}
	if r.measured {
		m.res.Attempts.Attempts++
		if a.n > 1 {
			m.res.Attempts.Retries++
		}
		if m.res.Classes != nil {
			m.res.Classes[r.class].attempt(a.n > 1)
		}
		m.res.Series.bin(now).Attempts++
	}
	o, lat, hung := m.draw(r, tp, hit)
	caching := tp.promptCache != nil && !hit && o == retry.OK && !hung
	if caching {
		m.held[ri].tok.first = lat + m.held[ri].tok.prefill
	}
	a.firstBy = 0
	fto := time.Duration(0)
	if tp.stream && !hit {
		m.held[ri].tok.ttft = streamTTFT(o, hung, lat+m.held[ri].tok.prefill)
		fto = m.firstTokenLimit(r, tp, lease)
	}
	lat += tokLat
	a.outcome, a.latency, a.ending = o, lat, answered
	a.state = inFlight
	if hung {
		a.state = hanging
	}
	if !hit {
		// Server-enforced rate limit: over the limit → 429 at once, with a
		// Retry-After of the time until the next token (unless the tool
		// declares its own).
		if tp.serverLimit && !ts.bucket.AllowAt(now, 1) {
			ts.stats.RateLimited++
			a.hasRA = true
			m.turnAway(ri, a, retry.RateLimited, ts.bucket.NextAt(now)-now, tp.retryAfter == nil)
			return
		}
		if tp.tokenServer && !m.tokenAdmit(ri, r, tp) {
			return // 429: the buckets lack its tokens
		}
		ts.stats.Calls++
		if tp.clientLimit || tp.serverLimit {
			m.res.Series.addCall(now, int(r.tool))
		}
		if tp.capacity {
			m.submit(ri, lease, fto) // a prompt cache is written when served
			return
		}
		if caching {
			m.cacheCommit(ri, r, tp, now)
		}
		// An unlimited tool serves at once; account its busy time now.
		if !hung {
			ts.stats.Served++
			ts.stats.BusySeconds += secs(lat)
			m.res.Series.addBusy(now, now+lat, int(r.tool))
		}
	}
	if fto > 0 && m.held[ri].tok.ttft > fto {
		// No first token in time: the caller cuts the stream then.
		a.outcome, a.ending, a.leaseCut = retry.Timeout, timedOut, false
		if r.measured {
			m.res.Attempts.FirstTokenTimeouts++
		}
		if !hung {
			ts.stats.WastedSeconds += secs(lat)
		}
		m.arm(ri, a, now+fto, evAttemptEnd, false)
		return
	}
	if hung || lat > lease {
		a.outcome, a.ending = retry.Timeout, timedOut
		if !hit && !hung {
			// The server keeps working after the caller gave up.
			ts.stats.WastedSeconds += secs(lat)
		}
		if lease >= noLimit {
			// Nothing will ever end this attempt: no ceiling, no deadline.
			// The run stays in flight; the scenario validation warns.
			return
		}
		m.arm(ri, a, now+lease, evAttemptEnd, false)
		return
	}
	m.arm(ri, a, now+lat, evAttemptEnd, false)
}

// admitRate is the client-side rate limit's gate: the caller takes a
// token, waiting for it if it must. The wait spends the deadline; a wait
// that would leave no lease is refused now.
func (m *Model) admitRate(ri int32, r *run) admission {
	now := m.s.Now()
	ts := &m.tools[r.tool]
	wait, ok := ts.bucket.ReserveWithinAt(now, 1, waitAllowance(r, now))
	if !ok {
		m.refuse(ri, refusedTokenWait)
		return refused
	}
	a := &r.cur
	a.held |= holdRate
	if wait <= 0 {
		return admitted
	}
	a.state = tokenWait
	ts.stats.ClientWaitSeconds += secs(wait)
	m.stepTime(ri, wait)
	m.arm(ri, a, now+capped(wait), evWake, false)
	return waiting
}

// admitCost is the cost gate: a metered call reserves its declared
// maximum first; a reservation that does not fit is refused locally, like
// a lease below the floor.
func (m *Model) admitCost(ri int32, r *run, tp *toolPlan) admission {
	tr, ok := m.tokenReserve(ri, tp)
	amount, fits := tp.cost.Reserve.AddSat(tr)
	if !ok || !fits || !m.reserve(ri, r, amount) {
		if r.measured {
			m.res.Cost.Refused++
		}
		m.refuse(ri, refusedBudget)
		return refused
	}
	return admitted
}

// reserve reserves amount from the budget of run ri (r) and the scenario's.
func (m *Model) reserve(ri int32, r *run, amount cost.Amount) bool {
	if m.cfg.RunBudget > 0 && amount > m.cfg.RunBudget-m.payer(r).spent { // a difference: a large amount cannot wrap it
		return false
	}
	if m.ledger != nil {
		res, ok := m.ledger.TryReserve(amount)
		if !ok {
			return false
		}
		m.held[ri].resv = res
	}
	r.cur.reserved = amount
	r.cur.held |= holdCost
	return true
}

// settle ends run ri's outstanding cost reservation (release calls it):
// answered calls settle their usage (0 when only successes are billed and
// this one failed); calls that timed out, or were cancelled after they
// were sent, have unknown usage and stay reserved for reconciliation,
// except a stream cut after its first token, which settles what it
// produced (stream.go); a
// call turned away unserved (a rate limiter's 429, a full tool queue's
// 503, a deadline-aware tool's drop, a provider's overload) or never
// dialed used nothing, even when every request is billed.
func (m *Model) settle(ri int32, r *run, o retry.Outcome, dialed bool) {
	a := &r.cur
	c := m.toolPlans[r.tool].cost
	if dialed && a.ending == timedOut {
		// Unknown usage: the budget keeps it reserved. Sums saturate at
		// cost.MaxAmount rather than wrap negative over many calls.
		m.payer(r).spent, _ = m.payer(r).spent.AddSat(a.reserved)
		if r.measured {
			m.win.unsettled, _ = m.win.unsettled.AddSat(a.reserved)
		}
		if m.ledger != nil {
			// The simulation never learns the usage: held for good,
			// without keeping a slot per timed-out call.
			if err := m.ledger.HoldForever(m.held[ri].resv); err != nil {
				panic("system: cost hold: " + err.Error())
			}
		}
		return
	}
	var actual cost.Amount
	if dialed && (o == retry.OK || !c.BillSuccessOnly) && a.ending != turnedAway && o != retry.Overloaded {
		actual = m.usage(r, c)
		if tu := m.billedTokens(ri, r, o); tu > 0 {
			// A call's tokens may bill more than it reserved (an output
			// longer than reserve_output, with no max_output to cut it):
			// the reservation is the contract, as for usage.
			base := actual
			var exact bool
			if actual, exact = actual.AddSat(tu); !exact || actual > a.reserved {
				actual = a.reserved
				if r.measured {
					m.res.Cost.Overrun++
				}
			}
			if r.measured {
				m.res.Cost.Tokens.Add(m.tokenCostSplit(ri, c, billsOutput(o, a.ending), (actual-base).Float64()/tu.Float64()))
			}
		}
	}
	m.payer(r).spent, _ = m.payer(r).spent.AddSat(actual)
	if m.ledger != nil {
		if err := m.ledger.Settle(m.held[ri].resv, actual); err != nil {
			panic("system: cost settle: " + err.Error())
		}
	}
	if r.measured {
		if m.res.Classes != nil {
			m.res.Classes[r.class].Cost += actual.Float64()
		}
		m.res.Cost.Spent += actual.Float64()
		if o != retry.OK {
			m.res.Cost.Wasted += actual.Float64()
		}
	}
}

// usage draws a call's actual usage, keyed like the tool's other draws.
func (m *Model) usage(r *run, c *ToolCost) cost.Amount {
	m.costRng.Key(uint64(r.id), stepKey(r), uint64(r.cur.n))
	rnd := m.costRng.Rand()
	u := 0.0
	if c.Usage != nil {
		u = c.Usage.Sample(rnd)
	}
	for i := range c.Dims {
		u += float64(c.Dims[i].Price * c.Dims[i].Usage.Sample(rnd))
	}
	a, err := cost.AmountFromFloat(u)
	if err != nil || a > c.Reserve {
		if r.measured {
			m.res.Cost.Overrun++
		}
		return c.Reserve
	}
	return max(a, 0)
}

// The reasons a call is refused before it is dialed, as traces spell them.
const (
	refusedLease     = "refused"
	refusedTokenWait = "rate_limit_wait_outlasts_deadline"
	refusedBudget    = "cost_budget_exhausted"
	refusedWindow    = "context_window_exceeded"
)

// refuse ends the current step locally, before dialing: a fallback takes
// over if one can, else the run ends refused.
func (m *Model) refuse(ri int32, why string) {
	r := m.runs.At(ri)
	// A refusal ends whatever the call held or waited for (a breaker's
	// permission, a token, a limiter slot): a fallback waits for its own
	// tool's.
	m.release(ri, r, byRefusal, retry.Refused, 0)
	r.cur.state = idle
	if r.measured {
		a := &m.res.Attempts
		a.Refused++
		switch why {
		case refusedLease:
			a.RefusedLease++
		case refusedTokenWait:
			a.RefusedTokenWait++
		case refusedLimitWait, refusedLimit:
			a.RefusedLimit++
		case refusedBreaker:
			a.RefusedBreaker++
		case refusedWindow:
			a.RefusedWindow++
			m.res.Loops[m.steps[r.step].loop-1].Refused++
		}
	}
	if r.traced {
		m.traceRefusal(r, &m.stepCfg[r.step], why)
	}
	if m.tryFallback(ri) {
		return
	}
	m.end(ri, Refused)
}

// tryFallback switches the current step to its next capable fallback tool
// and dials it; it reports false when none is left. A fallback repeats the
// step's request at another tool: when an attempt may have executed (it
// timed out) that is safe only for an idempotent step. An idempotency key
// does not travel to another provider, so a keyed step falls back only
// with allow_unsafe, like a forced retry, and the call is counted as a
// possible duplicate execution.
func (m *Model) tryFallback(ri int32) bool {
	r := m.runs.At(ri)
	st := &m.stepCfg[r.step]
	if len(st.Fallbacks) == 0 {
		return false
	}
	duplicate := r.mayRan && !st.Retry.Idempotent
	if duplicate && !st.Retry.AllowUnsafe {
		if r.measured && int(r.fallback) < len(st.Fallbacks) {
			m.res.Attempts.UnsafeFallbacks++
		}
		return false
	}
	for int(r.fallback) < len(st.Fallbacks) {
		t := st.Fallbacks[r.fallback]
		r.fallback++
		if !capable(&m.cfg.Tools[t], st.Requires) {
			continue
		}
		if r.measured {
			m.res.Attempts.Fallbacks++
			if duplicate {
				m.res.Attempts.Duplicates++
			}
		}
		r.tool = int32(t)
		r.cur.n = 1
		r.cur.prevSleep = 0
		r.cur.prevOutcome = retry.OK
		m.dial(ri)
		return true
	}
	return false
}

func capable(t *Tool, requires []string) bool {
	for _, need := range requires {
		found := false
		for _, c := range t.Capabilities {
			if c == need {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// noLimit is the lease of a call with neither ceiling nor deadline, and
// the longest delay the model schedules.
const noLimit = time.Duration(math.MaxInt64 / 4)

// capped bounds a delay to noLimit: a token wait at a very slow rate, a
// spread Retry-After or a proportional backoff past a 100-year cap could
// otherwise carry an event past what a Duration holds.
func capped(d time.Duration) time.Duration { return min(d, noLimit) }

// draw decides an attempt's outcome and latency from the tool's stream keyed
// by (run, step, attempt): the same attempt of the same run sees the same
// draws whatever policy led to it (common random numbers). The draws are
// made whatever the plan says, so that a feature turned on or off changes
// no other component's numbers.
func (m *Model) draw(r *run, tp *toolPlan, hit bool) (o retry.Outcome, lat time.Duration, hung bool) {
	a := &r.cur
	var u, raU float64
	if r.hasAhead && !hit && r.step == 0 && r.turn == 0 && a.n == 1 && r.tool == m.steps[0].tool {
		// Drawn ahead, from the same stream and key (drawProducer.fill).
		u, lat, raU = r.ahead.u, r.ahead.lat, r.ahead.raU
	} else {
		tool := &m.cfg.Tools[r.tool]
		stream := m.toolRng[r.tool]
		stream.Key(uint64(r.id), stepKey(r), uint64(a.n))
		rnd := stream.Rand()
		u = rnd.Float64()
		lat = seconds(tool.Latency.Sample(rnd))
		// The Retry-After draw comes last (before a cache hit's latency),
		// so skipping it when nothing reads it changes no other draw.
		if hit || tp.retryAfter != nil {
			raU = rnd.Float64()
		}
		if hit {
			a.hasRA = false
			return retry.OK, seconds(tp.cache.Latency.Sample(rnd)), false
		}
	}
	o = retry.OK
	for i := range tp.outcomes {
		if u < tp.outcomes[i].below {
			o = tp.outcomes[i].outcome
			hung = o == retry.Timeout
			break
		}
	}
	if len(tp.outages) > 0 {
		now := m.s.Now()
		for i := range tp.outages {
			out := &tp.outages[i]
			if now >= out.Start && now < out.End {
				if out.Slow > 0 {
					lat = seconds(float64(secs(lat) * out.Slow))
					continue
				}
				o = out.Mode
				hung = o == retry.Timeout
			}
		}
	}
	for i := range tp.script {
		sc := &tp.script[i]
		if int32(sc.Attempt) == a.n && (sc.Run < 0 || sc.Run == r.id) {
			o = sc.Outcome
			hung = o == retry.Timeout
			if sc.Latency > 0 {
				lat = sc.Latency
			}
		}
	}
	if tp.contention && o == retry.OK {
		a.version = m.versions[r.tool]
	}
	// The tool's Retry-After for this attempt comes with any 503 or 429 it
	// sends: a drawn error, its rate limiter's 429 or its full queue's 503.
	// Its uniform is kept; the value is computed only if a reply carries it.
	a.raU = raU
	a.hasRA = tp.retryAfter != nil && (o == retry.Transient || o == retry.RateLimited)
	return o, lat, hung
}

// cacheHit decides whether the cache answers the attempt, from its own
// keyed draw so that the decision does not depend on anything else.
func (m *Model) cacheHit(r *run, c *Cache) bool {
	m.costRng.Key(uint64(r.id)^0xcac4e, stepKey(r), uint64(r.cur.n))
	hit := m.costRng.Float64() < c.HitRatio
	if hit {
		m.tools[r.tool].stats.CacheHits++
	}
	return hit
}

// onAttemptEvent handles an evAttemptEnd of the slot's current attempt
// (Run has dropped stale ones): arg is its generation, negated when the
// event is the caller's timeout on a capacity tool.
func (m *Model) onAttemptEvent(ri int32, arg int64) {
	a := &m.runs.At(ri).cur
	if !a.state.outstanding() {
		m.auditf("an answer for run slot %d, which has no call outstanding (state %d)", ri, a.state)
		return
	}
	if arg < 0 {
		// The caller gives up; the request stays at the tool (wasted work).
		a.outcome, a.ending = retry.Timeout, timedOut
		if a.firstBy > 0 {
			// Its first token did not come in time (stream.go).
			a.leaseCut = false
			if m.runs.At(ri).measured {
				m.res.Attempts.FirstTokenTimeouts++
			}
		}
	}
	m.attemptEnded(ri)
}

// onWake dials after a backoff sleep or a wait at a gate.
func (m *Model) onWake(ri int32) {
	m.dial(ri)
}

// attemptEnded handles an attempt's answer or its timeout in three moves:
// account for it (counters, cost, stage time, the retry budget's record),
// decide what follows (retry.Decide, the same pure function a production
// client runs), and advance the run (the next step, a retry, a fallback,
// or its end).
func (m *Model) attemptEnded(ri int32) {
	r := m.runs.At(ri)
	o, elapsed := m.account(ri, r)
	if o == retry.OK {
		if r.traced {
			m.traceAttempt(ri, r, &m.stepCfg[r.step], o, elapsed, -1, "success")
		}
		m.nextStep(ri, r)
		return
	}
	if r.parent != 0 && m.steps[r.step].hedger != nil {
		m.hedgeFailed(ri, r, o, elapsed) // a hedged attempt is not retried: the next hedge is
		return
	}
	d := m.decide(r, o)
	if r.traced {
		sleep := time.Duration(-1)
		if d.Retry {
			sleep = d.Sleep
		}
		m.traceAttempt(ri, r, &m.stepCfg[r.step], o, elapsed, sleep, d.Reason.String())
	}
	m.advance(ri, r, o, d)
}

// account records the attempt that just ended and returns its outcome (a
// contended write that lost becomes Transient) and its duration.
func (m *Model) account(ri int32, r *run) (retry.Outcome, time.Duration) {
	a := &r.cur
	now := m.s.Now()
	hung := a.state == hanging
	a.state = idle
	o := a.outcome
	if o == retry.OK && m.toolPlans[r.tool].contention {
		if m.versions[r.tool] != a.version {
			o = retry.Transient // the read was stale: the conditional write conflicts
		} else {
			m.versions[r.tool]++
		}
	}
	elapsed := now - a.dialed
	m.stepTime(ri, elapsed)
	m.release(ri, r, byEnd, o, elapsed)
	if a.ending == timedOut || a.ending == streamCut {
		r.mayRan = true
	}
	if r.measured {
		c := &m.res.Attempts
		switch o {
		case retry.OK:
			c.OK++
		case retry.Timeout:
			c.Timeouts++
		case retry.Transient:
			c.Transient++
		case retry.RateLimited:
			c.RateLimited++
		case retry.Overloaded:
			c.Overloaded++
		case retry.Permanent:
			c.Permanent++
		}
		if o != retry.OK {
			c.WastedSeconds += secs(elapsed)
		}
		if o == retry.Timeout {
			m.res.StepTimeouts[r.step]++
			if hung {
				m.res.StepHangs[r.step]++
			}
		} else {
			m.res.StepLatency[r.step].Add(secs(elapsed))
		}
	}
	if b := m.steps[r.step].budget; b != nil {
		b.OnResult(now, int(a.n), o, a.prevOutcome)
	}
	a.prevOutcome = o
	return o, elapsed
}

// decide asks retry.Decide whether the failed attempt is tried again.
func (m *Model) decide(r *run, o retry.Outcome) retry.Decision {
	a := &r.cur
	hasRA := a.hasRA && o != retry.Timeout // a timed-out caller read no reply
	retryAfter := a.retryAfter
	if ra := m.toolPlans[r.tool].retryAfter; hasRA && ra != nil {
		retryAfter = seconds(ra.Quantile(a.raU))
	}
	m.jitter.Key(uint64(r.id), stepKey(r), uint64(a.n))
	return retry.Decide(retry.Input{
		Policy:        m.stepCfg[r.step].Retry,
		Attempt:       int(a.n),
		Outcome:       o,
		RetryAfter:    retryAfter,
		HasRetryAfter: hasRA,
		PrevSleep:     a.prevSleep,
		U:             m.jitter.Float64(),
		Now:           m.s.Now(),
		Deadline:      r.dl,
		Budget:        m.steps[r.step].budget,
	})
}

// nextStep moves a run whose attempt succeeded to its next step, or ends
// it completed.
func (m *Model) nextStep(ri int32, r *run) {
	li := m.steps[r.step].loop - 1
	if li >= 0 && (r.parent != 0 || m.steps[r.step].group == 0) {
		m.appendResult(ri, r, li)
	}
	if r.parent != 0 {
		m.memberEnded(ri, Completed) // a member of a group succeeded
		return
	}
	if li >= 0 && m.stepDone(ri, r, li) {
		return // the next turn has begun
	}
	r.step++
	if r.step == m.classes[r.class].end {
		m.end(ri, Completed)
		return
	}
	m.beginStep(ri)
}

// advance carries out decision d on a run whose attempt failed with o:
// a retry after its sleep, else a fallback or the run's end.
func (m *Model) advance(ri int32, r *run, o retry.Outcome, d retry.Decision) {
	a := &r.cur
	if !d.Retry {
		if r.measured && d.Reason == retry.BudgetExhausted {
			m.res.Attempts.BudgetDenied++
		}
		outcome := Failed
		switch {
		case o == retry.Timeout && a.leaseCut:
			// The deadline, not the ceiling, bounded the attempt that timed out.
			outcome = DeadlineExceeded
		case d.Reason == retry.SleepOutlastsDeadline || d.Reason == retry.RetryAfterOutlastsDeadline:
			outcome = DeadlineExceeded
		}
		if outcome == Failed && m.tryFallback(ri) {
			return
		}
		m.end(ri, outcome)
		return
	}
	if r.measured {
		if d.Duplicate {
			m.res.Attempts.Duplicates++
		}
		if d.FromRetryAfter {
			m.res.Attempts.RetryAfterHonored++
		}
		m.res.Attempts.BackoffSeconds += secs(d.Sleep)
	}
	a.prevSleep = d.Sleep
	r.backoff += d.Sleep
	if st := m.stagesOf(ri); st != nil {
		st[m.nStages-1] += d.Sleep
	}
	a.n++
	if d.Sleep <= 0 {
		m.dial(ri)
		return
	}
	a.state = backingOff
	m.arm(ri, a, m.s.Now()+capped(d.Sleep), evWake, false)
}

func (m *Model) traceRefusal(r *run, st *Step, why string) {
	now := m.s.Now()
	rec := &m.rec
	*rec = AttemptRecord{
		Run: r.id, Step: st.Name, Tool: m.cfg.Tools[r.tool].Name, Attempt: int(r.cur.n),
		Start: now, Remaining: r.dl.Remaining(now), Served: -1, Outcome: retry.Refused, Backoff: -1,
		ResendCount: int(r.cur.n) - 1, Decision: why, HasDeadline: m.classes[r.class].deadline > 0, Lane: lane(r),
		Turn: m.turnOf(r), InputTokens: -1, OutputTokens: -1, CacheReadTokens: -1, CacheWriteTokens: -1, TTFT: -1, RetryAfter: -1,
	}
	m.opt.Tracer.Attempt(rec)
}

func (m *Model) traceAttempt(ri int32, r *run, st *Step, o retry.Outcome, latency, backoff time.Duration, decision string) {
	a := &r.cur
	rec := &m.rec
	*rec = AttemptRecord{
		Run:         r.id,
		Step:        st.Name,
		Tool:        m.cfg.Tools[r.tool].Name,
		Attempt:     int(a.n),
		Start:       a.dialed,
		Granted:     a.lease,
		Remaining:   r.dl.Remaining(a.dialed),
		Served:      a.served,
		Outcome:     o,
		Latency:     latency,
		Backoff:     backoff,
		ResendCount: int(a.n) - 1,
		Decision:    decision,
		HasDeadline: m.classes[r.class].deadline > 0,
		Lane:        lane(r),
		Turn:        m.turnOf(r),
		InputTokens: -1, OutputTokens: -1, CacheReadTokens: -1, CacheWriteTokens: -1, TTFT: -1, RetryAfter: -1,
	}
	tp := &m.toolPlans[r.tool]
	if o == retry.OK && tp.tokens != nil && !a.hit {
		tc := &m.held[ri].tok
		rec.InputTokens, rec.OutputTokens, rec.CacheReadTokens, rec.CacheWriteTokens = tc.in, tc.out, tc.cacheRead, tc.cacheWrite
		if tp.tokens.PerOutputToken != nil {
			rec.TTFT = max(latency-tc.outTime, 0)
		}
	}
	if a.hasRA && o != retry.Timeout {
		rec.RetryAfter = a.retryAfter
		if tp.retryAfter != nil {
			rec.RetryAfter = seconds(tp.retryAfter.Quantile(a.raU))
		}
	}
	m.opt.Tracer.Attempt(rec)
}

// payer is the run whose run budget r's calls spend: r, or the run r is a
// member of.
func (m *Model) payer(r *run) *run {
	if r.parent != 0 {
		return m.runs.At(r.parent - 1)
	}
	return r
}
