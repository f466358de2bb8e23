package scenarios

import (
	"slices"
	"strings"

	"github.com/budgetsim/budgetsim/model/system"
)

// scheduling reads the root's scheduling and tenants keys into cfg.
func (l *loader) scheduling(f *fields, cfg *system.Config) {
	d := l.d
	if n := f.get("scheduling"); n != nil {
		if sf := d.keys(n, "scheduling", "scheduling"); sf != nil {
			if w, ok := sf.word("workers"); ok {
				cfg.Scheduling.Workers = discipline(w)
			}
			sf.finish()
		}
	}
	n := f.get("tenants")
	if n == nil {
		return
	}
	tf := d.mapping(n, "tenants")
	if tf == nil {
		return
	}
	named := cfg.TenantNames()
	for _, k := range tf.keys {
		t := system.Tenant{Name: k.Value, Weight: 1}
		path := "tenants." + k.Value
		if !slices.Contains(named, k.Value) {
			switch {
			case len(cfg.Classes) == 0:
				d.errorf(k, path, "a tenant's runs are those of the classes that name it, and the scenario has no classes: add classes with tenant: %s (a class's tenant defaults to its name)", k.Value)
			default:
				d.errorf(k, path, "no class names this tenant%s (classes[].tenant, which defaults to the class's name; the classes' tenants: %s)", suggest(k.Value, named), strings.Join(named, ", "))
			}
		}
		if ef := d.keys(tf.get(k.Value), path, "tenant"); ef != nil {
			if v, ok := ef.number("weight"); ok {
				t.Weight = v
			}
			if v, ok := ef.integer("max_in_flight"); ok {
				t.MaxInFlight = int(v)
			}
			ef.finish()
		}
		cfg.Scheduling.Tenants = append(cfg.Scheduling.Tenants, t)
	}
}

// discipline returns the queue discipline named w (fifo for "", a word
// already reported).
func discipline(w string) system.Discipline {
	return system.Discipline(max(0, slices.Index(system.Disciplines(), w)))
}
