package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SchemaID is the scenario schema's $id: a URN that names the scenario
// format's version (FormatVersion), the same for every build that reads
// that format, so an editor or validator that caches schemas by $id
// keeps one per format. It identifies the schema; it is not a place to
// fetch it from (`simulate schema` prints it).
var SchemaID = fmt.Sprintf("urn:budgetsim:scenario-schema:%d", FormatVersion)

// durationPattern is the JSON Schema pattern of a duration written with a
// unit (ParseDuration also takes "0", and a bare 0 is a number in YAML).
const durationPattern = `^\s*(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+\s*$`

// ratePattern is the JSON Schema pattern of a rate (ParseRate).
const ratePattern = `^\s*([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?\s*/\s*(s|sec|second|m|min|minute|h|hr|hour)\s*$`

// amountPattern is the JSON Schema pattern of a cost amount written as a
// string (cost.ParseAmount).
const amountPattern = `^\s*[0-9]+(\.[0-9]{0,6})?\s*$`

// SchemaModeline is the first line of a scenario file that makes editors
// with the YAML language server check and complete it against the schema
// (a path relative to the file, or a URL).
const SchemaModeline = "# yaml-language-server: $schema=schema.json"

// JSONSchema returns the JSON Schema (draft 2020-12) of the scenario
// format, generated from the key table. It checks what the loader checks
// key by key: names, types, ranges, words, required keys and which keys a
// process, budget kind or distribution family takes; relations between keys
// (end after start, a step's tool defined under tools) are the loader's.
func JSONSchema() []byte {
	defs := map[string]any{}
	for _, s := range Sections() {
		switch s.Name {
		case "distribution", "mixture_component":
			defs[s.Name] = sectionSchema(s, false)
			defs[s.Name+"_numbers"] = sectionSchema(s, true)
		case "cost_dim":
			defs[s.Name] = sectionSchema(s, true)
		default:
			defs[s.Name] = sectionSchema(s, false)
		}
	}
	root := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         SchemaID,
		"title":       "budgetsim scenario",
		"description": "A budgetsim scenario file. Generated from the loader's key table (scenarios/keys.go): do not edit; run go generate ./scenarios.",
		"$ref":        "#/$defs/scenario",
		"$defs":       defs,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(root); err != nil {
		panic(err) // maps of strings, numbers and slices always encode
	}
	return b.Bytes()
}

// sectionSchema returns the schema of a mapping of section s, closed to
// other keys. numbers says that distributions in it are distributions of
// numbers.
func sectionSchema(s *Section, numbers bool) map[string]any {
	own := openSchema(s, numbers)
	if len(s.Include) == 0 && own["allOf"] == nil {
		own["description"] = s.Doc
		own["additionalProperties"] = false
		return own
	}
	all := []any{own}
	for _, inc := range s.Include {
		all = append(all, openSchema(section(inc), numbers))
	}
	return map[string]any{"description": s.Doc, "allOf": all, "unevaluatedProperties": false}
}

// openSchema returns the schema of s's own keys, open to others (those of
// the sections that include it).
func openSchema(s *Section, numbers bool) map[string]any {
	props := map[string]any{}
	var required []string
	var conds []any
	byCond := map[string][]Key{} // "key=value" → keys
	var condOrder []string
	for _, k := range s.Keys {
		if k.When == nil {
			props[k.Name] = keySchema(s, k, numbers)
			if k.Required {
				required = append(required, k.Name)
			}
			continue
		}
		for _, v := range k.When.Values {
			c := k.When.Key + "=" + v
			if _, ok := byCond[c]; !ok {
				condOrder = append(condOrder, c)
			}
			byCond[c] = append(byCond[c], k)
		}
	}
	for _, c := range condOrder {
		key, value, _ := strings.Cut(c, "=")
		ifs := map[string]any{"properties": map[string]any{key: map[string]any{"const": value}}}
		if ck, _ := s.key(key); ck.Default != value {
			ifs["required"] = []string{key}
		}
		tprops := map[string]any{}
		var treq []string
		for _, k := range byCond[c] {
			tprops[k.Name] = keySchema(s, k, numbers)
			if k.Required {
				treq = append(treq, k.Name)
			}
		}
		then := map[string]any{"properties": tprops}
		if len(treq) > 0 {
			then["required"] = treq
		}
		if s.Name == "distribution" && value == "lognormal" {
			// median and exactly one of sigma, p99 (model/dist.Params).
			then["oneOf"] = []any{map[string]any{"required": []string{"sigma"}}, map[string]any{"required": []string{"p99"}}}
		}
		conds = append(conds, map[string]any{"if": ifs, "then": then})
	}
	own := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		own["required"] = required
	}
	if len(conds) > 0 {
		own["allOf"] = conds
	}
	return own
}

// keySchema returns the schema of key k's value.
func keySchema(s *Section, k Key, numbers bool) map[string]any {
	m := map[string]any{}
	switch k.Kind {
	case KindString:
		m["type"] = "string"
	case KindInteger:
		m["type"] = "integer"
		schemaBounds(m, k)
	case KindNumber:
		if s.Name == "distribution" && !numbers && timeParams[k.Name] {
			m = durationSchema()
		} else {
			m["type"] = "number"
			schemaBounds(m, k)
		}
	case KindBoolean:
		m["type"] = "boolean"
	case KindDuration:
		m = durationSchema()
	case KindRate:
		m["type"] = "string"
		m["pattern"] = ratePattern
	case KindAmount:
		m["anyOf"] = []any{map[string]any{"type": "number", "minimum": 0}, map[string]any{"type": "string", "pattern": amountPattern}}
	case KindWord:
		if len(k.Values) > 0 {
			m["enum"] = k.Values
		} else {
			m["type"] = "string"
		}
	case KindWords:
		word := map[string]any{"type": "string"}
		if len(k.Values) > 0 {
			word = map[string]any{"enum": k.Values}
		}
		m["anyOf"] = []any{word, map[string]any{"type": "array", "items": word}}
	case KindWarmup:
		in := map[string]any{"type": "integer"}
		schemaBounds(in, k)
		m["anyOf"] = []any{in, durationSchema()}
	case KindWait:
		m["anyOf"] = []any{map[string]any{"enum": k.Values}, map[string]any{"$ref": "#/$defs/" + k.Section}}
	case KindMapping:
		m["$ref"] = "#/$defs/" + k.Section
	case KindList:
		sec := k.Section
		if sec == "mixture_component" && numbers {
			sec += "_numbers"
		}
		m["type"] = "array"
		m["items"] = map[string]any{"$ref": "#/$defs/" + sec}
	case KindNamed:
		sec := k.Section
		m["type"] = "object"
		m["additionalProperties"] = map[string]any{"$ref": "#/$defs/" + sec}
	case KindDistribution:
		m["$ref"] = "#/$defs/distribution"
	case KindUsage:
		m["$ref"] = "#/$defs/distribution_numbers"
	default:
		panic(fmt.Sprintf("scenarios: key %s.%s has no kind", s.Name, k.Name))
	}
	desc := k.Doc
	if k.Default != "" {
		desc += " Default: " + k.Default + "."
	}
	if k.Unit != "" {
		desc += " Unit: " + k.Unit + "."
	}
	m["description"] = desc
	return m
}

func durationSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "string", "pattern": durationPattern},
		map[string]any{"const": 0},
	}}
}

// schemaBounds adds key k's range (Key.bounds) to a number's schema m.
func schemaBounds(m map[string]any, k Key) {
	b := k.bounds()
	switch {
	case b.hasLo() && b.loOpen:
		m["exclusiveMinimum"] = b.lo
	case b.hasLo():
		m["minimum"] = b.lo
	}
	if b.hasHi() {
		m["maximum"] = b.hi
	}
}

// Reference returns docs/scenario-reference.md, generated from the key
// table.
func Reference() []byte {
	var b bytes.Buffer
	b.WriteString(`# Scenario reference

<!-- Generated from the loader's key table (scenarios/keys.go) by go generate ./scenarios: do not edit. -->

Every key of the scenario format: its type, unit, default, allowed range and
what it does. [scenarios.md](scenarios.md) shows the format as a whole; this
page is generated from the table the loader itself uses to accept keys, so
it cannot list a key the loader does not take or miss one it does.

**Types.** A *duration* has a unit: ` + "`250ms`, `1.5s`, `2h`, `1m30s`" + ` (ns, us, ms,
s, m, h), or ` + "`0`" + `; a bare number is an error, since ` + "`2`" + ` could mean seconds or
milliseconds. A *rate* is ` + "`N/s`, `N/m` or `N/h`" + `. An *amount* is a cost in
abstract units, up to 6 decimals. An *integer* may be written ` + "`1e6`" + ` or
` + "`1_000_000`" + `. A *word* is one of the listed values. A *distribution* is a
mapping with a ` + "`dist`" + ` key (see [distribution](#distribution)).

**Editors.** [scenarios/schema.json](../scenarios/schema.json) is the same
table as a JSON Schema. With the YAML language server (VS Code's YAML
extension, and other editors' LSP clients), a first line

    ` + "# yaml-language-server: $schema=schema.json" + `

makes the editor complete keys and flag mistakes as you type; the path is
relative to the scenario file (the bundled scenarios sit next to the schema),
so elsewhere give the schema's path or URL. The schema checks keys, types,
ranges and words; relations between keys (an outage's end after its start, a
step's tool defined under tools) are checked by the loader, which names the
file, line and field of every mistake.

`)
	for _, s := range Sections() {
		fmt.Fprintf(&b, "<a id=\"%s\"></a>\n\n## %s\n\n", s.Name, displayPath(s))
		fmt.Fprintf(&b, "%s", s.Doc)
		for _, inc := range s.Include {
			fmt.Fprintf(&b, " It also takes every key of [%s](#%s).", inc, inc)
		}
		b.WriteString("\n\n| key | type | default | range or values | what it does |\n|---|---|---|---|---|\n")
		for _, k := range s.Keys {
			typ := k.Kind.String()
			switch k.Kind {
			case KindMapping, KindList, KindNamed, KindWait:
				typ += " of [" + k.Section + "](#" + k.Section + ")"
			case KindDistribution, KindUsage:
				typ = "[" + typ + "](#distribution)"
			}
			if k.Unit != "" {
				typ += " (" + k.Unit + ")"
			}
			if s.Name == "distribution" && k.Kind == KindNumber {
				typ = "number"
				if timeParams[k.Name] {
					typ = "duration (in a distribution of durations), else number"
				}
			}
			def := k.Default
			if k.Required {
				def = "required"
			}
			doc := k.Doc
			if k.When != nil {
				doc = fmt.Sprintf("*Only when %s is %s.* %s", k.When.Key, orList(k.When.Values), doc)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", k.Name, typ, cell(def), cell(rangeText(s, k)), cell(doc))
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

func displayPath(s *Section) string {
	if s.Path == "" {
		return "The top level"
	}
	return "`" + s.Path + "`"
}

// rangeText describes the values key k accepts.
func rangeText(s *Section, k Key) string {
	switch k.Kind {
	case KindWait:
		return quoteList(k.Values) + ", or a mapping"
	case KindWord, KindWords:
		if len(k.Values) == 0 {
			return "any word"
		}
		return quoteList(k.Values)
	case KindInteger, KindNumber, KindWarmup:
		if s.Name == "distribution" && timeParams[k.Name] {
			return "see the family"
		}
		r := k.bounds().text(num)
		if r == "" {
			return "see the family"
		}
		if k.Kind == KindWarmup {
			r += " runs, or a duration"
		}
		return r
	case KindDuration:
		if k.MinExclusive {
			return "above 0, up to " + shortDuration(MaxDuration)
		}
		return "0 to " + shortDuration(MaxDuration)
	case KindRate:
		if k.MinExclusive {
			return "> 0/s"
		}
		return "≥ 0/s"
	case KindAmount:
		return "≥ 0"
	}
	return ""
}

func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "`" + v + "`"
	}
	return strings.Join(q, ", ")
}

func orList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "`" + v + "`"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}
