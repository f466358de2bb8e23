package system

import "fmt"

// maxSeriesWidth bounds a series' bin width: merging series doubles the
// finer one's width until they match, which must not overflow.
const maxSeriesWidth = 1 << 62

// CheckAgainst reports an error when r does not have the shape of a result
// of simulating cfg: a missing latency or wait histogram or time series, a
// series bin width ≤ 0, per-step or per-tool tables of another length than
// cfg's steps, tools and groups, or a tail breakdown over another number
// of stages.
// Results from Run always pass; results decoded from a file (a sweep shard)
// must pass before Summarize pools them, which would otherwise index past
// the end of a table or never finish coarsening a series.
func (r *Result) CheckAgainst(cfg *Config) error {
	steps, tools, groups := len(cfg.PlanSteps()), len(cfg.Tools), len(cfg.Groups)
	switch {
	case r.Latency == nil || r.Wait == nil:
		return fmt.Errorf("result has no latency or wait histogram")
	case r.Series == nil:
		return fmt.Errorf("result has no time series")
	case r.Series.Width <= 0 || r.Series.Width > maxSeriesWidth:
		return fmt.Errorf("result's time series has bin width %d ns, want 1 … 2^62", r.Series.Width)
	case len(r.Series.ToolBusy) > tools:
		return fmt.Errorf("result's time series has %d tools, the scenario %d", len(r.Series.ToolBusy), tools)
	case len(r.StepLatency) != steps || len(r.StepTimeouts) != steps || len(r.StepHangs) != steps:
		return fmt.Errorf("result has per-step tables of %d, %d and %d steps, the scenario %d", len(r.StepLatency), len(r.StepTimeouts), len(r.StepHangs), steps)
	case len(r.Classes) != len(cfg.Classes):
		return fmt.Errorf("result has %d classes, the scenario %d", len(r.Classes), len(cfg.Classes))
	case !classHistograms(r.Classes):
		return fmt.Errorf("result has a class without a latency or wait histogram")
	case len(r.Tools) != tools || len(r.ToolDelay) != tools:
		return fmt.Errorf("result has per-tool tables of %d and %d tools, the scenario %d", len(r.Tools), len(r.ToolDelay), tools)
	case len(r.Groups) != groups || !groupHistograms(r.Groups):
		return fmt.Errorf("result has %d groups (each with its latency histogram), the scenario %d", len(r.Groups), groups)
	case len(r.Loops) != len(cfg.Loops) || !loopHistograms(r.Loops):
		return fmt.Errorf("result has %d loops (each with its histograms), the scenario %d", len(r.Loops), len(cfg.Loops))
	case r.Tokens != nil && len(r.Tokens) != tools:
		return fmt.Errorf("result has token figures for %d tools, the scenario %d", len(r.Tokens), tools)
	case r.Breakers != nil && len(r.Breakers) != tools:
		return fmt.Errorf("result has circuit breaker figures for %d tools, the scenario %d", len(r.Breakers), tools)
	case r.Tail.table != nil && r.Tail.table.stages != steps+2+groups:
		return fmt.Errorf("result's tail breakdown has %d stages, the scenario %d (queue, %d steps, %d parallel steps, backoff)", r.Tail.table.stages, steps+2+groups, steps, groups)
	}
	return nil
}

func loopHistograms(ls []LoopResult) bool {
	for i := range ls {
		if ls[i].Turns == nil || ls[i].TurnLatency == nil || ls[i].TurnInput == nil {
			return false
		}
	}
	return true
}

func groupHistograms(gs []GroupResult) bool {
	for i := range gs {
		if gs[i].Latency == nil {
			return false
		}
	}
	return true
}

func classHistograms(cs []ClassResult) bool {
	for i := range cs {
		if cs[i].Latency == nil || cs[i].Wait == nil {
			return false
		}
	}
	return true
}
