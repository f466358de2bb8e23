package scenarios

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/model/system"
)

// MaxClasses bounds the classes of work of a scenario.
const MaxClasses = 100

// classDraft is a class whose mapping is read in two passes: its name,
// weight and arrivals before the top-level arrivals are settled, its
// steps, deadline, priority and tenant once the tools are known.
type classDraft struct {
	f    *fields
	node *yaml.Node
	path string
}

// classesEarly reads the classes' names, weights and arrivals into
// cfg.Classes.
func (l *loader) classesEarly(n *yaml.Node, cfg *system.Config) {
	d := l.d
	items := d.sequence(n, "classes")
	if items == nil {
		return
	}
	if len(items) == 0 {
		d.errorf(n, "classes", "needs at least one class (or leave classes out)")
		return
	}
	if len(items) > MaxClasses {
		d.errorf(n, "classes", "at most %d classes, got %d", MaxClasses, len(items))
		return
	}
	seen := map[string]int{}
	own := 0
	var without *yaml.Node // the first class without arrivals of its own
	withoutName, withoutPath := "", ""
	for i, item := range items {
		path := fmt.Sprintf("classes[%d]", i)
		f := d.keys(item, path, "class")
		if f == nil {
			continue
		}
		c := system.Class{Weight: 1}
		if v := f.get("name"); v != nil {
			s, ok := d.scalar(v, path+".name")
			c.Name = s
			switch {
			case !ok:
			case !validClassName(s):
				d.errorf(v, path+".name", "%q: a class name is letters, digits, - and _ (it prefixes --slo objectives and the class's steps)", s)
			default:
				if line, dup := seen[s]; dup {
					d.errorf(v, path+".name", "duplicate class name %q (first at line %d)", s, line)
				}
				seen[s] = v.Line
				path = "classes." + s
				f.path = path
			}
		}
		w, a := f.get("weight"), f.get("arrivals")
		if w != nil {
			c.Weight = d.numberKey(f.key("weight"), w, f.field("weight"))
		}
		if a != nil {
			if w != nil {
				d.errorf(w, f.field("weight"), "give weight or arrivals, not both: a class with arrivals of its own takes no share of the top-level arrivals")
			}
			arr := l.arrivalsAt(a, f.field("arrivals"))
			switch arr.Process {
			case system.Batch, system.Closed:
				d.errorf(a, f.field("arrivals.process"), "a class's own arrivals are an open process (poisson, constant, schedule, diurnal or trace); a batch or a closed population is given at the top level, and classes share it by weight")
			}
			c.Weight = 0
			c.Arrivals = &arr
			own++
		} else if without == nil {
			without, withoutName, withoutPath = item, c.Name, f.field("arrivals")
		}
		cfg.Classes = append(cfg.Classes, c)
		l.classDrafts = append(l.classDrafts, classDraft{f: f, node: item, path: path})
	}
	if own > 0 && own == l.classTraces {
		// Every class replays a trace: together they hold that many runs.
		l.traceLen, l.traceWhere = l.classTraceRuns, "the classes' traces (classes[].arrivals.file) have"
	}
	if own > 0 && without != nil {
		d.errorf(without, withoutPath, "required: either every class has arrivals of its own or none has, and class %q has none; give each class arrivals, or share the top-level arrivals by weight", withoutName)
	}
}

// classesLate reads the classes' steps, deadlines, priorities and tenants.
func (l *loader) classesLate(cfg *system.Config, toolIndex map[string]int, defaults retryFields) {
	d := l.d
	for i := range l.classDrafts {
		dr := &l.classDrafts[i]
		c := &cfg.Classes[i]
		f := dr.f
		if v := f.get("steps"); v != nil {
			c.Steps = l.stepsAt(v, f.field("steps"), toolIndex, cfg.Tools, defaults, nil)
			if c.Steps == nil {
				// An empty or broken list: no plan of its own.
				c.Steps = []system.Step{}
			}
		}
		c.Deadline = cfg.Deadline
		if v, ok := f.duration("deadline"); ok {
			c.Deadline = v
		}
		if v, ok := f.integer("priority"); ok {
			c.Priority = int(v)
		}
		c.Tenant = c.Name
		if v := f.get("tenant"); v != nil {
			s, ok := d.scalar(v, f.field("tenant"))
			if ok && s == "" {
				d.errorf(v, f.field("tenant"), "must not be empty")
			}
			c.Tenant = s
		}
		f.finish()
	}
}

// MaxPriority is the largest priority a class may have.
const MaxPriority = 1000

// everyClassHasSteps reports whether every class has a plan of its own
// (then the top-level steps may be left out).
func everyClassHasSteps(cfg *system.Config) bool {
	if len(cfg.Classes) == 0 {
		return false
	}
	for i := range cfg.Classes {
		if cfg.Classes[i].Steps == nil {
			return false
		}
	}
	return true
}

// ownArrivalsRate is the superposition's rate of classes with arrivals of
// their own.
func ownArrivalsRate(cfg *system.Config) float64 {
	r := 0.0
	for i := range cfg.Classes {
		if a := cfg.Classes[i].Arrivals; a != nil {
			r += a.Rate
		}
	}
	return r
}

func validClassName(s string) bool {
	if s == "" {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) < 0
}

// deadlineOwner names what lacks the deadline of step i, for an error.
func deadlineOwner(cfg *system.Config, i int) string {
	for k := range cfg.Classes {
		if first, end := cfg.ClassSteps(k); i >= first && i < end && cfg.Classes[k].Deadline <= 0 {
			return fmt.Sprintf("class %q", cfg.Classes[k].Name)
		}
	}
	return "the scenario"
}
