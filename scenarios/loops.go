package scenarios

import (
	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/model/system"
)

// Agent loops: a top-level step with loop: {max_turns, turns | stop |
// answer, context, steps} is a block of steps that a run repeats turn by
// turn (model/system/loop.go). Its steps are read like top-level steps,
// into the same plan, and each is marked with its loop.

// MaxTurns bounds a loop's max_turns.
const MaxTurns = 10_000

// loopHead reads a loop mapping's own keys (all but steps) at path.
func (l *loader) loopHead(f *fields) system.Loop {
	d := l.d
	lp := system.Loop{}
	if v, ok := f.integer("max_turns"); ok {
		lp.MaxTurns = int(v)
	}
	var ends []string
	if v := f.get("turns"); v != nil {
		lp.Turns = l.dist(v, f.field("turns"), false)
		ends = append(ends, "turns")
	}
	if v, ok := f.number("stop"); ok {
		lp.Stop = v
		ends = append(ends, "stop")
	}
	if v, ok := f.number("answer"); ok {
		lp.Answer = v
		ends = append(ends, "answer")
	}
	if len(ends) > 1 {
		d.errorf(f.get(ends[1]), f.field(ends[1]), "give one of turns, stop and answer: %s and %s both end the loop", ends[0], ends[1])
	}
	if v := f.get("context"); v != nil {
		lp.Context = l.loopContext(v, f.field("context"))
	}
	return lp
}

// loopContext reads a loop's context mapping.
func (l *loader) loopContext(n *yaml.Node, path string) *system.Context {
	d := l.d
	f := d.keys(n, path, "context")
	if f == nil {
		return nil
	}
	c := &system.Context{}
	c.System, _ = f.integer("system")
	if v := f.get("start"); v != nil {
		c.Start = l.dist(v, f.field("start"), false)
	}
	c.Window, _ = f.integer("window")
	if w, ok := f.word("at_window"); ok && w == "truncate" {
		c.AtWindow = system.WindowTruncate
	}
	if c.Window > 0 && c.System >= c.Window {
		d.errorf(f.get("window"), f.field("window"), "%d is not above the system prompt's %d tokens: no model call would fit", c.Window, c.System)
	}
	if f.has("at_window") && c.Window == 0 {
		d.errorf(f.get("at_window"), f.field("at_window"), "applies only with a window")
	}
	f.finish()
	return c
}

// checkLoop checks a loop whose steps have been read: out is the plan so
// far, tools the scenario's tools.
func (l *loader) checkLoop(lp *system.Loop, f *fields, out []system.Step, tools []system.Tool) {
	d := l.d
	if lp.Context == nil {
		return
	}
	model := false
	for _, st := range out[lp.First : lp.First+lp.Len] {
		if st.Tool >= 0 && st.Tool < len(tools) && tools[st.Tool].Tokens != nil {
			model = true
			if st.Tokens != nil && st.Tokens.InputFrom >= 0 {
				d.errorf(f.get("context"), f.field("context"), "step %s takes its input from an earlier step (tokens.input_from), but the loop's context is the input of its model calls", st.Name)
			}
		}
	}
	if !model {
		d.errorf(f.get("context"), f.field("context"), "no step of the loop calls a tool with tokens: the context is the input of the loop's model calls")
	}
}
