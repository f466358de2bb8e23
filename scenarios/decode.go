package scenarios

import (
	"errors"
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
	// checked is set once checkAliases has run on the root.
	checked bool
}

func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) {
	e := &Error{File: d.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		if n.Line < 0 && -n.Line-1 < len(d.sets) {
			e.Set, e.set = d.sets[-n.Line-1], -n.Line
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
	// sec is the mapping's section of the key table; nil for a mapping
	// whose keys are names of the user's choice (tools, cost dims).
	sec *Section
	// clean is the number of errors recorded when the mapping was opened.
	clean int
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// mapping opens n as a mapping; a nil result means n was not one (the error
// is recorded).
//
// The first mapping opened is the document's root: before decoding it,
// mapping runs checkAliases on it, and returns nil if the aliases would make
// the decoder loop forever or walk an exploding number of values.
func (d *decoder) mapping(n *yaml.Node, path string) *fields {
	if !d.checked && !d.checkAliases(n) {
		return nil
	}
	n = resolve(n)
	if path == "" && n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		// A document with nothing in it ("---" alone): its null has no
		// line of its own worth naming.
		d.errs = append(d.errs, &Error{File: d.file, Msg: emptyScenario})
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "must be a mapping (key: value lines), got %s", describe(n))
		return nil
	}
	f := &fields{d: d, node: n, path: path, vals: map[string]*yaml.Node{}}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, path, "keys must be single words, got %s", describe(k))
			continue
		}
		if _, dup := f.vals[k.Value]; dup {
			d.errorf(k, join(path, k.Value), "duplicate key")
			continue
		}
		f.keys = append(f.keys, k)
		f.vals[k.Value] = v
	}
	for _, m := range merges {
		f.merge(m)
	}
	return f
}

// merge adds the keys of a YAML merge ("<<: *defaults", or a list of
// aliases) that f does not have yet: keys written in the mapping win over
// merged ones, and earlier merged mappings over later ones, as the YAML
// merge key type (yaml.org/type/merge.html) specifies.
func (f *fields) merge(m *yaml.Node) {
	m = resolve(m)
	var sources []*yaml.Node
	switch m.Kind {
	case yaml.MappingNode:
		sources = []*yaml.Node{m}
	case yaml.SequenceNode:
		sources = m.Content
	}
	for _, src := range sources {
		if resolve(src).Kind != yaml.MappingNode {
			f.d.errorf(src, f.field("<<"), "must be a mapping or a list of mappings to merge, got %s", describe(resolve(src)))
			continue
		}
		mf := f.d.mapping(src, f.path)
		for _, k := range mf.keys {
			if _, ok := f.vals[k.Value]; !ok {
				f.keys = append(f.keys, k)
				f.vals[k.Value] = mf.vals[k.Value]
			}
		}
	}
	if len(sources) == 0 {
		f.d.errorf(m, f.field("<<"), "must be a mapping or a list of mappings to merge, got %s", describe(m))
	}
}

// keys opens n as a mapping of the key table's section sec (see mapping).
func (d *decoder) keys(n *yaml.Node, path, sec string) *fields {
	f := d.mapping(n, path)
	if f != nil {
		f.sec, f.clean = section(sec), len(d.errs)
	}
	return f
}

// get returns the value of key, or nil when absent, and marks key as known.
// In a mapping of the key table, asking for a key the table does not list
// is a programming error: the key must be documented in keys.go first.
func (f *fields) get(key string) *yaml.Node {
	if f.sec != nil {
		if _, ok := f.sec.key(key); !ok {
			panic(fmt.Sprintf("scenarios: the loader reads %s.%s, which the key table (keys.go) does not list", f.sec.Name, key))
		}
	}
	f.known = append(f.known, key)
	return f.vals[key]
}

// has reports whether key is present (without marking it known).
func (f *fields) has(key string) bool { _, ok := f.vals[key]; return ok }

// field returns the path of key.
func (f *fields) field(key string) string { return join(f.path, key) }

// finish reports every key that was never asked for, with a suggestion.
// In a mapping of the key table that decoded without errors, every key the
// table lists for it (where its condition holds) must have been asked for:
// one the loader never reads is a programming error.
func (f *fields) finish() {
	known := map[string]bool{}
	for _, k := range f.known {
		known[k] = true
	}
	if f.sec != nil && len(f.d.errs) == f.clean {
		for _, k := range f.sec.allKeys() {
			if !known[k.Name] && k.applies(f, f.sec) {
				panic(fmt.Sprintf("scenarios: the key table (keys.go) lists %s.%s, which the loader does not read", f.sec.Name, k.Name))
			}
		}
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
	switch strings.ToLower(s) {
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
		whole := ferr == nil && f == math.Trunc(f) || errors.Is(ferr, strconv.ErrRange) && math.IsInf(f, 0)
		switch {
		case !whole || math.IsNaN(f):
			d.errorf(n, path, "must be a whole number, got %q", s)
			return 0
		case math.Abs(f) > 9e18:
			// Out of int64's range, so out of [lo, hi] too.
			d.rangeError(n, path, lo, hi, s, f < 0)
			return 0
		}
		v = int64(f)
	}
	if v < lo || v > hi {
		d.rangeError(n, path, lo, hi, s, v < lo)
		return 0
	}
	return v
}

// rangeError reports an integer outside [lo, hi]; an int64 limit is no
// real limit, and is left out of the message unless it was crossed.
func (d *decoder) rangeError(n *yaml.Node, path string, lo, hi int64, s string, below bool) {
	switch {
	case hi == math.MaxInt64 && below:
		d.errorf(n, path, "must be ≥ %d, got %s", lo, s)
	case lo == math.MinInt64 && !below:
		d.errorf(n, path, "must be ≤ %d, got %s", hi, s)
	default:
		d.errorf(n, path, "must be in [%d, %d], got %s", lo, hi, s)
	}
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
	switch {
	case v >= lo && v <= hi:
		return v
	case hi == math.MaxFloat64: // no upper limit
		d.errorf(n, path, "must be ≥ %g, got %s", lo, s)
	case lo == -math.MaxFloat64: // no lower limit
		d.errorf(n, path, "must be ≤ %g, got %s", hi, s)
	default:
		d.errorf(n, path, "must be in [%g, %g], got %s", lo, hi, s)
	}
	return 0
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
		d.errorf(n, path, "must be ≤ %s, got %s", shortDuration(max), s)
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
// An empty list gives an empty, non-nil slice, so that callers can tell it
// from a mistake.
func (d *decoder) sequence(n *yaml.Node, path string) []*yaml.Node {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "must be a list, got %s", describe(n))
		return nil
	}
	if n.Content == nil {
		return []*yaml.Node{}
	}
	return n.Content
}

// maxAliasExpansion bounds how many values a scenario's aliases may add when
// they are expanded. The decoder walks an alias's target every time the
// alias is used, so a few lines of nested aliases (a "billion laughs"
// document: ten aliases of ten aliases of ...) would make it walk 10^9
// values or more; a realistic scenario's aliases add a few thousand.
const maxAliasExpansion = 1_000_000

// checkAliases reports, and returns false for, an alias inside the value of
// its own anchor (the document is infinite: decoding it would recurse
// forever), and aliases that expand to more than maxAliasExpansion values
// beyond the document's own. It runs once per decoder; later calls return
// true. It takes time linear in the document's size, whatever the aliases.
func (d *decoder) checkAliases(root *yaml.Node) bool {
	if d.checked {
		return true
	}
	d.checked = true
	w := aliasWalk{memo: map[*yaml.Node]int{}, open: map[*yaml.Node]bool{}}
	expanded := w.size(root)
	if w.cycle != nil {
		a := w.cycle
		d.errorf(a, "", "alias *%s is inside the value of its own anchor &%s (line %d): the value would be infinite", a.Value, a.Value, a.Alias.Line)
		return false
	}
	if extra := expanded - literalSize(root); extra > maxAliasExpansion {
		a := w.worst
		d.errorf(a, "", "aliases would expand the scenario by more than %d values (*%s alone expands to %s): write the values out or use fewer aliases", maxAliasExpansion, a.Value, sizeString(w.worstSize))
		return false
	}
	return true
}

// aliasWalk computes expanded sizes, memoised per alias target.
type aliasWalk struct {
	memo      map[*yaml.Node]int  // expanded size of alias targets
	open      map[*yaml.Node]bool // alias targets being expanded
	cycle     *yaml.Node          // the first alias met inside its own target
	worst     *yaml.Node          // the alias with the largest expansion
	worstSize int
}

// aliasSizeCap saturates sizes, so that they cannot overflow.
const aliasSizeCap = 4 * maxAliasExpansion

// size returns the number of nodes n stands for with aliases expanded,
// capped at aliasSizeCap.
func (w *aliasWalk) size(n *yaml.Node) int {
	if n.Kind == yaml.AliasNode {
		t := n.Alias
		if t == nil {
			return 1
		}
		if w.open[t] {
			if w.cycle == nil {
				w.cycle = n
			}
			return 1
		}
		s, ok := w.memo[t]
		if !ok {
			w.open[t] = true
			s = w.size(t)
			delete(w.open, t)
			w.memo[t] = s
		}
		if w.worst == nil || s > w.worstSize {
			w.worst, w.worstSize = n, s
		}
		return s
	}
	total := 1
	for _, c := range n.Content {
		total = min(total+w.size(c), aliasSizeCap)
	}
	return total
}

// literalSize is the number of nodes in n's tree, aliases counted as one.
func literalSize(n *yaml.Node) int {
	total := 1
	for _, c := range n.Content {
		total += literalSize(c)
	}
	return total
}

func sizeString(s int) string {
	if s >= aliasSizeCap {
		return fmt.Sprintf("more than %d", aliasSizeCap)
	}
	return strconv.Itoa(s)
}

// shortDuration prints d as time.Duration.String does, without its zero
// minutes and seconds: "876000h", "1h30m", "2m".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
		if strings.HasSuffix(s, "h0m") {
			s = strings.TrimSuffix(s, "0m")
		}
	}
	return s
}
