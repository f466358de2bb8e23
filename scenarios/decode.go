package scenarios

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// decoder walks a YAML node tree and collects every error with its line and
// field path, instead of stopping at the first.
type decoder struct {
	file string
	sets []string // --set texts; a node with Line = -(i+1) came from sets[i]
	errs Errors
}

func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) {
	e := &Error{File: d.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		if n.Line < 0 && -n.Line-1 < len(d.sets) {
			e.Set = d.sets[-n.Line-1]
		} else {
			e.Line = n.Line
		}
	}
	d.errs = append(d.errs, e)
}

// fields is a YAML mapping being decoded: it remembers which keys were read
// so that finish can report the unknown ones.
type fields struct {
	d     *decoder
	node  *yaml.Node
	path  string
	keys  []*yaml.Node
	vals  map[string]*yaml.Node
	known []string
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// mapping opens n as a mapping; a nil result means n was not one (the error
// is recorded).
func (d *decoder) mapping(n *yaml.Node, path string) *fields {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "must be a mapping (key: value lines), got %s", describe(n))
		return nil
	}
	f := &fields{d: d, node: n, path: path, vals: map[string]*yaml.Node{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, dup := f.vals[k.Value]; dup {
			d.errorf(k, join(path, k.Value), "duplicate key")
			continue
		}
		f.keys = append(f.keys, k)
		f.vals[k.Value] = v
	}
	return f
}

// get returns the value of key, or nil when absent, and marks key as known.
func (f *fields) get(key string) *yaml.Node {
	f.known = append(f.known, key)
	return f.vals[key]
}

// has reports whether key is present (without marking it known).
func (f *fields) has(key string) bool { _, ok := f.vals[key]; return ok }

// field returns the path of key.
func (f *fields) field(key string) string { return join(f.path, key) }

// finish reports every key that was never asked for, with a suggestion.
func (f *fields) finish() {
	known := map[string]bool{}
	for _, k := range f.known {
		known[k] = true
	}
	allowed := append([]string(nil), f.known...)
	sort.Strings(allowed)
	allowed = uniq(allowed)
	for _, k := range f.keys {
		if !known[k.Value] {
			f.d.errorf(k, f.field(k.Value), "unknown key%s; allowed here: %s", suggest(k.Value, allowed), strings.Join(allowed, ", "))
		}
	}
}

func uniq(xs []string) []string {
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

func (d *decoder) scalar(n *yaml.Node, path string) (string, bool) {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.errorf(n, path, "must be a single value, got %s", describe(n))
		return "", false
	}
	return n.Value, true
}

func (d *decoder) str(n *yaml.Node, path string) string {
	s, _ := d.scalar(n, path)
	return s
}

func (d *decoder) boolean(n *yaml.Node, path string) bool {
	s, ok := d.scalar(n, path)
	if !ok {
		return false
	}
	switch s {
	case "true", "yes", "on":
		return true
	case "false", "no", "off":
		return false
	}
	d.errorf(n, path, "must be true or false, got %q", s)
	return false
}

// integer parses an integer in [lo, hi]; "1e6" and "1_000_000" are allowed.
func (d *decoder) integer(n *yaml.Node, path string, lo, hi int64) int64 {
	s, ok := d.scalar(n, path)
	if !ok {
		return 0
	}
	clean := strings.ReplaceAll(s, "_", "")
	v, err := strconv.ParseInt(clean, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(clean, 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 9e18 {
			d.errorf(n, path, "must be a whole number, got %q", s)
			return 0
		}
		v = int64(f)
	}
	if v < lo || v > hi {
		d.errorf(n, path, "must be in [%d, %d], got %s", lo, hi, s)
		return 0
	}
	return v
}

// number parses a finite float in [lo, hi].
func (d *decoder) number(n *yaml.Node, path string, lo, hi float64) float64 {
	s, ok := d.scalar(n, path)
	if !ok {
		return 0
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		d.errorf(n, path, "must be a number, got %q", s)
		return 0
	}
	if v < lo || v > hi {
		d.errorf(n, path, "must be in [%g, %g], got %s", lo, hi, s)
		return 0
	}
	return v
}

// duration parses a duration with a unit, at most max.
func (d *decoder) duration(n *yaml.Node, path string, max time.Duration) time.Duration {
	s, ok := d.scalar(n, path)
	if !ok {
		return 0
	}
	v, err := ParseDuration(s)
	if err != nil {
		d.errorf(n, path, "%v", err)
		return 0
	}
	if v > max {
		d.errorf(n, path, "must be ≤ %v, got %s", max, s)
		return 0
	}
	return v
}

func (d *decoder) rate(n *yaml.Node, path string) float64 {
	s, ok := d.scalar(n, path)
	if !ok {
		return 0
	}
	v, err := ParseRate(s)
	if err != nil {
		d.errorf(n, path, "%v", err)
		return 0
	}
	return v
}

// oneOf parses one of the allowed words.
func (d *decoder) oneOf(n *yaml.Node, path string, allowed ...string) string {
	s, ok := d.scalar(n, path)
	if !ok {
		return ""
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	d.errorf(n, path, "must be one of %s, got %q%s", strings.Join(allowed, ", "), s, suggest(s, allowed))
	return ""
}

// sequence returns n's items, or nil with an error when n is not a list.
func (d *decoder) sequence(n *yaml.Node, path string) []*yaml.Node {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "must be a list, got %s", describe(n))
		return nil
	}
	return n.Content
}
