package scenarios

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/model/dist"
	"github.com/budgetsim/budgetsim/model/system"
)

// Agent loops: a top-level step with loop: {max_turns, turns | stop |
// answer, context, steps} is a block of steps that a run repeats turn by
// turn (model/system/loop.go). Its steps are read like top-level steps,
// into the same plan, and each is marked with its loop.

// MaxTurns bounds a loop's max_turns.
const MaxTurns = 10_000

// compaction is a loop's context.compact, read before the loop's steps:
// the loader makes it the loop's first step (named LOOP_compact).
type compaction struct {
	node *yaml.Node
	path string
	// tool is the tool's index, or -1: the loop's first model call's.
	tool    int
	output  dist.Dist
	timeout time.Duration
	at      float64 // the share of the window that triggers it
}

// loopHead reads a loop mapping's own keys (all but steps) at path, and
// its context's compaction, if any.
func (l *loader) loopHead(f *fields, toolIndex map[string]int) (system.Loop, *compaction) {
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
	var cp *compaction
	if v := f.get("context"); v != nil {
		lp.Context, cp = l.loopContext(v, f.field("context"), toolIndex)
	}
	return lp, cp
}

// loopContext reads a loop's context mapping.
func (l *loader) loopContext(n *yaml.Node, path string, toolIndex map[string]int) (*system.Context, *compaction) {
	d := l.d
	f := d.keys(n, path, "context")
	if f == nil {
		return nil, nil
	}
	c := &system.Context{}
	c.System, _ = f.integer("system")
	if v := f.get("start"); v != nil {
		c.Start = l.dist(v, f.field("start"), false)
	}
	c.Window, _ = f.integer("window")
	w, _ := f.word("at_window")
	switch w {
	case "truncate":
		c.AtWindow = system.WindowTruncate
	case "compact":
		c.AtWindow = system.WindowCompact
	}
	var cp *compaction
	if v := f.get("compact"); v != nil {
		cp = l.compaction(v, f.field("compact"), toolIndex)
		if cp != nil {
			c.CompactAt = cp.at
		}
		if w != "compact" {
			d.errorf(v, f.field("compact"), "applies only with at_window: compact")
			cp = nil
		}
	} else if w == "compact" {
		d.errorf(f.get("at_window"), f.field("compact"), "required with at_window: compact: the summary's tokens, {output: …}")
	}
	if c.Window > 0 && c.System >= c.Window {
		d.errorf(f.get("window"), f.field("window"), "%d is not above the system prompt's %d tokens: no model call would fit", c.Window, c.System)
	}
	if f.has("at_window") && c.Window == 0 {
		d.errorf(f.get("at_window"), f.field("at_window"), "applies only with a window")
	}
	f.finish()
	if c.AtWindow == system.WindowCompact && cp == nil {
		c.AtWindow = system.WindowRefuse
	}
	return c, cp
}

// compaction reads a context's compact mapping at path.
func (l *loader) compaction(n *yaml.Node, path string, toolIndex map[string]int) *compaction {
	d := l.d
	f := d.keys(n, path, "compact")
	if f == nil {
		return nil
	}
	cp := &compaction{node: n, path: path, tool: -1}
	if v := f.get("output"); v != nil {
		cp.output = l.dist(v, f.field("output"), false)
	}
	if v := f.get("tool"); v != nil {
		name, isScalar := d.scalar(v, f.field("tool"))
		idx, ok := toolIndex[name]
		if !ok && isScalar && len(toolIndex) > 0 {
			names := sortedKeys(toolIndex)
			d.errorf(v, f.field("tool"), "tool %q is not defined under tools%s (defined: %s)", name, suggest(name, names), strings.Join(names, ", "))
		} else if ok {
			cp.tool = idx
			if t := l.toolCfgs; idx < len(t) && t[idx].Tokens == nil {
				d.errorf(v, f.field("tool"), "tool %s declares no tokens: the compaction is a model call", name)
			}
		}
	}
	cp.timeout, _ = f.duration("timeout")
	cp.at = 1
	if v, ok := f.number("at"); ok {
		cp.at = v
	}
	f.finish()
	return cp
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
