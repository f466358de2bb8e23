package sweep_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/sweep"
	"github.com/budgetsim/budgetsim/scenarios"
)

func TestParseAxis(t *testing.T) {
	tests := []struct {
		in   string
		key  string
		want []string
	}{
		{"arrivals.rate=1/s..10/s:10", "arrivals.rate", []string{"1/s", "2/s", "3/s", "4/s", "5/s", "6/s", "7/s", "8/s", "9/s", "10/s"}},
		{"arrivals.rate=60/m..3/s:3", "arrivals.rate", []string{"1/s", "2/s", "3/s"}},
		{"arrivals.rate=0.1/s..0.3/s:3", "arrivals.rate", []string{"0.1/s", "0.2/s", "0.3/s"}},
		{"arrivals.rate=1/s..2/s:4", "arrivals.rate", []string{"1/s", "1.333333333333/s", "1.666666666667/s", "2/s"}},
		{"deadline=100ms..2s:5", "deadline", []string{"100ms", "575ms", "1.05s", "1.525s", "2s"}},
		{"deadline=0..1s:3", "deadline", []string{"0s", "500ms", "1s"}},
		// (1·(19−i) + 200·i)/19 rounded: 1, 11.47→11, 21.95→22, …
		{"workers=1..200:20", "workers", []string{"1", "11", "22", "32", "43", "53", "64", "74", "85", "95", "106", "116", "127", "137", "148", "158", "169", "179", "190", "200"}},
		{"workers=1..3:5", "workers", []string{"1", "2", "3"}}, // 1, 1.5→2, 2, 2.5→3, 3: repeats dropped
		{"workers=10..4:3", "workers", []string{"10", "7", "4"}},
		// Integer ends without a point count: every integer, as --search reads the range.
		{"workers=10..14", "workers", []string{"10", "11", "12", "13", "14"}},
		{"queue.capacity=3..0", "queue.capacity", []string{"3", "2", "1", "0"}},
		{"tools.db.errors.transient=0..0.3:4", "tools.db.errors.transient", []string{"0", "0.1", "0.2", "0.3"}},
		{"retry.backoff.jitter=none, full", "retry.backoff.jitter", []string{"none", "full"}},
		{"tools.s.latency={dist: constant, value: 2ms},{dist: exponential, mean: 2ms}", "tools.s.latency", []string{"{dist: constant, value: 2ms}", "{dist: exponential, mean: 2ms}"}},
	}
	for _, tt := range tests {
		a, err := sweep.ParseAxis(tt.in)
		if err != nil {
			t.Errorf("ParseAxis(%q) error %v", tt.in, err)
			continue
		}
		if a.Key != tt.key || !slices.Equal(a.Values, tt.want) {
			t.Errorf("ParseAxis(%q) = %s=%q, want %s=%q", tt.in, a.Key, a.Values, tt.key, tt.want)
		}
	}
}

func TestParseAxisErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"workers", "must be key=v1,v2"},
		{"=1,2", "must be key=v1,v2"},
		{"arrivals.rate=1/s..10/s", "needs a point count"},
		{"x=0.5..2", "needs a point count"},
		{"workers=5..5", "both ends are equal"},
		{"workers=1..20000", "too many"},
		{"workers=1..10:1", "point count \"1\" must be an integer in [2, 10000]"},
		{"workers=1..10:x", "point count"},
		{"arrivals.rate=1/s..2s:3", "same unit"},
		{"workers=1.5..10:4", "workers takes integers"},
		{"queue.capacity=1..2.5:4", "queue.capacity takes integers"},
		{"deadline=1x..2s:3", "range start: \"1x\" is not a number"},
		{"arrivals.rate=1/s..2/y:3", "range end"},
		{"workers=1,,2", "empty value"},
		{"workers=1..100000:20000", "must be an integer in [2, 10000]"},
		{"workers=" + strings.Repeat("1,", 10000) + "1", "10001 values is too many"},
		{"workers=10,11,10", "value \"10\" is listed twice"},
		{"retry.backoff.jitter=full,none,full", "value \"full\" is listed twice"},
	}
	for _, tt := range tests {
		_, err := sweep.ParseAxis(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseAxis(%q) = %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
}

func TestNumber(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"5/s", 5}, {"30/m", 0.5}, {"250ms", 0.25}, {"12", 12}, {"0", 0}, {"0.5", 0.5},
		{"full", math.NaN()}, {"{dist: constant, value: 2ms}", math.NaN()},
	}
	for _, tt := range tests {
		got := sweep.Number(tt.in)
		if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("Number(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestGrid(t *testing.T) {
	axes := []sweep.Axis{{Key: "workers", Values: []string{"8", "12"}}, {Key: "arrivals.rate", Values: []string{"5/s", "7/s", "9/s"}}}
	pts := sweep.Grid(axes)
	var got []string
	for _, p := range pts {
		got = append(got, fmt.Sprintf("%d %s|%s|%v", p.Index, p.Label(axes), p.Parameter(axes), p.Value()))
	}
	want := []string{
		"0 workers=8 arrivals.rate=5/s|workers=8;arrivals.rate|5",
		"1 workers=8 arrivals.rate=7/s|workers=8;arrivals.rate|7",
		"2 workers=8 arrivals.rate=9/s|workers=8;arrivals.rate|9",
		"3 workers=12 arrivals.rate=5/s|workers=12;arrivals.rate|5",
		"4 workers=12 arrivals.rate=7/s|workers=12;arrivals.rate|7",
		"5 workers=12 arrivals.rate=9/s|workers=12;arrivals.rate|9",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Grid = %q, want %q", got, want)
	}
	if p := sweep.Grid(axes[1:])[0].Parameter(axes[1:]); p != "arrivals.rate" {
		t.Errorf("Parameter with one axis = %q, want %q", p, "arrivals.rate")
	}
}

// mmcYAML is a small M/M/c without a warm-up, so that the sweep chooses one.
const mmcYAML = `name: small-mmc
seed: 3
runs: 3000
arrivals: {rate: 4/s}
workers: 5
steps:
  - {name: serve, tool: server}
tools:
  server:
    latency: {dist: exponential, mean: 1s}
`

func writeScenario(t testing.TB, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustAxis(t *testing.T, s string) sweep.Axis {
	t.Helper()
	a, err := sweep.ParseAxis(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func encode(t *testing.T, r *sweep.Record) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := r.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func csvOf(t *testing.T, r *sweep.Record) string {
	t.Helper()
	sums, err := sweep.Summarize(r)
	if err != nil {
		t.Fatalf("Summarize: %v", err)
	}
	var b bytes.Buffer
	if err := sweep.WriteCSV(&b, sweep.Rows(sums)); err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(sums)
	return b.String() + string(js)
}

// TestShardsMergeToTheSameSweep: for n = 1, 2, 3 shards, and with the
// stop rule, merging the shard records (through their files' encoding)
// gives the record and the summaries of the unsharded run, byte for byte;
// and the parallelism does not matter.
func TestShardsMergeToTheSameSweep(t *testing.T) {
	path := writeScenario(t, mmcYAML)
	specs := map[string]sweep.Spec{
		// Automatic warm-up: every shard runs the pilots of its points.
		"fixed": {Scenario: path, Sets: []string{"runs=500"}, Axes: []sweep.Axis{mustAxis(t, "arrivals.rate=2/s..4/s:3")}, Replications: 3, Level: 0.95},
		"grid+stop rule": {Scenario: path, Sets: []string{"runs=600", "warmup=60"},
			Axes:         []sweep.Axis{mustAxis(t, "workers=5,6"), mustAxis(t, "arrivals.rate=3/s,4/s")},
			Replications: 4, RelError: 0.2, MaxReplications: 12, Level: 0.9},
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			whole, err := sweep.Run(spec, sweep.Options{Parallel: 1})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if whole.Partial {
				t.Fatal("Run: partial without an interrupt")
			}
			wantRec, wantOut := encode(t, whole), csvOf(t, whole)
			par, err := sweep.Run(spec, sweep.Options{Parallel: 3})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(encode(t, par), wantRec) {
				t.Errorf("Run with Parallel 3 differs from Parallel 1")
			}
			for _, n := range []int{1, 2, 3} {
				var recs []*sweep.Record
				for i := n - 1; i >= 0; i-- { // any order
					s := spec
					s.Shard, s.Shards = i, n
					r, err := sweep.Run(s, sweep.Options{Parallel: 2})
					if err != nil {
						t.Fatalf("Run shard %d/%d: %v", i, n, err)
					}
					back, err := sweep.ReadRecord("shard", bytes.NewReader(encode(t, r)))
					if err != nil {
						t.Fatalf("ReadRecord(shard %d/%d): %v", i, n, err)
					}
					recs = append(recs, back)
				}
				merged, err := sweep.Merge(recs)
				if err != nil {
					t.Fatalf("Merge(%d shards): %v", n, err)
				}
				if got := encode(t, merged); !bytes.Equal(got, wantRec) {
					t.Errorf("Merge(%d shards) record differs from the unsharded run", n)
				}
				if got := csvOf(t, merged); got != wantOut {
					t.Errorf("Merge(%d shards) summaries differ from the unsharded run:\n%s\nwant\n%s", n, got, wantOut)
				}
			}
		})
	}
}

// TestStopRule: the rule adds whole batches until the relative half-widths
// are small, or stops at the cap with a note; a looser target never needs
// more replications than a tighter one (the checks see the same
// replications in the same order).
func TestStopRule(t *testing.T) {
	path := writeScenario(t, mmcYAML)
	run := func(rel float64) *sweep.Record {
		spec := sweep.Spec{Scenario: path, Sets: []string{"runs=1000", "warmup=100"}, Axes: []sweep.Axis{mustAxis(t, "arrivals.rate=2/s,4/s")},
			Replications: 4, RelError: rel, MaxReplications: 16, Level: 0.95}
		r, err := sweep.Run(spec, sweep.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	loose, tight := run(0.5), run(0.001)
	for i, p := range tight.Points {
		if p.Planned != 16 || !strings.Contains(p.Note, "rel-error 0.001 not reached after 16 replications") {
			t.Errorf("rel-error 0.001: point %d planned %d, note %q; want the cap 16 and a note", i, p.Planned, p.Note)
		}
		if q := loose.Points[i]; q.Planned%4 != 0 || q.Planned > p.Planned || q.Note != "" {
			t.Errorf("rel-error 0.5: point %d planned %d (note %q), want a multiple of 4, ≤ %d, no note", i, q.Planned, q.Note, p.Planned)
		}
	}
	sums, err := sweep.Summarize(tight)
	if err != nil {
		t.Fatal(err)
	}
	if w := sums[0].Summary.Warnings; !slices.ContainsFunc(w, func(s string) bool { return strings.Contains(s, "not reached") }) {
		t.Errorf("Summarize: warnings %q lack the stop rule's note", w)
	}
}

// outageYAML has a deterministic initial transient: the tool hangs until
// 50 s, so the runs arriving before then (runs 0–498, at 0.1 s … 49.9 s)
// spend the 1 s timeout, and every later run 100 ms.
const outageYAML = `name: outage-then-steady
runs: 2000
arrivals: {process: constant, rate: 10/s}
workers: 100
steps:
  - {name: call, tool: api, timeout: 1s}
tools:
  api:
    latency: {dist: constant, value: 100ms}
    outages: [{start: 0s, end: 50s, mode: hang}]
`

// TestWarmupDetection: MSER-5 cuts exactly the transient of a
// deterministic series, flags an overloaded queue that never settles,
// keeps a fixed warm-up and gives a batch none.
func TestWarmupDetection(t *testing.T) {
	out, err := scenarios.Load(writeScenario(t, outageYAML), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Batches of 5: the 99 batches of runs 0–494 have mean 1 s, batch 99
	// (runs 495–499) mean 0.82 s, and the rest 0.1 s: MSER-5's minimum
	// (zero variance left) truncates 100 batches, 500 runs.
	if w, ok := sweep.DetectWarmup(out.Config, nil); !ok || w != (sweep.Warmup{Runs: 500, Source: sweep.WarmupMSER5}) {
		t.Errorf("DetectWarmup(outage until 50 s) = %+v, %v; want 500 runs by mser5", w, ok)
	}
	if out.Config.WarmupRuns != 0 {
		t.Errorf("DetectWarmup modified cfg.WarmupRuns to %d", out.Config.WarmupRuns)
	}
	// ρ = 1.2: the time in system grows without end; MSER-5 cuts as much
	// as it may (half the series, less two batches) and the note says why.
	over, err := scenarios.Load(writeScenario(t, mmcYAML), []string{"arrivals.rate=6/s", "runs=4000"})
	if err != nil {
		t.Fatal(err)
	}
	if w, ok := sweep.DetectWarmup(over.Config, nil); !ok || w.Runs != 2000 || !strings.Contains(w.Note, "never settled") {
		t.Errorf("DetectWarmup(M/M/5 at ρ = 1.2) = %+v, %v; want 2000 runs and a never-settled note", w, ok)
	}
	batch, _ := scenarios.Load("seed-plan", nil)
	if w, _ := sweep.DetectWarmup(batch.Config, nil); w.Source != sweep.WarmupNone {
		t.Errorf("DetectWarmup(batch) = %+v, want source none", w)
	}
	tests := []struct {
		src  string
		sets []string
		want bool
	}{
		{mmcYAML, nil, false},
		{mmcYAML, []string{"warmup=100"}, true},
		{mmcYAML + "warmup: 0\n", nil, true},
		{"name: x\nwarmup: 30s\n", nil, true},
	}
	for _, tt := range tests {
		if got := sweep.FixesWarmup([]byte(tt.src), tt.sets); got != tt.want {
			t.Errorf("FixesWarmup(%.20q…, %q) = %v, want %v", tt.src, tt.sets, got, tt.want)
		}
	}
}

// TestShardsRecordTheirData: a shard records the build that ran it and
// the SHA-256 of every data file its scenario read; merging refuses shards
// whose data differ, and summarising refuses a data file changed since the
// sweep ran, naming the file.
func TestShardsRecordTheirData(t *testing.T) {
	dir := t.TempDir()
	lat := filepath.Join(dir, "lat.txt")
	if err := os.WriteFile(lat, []byte("10ms\n20ms\n30ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(mmcYAML, "{dist: exponential, mean: 1s}", "{dist: empirical, file: lat.txt}", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := sweep.Spec{Scenario: path, Sets: []string{"runs=300", "warmup=10"}, Axes: []sweep.Axis{mustAxis(t, "workers=5,6")}, Replications: 2, Level: 0.95, Shards: 2}
	run := func(i int) *sweep.Record {
		s := spec
		s.Shard = i
		r, err := sweep.Run(s, sweep.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	s0 := run(0)
	if len(s0.Data) != 1 || len(s0.Data["lat.txt"]) != 64 || s0.Build == "" {
		t.Fatalf("shard 0 records build %q and data %v, want the build and lat.txt's SHA-256", s0.Build, s0.Data)
	}
	if err := os.WriteFile(lat, []byte("10ms\n20ms\n40ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s1 := run(1)
	if _, err := sweep.Merge([]*sweep.Record{s0, s1}); err == nil || !strings.Contains(err.Error(), "its data file lat.txt differs") {
		t.Fatalf("merging shards of two versions of lat.txt: %v", err)
	}
	s1.Data = s0.Data // as if both had read the first version
	whole, err := sweep.Merge([]*sweep.Record{s0, s1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sweep.Summarize(whole); !errors.Is(err, sweep.ErrScenarioChanged) || !strings.Contains(err.Error(), "data file lat.txt differs") {
		t.Fatalf("summarising after lat.txt changed: %v", err)
	}
}

func TestMergeErrors(t *testing.T) {
	path := writeScenario(t, mmcYAML)
	spec := sweep.Spec{Scenario: path, Sets: []string{"runs=500"}, Axes: []sweep.Axis{mustAxis(t, "workers=5,6")}, Replications: 2, Level: 0.95, Shards: 3}
	shard := func(i int, mod func(*sweep.Spec)) *sweep.Record {
		s := spec
		s.Shard = i
		if mod != nil {
			mod(&s)
		}
		r, err := sweep.Run(s, sweep.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	s0, s1, s2 := shard(0, nil), shard(1, nil), shard(2, nil)
	other := shard(2, func(s *sweep.Spec) { s.Replications = 3 })
	partial := *s2
	partial.Partial = true
	otherBuild := *s2
	otherBuild.Build = "v9.9.9"
	otherData := *s2
	otherData.Data = map[string]string{"lat.txt": "0123456789abcdef"}
	tests := []struct {
		name string
		recs []*sweep.Record
		want string
	}{
		{"none", nil, "no shard records"},
		{"missing", []*sweep.Record{s0, s2}, "missing shard(s) 1 of 3"},
		{"twice", []*sweep.Record{s0, s1, s1}, "shard 1 of 3 given twice"},
		{"other sweep", []*sweep.Record{s0, s1, other}, "different sweep than shard 0: its sweep (scenario, overrides, axes or replications) differs"},
		{"other build", []*sweep.Record{s0, s1, &otherBuild}, "it was run by budgetsim v9.9.9, not "},
		{"other data", []*sweep.Record{s0, s1, &otherData}, "it read the data file lat.txt, which the other shard did not"},
		{"partial", []*sweep.Record{s0, s1, &partial}, "shard 2 of 3 is partial"},
	}
	for _, tt := range tests {
		_, err := sweep.Merge(tt.recs)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Merge(%s) = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := sweep.Merge([]*sweep.Record{s2, s0, s1}); err != nil {
		t.Errorf("Merge(all three) = %v", err)
	}
}

// TestInterrupt: an interrupt before the start gives a partial, empty
// record that Summarize accepts.
func TestInterrupt(t *testing.T) {
	var stop atomic.Bool
	stop.Store(true)
	spec := sweep.Spec{Scenario: writeScenario(t, mmcYAML), Sets: []string{"warmup=10"}, Axes: []sweep.Axis{mustAxis(t, "workers=5,6")}, Replications: 2, Level: 0.95}
	r, err := sweep.Run(spec, sweep.Options{Interrupt: &stop})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Partial {
		t.Fatal("Run(interrupted) is not partial")
	}
	sums, err := sweep.Summarize(r)
	if err != nil || len(sums) != 0 {
		t.Errorf("Summarize(interrupted before any replication) = %d summaries, %v; want 0, nil", len(sums), err)
	}
}

// TestInterruptMidway: an interrupt after two replications keeps them, and
// Summarize reports their point as partial.
func TestInterruptMidway(t *testing.T) {
	var stop atomic.Bool
	spec := sweep.Spec{Scenario: writeScenario(t, mmcYAML), Sets: []string{"warmup=10", "runs=300"}, Axes: []sweep.Axis{mustAxis(t, "workers=5,6")}, Replications: 3, Level: 0.95}
	r, err := sweep.Run(spec, sweep.Options{Parallel: 1, Interrupt: &stop, Progress: func(done, _ int) {
		if done == 2 {
			stop.Store(true)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Partial || len(r.Points) != 2 || len(r.Points[0].Results) != 2 || len(r.Points[1].Results) != 0 {
		t.Fatalf("Run(interrupted after 2 replications): partial %v, points %d; want partial with 2 results at the first point", r.Partial, len(r.Points))
	}
	sums, err := sweep.Summarize(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 1 || !sums[0].Summary.Partial || sums[0].Summary.Replications != 2 ||
		!slices.Contains(sums[0].Summary.Warnings, "partial: interrupted after 2 of 3 replications") {
		t.Errorf("Summarize(interrupted) = %d summaries, first %+v; want one partial summary of 2 replications", len(sums), sums[0].Summary.Warnings)
	}
}

// TestSummarizeRefusesChangedScenario: the merge step checks the scenario
// text the shards ran.
func TestSummarizeRefusesChangedScenario(t *testing.T) {
	path := writeScenario(t, mmcYAML)
	spec := sweep.Spec{Scenario: path, Sets: []string{"runs=200", "warmup=10"}, Axes: []sweep.Axis{mustAxis(t, "workers=5")}, Replications: 1, Level: 0.95}
	r, err := sweep.Run(spec, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte(strings.Replace(mmcYAML, "seed: 3", "seed: 4", 1)), 0o644)
	if _, err := sweep.Summarize(r); err == nil || !strings.Contains(err.Error(), "has changed since the sweep ran") {
		t.Errorf("Summarize(after editing the scenario) = %v, want a changed-scenario error", err)
	}
}

// TestResultCodec: real replications survive EncodeResult/DecodeResult:
// re-encoding gives the same bytes, and summary.Summarize gives the same
// summary from decoded results, except the tail breakdown (unexported state
// of system.Tail that gob cannot see; see EncodeResult).
func TestResultCodec(t *testing.T) {
	jitter, err := scenarios.Load("aws-jitter", []string{"arrivals.count=30"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []*system.Config{jitter.Config, mustLoad(t, writeScenario(t, mmcYAML))} {
		var orig, back []*system.Result
		for i := range 3 {
			r := system.New(cfg, system.Options{Replication: i}).Run()
			b, err := sweep.EncodeResult(r)
			if err != nil {
				t.Fatalf("EncodeResult: %v", err)
			}
			d, err := sweep.DecodeResult(b)
			if err != nil {
				t.Fatalf("DecodeResult: %v", err)
			}
			if again, _ := sweep.EncodeResult(d); !bytes.Equal(again, b) {
				t.Errorf("%s: EncodeResult(DecodeResult(b)) != b", cfg.Name)
			}
			orig, back = append(orig, r), append(back, d)
		}
		want, got := summary.Summarize(cfg, orig, 0.95), summary.Summarize(cfg, back, 0.95)
		want.Tail, got.Tail = summary.TailSummary{}, summary.TailSummary{}
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if !bytes.Equal(wj, gj) {
			t.Errorf("%s: Summarize(decoded results) differs from Summarize(results):\n%s\nwant\n%s", cfg.Name, gj, wj)
		}
	}
	r := &system.Result{TimeAvgInSystem: math.NaN(), SojournSum: math.Inf(1)}
	b, err := sweep.EncodeResult(r)
	if err != nil {
		t.Fatalf("EncodeResult(NaN fields): %v", err)
	}
	d, err := sweep.DecodeResult(b)
	if err != nil || !math.IsNaN(d.TimeAvgInSystem) || !math.IsInf(d.SojournSum, 1) {
		t.Errorf("DecodeResult(NaN, +Inf) = %v, %v, %v", d.TimeAvgInSystem, d.SojournSum, err)
	}
	if _, err := sweep.DecodeResult([]byte("garbage")); err == nil || !strings.Contains(err.Error(), "decoding a result") {
		t.Errorf("DecodeResult(garbage) = %v, want a decoding error", err)
	}
}

func mustLoad(t *testing.T, path string) *system.Config {
	t.Helper()
	sc, err := scenarios.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Config
}

func ExampleParseAxis() {
	for _, s := range []string{"arrivals.rate=1/s..10/s:4", "deadline=100ms..2s:5", "workers=1..200:5", "retry.backoff.jitter=none,full"} {
		a, err := sweep.ParseAxis(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(a.Key, a.Values)
	}
	// Output:
	// arrivals.rate [1/s 4/s 7/s 10/s]
	// deadline [100ms 575ms 1.05s 1.525s 2s]
	// workers [1 51 101 150 200]
	// retry.backoff.jitter [none full]
}

// BenchmarkEncodeResult measures serialising one 3000-run replication (the
// shard files and the single-machine path both do it once per
// replication); bytes/op is reported as the encoded size.
func BenchmarkEncodeResult(b *testing.B) {
	sc, err := scenarios.Parse("mmc.yaml", []byte(mmcYAML), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	r := system.New(sc.Config, system.Options{}).Run()
	var enc []byte
	b.ReportAllocs()
	for b.Loop() {
		if enc, err = sweep.EncodeResult(r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(enc)), "encoded-bytes")
}

// BenchmarkDecodeResult measures the inverse.
func BenchmarkDecodeResult(b *testing.B) {
	sc, err := scenarios.Parse("mmc.yaml", []byte(mmcYAML), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	enc, _ := sweep.EncodeResult(system.New(sc.Config, system.Options{}).Run())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sweep.DecodeResult(enc); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSpecRefusesAKeyVariedTwice: two axes on one key would let the second
// silently override the first (every "grid" point the second's value).
func TestSpecRefusesAKeyVariedTwice(t *testing.T) {
	spec := sweep.Spec{Scenario: "mmc", Axes: []sweep.Axis{{Key: "workers", Values: []string{"10", "11"}}, {Key: "workers", Values: []string{"12"}}},
		Replications: 1, Level: 0.95}
	err := spec.Validate()
	if err == nil || err.Error() != "axes[1]: workers is varied twice (also by axes[0]): vary each key once (different keys form a grid)" {
		t.Errorf("Validate() = %v, want the second axis refused", err)
	}
}

// TestRunReportsTheFirstBadPoint: points are loaded in parallel, and the
// error names the first point that fails in grid order, whatever the
// parallelism.
func TestRunReportsTheFirstBadPoint(t *testing.T) {
	path := writeScenario(t, mmcYAML)
	spec := sweep.Spec{Scenario: path, Sets: []string{"runs=500", "warmup=50"},
		Axes: []sweep.Axis{mustAxis(t, "workers=5,6,7,0,8,-1,9")}, Replications: 1, Level: 0.95}
	for _, parallel := range []int{1, 2, 7} {
		_, err := sweep.Run(spec, sweep.Options{Parallel: parallel})
		if err == nil || !strings.HasPrefix(err.Error(), "point workers=0: ") {
			t.Errorf("parallel %d: error %v, want one about point workers=0 first", parallel, err)
		}
	}
}

// BenchmarkSmallPoints measures a whole sweep of many small points the way
// the CLI runs it (each replication pooled into its point as it completes,
// each point summarised when done): 20 points of 2000 runs. Its B/op is
// what the collector sees: pooled results and accumulators hand their
// histograms, series and tail bands back (system.Result.Recycle), so what
// remains is mostly YAML and run tables.
func BenchmarkSmallPoints(b *testing.B) {
	path := writeScenario(b, mmcYAML)
	spec := sweep.Spec{Scenario: path, Sets: []string{"runs=2000", "warmup=100"},
		Axes:         []sweep.Axis{{Key: "workers", Values: []string{"5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20", "21", "22", "23", "24"}}},
		Replications: 1, Level: 0.95}
	b.ReportAllocs()
	for b.Loop() {
		sum, err := sweep.NewSummarizer(spec)
		if err != nil {
			b.Fatal(err)
		}
		opt := sweep.Options{Result: sum.Result, PointDone: func(rp *sweep.RawPoint) error { return sum.Done(rp, false) }}
		if _, err := sweep.Run(spec, opt); err != nil {
			b.Fatal(err)
		}
		if n := len(sum.Summaries(false)); n != 20 {
			b.Fatalf("%d points summarised, want 20", n)
		}
	}
}

// TestSummarizerParsesEveryPointFromOneText: once a Summarizer has read
// the scenario (and its hash matched the record's), a change to the file
// does not reach the points it summarises: each is parsed from the text
// that was checked.
func TestSummarizerParsesEveryPointFromOneText(t *testing.T) {
	path := writeScenario(t, mmcYAML)
	spec := sweep.Spec{Scenario: path, Sets: []string{"runs=500", "warmup=50"}, Axes: []sweep.Axis{mustAxis(t, "workers=5,6")}, Replications: 2, Level: 0.95}
	ran, err := sweep.Run(spec, sweep.Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Through the record's file format, as a merge reads shards.
	rec, err := sweep.ReadRecord("rec.json", bytes.NewReader(encode(t, ran)))
	if err != nil {
		t.Fatal(err)
	}
	want := csvOf(t, rec)
	s, err := sweep.NewSummarizer(spec)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(mmcYAML, "mean: 1s", "mean: 3s", 1)
	if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, rp := range rec.Points {
		if err := s.Add(rp, false); err != nil {
			t.Fatalf("Add: %v", err)
		}
	}
	var b bytes.Buffer
	if err := sweep.WriteCSV(&b, sweep.Rows(s.Summaries(false))); err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(s.Summaries(false))
	if got := b.String() + string(js); got != want {
		t.Errorf("summaries after the file changed differ from the sweep's:\n%s\nwant\n%s", got, want)
	}
}
