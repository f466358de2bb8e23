package system

import "github.com/budgetsim/budgetsim/sim"

// Per-call tool choice: a step with Choose calls one of several tools,
// drawn by weight for each call it makes (in an agent loop, each turn;
// in a parallel step, each member), as a model picks a tool. The draw is
// keyed by (run, step and turn), from a stream of its own, so that no
// other draw moves.

// choice is a compiled Choice: its tool and cumulative share.
type choice struct {
	tool  int32
	below float64
}

// compileChoices returns cs as cumulative shares, or nil.
func compileChoices(cs []Choice) []choice {
	if len(cs) == 0 {
		return nil
	}
	total := 0.0
	for _, c := range cs {
		total += c.Weight
	}
	out := make([]choice, len(cs))
	acc := 0.0
	for i, c := range cs {
		acc += c.Weight
		out[i] = choice{tool: int32(c.Tool), below: acc / total}
	}
	out[len(out)-1].below = 1
	return out
}

// newCallsStream returns the stream of the steps' tool choices and the
// parallel steps' numbers of calls, or nil when cfg has neither.
func newCallsStream(cfg *Config, seed uint64) *sim.Stream {
	need := false
	for i := range cfg.Groups {
		need = need || cfg.Groups[i].Calls != nil
	}
	for _, st := range cfg.PlanSteps() {
		need = need || len(st.Choose) > 0
	}
	if !need {
		return nil
	}
	return sim.NewStream(seed, "calls")
}

// stepTool returns the tool run r calls at step: the step's own, or one
// drawn among its choices.
func (m *Model) stepTool(r *run, step int32) int32 {
	sp := &m.steps[step]
	if len(sp.choose) == 0 {
		return sp.tool
	}
	m.calls.Key(uint64(r.id)^0xc4005e, uint64(step)|uint64(r.turn)<<32, 0)
	u := m.calls.Float64()
	for _, c := range sp.choose {
		if u < c.below {
			return c.tool
		}
	}
	return sp.choose[len(sp.choose)-1].tool
}
