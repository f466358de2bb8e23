package system

import (
	"time"

	"github.com/budgetsim/budgetsim/model/dist"
	"github.com/budgetsim/budgetsim/model/ratelimit"
	"github.com/budgetsim/budgetsim/sim"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Agent loops. A loop (Config.Loops) is a block of consecutive top-level
// steps that a run repeats turn by turn, as an agent does: the model reads
// its context and either answers or calls tools, whose results join the
// context for the next turn. Each turn is the block's steps once; the run
// leaves the loop when its turns are done (a drawn number of turns, a stop
// probability after each turn, or the model's answer: a probability,
// after the turn's first step, that the turn ends the loop there), and
// never after more than MaxTurns. The run's one deadline, its budgets and
// its retries span every turn.
//
// Every draw of a call in a loop is keyed by (run, step, attempt) as
// elsewhere, with the turn in the step key's upper half: turn 0 keys the
// draws exactly as a plan without loops, and each later turn draws anew.
//
// With a Context, each model call of the loop sends the system prompt
// plus everything the run has appended so far (the task's own tokens,
// then each model call's output and each tool result's tokens), so each
// turn sends more input than the last (docs/agents.md).

// Loop is a block of steps a run repeats turn by turn.
type Loop struct {
	Name string
	// First and Len are the loop's steps: Config.Steps[First:First+Len].
	// A parallel step inside is its members, all in the block.
	First, Len int
	// MaxTurns bounds the turns (≥ 1).
	MaxTurns int
	// At most one of Turns, Stop and Answer is set; with none, every run
	// takes MaxTurns turns.
	//
	// Turns is the number of turns, drawn when the run enters the loop,
	// rounded and clamped to [1, MaxTurns].
	Turns dist.Dist
	// Stop is the probability that the loop ends after a full turn.
	Stop float64
	// Answer is the probability that the turn's first step (the model
	// call) answers: the loop ends after it, without the turn's other
	// steps (the tool calls).
	Answer float64
	// Context, when set, makes the input of the loop's model calls grow.
	Context *Context
}

// WindowRule says what a loop does when a model call's input would not
// fit the context window.
type WindowRule uint8

// The window rules.
const (
	// WindowRefuse refuses the call locally: the run's step fails (a
	// fallback may take it), as a provider refuses an over-long prompt.
	WindowRefuse WindowRule = iota
	// WindowTruncate drops the oldest appended tokens so that the input
	// fits: the run keeps its system prompt and its latest context. The
	// cached prefix of the run's history no longer matches.
	WindowTruncate
	// WindowCompact summarises the context with an extra model call, the
	// loop's first step (Context.CompactAt), before a turn whose input
	// would pass the compaction threshold; a model call that still does
	// not fit the window is refused.
	WindowCompact
)

// Context is the growing input of a loop's model calls.
type Context struct {
	// System is the system prompt's tokens, sent first in every model
	// call of the loop (a prefix shared by every run).
	System int64
	// Start is the task's tokens, drawn when the run enters the loop.
	Start dist.Dist
	// Window is the model's context window in tokens (0: none).
	Window int64
	// AtWindow is what happens to a call whose input would exceed Window.
	AtWindow WindowRule
	// CompactAt is, with WindowCompact, the share of Window (0 < CompactAt
	// ≤ 1) that a turn's context (system + appended) must pass for the
	// turn to begin with the compaction call: the loop's first step, a
	// model call whose input is the context (at most Window tokens) and
	// whose output, the summary, replaces everything appended so far.
	CompactAt float64
}

// LoopResult is what one loop measured over the measured runs.
type LoopResult struct {
	// Turns holds the turns each run took, of the runs that left the
	// loop (answered, finished their turns or reached MaxTurns).
	Turns *stats.Histogram
	// TurnLatency holds each completed turn's time, from its first step's
	// start to its last step's end (or the answer), in seconds.
	TurnLatency *stats.Histogram
	// TurnInput holds the input tokens a completed turn's model calls
	// sent (retries included), of loops with a Context.
	TurnInput *stats.Histogram
	// Answered counts the runs whose model answered; MaxTurns those that
	// left at MaxTurns without an answer (answer loops only).
	Answered, MaxTurns int64
	// Refused and Truncated count the model calls that met the context
	// window; Compactions the compaction calls that succeeded.
	Refused, Truncated, Compactions int64
}

// loopRun is a run slot's loop state (in Model.loopRuns).
type loopRun struct {
	active    bool
	target    int32 // the turns drawn (Turns), or 0
	ctx       int64 // the tokens appended so far (Context)
	turnStart time.Duration
	turnIn    int64 // input tokens sent this turn
	// cache is the run's own prompt-cache entry at tool cacheTool − 1
	// (promptcache.go).
	cacheTool int32
	cache     cacheEntry
}

// loopPlan is a loop compiled.
type loopPlan struct {
	Loop
	last int32 // the loop's last step
	// firstEnd is the last step of the turn's first element: the step
	// itself, or a parallel step's last member (after the compaction
	// step, when the loop has one).
	firstEnd int32
	// compact: the loop's first step is its compaction call, made only
	// when the context passes the threshold.
	compact bool
}

// loopModel is the loop state of a Model whose scenario has loops.
type loopModel struct {
	rng   *sim.Stream
	loops []loopPlan
	runs  []loopRun // per run slot
	// resultTokens holds, per tool, what a successful call appends to a
	// loop's context (nil: nothing, or a model call's output).
	resultTokens []dist.Dist
}

// newLoopModel returns the loop state of a replication, or nil when cfg
// has no loops.
func newLoopModel(cfg *Config, seed uint64) *loopModel {
	if len(cfg.Loops) == 0 {
		return nil
	}
	lm := &loopModel{rng: sim.NewStream(seed, "loops"), loops: make([]loopPlan, len(cfg.Loops)), resultTokens: make([]dist.Dist, len(cfg.Tools))}
	for i, l := range cfg.Loops {
		compact := l.Context != nil && l.Context.AtWindow == WindowCompact
		first := l.First
		if compact {
			first++
		}
		lm.loops[i] = loopPlan{Loop: l, last: int32(l.First + l.Len - 1), firstEnd: int32(first), compact: compact}
		if g := cfg.Steps[first].Group; g > 0 {
			lm.loops[i].firstEnd = int32(cfg.Groups[g-1].First + cfg.Groups[g-1].Members - 1)
		}
	}
	for i := range cfg.Tools {
		lm.resultTokens[i] = cfg.Tools[i].ResultTokens
	}
	return lm
}

// stepKey is the step part of the key of run r's draws: its step, and its
// turn in the upper half.
func stepKey(r *run) uint64 { return uint64(r.step) | uint64(r.turn)<<32 }

// loopRunOf returns run slot ri's loop state (alloc adds one per slot).
func (m *Model) loopRunOf(ri int32) *loopRun { return &m.loops.runs[ri] }

// enterLoop starts run ri's first turn of loop li.
func (m *Model) enterLoop(ri int32, r *run, li int32) {
	lm := m.loops
	lp := &lm.loops[li]
	ls := m.loopRunOf(ri)
	*ls = loopRun{active: true, turnStart: m.s.Now()}
	r.turn = 0
	if lp.Turns != nil || lp.Context != nil && lp.Context.Start != nil {
		lm.rng.Key(uint64(r.id), uint64(li), 0)
		rnd := lm.rng.Rand()
		if lp.Turns != nil {
			ls.target = int32(min(max(roundTokens(lp.Turns.Sample(rnd)), 1), int64(lp.MaxTurns)))
		}
		if c := lp.Context; c != nil && c.Start != nil {
			ls.ctx = roundTokens(c.Start.Sample(rnd))
		}
	}
}

// stepDone is called when run ri's step in loop li succeeded: it reports
// whether the run goes on inside the loop (another turn has begun) and
// otherwise leaves r.step where the run's next step follows: after the
// loop when the loop ended, else at the step done.
func (m *Model) stepDone(ri int32, r *run, li int32) (next bool) {
	lm := m.loops
	lp := &lm.loops[li]
	ls := m.loopRunOf(ri)
	if r.step == lp.firstEnd && lp.Answer > 0 {
		lm.rng.Key(uint64(r.id), uint64(li), 1+uint64(r.turn))
		if lm.rng.Float64() < lp.Answer {
			m.turnEnded(r, li, ls)
			m.leaveLoop(r, li, ls, true)
			return false
		}
	}
	if r.step != lp.last {
		return false
	}
	m.turnEnded(r, li, ls)
	turns := r.turn + 1
	more := turns < int32(lp.MaxTurns)
	switch {
	case lp.Turns != nil:
		more = turns < ls.target
	case lp.Stop > 0:
		if more {
			lm.rng.Key(uint64(r.id), uint64(li), 1+uint64(r.turn))
			more = lm.rng.Float64() >= lp.Stop
		}
	}
	if !more {
		m.leaveLoop(r, li, ls, false)
		return false
	}
	r.turn++
	ls.turnStart, ls.turnIn = m.s.Now(), 0
	r.step = int32(lp.First)
	m.beginStep(ri)
	return true
}

// turnEnded records a turn of run r that just completed.
func (m *Model) turnEnded(r *run, li int32, ls *loopRun) {
	if !r.measured {
		return
	}
	lr := &m.res.Loops[li]
	lr.TurnLatency.Add(secs(m.s.Now() - ls.turnStart))
	if m.loops.loops[li].Context != nil {
		lr.TurnInput.Add(float64(ls.turnIn))
	}
}

// leaveLoop ends run r's loop li after its current turn: r.step is set
// to the loop's last step, so that the run's next step follows the loop.
func (m *Model) leaveLoop(r *run, li int32, ls *loopRun, answered bool) {
	lp := &m.loops.loops[li]
	if r.measured {
		lr := &m.res.Loops[li]
		lr.Turns.Add(float64(r.turn + 1))
		switch {
		case answered:
			lr.Answered++
		case lp.Answer > 0:
			lr.MaxTurns++
		}
	}
	ls.active = false
	r.step = lp.last
	r.turn = 0
}

// contextInput returns the input tokens of run ri's model call in loop li
// with a context, applying the window rule: whether the window refuses
// the call, or cut its input.
func (m *Model) contextInput(ri int32, r *run, li int32) (in int64, refused, truncated bool) {
	lp := &m.loops.loops[li]
	c := lp.Context
	ls := m.loopRunOf(m.owner(ri, r))
	in = min(c.System+ls.ctx, ratelimit.MaxCallTokens)
	if c.Window > 0 && in > c.Window {
		switch {
		case lp.compact && r.step == int32(lp.First):
			return c.Window, false, false // the compaction reads what fits
		case c.AtWindow == WindowTruncate:
			return c.Window, false, true
		}
		return in, true, false
	}
	return in, false, false
}

// skipCompaction reports whether run ri, at its loop li's compaction
// step, goes straight to the turn's next step: its context has not
// passed the threshold.
func (m *Model) skipCompaction(ri int32, r *run, li int32) bool {
	c := m.loops.loops[li].Context
	ls := m.loopRunOf(m.owner(ri, r))
	return float64(c.System+ls.ctx) <= float64(c.CompactAt*float64(c.Window))
}

// sentInput notes run ri's model call in loop li, dialed now: its input
// joins the turn's, and a call the window cut is counted.
func (m *Model) sentInput(ri int32, r *run, li int32) {
	tc := &m.held[ri].tok
	m.loopRunOf(m.owner(ri, r)).turnIn += tc.in
	if tc.truncated && r.measured {
		m.res.Loops[li].Truncated++
	}
}

// newLoopResult returns an empty LoopResult.
func newLoopResult() LoopResult {
	return LoopResult{Turns: NewHistogram(), TurnLatency: NewHistogram(), TurnInput: NewHistogram()}
}

// appendResult adds what run ri's successful call returned to its loop's
// context: a model call's output tokens, or the tool's result tokens.
func (m *Model) appendResult(ri int32, r *run, li int32) {
	lp := &m.loops.loops[li]
	if lp.Context == nil {
		return
	}
	ls := m.loopRunOf(m.owner(ri, r))
	if lp.compact && r.step == int32(lp.First) {
		// The summary replaces the history, and with it the run's cached
		// prefix; the shared system prompt stays cached.
		ls.ctx, ls.cacheTool = m.held[ri].tok.out, 0
		if r.measured {
			m.res.Loops[li].Compactions++
		}
		return
	}
	if m.toolPlans[r.tool].tokens != nil {
		if !r.cur.hit { // a cached answer's tokens are not drawn
			ls.ctx = min(ls.ctx+m.held[ri].tok.out, maxContext)
		}
		return
	}
	d := m.loops.resultTokens[r.tool]
	if d == nil {
		return
	}
	lm := m.loops
	lm.rng.Key(uint64(r.id)^0x7e5, stepKey(r), uint64(r.cur.n))
	ls.ctx = min(ls.ctx+roundTokens(d.Sample(lm.rng.Rand())), maxContext)
}

// maxContext bounds a run's appended context (2^50 tokens): far beyond
// any model's window, and below where the sums could overflow.
const maxContext = 1 << 50
