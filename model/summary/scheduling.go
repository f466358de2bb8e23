package summary

import (
	"fmt"
	"slices"

	"github.com/budgetsim/budgetsim/model/system"
)

// schedulingWarnings says when a queue's discipline has nothing to order:
// priority when every class has the same priority, fair when every class
// belongs to one tenant. Such a queue serves first come, first served.
func schedulingWarnings(cfg *system.Config) []string {
	var prios []int
	for _, c := range cfg.Classes {
		if !slices.Contains(prios, c.Priority) {
			prios = append(prios, c.Priority)
		}
	}
	tenants := len(cfg.TenantNames())
	idle := func(d system.Discipline) string {
		switch {
		case d == system.PriorityOrder && len(prios) < 2:
			return "every run has the same priority (classes[].priority)"
		case d == system.FairShare && tenants < 2:
			return "every run belongs to one tenant (classes[].tenant, by default the class's name)"
		}
		return ""
	}
	var w []string
	if why := idle(cfg.Scheduling.Workers); why != "" {
		w = append(w, fmt.Sprintf("scheduling.workers is %s, but %s: the workers serve first come, first served", cfg.Scheduling.Workers, why))
	}
	for _, t := range cfg.Tools {
		if why := idle(t.Discipline); why != "" && t.Concurrency > 0 {
			w = append(w, fmt.Sprintf("tools.%s.queue.discipline is %s, but %s: the tool serves first come, first served", t.Name, t.Discipline, why))
		}
	}
	return w
}
