package generate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/budgetsim/budgetsim/scenarios"
)

// fixedSeeds is the number of scenarios go test draws and checks.
const fixedSeeds = 300

// fixedSet draws the fixed set once for the tests that read it.
var fixedSet = sync.OnceValues(func() ([]*Drawn, error) {
	out := make([]*Drawn, fixedSeeds)
	var wg sync.WaitGroup
	errs := make([]error, fixedSeeds)
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range out {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = Draw(uint64(i), Options{})
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
})

// TestGeneratedScenarios draws the fixed set and checks every invariant of
// Check on each.
func TestGeneratedScenarios(t *testing.T) {
	set, err := fixedSet()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range set {
		t.Run(strconv.FormatUint(d.Seed, 10), func(t *testing.T) {
			t.Parallel()
			if err := Check(d); err != nil {
				t.Error(err)
			}
		})
	}
}

// tableKeys returns every key of the key table as "section.key".
func tableKeys() []string {
	var out []string
	for _, s := range scenarios.Sections() {
		for _, k := range s.Keys {
			out = append(out, s.Name+"."+k.Name)
		}
	}
	return out
}

// TestEveryKeyDrawn: every key of the key table, and every word of its
// word keys, is set by at least one scenario of the fixed set that loaded.
// A key or word added to the table that the generator cannot draw fails
// here, by name.
func TestEveryKeyDrawn(t *testing.T) {
	set, err := fixedSet()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, d := range set {
		for _, k := range d.Keys {
			seen[k]++
		}
	}
	var missing []string
	for _, k := range tableKeys() {
		if seen[k] == 0 {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d keys of the key table are in no generated scenario of the %d: %s", len(missing), len(set), strings.Join(missing, ", "))
	}
	// And every word of every word key.
	words := map[string]bool{}
	for _, d := range set {
		for _, w := range d.Words {
			words[w] = true
		}
	}
	missing = nil
	for _, s := range scenarios.Sections() {
		for _, k := range s.Keys {
			if k.Kind != scenarios.KindWord {
				continue
			}
			for _, v := range k.Values {
				if w := s.Name + "." + k.Name + "=" + v; !words[w] {
					missing = append(missing, w)
				}
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d words of the key table are in no generated scenario of the %d: %s", len(missing), len(set), strings.Join(missing, ", "))
	}
}

// TestPairwise draws, for every pair of features, a small scenario with
// both and checks it. Two values of one key (two outage modes, client and
// server rate limits) go to two mappings of its section; where the
// scenario has only one such mapping (scheduling.workers) the loader
// refuses every draw, and the pair is logged, not failed; so are the
// ExclusivePairs, which no valid scenario can hold. With -short it checks
// every eighth pair.
func TestPairwise(t *testing.T) {
	feats := Features()
	type pair struct{ a, b Feature }
	var pairs []pair
	for i := range feats {
		for j := i + 1; j < len(feats); j++ {
			pairs = append(pairs, pair{feats[i], feats[j]})
		}
	}
	var mu sync.Mutex
	var unrealized []string
	t.Run("pairs", func(t *testing.T) {
		for i, p := range pairs {
			if testing.Short() && i%8 != 0 {
				continue
			}
			t.Run(p.a.String()+"+"+p.b.String(), func(t *testing.T) {
				t.Parallel()
				if why, ok := ExclusivePairs[[2]Feature{p.a, p.b}]; ok {
					t.Logf("not together: %s", why)
					return
				}
				d, err := Draw(uint64(i), Options{Force: []Feature{p.a, p.b}, Density: 0.1, MaxRuns: 300})
				if err != nil {
					var lp *LoaderPanic
					if p.a.Section == p.b.Section && p.a.Key == p.b.Key && !errors.As(err, &lp) {
						mu.Lock()
						unrealized = append(unrealized, p.a.String()+" with "+p.b.String())
						mu.Unlock()
						return
					}
					t.Fatal(err)
				}
				if err := Check(d); err != nil {
					t.Error(err)
				}
			})
		}
	})
	sort.Strings(unrealized)
	t.Logf("%d features, %d pairs; %d pairs of two values of one key the loader refused in every draw: %s", len(feats), len(pairs), len(unrealized), strings.Join(unrealized, "; "))
}

// FuzzGenerated checks every invariant on the scenario drawn from each
// seed the fuzzer tries:
//
//	go test -fuzz FuzzGenerated ./scenarios/generate
func FuzzGenerated(f *testing.F) {
	for _, s := range []uint64{0, 1, 2, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		d, err := Draw(seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(d); err != nil {
			t.Fatal(err)
		}
	})
}

// TestSoak draws and checks BUDGETSIM_SOAK scenarios (seeds from 10^6 on)
// when that variable is set, and reports each distinct violation with its
// first seed:
//
//	BUDGETSIM_SOAK=3000 go test -run TestSoak -count=1 ./scenarios/generate
func TestSoak(t *testing.T) {
	env := os.Getenv("BUDGETSIM_SOAK")
	if env == "" {
		t.Skip("set BUDGETSIM_SOAK=N to draw and check N scenarios")
	}
	n, err := strconv.Atoi(env)
	if err != nil || n < 1 {
		t.Fatalf("BUDGETSIM_SOAK=%q: want a number of scenarios ≥ 1", env)
	}
	type finding struct {
		count int
		first error
		seed  uint64
	}
	var mu sync.Mutex
	found := map[string]*finding{}
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range n {
		seed := uint64(1_000_000 + i)
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			key, err := soakOne(seed)
			if err == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			f := found[key]
			if f == nil {
				f = &finding{first: err, seed: seed}
				found[key] = f
			}
			f.count++
			if seed < f.seed {
				f.first, f.seed = err, seed
			}
		}()
	}
	wg.Wait()
	keys := make([]string, 0, len(found))
	for k := range found {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := found[k]
		t.Errorf("%s: %d of %d scenarios, first at seed %d:\n%v", k, f.count, n, f.seed, f.first)
	}
}

// soakOne draws and checks one scenario, returning the violation's
// signature with it.
func soakOne(seed uint64) (string, error) {
	d, err := Draw(seed, Options{})
	if err != nil {
		return "draw: " + firstLine(err.Error()), err
	}
	if err := Check(d); err != nil {
		var v *Violation
		if errors.As(err, &v) {
			return signature(v.Invariant, v.Detail), err
		}
		return firstLine(err.Error()), err
	}
	return "", nil
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// TestSameBytesAtAnyGOMAXPROCS: the summary of two replications of each
// scenario of a part of the fixed set is the same, byte for byte, at
// GOMAXPROCS 1 and 2 (Check compares goroutines at the test's own
// GOMAXPROCS).
func TestSameBytesAtAnyGOMAXPROCS(t *testing.T) {
	set, err := fixedSet()
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, d := range set[:60] {
		cfg := d.Config()
		// A scenario whose replications panic would take the process
		// down on a goroutine; TestGeneratedScenarios reports it.
		if _, _, p0 := runOne(cfg, 0); p0 != "" {
			continue
		}
		if _, _, p1 := runOne(cfg, 1); p1 != "" {
			continue
		}
		var outs [][]byte
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			b, err := Fingerprint(cfg, 2)
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, b)
		}
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("generator seed %d: the summary differs between GOMAXPROCS 1 and 2: %s\n%s", d.Seed, firstDiff(outs[0], outs[1]), d.YAML)
		}
	}
}

// TestDrawIsDeterministic: the same seed and options draw the same text.
func TestDrawIsDeterministic(t *testing.T) {
	for _, seed := range []uint64{0, 7, 99} {
		a, err := Draw(seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Draw(seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.YAML, b.YAML) {
			t.Errorf("seed %d drew two texts:\n%s\n---\n%s", seed, a.YAML, b.YAML)
		}
	}
}

// TestForcedFeaturesPresent: a forced feature is in the drawn scenario.
func TestForcedFeaturesPresent(t *testing.T) {
	for i, f := range Features() {
		d, err := Draw(uint64(i), Options{Force: []Feature{f}, Density: 0.1})
		if err != nil {
			t.Errorf("%v: %v", f, err)
			continue
		}
		if !slices.Contains(d.Features, f) {
			t.Errorf("%v forced, drawn %v", f, d.Features)
		}
	}
}

// TestRepairFindsTheField: the repair acts on the field the loader names.
func TestRepairFindsTheField(t *testing.T) {
	for _, tt := range []struct {
		field string
		want  []step
	}{
		{"tools.a.outages[0].end", []step{{"tools", -1}, {"a", -1}, {"outages", -1}, {"", 0}, {"end", -1}}},
		{"steps.s1.parallel.m2.tool", []step{{"steps", -1}, {"s1", -1}, {"parallel", -1}, {"m2", -1}, {"tool", -1}}},
	} {
		if got := splitField(tt.field); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("splitField(%q) = %v, want %v", tt.field, got, tt.want)
		}
	}
}

// TestKnowledgeNamesTableKeys: every key knowledge.go names is a key of
// the table, so that a key renamed or removed there cannot leave a hook
// that silently no longer applies.
func TestKnowledgeNamesTableKeys(t *testing.T) {
	known := map[string]bool{}
	for _, k := range tableKeys() {
		known[k] = true
	}
	var names []string
	for k := range includeChances {
		names = append(names, k)
	}
	for k := range includeRules {
		names = append(names, k)
	}
	for k := range valueHooks {
		names = append(names, k)
	}
	for k := range fixedKeys {
		names = append(names, k)
	}
	for _, sk := range switchKeys {
		names = append(names, sk[0]+"."+sk[1])
	}
	for f, needs := range featureNeeds {
		names = append(names, f.Section+"."+f.Key)
		for _, n := range needs {
			names = append(names, n.Section+"."+n.Key)
		}
	}
	for pair := range ExclusivePairs {
		names = append(names, pair[0].Section+"."+pair[0].Key, pair[1].Section+"."+pair[1].Key)
	}
	for _, n := range names {
		if !known[n] {
			t.Errorf("knowledge.go names %s, not a key of the key table", n)
		}
	}
}
