package summary

import (
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// LoopSummary is one agent loop as its runs saw it: how many turns they
// took, how long a turn took, and how much input a turn sent. Its steps'
// attempts are in Summary.Steps, one row each, over every turn.
type LoopSummary struct {
	Name string `json:"name"`
	// Steps are the loop's steps, in the order a turn takes them.
	Steps []string `json:"steps"`
	// MaxTurns bounds the turns; Ends says how a run leaves the loop:
	// "turns" (a drawn number), "stop" (a probability after each turn),
	// "answer" (the model's answer) or "max_turns".
	MaxTurns int    `json:"max_turns"`
	Ends     string `json:"ends"`
	// Turns is the turns of the runs that left the loop.
	Turns Percentiles `json:"turns"`
	// TurnLatency is a completed turn's time, in seconds; TurnInput the
	// input tokens its model calls sent (loops with a context).
	TurnLatency Percentiles `json:"turn_latency_s"`
	TurnInput   Percentiles `json:"turn_input_tokens"`
	// Answered and MaxTurnsReached count the runs that left an answer
	// loop either way.
	Answered        int64 `json:"answered,omitempty"`
	MaxTurnsReached int64 `json:"max_turns_reached,omitempty"`
	// WindowRefused and WindowTruncated count the model calls whose input
	// met the context window.
	WindowRefused   int64 `json:"window_refused,omitempty"`
	WindowTruncated int64 `json:"window_truncated,omitempty"`
	// Compactions counts the compaction calls that succeeded (at_window:
	// compact): each replaced a run's history with its summary.
	Compactions int64 `json:"compactions,omitempty"`
}

// loopPool is one loop's figures pooled over replications.
type loopPool struct {
	turns, lat, in                                      *stats.Histogram
	answered, maxTurns, refused, truncated, compactions int64
}

func newLoopPools(cfg *system.Config) []loopPool {
	if len(cfg.Loops) == 0 {
		return nil
	}
	out := make([]loopPool, len(cfg.Loops))
	for i := range out {
		out[i] = loopPool{turns: system.NewHistogram(), lat: system.NewHistogram(), in: system.NewHistogram()}
	}
	return out
}

func (a *Accumulator) addLoops(r *system.Result) {
	for i := range a.loops {
		if i >= len(r.Loops) {
			break
		}
		p, rl := &a.loops[i], &r.Loops[i]
		p.turns.Merge(rl.Turns)
		p.lat.Merge(rl.TurnLatency)
		p.in.Merge(rl.TurnInput)
		p.answered += rl.Answered
		p.maxTurns += rl.MaxTurns
		p.refused += rl.Refused
		p.truncated += rl.Truncated
		p.compactions += rl.Compactions
	}
}

func (a *Accumulator) loopSummaries() []LoopSummary {
	if len(a.loops) == 0 {
		return nil
	}
	cfg := a.cfg
	out := make([]LoopSummary, len(a.loops))
	for i, l := range cfg.Loops {
		o := &out[i]
		o.Name, o.MaxTurns = l.Name, l.MaxTurns
		for j := range l.Len {
			o.Steps = append(o.Steps, cfg.Steps[l.First+j].Name)
		}
		o.Ends = LoopEnds(&l)
		p := &a.loops[i]
		o.Turns, o.TurnLatency, o.TurnInput = percentiles(p.turns), percentiles(p.lat), percentiles(p.in)
		o.Answered, o.MaxTurnsReached = p.answered, p.maxTurns
		o.WindowRefused, o.WindowTruncated, o.Compactions = p.refused, p.truncated, p.compactions
	}
	return out
}

// LoopEnds names how a run leaves loop l: "turns", "stop", "answer" or
// "max_turns".
func LoopEnds(l *system.Loop) string {
	switch {
	case l.Turns != nil:
		return "turns"
	case l.Stop > 0:
		return "stop"
	case l.Answer > 0:
		return "answer"
	}
	return "max_turns"
}
