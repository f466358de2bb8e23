package summary

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/budgetsim/budgetsim/model/system"
)

// appliesWarnings says when a scenario sets something that the rest of it
// leaves without effect, or that can never be met: class priorities that
// no queue orders by, tenant weights that no queue shares by, classes of
// tenants that tenants: does not declare, and model calls that a
// per-minute token limit can never admit.
func appliesWarnings(cfg *system.Config) []string {
	var w []string
	uses := func(d system.Discipline) bool {
		if cfg.Scheduling.Workers == d {
			return true
		}
		for _, t := range cfg.Tools {
			if t.Concurrency > 0 && t.Discipline == d {
				return true
			}
		}
		return false
	}
	var prios []int
	for _, c := range cfg.Classes {
		if !slices.Contains(prios, c.Priority) {
			prios = append(prios, c.Priority)
		}
	}
	if len(prios) >= 2 && !uses(system.PriorityOrder) {
		w = append(w, fmt.Sprintf("classes[].priority: the classes have %d priorities, but no queue orders by priority (scheduling.workers is %s): every priority is ignored; say scheduling: {workers: priority} (or a tool's queue: {discipline: priority}) to serve the lower value first", len(prios), cfg.Scheduling.Workers))
	}
	var weighted []string
	for _, t := range cfg.Scheduling.Tenants {
		if t.Weight != 0 && t.Weight != 1 {
			weighted = append(weighted, t.Name)
		}
	}
	if len(weighted) > 0 && !uses(system.FairShare) {
		w = append(w, fmt.Sprintf("tenants.%s.weight: no queue shares by weight (scheduling.workers is %s): the tenants' weights are ignored; say scheduling: {workers: fair} (or a tool's queue: {discipline: fair}) to hand out runs in proportion to them", weighted[0], cfg.Scheduling.Workers))
	}
	if len(cfg.Scheduling.Tenants) > 0 {
		declared := make([]string, len(cfg.Scheduling.Tenants))
		for i, t := range cfg.Scheduling.Tenants {
			declared[i] = t.Name
		}
		for _, c := range cfg.Classes {
			if !slices.Contains(declared, c.Tenant) {
				w = append(w, fmt.Sprintf("classes.%s.tenant: tenant %q is not declared under tenants: (%s), so it is a tenant of its own with weight 1 and no max_in_flight; declare it or name one of those", c.Name, c.Tenant, strings.Join(declared, ", ")))
			}
		}
	}
	return append(w, tokenFitWarnings(cfg)...)
}

// tokenFitWarnings says when a step's calls to a model API reserve more
// tokens than one of its per-minute limits holds: the limiter's bucket
// holds one minute's allowance, so such a call is never admitted and its
// run waits (or is turned away with 429s) until its deadline or a guard
// ends it. It names the step, the limit and the smallest reservation: the
// least input tokens the step's distribution draws (a step whose input
// comes from an earlier step's tokens is not checked), plus the output
// tokens each call reserves (tokens.reserve_output), against tpm, itpm or
// otpm. When only the largest draws do not fit, it says so.
func tokenFitWarnings(cfg *system.Config) []string {
	var w []string
	for _, st := range cfg.PlanSteps() {
		t := &cfg.Tools[st.Tool]
		if t.TokenLimit == nil || t.Tokens == nil {
			continue
		}
		in := t.Tokens.Input
		if st.Tokens != nil && st.Tokens.InputFrom >= 0 {
			continue
		}
		if st.Tokens != nil && st.Tokens.Input != nil {
			in = st.Tokens.Input
		}
		lo, hi := 0.0, 0.0
		if in != nil {
			lo, hi = math.Max(math.Round(in.Quantile(0)), 0), math.Round(in.Quantile(1))
		}
		out := float64(t.Tokens.ReserveOutput)
		l := t.TokenLimit.Limits
		for _, c := range []struct {
			name   string
			limit  int
			lo, hi float64
		}{
			{"tpm", l.TPM, lo + out, hi + out},
			{"itpm", l.ITPM, lo, hi},
			{"otpm", l.OTPM, out, out},
		} {
			if c.limit <= 0 {
				continue
			}
			switch {
			case c.lo > float64(c.limit):
				w = append(w, fmt.Sprintf("step %s: every call to %s reserves at least %.0f tokens against its %s limit of %d, more than a minute's allowance: no call can ever be admitted, and every run waits at this step until its deadline or a guard ends it", st.Name, t.Name, c.lo, c.name, c.limit))
			case c.hi > float64(c.limit) && !math.IsInf(c.hi, 1):
				w = append(w, fmt.Sprintf("step %s: calls to %s may reserve up to %.0f tokens against its %s limit of %d: a call reserving more than a minute's allowance is never admitted, and its run waits at this step until its deadline or a guard ends it", st.Name, t.Name, c.hi, c.name, c.limit))
			case c.hi > float64(c.limit):
				w = append(w, fmt.Sprintf("step %s: calls to %s draw input tokens without bound, and one reserving more than its %s limit of %d is never admitted: its run waits at this step until its deadline or a guard ends it", st.Name, t.Name, c.name, c.limit))
			}
		}
	}
	return w
}
