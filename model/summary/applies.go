package summary

import (
	"fmt"
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
