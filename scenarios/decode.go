package scenarios

import (
	"errors"
	"fmt"
	"math"
	"slices"
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
	if len(d.errs) >= MaxErrors {
		// Counted, not kept: a file of a million mistakes is reported in
		// bounded memory. (Callers compare len(d.errs) to see whether a
		// value had an error, so the count still grows.)
		d.errs = append(d.errs, moreErrors)
		return
	}
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
	d    *decoder
	node *yaml.Node
	// at is the node as written (an alias, where one stands for the
	// mapping): a missing required key is reported at its line.
	at    *yaml.Node
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
	if !d.checked && (!d.checkAliases(n) || !d.checkControl(n)) {
		return nil
	}
	at := n
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
	f := &fields{d: d, node: n, at: at, path: path, vals: map[string]*yaml.Node{}}
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
// is a programming error: the key must be documented in keys.go first. A
// key the table marks required (where its condition holds) that is absent
// is reported, with the table's Missing text.
func (f *fields) get(key string) *yaml.Node {
	v := f.vals[key]
	if f.sec != nil {
		k := f.key(key)
		if v == nil && k.Required && k.applies(f, f.sec) {
			f.d.errorf(f.at, f.field(key), "%s", k.missing(f, f.sec))
		}
	}
	f.known = append(f.known, key)
	return v
}

// key returns the table's entry for key of f's section; it panics on a key
// the table does not list, a programming error.
func (f *fields) key(key string) Key {
	k, ok := f.sec.key(key)
	if !ok {
		panic(fmt.Sprintf("scenarios: the loader reads %s.%s, which the key table (keys.go) does not list", f.sec.Name, key))
	}
	return k
}

// The typed getters below read a key of f's section as the key table
// describes it: its kind, its range (Min, Max, MinExclusive) or its words
// (Values), with the standard message for a value outside them. Each
// returns the value (the zero value when it is invalid) and whether the
// key is present; a required key that is absent is reported by get.

// str reads a single value.
func (f *fields) str(key string) (string, bool) {
	n := f.get(key)
	if n == nil {
		return "", false
	}
	return f.d.str(n, f.field(key)), true
}

// boolean reads true or false.
func (f *fields) boolean(key string) (bool, bool) {
	n := f.get(key)
	if n == nil {
		return false, false
	}
	return f.d.boolean(n, f.field(key)), true
}

// integer reads a whole number in the table's range.
func (f *fields) integer(key string) (int64, bool) {
	n := f.get(key)
	if n == nil {
		return 0, false
	}
	return f.d.integerKey(f.key(key), n, f.field(key)), true
}

// number reads a finite number in the table's range.
func (f *fields) number(key string) (float64, bool) {
	n := f.get(key)
	if n == nil {
		return 0, false
	}
	return f.d.numberKey(f.key(key), n, f.field(key)), true
}

// duration reads a duration, at most MaxDuration, and above 0 when the
// table says MinExclusive.
func (f *fields) duration(key string) (time.Duration, bool) {
	n := f.get(key)
	if n == nil {
		return 0, false
	}
	return f.d.durationKey(f.key(key), n, f.field(key)), true
}

// rate reads a rate, above 0 when the table says MinExclusive.
func (f *fields) rate(key string) (float64, bool) {
	n := f.get(key)
	if n == nil {
		return 0, false
	}
	return f.d.rateKey(f.key(key), n, f.field(key)), true
}

// word reads one of the table's Values ("" when it is not one).
func (f *fields) word(key string) (string, bool) {
	n := f.get(key)
	if n == nil {
		return "", false
	}
	return f.d.oneOf(n, f.field(key), f.key(key).Values...), true
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
		if !known[k.Value] && !f.undecided(k.Value) {
			if len(f.d.errs) >= MaxErrors {
				f.d.errs = append(f.d.errs, moreErrors) // counted: no suggestion to compute
				continue
			}
			f.d.errorf(k, f.field(k.Value), "unknown key%s; allowed here: %s", suggest(k.Value, allowed), strings.Join(allowed, ", "))
		}
	}
}

// undecided reports whether key depends on a condition key (When) that is
// absent though required, or is not one of its words: an error already
// says so, and whether key belongs here cannot be told.
func (f *fields) undecided(key string) bool {
	if f.sec == nil {
		return false
	}
	k, ok := f.sec.key(key)
	if !ok || k.When == nil {
		return false
	}
	ck, _ := f.sec.key(k.When.Key)
	n, present := f.vals[k.When.Key]
	if !present {
		return ck.Required
	}
	r := resolve(n)
	return r.Kind != yaml.ScalarNode || len(ck.Values) > 0 && !slices.Contains(ck.Values, r.Value)
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

// numberIn parses a finite float in b.
func (d *decoder) numberIn(n *yaml.Node, path string, b bounds) float64 {
	s, ok := d.scalar(n, path)
	if !ok {
		return 0
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		d.errorf(n, path, "must be a number, got %q", s)
		return 0
	}
	if !b.contains(v) {
		d.errorf(n, path, "%s", b.must(gNum, s))
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
