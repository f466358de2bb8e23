package generate

import (
	"strconv"
	"strings"
)

// The generator builds a scenario as a small tree before writing it out as
// YAML, so that a key the loader complains about can be found by its field
// path, and dropped or drawn again.

// value is a key's value: a scalar (YAML text written as is), a *mapping or
// a *list of mappings. A named section (tools, tenants, dims) is a mapping
// whose entries are the names.
type value interface{}

// entry is one key of a mapping with its value.
type entry struct {
	name  string
	val   value
	table string // "section.key" of the key table, "" for a name of a named section
	// required: dropping it would not make the mapping valid, so the
	// repair draws it again or goes up to its parent.
	required bool
	// redraw draws the value again; nil when it cannot be.
	redraw func() value
}

// mapping is a YAML mapping, in the order its keys were drawn.
type mapping struct {
	entries []*entry
}

// list is a YAML list of mappings.
type list struct {
	items []*mapping
}

func (m *mapping) get(name string) *entry {
	for _, e := range m.entries {
		if e.name == name {
			return e
		}
	}
	return nil
}

func (m *mapping) remove(e *entry) {
	for i, x := range m.entries {
		if x == e {
			m.entries = append(m.entries[:i], m.entries[i+1:]...)
			return
		}
	}
}

// scalarOf returns the scalar text of key name of m, or "".
func (m *mapping) scalarOf(name string) string {
	if e := m.get(name); e != nil {
		if s, ok := e.val.(string); ok {
			return s
		}
	}
	return ""
}

// writeYAML writes m in block style, indented by indent spaces.
func writeYAML(b *strings.Builder, m *mapping, indent int, firstInline bool) {
	pad := strings.Repeat(" ", indent)
	for i, e := range m.entries {
		if !(i == 0 && firstInline) {
			b.WriteString(pad)
		}
		b.WriteString(e.name)
		b.WriteString(":")
		switch v := e.val.(type) {
		case string:
			b.WriteString(" ")
			b.WriteString(v)
			b.WriteString("\n")
		case *mapping:
			if len(v.entries) == 0 {
				b.WriteString(" {}\n")
				continue
			}
			b.WriteString("\n")
			writeYAML(b, v, indent+2, false)
		case *list:
			if len(v.items) == 0 {
				b.WriteString(" []\n")
				continue
			}
			b.WriteString("\n")
			for _, it := range v.items {
				b.WriteString(pad)
				b.WriteString("  - ")
				if len(it.entries) == 0 {
					b.WriteString("{}\n")
					continue
				}
				writeYAML(b, it, indent+4, true)
			}
		}
	}
}

// step is one segment of a field path: a key, or a list index.
type step struct {
	key   string
	index int // -1 for a key
}

// splitField splits a loader field path ("tools.a.outages[0].end",
// "steps.s1.parallel.m2.tool") into its segments.
func splitField(field string) []step {
	var out []step
	for _, part := range strings.Split(field, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				out = append(out, step{key: part, index: -1})
				break
			}
			if i > 0 {
				out = append(out, step{key: part[:i], index: -1})
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				out = append(out, step{key: part, index: -1})
				break
			}
			n, err := strconv.Atoi(part[i+1 : i+j])
			if err != nil {
				out = append(out, step{key: part, index: -1})
				break
			}
			out = append(out, step{index: n})
			part = part[i+j+1:]
		}
	}
	return out
}

// located is a node the repair can act on: an entry of a mapping, or an
// item of a list.
type located struct {
	owner *mapping // the mapping holding entry
	entry *entry
	lst   *list // the list holding item
	item  int
	// parent is where the node sits, one level up (nil at the root).
	parent *located
}

// locate walks field from root as far as the tree has it and returns the
// chain of nodes found, deepest last; full reports whether the whole path
// was found.
func locate(root *mapping, field string) (chain []*located, full bool) {
	segs := splitField(field)
	var cur value = root
	var parent *located
	for i := 0; i < len(segs); i++ {
		s := segs[i]
		switch v := cur.(type) {
		case *mapping:
			if s.index >= 0 {
				return chain, false
			}
			e := v.get(s.key)
			if e == nil {
				return chain, false
			}
			l := &located{owner: v, entry: e, parent: parent}
			chain = append(chain, l)
			parent, cur = l, e.val
		case *list:
			idx := s.index
			if idx < 0 {
				idx = -1
				for j, it := range v.items {
					if it.scalarOf("name") == s.key {
						idx = j
						break
					}
				}
			}
			if idx < 0 || idx >= len(v.items) {
				return chain, false
			}
			l := &located{lst: v, item: idx, parent: parent}
			chain = append(chain, l)
			parent, cur = l, v.items[idx]
		default:
			return chain, false
		}
	}
	return chain, true
}
