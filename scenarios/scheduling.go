package scenarios

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/model/system"
)

// scheduling reads the root's scheduling and tenants keys into cfg.
func (l *loader) scheduling(f *fields, cfg *system.Config) {
	d := l.d
	if n := f.get("scheduling"); n != nil {
		if sf := d.keys(n, "scheduling", "scheduling"); sf != nil {
			if v := sf.get("workers"); v != nil {
				cfg.Scheduling.Workers = l.discipline(v, sf.field("workers"))
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
			if v := ef.get("weight"); v != nil {
				before := len(d.errs)
				t.Weight = d.number(v, ef.field("weight"), 0, 1e9)
				if t.Weight <= 0 && len(d.errs) == before {
					d.errorf(v, ef.field("weight"), "must be > 0")
				}
			}
			if v := ef.get("max_in_flight"); v != nil {
				t.MaxInFlight = int(d.integer(v, ef.field("max_in_flight"), 1, MaxWorkers))
			}
			ef.finish()
		}
		cfg.Scheduling.Tenants = append(cfg.Scheduling.Tenants, t)
	}
}

// discipline reads a queue discipline's word.
func (l *loader) discipline(n *yaml.Node, path string) system.Discipline {
	w := l.d.oneOf(n, path, system.Disciplines()...)
	return system.Discipline(max(0, slices.Index(system.Disciplines(), w)))
}
