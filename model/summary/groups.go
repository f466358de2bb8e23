package summary

import (
	"fmt"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// GroupSummary is one parallel step, or one hedged step, as its runs saw
// it: the time from its start to its being satisfied, and what became of
// its calls. Its members' attempts are in Summary.Steps, one row each.
type GroupSummary struct {
	Name string `json:"name"`
	// Members are the steps of a parallel step, or the hedged step alone.
	Members []string `json:"members"`
	// Wait is "all", "any", "first K" or, for a hedged step, "hedge".
	Wait string `json:"wait"`
	// K is how many members must succeed (1 for a hedged step).
	K int `json:"k"`
	// CallsDrawn: each run launches a drawn number of the members (at
	// most K of them must succeed).
	CallsDrawn bool `json:"calls_drawn,omitempty"`
	// MaxAttempts and Delay are a hedged step's policy; Delay is "p95" (a
	// percentile of observed latency) or a duration in seconds.
	MaxAttempts int    `json:"max_attempts,omitempty"`
	Delay       string `json:"delay,omitempty"`
	// Latency is start → satisfied, of the groups that were.
	Latency Percentiles `json:"latency_s"`
	// Satisfied and Failed count the groups that ended either way.
	Satisfied int64 `json:"satisfied"`
	Failed    int64 `json:"failed"`
	// Cancelled counts the calls cancelled when their group was decided
	// (their work is wasted, or dropped by a deadline-aware tool);
	// Hedges the attempts a hedged step launched after its first.
	Cancelled int64 `json:"cancelled"`
	Hedges    int64 `json:"hedges,omitempty"`
}

// groupPool is one group's figures pooled over replications.
type groupPool struct {
	lat                                  *stats.Histogram
	satisfied, failed, cancelled, hedges int64
}

func newGroupPools(cfg *system.Config) []groupPool {
	if len(cfg.Groups) == 0 {
		return nil
	}
	out := make([]groupPool, len(cfg.Groups))
	for i := range out {
		out[i].lat = system.NewHistogram()
	}
	return out
}

func (a *Accumulator) addGroups(r *system.Result) {
	for i := range a.groups {
		if i >= len(r.Groups) {
			break
		}
		g, rg := &a.groups[i], &r.Groups[i]
		g.lat.Merge(rg.Latency)
		g.satisfied += rg.Satisfied
		g.failed += rg.Failed
		g.cancelled += rg.Cancelled
		g.hedges += rg.Hedges
	}
}

func (a *Accumulator) groupSummaries() []GroupSummary {
	if len(a.groups) == 0 {
		return nil
	}
	cfg := a.cfg
	out := make([]GroupSummary, len(a.groups))
	for i, g := range cfg.Groups {
		o := &out[i]
		o.Name, o.K, o.CallsDrawn = g.Name, g.K, g.Calls != nil
		for j := range g.Members {
			o.Members = append(o.Members, cfg.Steps[g.First+j].Name)
		}
		switch {
		case g.Hedge != nil:
			o.Wait, o.MaxAttempts = "hedge", g.Hedge.MaxAttempts
			o.Delay = HedgeDelay(g.Hedge)
		case g.K == g.Members:
			o.Wait = "all"
		case g.K == 1:
			o.Wait = "any"
		default:
			o.Wait = fmt.Sprintf("first %d", g.K)
		}
		p := &a.groups[i]
		o.Latency = percentiles(p.lat)
		o.Satisfied, o.Failed, o.Cancelled, o.Hedges = p.satisfied, p.failed, p.cancelled, p.hedges
	}
	return out
}

// HedgeDelay spells a hedging delay: "p95" for a percentile of observed
// latency, else the delay.
func HedgeDelay(h *system.Hedge) string {
	if h.Percentile > 0 {
		return fmt.Sprintf("p%g", h.Percentile*100)
	}
	return h.Delay.String()
}

// tailSummary names tail's stages: queue, each step, backoff. A parallel
// step's stage (its group's, after the steps' in tail.Stages) takes the
// place of its members', whose own spans go to Members.
func tailSummary(cfg *system.Config, tail system.Tail) TailSummary {
	out := TailSummary{P99: tail.P99, N: tail.N}
	steps := cfg.PlanSteps()
	if len(tail.Stages) < len(steps)+2 {
		return out
	}
	out.Stages = append(out.Stages, StageShare{Stage: "queue", Seconds: tail.Stages[0]})
	for i, st := range steps {
		sec := tail.Stages[1+i]
		if g := st.Group; g > 0 && cfg.Groups[g-1].Hedge == nil {
			grp := cfg.Groups[g-1]
			if grp.First == i {
				out.Stages = append(out.Stages, StageShare{Stage: "step:" + grp.Name, Seconds: tail.Stages[1+len(steps)+g-1]})
			}
			out.Members = append(out.Members, StageShare{Stage: "step:" + grp.Name + "/" + st.Name, Seconds: sec})
			continue
		}
		out.Stages = append(out.Stages, StageShare{Stage: "step:" + st.Name, Seconds: sec})
	}
	out.Stages = append(out.Stages, StageShare{Stage: "backoff", Seconds: tail.Stages[len(tail.Stages)-1]})
	return out
}
