package generate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing/fstest"
	"time"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// Feature is a part of the scenario format a scenario can use: a key
// present in some mapping of a section (Value empty), or a key set to one
// of its words (rate_limit.enforce=client). Features lists them.
type Feature struct {
	Section, Key, Value string
}

// String writes f as section.key or section.key=value.
func (f Feature) String() string {
	if f.Value == "" {
		return f.Section + "." + f.Key
	}
	return f.Section + "." + f.Key + "=" + f.Value
}

// Options adjust what Draw draws.
type Options struct {
	// Force lists features every drawn scenario has: a key forced present
	// is drawn in at least one mapping of its section (and every key
	// leading there is drawn too), a word forced to a value takes it in
	// one mapping. Two values of one key go to two mappings of its section
	// when the scenario has two.
	Force []Feature
	// Density is the chance that an optional key is drawn; 0 means 0.3.
	Density float64
	// MaxRuns bounds the runs drawn for a scenario bounded by runs; 0
	// means 1000.
	MaxRuns int
}

// Drawn is one generated scenario.
type Drawn struct {
	// Seed is the generator seed it was drawn from.
	Seed uint64
	// YAML is the scenario's text; Files the files it names (an arrival
	// trace, a latency log), to pass to scenarios.Parse with it.
	YAML  []byte
	Files fstest.MapFS
	// Scenario is the scenario as the loader compiled it.
	Scenario *scenarios.Scenario
	// Keys are the keys the scenario sets, as "section.key" of the key
	// table (scenarios.Sections), sorted.
	Keys []string
	// Words are the words the scenario gives its word keys, as
	// "section.key=word", sorted.
	Words []string
	// Features are the features of Features that the scenario has.
	Features []Feature
	// Repairs counts the keys dropped or drawn again because the loader
	// refused them.
	Repairs int
}

// Config returns the scenario's compiled configuration.
func (d *Drawn) Config() *system.Config { return d.Scenario.Config }

// Scenario draws a random valid scenario from seed: its YAML text and its
// compiled configuration. It is Draw without the details.
func Scenario(seed uint64, opt Options) ([]byte, *system.Config, error) {
	d, err := Draw(seed, opt)
	if err != nil {
		return nil, nil, err
	}
	return d.YAML, d.Config(), nil
}

// LoaderPanic is the error Draw returns when scenarios.Parse panicked on a
// drawn text: a bug of the loader, which must refuse any text with errors.
type LoaderPanic struct {
	Seed  uint64
	YAML  []byte
	Value any
	Stack string
}

// Error names the seed and the panic.
func (p *LoaderPanic) Error() string {
	return fmt.Sprintf("generator seed %d: scenarios.Parse panicked: %v\n%s\n%s", p.Seed, p.Value, p.YAML, p.Stack)
}

// Draw draws a random scenario from seed, walking the key table
// (scenarios.Sections) from the root: each optional key is drawn with
// probability Options.Density, each required key always, and each value
// from the key's kind, range, words and example. The loader is the judge:
// while it refuses the text, the key it names is drawn again or dropped
// (or the missing key it names is drawn), and when that does not converge
// the scenario is drawn again from a stream derived from seed. The same
// seed and options give the same scenario.
func Draw(seed uint64, opt Options) (*Drawn, error) {
	if opt.Density == 0 {
		opt.Density = 0.3
	}
	if opt.MaxRuns == 0 {
		opt.MaxRuns = 1000
	}
	for _, f := range opt.Force {
		for _, need := range featureNeeds[f] {
			if !slices.Contains(opt.Force, need) {
				opt.Force = append(slices.Clip(opt.Force), need)
			}
		}
	}
	var lastErr error
	// Forced features the loader refuses together (two values of a key
	// that a scenario has once) fail every draw: give up sooner.
	subs := uint64(40)
	if len(opt.Force) > 0 {
		subs = 24
	}
	for sub := uint64(0); sub < subs; sub++ {
		g := newGen(seed, sub, opt)
		root := g.root()
		for iter := 0; iter < 120; iter++ {
			var b strings.Builder
			writeYAML(&b, root, 0, false)
			src := []byte(b.String())
			sc, err := parse(seed, src, g.files)
			if err == nil {
				keys, words, feats := g.census(root)
				if !g.forcedPresent(feats) {
					lastErr = fmt.Errorf("forced features %v not all present after repair", opt.Force)
					break
				}
				return &Drawn{Seed: seed, YAML: src, Files: g.files, Scenario: sc, Keys: keys, Words: words, Features: feats, Repairs: g.repairs}, nil
			}
			var lp *LoaderPanic
			if errors.As(err, &lp) {
				return nil, err
			}
			var es scenarios.Errors
			if !errors.As(err, &es) || len(es) == 0 {
				lastErr = err
				break
			}
			// Repair every error on a path no earlier one in this round
			// lies on (a repair there may have settled it).
			var done []string
			repaired := false
			for _, e := range es {
				if slices.ContainsFunc(done, func(p string) bool { return related(p, e.Field) }) {
					continue
				}
				done = append(done, e.Field)
				if g.repair(root, e) {
					repaired = true
					g.repairs++
				}
			}
			if !repaired {
				lastErr = err
				break
			}
		}
	}
	return nil, fmt.Errorf("generator seed %d: no valid scenario drawn: %v", seed, lastErr)
}

func parse(seed uint64, src []byte, files fstest.MapFS) (sc *scenarios.Scenario, err error) {
	defer func() {
		if v := recover(); v != nil {
			sc, err = nil, &LoaderPanic{Seed: seed, YAML: src, Value: v, Stack: string(debug.Stack())}
		}
	}()
	return scenarios.Parse("generated.yaml", src, nil, files)
}

// gen is the state of one draw.
type gen struct {
	r       *rand.Rand
	opt     Options
	sec     map[string]*scenarios.Section
	reach   map[string]map[string]bool
	files   fstest.MapFS
	pending []pendingFeature
	tries   map[*entry]int
	added   map[string]int
	repairs int
	know    *knowledge
}

type pendingFeature struct {
	f    Feature
	done bool
}

func newGen(seed, sub uint64, opt Options) *gen {
	g := &gen{
		r:     rand.New(rand.NewPCG(seed, sub^0x9e3779b97f4a7c15)),
		opt:   opt,
		sec:   sectionIndex(),
		reach: reachIndex(),
		files: fstest.MapFS{},
		tries: map[*entry]int{},
		added: map[string]int{},
	}
	for _, f := range opt.Force {
		g.pending = append(g.pending, pendingFeature{f: f})
	}
	g.know = newKnowledge(g)
	return g
}

// sectionIndex maps the key table's sections by name.
func sectionIndex() map[string]*scenarios.Section {
	m := map[string]*scenarios.Section{}
	for _, s := range scenarios.Sections() {
		m[s.Name] = s
	}
	return m
}

// ownedKey is a key with the section that declares it (a step's retry
// keys are the retry section's).
type ownedKey struct {
	owner string
	key   scenarios.Key
}

// allKeys returns the keys of section name and of the sections it
// includes.
func allKeys(sec map[string]*scenarios.Section, name string) []ownedKey {
	return slices.Clone(allKeysIndex()[name])
}

var allKeysIndex = sync.OnceValue(func() map[string][]ownedKey {
	sec := sectionIndex()
	out := map[string][]ownedKey{}
	for name := range sec {
		out[name] = collectKeys(sec, name)
	}
	return out
})

func collectKeys(sec map[string]*scenarios.Section, name string) []ownedKey {
	s := sec[name]
	var out []ownedKey
	for _, k := range s.Keys {
		out = append(out, ownedKey{name, k})
	}
	for _, inc := range s.Include {
		out = append(out, collectKeys(sec, inc)...)
	}
	return out
}

// reachIndex maps each section to the sections whose mappings can appear
// inside its own (itself included), through mapping, list, named and wait
// keys and includes; distributions are not followed.
func reachIndex() map[string]map[string]bool {
	sec := sectionIndex()
	out := map[string]map[string]bool{}
	for name := range sec {
		seen := map[string]bool{}
		var walk func(n string)
		walk = func(n string) {
			if seen[n] {
				return
			}
			seen[n] = true
			for _, ok := range allKeys(sec, n) {
				k := ok.key
				switch k.Kind {
				case scenarios.KindMapping, scenarios.KindList, scenarios.KindNamed, scenarios.KindWait:
					if k.Section != "" {
						walk(k.Section)
					}
				}
			}
			for _, inc := range sec[n].Include {
				walk(inc)
			}
		}
		walk(name)
		out[name] = seen
	}
	return out
}

// root draws the whole scenario.
func (g *gen) root() *mapping { return g.section("scenario") }

// section draws a mapping of section name: the keys other keys' When
// conditions name first, then the rest, in the table's order.
func (g *gen) section(name string) *mapping {
	keys := allKeys(g.sec, name)
	conds := map[string]bool{}
	for _, ok := range keys {
		if ok.key.When != nil {
			conds[ok.key.When.Key] = true
		}
	}
	slices.SortStableFunc(keys, func(a, b ownedKey) int {
		ca, cb := conds[a.key.Name], conds[b.key.Name]
		switch {
		case ca && !cb:
			return -1
		case cb && !ca:
			return 1
		}
		return 0
	})
	m := &mapping{}
	for _, ok := range keys {
		if !g.applies(m, keys, ok.key) {
			continue
		}
		if !g.include(m, ok) {
			continue
		}
		m.entries = append(m.entries, g.newEntry(m, keys, ok, conds[ok.key.Name]))
		g.markPresent(ok)
	}
	return m
}

// applies reports whether k's When condition holds in m, reading the
// condition key's default when m lacks it.
func (g *gen) applies(m *mapping, keys []ownedKey, k scenarios.Key) bool {
	if k.When == nil {
		return true
	}
	v := m.scalarOf(k.When.Key)
	if m.get(k.When.Key) == nil {
		for _, ok := range keys {
			if ok.key.Name == k.When.Key {
				v = ok.key.Default
			}
		}
	}
	return slices.Contains(k.When.Values, v)
}

// include decides whether key ok is drawn in a mapping of section.
func (g *gen) include(m *mapping, ok ownedKey) bool {
	k := ok.key
	if g.know.excluded(ok.owner + "." + k.Name) {
		return false
	}
	for _, p := range g.pending {
		// A forced key is drawn in the first mapping of its section, and
		// in every other one by a coin: two forced keys that cannot share
		// a mapping (a parallel step is not hedged) find one each.
		if p.f.Section == ok.owner && p.f.Key == k.Name {
			return !p.done || g.r.IntN(2) == 0
		}
	}
	if k.Section != "" && isStructural(k.Kind) && g.reach[k.Section][ok.owner] {
		// A mapping that holds a forced feature, or may still take one,
		// does not open another level of its own section (a loop's
		// steps): the loader would refuse the feature beside it.
		for _, p := range g.pending {
			if p.f.Section == ok.owner && (!p.done || m.get(p.f.Key) != nil) {
				return false
			}
		}
	}
	for _, p := range g.pending {
		if p.done {
			continue
		}
		// A mapping of the forced feature's own section takes the feature
		// itself: a key of it that leads to that section again (a loop's
		// steps) is no way there.
		if k.Section != "" && ok.owner != p.f.Section && g.reach[k.Section][p.f.Section] && isStructural(k.Kind) {
			return true
		}
	}
	if p, set := g.know.includeChance(ok.owner+"."+k.Name, m); set {
		return g.r.Float64() < p
	}
	if k.Required {
		return true
	}
	density := g.opt.Density
	for _, f := range g.opt.Force {
		// A mapping on the way to a forced feature draws its other keys
		// more often: they are what the feature may need to be valid (a
		// tool's queue needs its concurrency).
		if g.reach[ok.owner][f.Section] {
			density = max(density, 0.5)
		}
	}
	return g.r.Float64() < density
}

func isStructural(k scenarios.Kind) bool {
	switch k {
	case scenarios.KindMapping, scenarios.KindList, scenarios.KindNamed, scenarios.KindWait:
		return true
	}
	return false
}

// markPresent marks a forced presence feature as drawn.
func (g *gen) markPresent(ok ownedKey) {
	for i := range g.pending {
		p := &g.pending[i]
		if !p.done && p.f.Value == "" && p.f.Section == ok.owner && p.f.Key == ok.key.Name {
			p.done = true
			return
		}
	}
}

// forcedWord returns the value a forced feature gives key ok, marking it
// drawn. A later mapping of the section gets a forced value again by a
// coin: the first may be one a repair drops (a scenario whose classes all
// have arrivals of their own has no top-level ones).
func (g *gen) forcedWord(ok ownedKey) (string, bool) {
	again := ""
	for i := range g.pending {
		p := &g.pending[i]
		if p.f.Value == "" || p.f.Section != ok.owner || p.f.Key != ok.key.Name {
			continue
		}
		if !p.done {
			p.done = true
			return p.f.Value, true
		}
		if again == "" {
			again = p.f.Value
		}
	}
	if again != "" && g.r.IntN(2) == 0 {
		return again, true
	}
	return "", false
}

// newEntry draws key ok of mapping m. A key other keys' conditions name
// is not drawn again on its own: its mapping is.
func (g *gen) newEntry(m *mapping, keys []ownedKey, ok ownedKey, isCond bool) *entry {
	e := &entry{name: ok.key.Name, table: ok.owner + "." + ok.key.Name, required: ok.key.Required}
	// A redraw happens later, outside the draw of the mapping: it sees the
	// knowledge the first draw saw (the kind of distribution, the plan).
	ctx := g.know.save()
	draw := func() value {
		now := g.know.save()
		g.know.restore(ctx)
		defer g.know.restore(now)
		return g.value(m, ok)
	}
	e.val = g.value(m, ok)
	if !isCond && !g.know.fixed(e.table) {
		e.redraw = draw
	}
	return e
}

// value draws a value of key ok for mapping m: knowledge first (names,
// cross-references, the scenario's size), then the key's kind.
func (g *gen) value(m *mapping, ok ownedKey) value {
	k := ok.key
	if w, forced := g.forcedWord(ok); forced {
		return w
	}
	if v, has := g.know.value(ok.owner+"."+k.Name, m, k); has {
		return v
	}
	return g.byKind(m, ok)
}

// byKind draws a value from the key's kind, range, words and example.
func (g *gen) byKind(m *mapping, ok ownedKey) value {
	k := ok.key
	switch k.Kind {
	case scenarios.KindString:
		return k.Example
	case scenarios.KindInteger:
		return strconv.FormatInt(g.integer(k), 10)
	case scenarios.KindNumber:
		return fmtNum(g.number(k))
	case scenarios.KindBoolean:
		return strconv.FormatBool(g.r.IntN(2) == 0)
	case scenarios.KindDuration:
		return g.duration(k.Example)
	case scenarios.KindRate:
		return fmtNum(g.logUniform(0.5, 50)) + "/s"
	case scenarios.KindAmount:
		ex, err := strconv.ParseFloat(k.Example, 64)
		if err != nil || ex <= 0 {
			ex = 1
		}
		return strconv.FormatFloat(math.Round(float64(float64(g.r.Float64())*2*ex*100))/100, 'f', -1, 64)
	case scenarios.KindWord:
		return k.Values[g.r.IntN(len(k.Values))]
	case scenarios.KindWords:
		if len(k.Values) == 0 {
			return k.Example
		}
		return "[" + k.Values[g.r.IntN(len(k.Values))] + "]"
	case scenarios.KindWarmup:
		return k.Example
	case scenarios.KindMapping:
		return g.section(k.Section)
	case scenarios.KindList:
		n := 1 + g.r.IntN(3)
		l := &list{}
		for range n {
			l.items = append(l.items, g.section(k.Section))
		}
		return l
	case scenarios.KindNamed:
		n := 1 + g.r.IntN(2)
		named := &mapping{}
		for range n {
			name := g.know.newName("n")
			sub := g.section(k.Section)
			named.entries = append(named.entries, &entry{name: name, val: sub, redraw: func() value { return g.section(k.Section) }})
		}
		return named
	case scenarios.KindDistribution, scenarios.KindUsage:
		return g.know.distribution(k.Kind == scenarios.KindDistribution)
	case scenarios.KindWait:
		if len(k.Values) > 0 && g.r.IntN(3) > 0 {
			return k.Values[g.r.IntN(len(k.Values))]
		}
		return g.section(k.Section)
	}
	return k.Example
}

// integer draws a whole number in the key's range, near its example: the
// minimum, the example, or uniform up to twice the example.
func (g *gen) integer(k scenarios.Key) int64 {
	lo, hi := k.Min, k.Max
	if !(lo < hi) {
		lo, hi = 0, 1e15
	}
	if k.MinExclusive {
		lo = math.Floor(lo) + 1
	}
	lo, hi = math.Ceil(lo), math.Min(math.Floor(hi), 1e15)
	ex, err := strconv.ParseFloat(strings.ReplaceAll(k.Example, "_", ""), 64)
	if err != nil || ex < lo || ex > hi {
		ex = lo
	}
	top := math.Min(hi, math.Max(lo+2, 2*ex))
	switch p := g.r.Float64(); {
	case p < 0.15:
		return int64(lo)
	case p < 0.4:
		return int64(ex)
	default:
		return int64(lo + math.Floor(g.r.Float64()*(top-lo+1)))
	}
}

// number draws a number in the key's range, near its example.
func (g *gen) number(k scenarios.Key) float64 {
	lo, hi := k.Min, k.Max
	if !(lo < hi) {
		lo, hi = 0, 1e12
	}
	ex, err := strconv.ParseFloat(k.Example, 64)
	if err != nil || ex < lo || ex > hi {
		ex = lo
	}
	top := math.Min(hi, math.Max(2*ex, lo+1e-3))
	switch p := g.r.Float64(); {
	case p < 0.15 && !k.MinExclusive:
		return lo
	case p < 0.4 && !(k.MinExclusive && ex == lo):
		return ex
	default:
		v := lo + float64(g.r.Float64()*(top-lo))
		if v == lo && k.MinExclusive {
			v = top
		}
		return v
	}
}

// duration draws a duration near example: between an eighth of it and
// twice it, with examples beyond a minute (a day's period, a long
// horizon) brought down to the scale of a small scenario; sometimes 0.
func (g *gen) duration(example string) string {
	ex, err := time.ParseDuration(example)
	if err != nil || ex <= 0 {
		ex = time.Second
	}
	if ex > time.Minute {
		ex = 10 * time.Second
	}
	if g.r.IntN(20) == 0 {
		return "0"
	}
	return fmtDuration(time.Duration(float64(ex) * g.logUniform(1.0/8, 2)))
}

func (g *gen) logUniform(lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + float64(g.r.Float64()*(math.Log(hi)-math.Log(lo))))
}

func fmtDuration(d time.Duration) string {
	if d < time.Millisecond {
		d = time.Millisecond
	}
	return d.Round(time.Millisecond).String()
}

func fmtNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// repair acts on the first error the loader reported: it draws the key it
// names again (twice at most), drops it when it is optional, draws it when
// it is missing, or goes up to the mapping or list item holding it. It
// reports false when nothing is left to change.
func (g *gen) repair(root *mapping, e *scenarios.Error) bool {
	if e.Field == "" {
		return false
	}
	chain, full := locate(root, e.Field)
	if !full {
		// A missing key: draw it into the deepest mapping found, once.
		parentMap, keys := g.mappingAt(root, chain)
		segs := splitField(e.Field)
		last := segs[len(segs)-1]
		if parentMap != nil && len(chain) == len(segs)-1 && last.index < 0 {
			for _, ok := range keys {
				if ok.key.Name == last.key {
					id := fmt.Sprintf("%p.%s", parentMap, last.key)
					if g.added[id] < 2 {
						g.added[id]++
						parentMap.entries = append(parentMap.entries, g.newEntry(parentMap, keys, ok, false))
						return true
					}
				}
			}
		}
		if len(chain) == 0 {
			return false
		}
	}
	return g.fix(chain[len(chain)-1])
}

// mappingAt returns the mapping at the end of chain and the keys of its
// section, or nil when it is not a mapping of a known section.
func (g *gen) mappingAt(root *mapping, chain []*located) (*mapping, []ownedKey) {
	if len(chain) == 0 {
		return root, allKeys(g.sec, "scenario")
	}
	l := chain[len(chain)-1]
	var m *mapping
	if l.lst != nil {
		m = l.lst.items[l.item]
	} else if mm, ok := l.entry.val.(*mapping); ok {
		m = mm
	}
	if m == nil {
		return nil, nil
	}
	name := g.sectionOf(chain)
	if name == "" {
		return nil, nil
	}
	return m, allKeys(g.sec, name)
}

// sectionOf returns the section of the mapping at the end of chain, by
// following the table from the root.
func (g *gen) sectionOf(chain []*located) string {
	cur := "scenario"
	named := false // the last key was a named section: the next step is a name
	for _, l := range chain {
		if l.lst != nil {
			continue // a list item: the same section as the list's key
		}
		if named {
			named = false
			continue
		}
		var key *scenarios.Key
		for _, ok := range allKeys(g.sec, cur) {
			if ok.key.Name == l.entry.name {
				k := ok.key
				key = &k
				break
			}
		}
		if key == nil {
			return ""
		}
		switch key.Kind {
		case scenarios.KindMapping, scenarios.KindList, scenarios.KindWait:
			cur = key.Section
		case scenarios.KindNamed:
			cur, named = key.Section, true
		case scenarios.KindDistribution, scenarios.KindUsage:
			cur = "distribution"
		default:
			return ""
		}
		if cur == "" {
			return ""
		}
	}
	if named {
		return ""
	}
	return cur
}

// fix changes the node l: draws it again, drops it, or goes up.
func (g *gen) fix(l *located) bool {
	for l != nil {
		if l.lst != nil {
			if len(l.lst.items) > 1 {
				l.lst.items = append(l.lst.items[:l.item], l.lst.items[l.item+1:]...)
				return true
			}
			l = l.parent
			continue
		}
		e := l.entry
		g.tries[e]++
		_, scalar := e.val.(string)
		if g.forced(e) && g.tries[e] <= 6 {
			// The loader refuses a forced key: what conflicts with it is
			// elsewhere in its mapping (latency beside ttft). Drop another
			// optional key of the mapping, or draw one the mapping lacks.
			if g.dropSibling(l.owner, e) {
				return true
			}
		}
		switch {
		case e.redraw != nil && g.tries[e] <= 2 && (e.required || scalar):
			e.val = e.redraw()
			return true
		case !e.required && !g.know.fixed(e.table):
			l.owner.remove(e)
			return true
		case e.redraw != nil && g.tries[e] <= 4:
			e.val = e.redraw()
			return true
		}
		l = l.parent
	}
	return false
}

// forced reports whether e realizes a forced feature.
func (g *gen) forced(e *entry) bool {
	sec, key, _ := strings.Cut(e.table, ".")
	for _, f := range g.opt.Force {
		if f.Section == sec && f.Key == key {
			if v, ok := e.val.(string); f.Value == "" || ok && v == f.Value {
				return true
			}
		}
	}
	return false
}

// dropSibling removes a random optional entry of m other than e that
// realizes no forced feature.
func (g *gen) dropSibling(m *mapping, e *entry) bool {
	var cands []*entry
	for _, x := range m.entries {
		if x != e && !x.required && !g.know.fixed(x.table) && !g.forced(x) {
			cands = append(cands, x)
		}
	}
	if len(cands) == 0 {
		return false
	}
	m.remove(cands[g.r.IntN(len(cands))])
	return true
}

// census returns the table keys the tree sets and the features it has.
func (g *gen) census(root *mapping) ([]string, []string, []Feature) {
	keys := map[string]bool{}
	words := map[string]bool{}
	feats := map[Feature]bool{}
	var walk func(v value)
	walk = func(v value) {
		switch v := v.(type) {
		case *mapping:
			for _, e := range v.entries {
				if e.table != "" {
					keys[e.table] = true
					sec, key, _ := strings.Cut(e.table, ".")
					feats[Feature{Section: sec, Key: key}] = true
					if s, ok := e.val.(string); ok {
						feats[Feature{Section: sec, Key: key, Value: s}] = true
						if wordKeys()[e.table] {
							words[e.table+"="+s] = true
						}
					}
				}
				walk(e.val)
			}
		case *list:
			for _, it := range v.items {
				walk(it)
			}
		}
	}
	walk(root)
	var ks []string
	for k := range keys {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	var ws []string
	for w := range words {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	var fs []Feature
	for _, f := range Features() {
		if feats[f] {
			fs = append(fs, f)
		}
	}
	return ks, ws, fs
}

// wordKeys is the set of the table's word keys, as "section.key".
var wordKeys = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, s := range scenarios.Sections() {
		for _, k := range s.Keys {
			if k.Kind == scenarios.KindWord {
				out[s.Name+"."+k.Name] = true
			}
		}
	}
	return out
})

// forcedPresent reports whether every forced feature is among feats.
func (g *gen) forcedPresent(feats []Feature) bool {
	for _, f := range g.opt.Force {
		if !slices.Contains(feats, f) {
			return false
		}
	}
	return true
}

// related reports whether one field path is the other or lies under it.
func related(a, b string) bool {
	under := func(x, y string) bool {
		return x == y || strings.HasPrefix(y, x+".") || strings.HasPrefix(y, x+"[")
	}
	return a == "" || b == "" || under(a, b) || under(b, a)
}
