package compare

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/plan/sweep"
	"github.com/budgetsim/budgetsim/scenarios"
)

// KeyValue is one override of a variant: scenario key Key (a dotted path)
// set to Value (YAML text).
type KeyValue struct {
	Key   string
	Value string
}

// Choice is one value of an Axis: the overrides that make it and, when it
// was given one, its short name.
type Choice struct {
	Name  string     // "naive"; "" when the choice has no name
	Set   []KeyValue // keys set, in order
	Unset []string   // keys removed (scenarios.Unset), applied before Set
}

// Label is what tables, JSON and chart legends call the choice: its name,
// or else its overrides ("retry.attempts=3", "-retry.budget").
func (c Choice) Label() string {
	if c.Name != "" {
		return c.Name
	}
	parts := make([]string, 0, len(c.Unset)+len(c.Set))
	for _, p := range c.Unset {
		parts = append(parts, "-"+p)
	}
	for _, kv := range c.Set {
		parts = append(parts, kv.Key+"="+kv.Value)
	}
	if len(parts) == 0 {
		return "as is"
	}
	return strings.Join(parts, " ")
}

// Axis is one dimension of a comparison: the choices one --vary flag or
// one variants file gives. Two axes form a grid.
type Axis struct {
	// Key is the --vary key; "" for a variants file, whose choices set
	// keys of their own.
	Key     string
	Choices []Choice
	// From names the axis in errors: the --vary argument or the file.
	From string
}

// name is a variant's short name in --vary: a letter or underscore, then
// letters, digits, '_' and '-'.
var name = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// ParseVary parses one --vary argument. Without names it is a sweep axis
// (sweep.ParseAxis: "key=v1,v2,…", "key=a..b:n", "key=a..b"). A list item
// may carry a short name, written name=value:
//
//	retry=naive={attempts: 3},budgeted={attempts: 3, budget: {kind: token_bucket}}
//
// The key is everything before the first '='; in each item (split at the
// commas outside braces and brackets) a prefix of letters, digits, '_'
// and '-' followed by '=' before any brace, bracket or quote is the name.
// No scenario value has an '=' outside braces, so the two cannot be
// confused. Names are unique within the argument; items without a name are
// labelled key=value.
func ParseVary(s string) (Axis, error) {
	key, spec, ok := strings.Cut(s, "=")
	key, spec = strings.TrimSpace(key), strings.TrimSpace(spec)
	if ok && key != "" && !sweep.IsSpan(spec) {
		items, err := sweep.SplitList(spec)
		if err != nil {
			return Axis{}, fmt.Errorf("%q: %v", s, err)
		}
		named := false
		choices := make([]Choice, len(items))
		for i, it := range items {
			n, v := splitName(it)
			if n != "" {
				named = true
				if v == "" {
					return Axis{}, fmt.Errorf("%q: variant %q has no value", s, n)
				}
			}
			choices[i] = Choice{Name: n, Set: []KeyValue{{key, v}}}
		}
		if named {
			a := Axis{Key: key, Choices: choices, From: "--vary " + s}
			return a, a.checkLabels()
		}
	}
	ax, err := sweep.ParseAxis(s)
	if err != nil {
		return Axis{}, err
	}
	a := Axis{Key: ax.Key, From: "--vary " + s}
	for _, v := range ax.Values {
		a.Choices = append(a.Choices, Choice{Set: []KeyValue{{ax.Key, v}}})
	}
	return a, nil
}

// splitName splits "name=value" when the item starts with a name; else it
// returns "" and the item.
func splitName(item string) (string, string) {
	i := strings.IndexAny(item, "={[\"'")
	if i <= 0 || item[i] != '=' || !name.MatchString(strings.TrimSpace(item[:i])) {
		return "", item
	}
	return strings.TrimSpace(item[:i]), strings.TrimSpace(item[i+1:])
}

// checkLabels refuses two choices with the same label.
func (a Axis) checkLabels() error {
	seen := map[string]bool{}
	for _, c := range a.Choices {
		l := c.Label()
		if seen[l] {
			return fmt.Errorf("%s: two variants are called %q; give each its own name", a.From, l)
		}
		seen[l] = true
	}
	return nil
}

// MaxNameLen bounds a variant's name in a variants file: names are for
// legends and table rows.
const MaxNameLen = 40

// ReadVariants reads a variants file (see ParseVariants).
func ReadVariants(path string) (Axis, error) {
	f, err := os.Open(path)
	if err != nil {
		return Axis{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxVariantsSize+1))
	if err != nil {
		return Axis{}, err
	}
	if len(b) > MaxVariantsSize {
		return Axis{}, fmt.Errorf("%s: larger than the %d-byte limit for a variants file", path, MaxVariantsSize)
	}
	return ParseVariants(path, b)
}

// MaxVariantsSize bounds a variants file: a few hundred variants fit in a
// fraction of it.
const MaxVariantsSize = 1 << 20

// ParseVariants parses a variants file: a YAML list of variants, each a
// mapping with
//
//	name:  its short name (required, unique, at most MaxNameLen characters)
//	set:   a mapping of scenario keys (dotted paths) to values, applied in order
//	unset: a list of scenario keys (dotted paths) removed, before set
//
// For example
//
//   - name: naive
//     set: {retry.attempts: 5}
//   - name: budgeted
//     set:
//     retry.attempts: 5
//     retry.budget: {kind: token_bucket, ratio: 0.1}
//   - name: no-retry
//     set: {retry.attempts: 1}
//     unset: [retry.backoff]
//
// Errors name the file, the line and the field.
func ParseVariants(file string, src []byte) (Axis, error) {
	a := Axis{From: file}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return a, fmt.Errorf("%s: %v", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return a, fmt.Errorf("%s: no variants: want a list of {name, set, unset}", file)
	}
	list := doc.Content[0]
	errf := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", file, n.Line, fmt.Sprintf(format, args...))
	}
	if list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return a, errf(list, "want a list of variants, each {name, set, unset}")
	}
	for i, item := range list.Content {
		if item.Kind != yaml.MappingNode {
			return a, errf(item, "variant %d: want a mapping with name, set and unset", i+1)
		}
		var c Choice
		hasName := false
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, v := item.Content[j], item.Content[j+1]
			switch k.Value {
			case "name":
				if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" || hasControl(v.Value) {
					return a, errf(v, "name: want a short name on one line, without control characters")
				}
				if n := len([]rune(v.Value)); n > MaxNameLen {
					return a, errf(v, "name: %d characters, at most %d (names are for legends and tables)", n, MaxNameLen)
				}
				c.Name, hasName = strings.TrimSpace(v.Value), true
			case "set":
				if v.Kind != yaml.MappingNode {
					return a, errf(v, "set: want a mapping of scenario keys to values, e.g. {retry.attempts: 3}")
				}
				for m := 0; m+1 < len(v.Content); m += 2 {
					text, err := flowText(v.Content[m+1])
					if err != nil {
						return a, errf(v.Content[m+1], "set.%s: %v", v.Content[m].Value, err)
					}
					c.Set = append(c.Set, KeyValue{v.Content[m].Value, text})
				}
			case "unset":
				if v.Kind != yaml.SequenceNode {
					return a, errf(v, "unset: want a list of scenario keys, e.g. [retry.budget]")
				}
				for _, p := range v.Content {
					if p.Kind != yaml.ScalarNode || p.Value == "" {
						return a, errf(p, "unset: want a scenario key such as retry.budget")
					}
					c.Unset = append(c.Unset, p.Value)
				}
			default:
				keys := []string{"name", "set", "unset"}
				hint := ""
				if s := scenarios.Suggest(k.Value, keys); s != "" {
					hint = fmt.Sprintf(" (did you mean %q?)", s)
				}
				return a, errf(k, "%s: unknown key%s; a variant has name, set and unset", k.Value, hint)
			}
		}
		if !hasName {
			return a, errf(item, "variant %d: needs a name", i+1)
		}
		a.Choices = append(a.Choices, c)
	}
	return a, a.checkLabels()
}

// hasControl reports whether a variant's name has a control character
// (tabs and line breaks included), which a table or a terminal would act on.
func hasControl(s string) bool {
	_, bad := scenarios.ControlChar(s, true)
	return bad
}

// flowText writes a YAML value on one line, in flow style: the text of a
// "path=value" override.
func flowText(n *yaml.Node) (string, error) {
	var setFlow func(*yaml.Node)
	setFlow = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
			n.Style = yaml.FlowStyle
		}
		for _, c := range n.Content {
			setFlow(c)
		}
	}
	setFlow(n)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}

// Variant is one point of a comparison: one choice from each axis.
type Variant struct {
	Label   string            // the choices' labels joined by spaces
	Choices []Choice          // one per axis, in axis order
	Values  map[string]string // every key set, with its value
	Unset   []string          // every key removed
}

// Overrides returns the variant's overrides in the order they apply: each
// choice's removals (scenarios.Unset), then its sets.
func (v Variant) Overrides() []string {
	var out []string
	for _, c := range v.Choices {
		for _, p := range c.Unset {
			out = append(out, scenarios.Unset(p))
		}
		for _, kv := range c.Set {
			out = append(out, kv.Key+"="+kv.Value)
		}
	}
	return out
}

// Grid returns every combination of the axes' choices, the last axis
// varying fastest. It refuses more than sweep.MaxPoints variants (checked
// as the grid grows, so a product cannot overflow), two axes setting the
// same key, and two variants with the same label.
func Grid(axes []Axis) ([]Variant, error) {
	if len(axes) == 0 {
		return nil, fmt.Errorf("no variants: give --vary key=v1,v2,… or --variants FILE")
	}
	total := 1
	keys := map[string]string{} // key → the axis that varies it
	for _, a := range axes {
		total *= len(a.Choices)
		if total > sweep.MaxPoints {
			return nil, fmt.Errorf("--vary: the grid has more than %d points", sweep.MaxPoints)
		}
		seen := map[string]bool{}
		for _, c := range a.Choices {
			for _, k := range c.Unset {
				seen[k] = true
			}
			for _, kv := range c.Set {
				seen[kv.Key] = true
			}
		}
		for _, k := range slices.Sorted(maps.Keys(seen)) {
			if other, ok := keys[k]; ok {
				return nil, fmt.Errorf("%s: %s is varied twice (also by %s): vary each key once (two --vary of different keys form a grid)", a.From, k, other)
			}
			keys[k] = a.From
		}
	}
	out := make([]Variant, total)
	labels := map[string]bool{}
	for i := range out {
		v := Variant{Choices: make([]Choice, len(axes)), Values: map[string]string{}}
		k := i
		for j := len(axes) - 1; j >= 0; j-- {
			n := len(axes[j].Choices)
			v.Choices[j] = axes[j].Choices[k%n]
			k /= n
		}
		parts := make([]string, len(axes))
		for j, c := range v.Choices {
			parts[j] = c.Label()
			for _, kv := range c.Set {
				v.Values[kv.Key] = kv.Value
			}
			v.Unset = append(v.Unset, c.Unset...)
		}
		v.Label = strings.Join(parts, " ")
		if labels[v.Label] {
			return nil, fmt.Errorf("two variants are labelled %q; name them apart", v.Label)
		}
		labels[v.Label] = true
		out[i] = v
	}
	return out, nil
}
