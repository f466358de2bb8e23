package sweep_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/plan/sweep"
)

// liveHeap returns the bytes of the heap still reachable: HeapAlloc right
// after full collections (two: the second empties the pools the first
// only set aside), which depends on what is kept, not on when the
// collector last ran.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// mergeStreams merges shard files with MergeShards and a Summarizer, as
// the merge command does, and returns the sweep.csv and the summaries'
// JSON of the result (as csvOf does); ok is
// false when either refuses them.
func mergeStreams(t *testing.T, files ...[]byte) (out string, ok bool) {
	t.Helper()
	var shards []*sweep.ShardReader
	for i, f := range files {
		s, err := sweep.NewShardReader(fmt.Sprintf("shard %d", i), bytes.NewReader(f))
		if err != nil {
			return "", false
		}
		shards = append(shards, s)
	}
	var sum *sweep.Summarizer
	_, err := sweep.MergeShards(shards, func(whole *sweep.Record) (func(*sweep.RawPoint) error, error) {
		var err error
		if sum, err = sweep.NewSummarizer(whole.Spec); err != nil {
			return nil, err
		}
		if err := sum.CheckScenario(whole.ScenarioSHA256); err != nil {
			return nil, err
		}
		return func(rp *sweep.RawPoint) error { return sum.Add(rp, false) }, nil
	})
	if err != nil {
		return "", false
	}
	sums := sum.Summaries(false)
	var b bytes.Buffer
	if err := sweep.WriteCSV(&b, sweep.Rows(sums)); err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(sums)
	return b.String() + string(js), true
}

// TestMergeStreamsAPointSplitAcrossShards: a point whose replications are
// dealt to many shards is merged a replication at a time. Sixteen shards
// hold the 64 replications of one point, each result padded to 512 KiB
// (gob ignores the bytes after its message, so they still decode): the
// point's results come to 32 MiB. While MergeShards hands the point on and
// while its results are pooled, the live heap may exceed what was live
// before the merge (the shard files, held by the test, and their readers)
// only by what is kept: the accumulator, one replication's JSON and its
// decoded result, and where the point's replications lie. Holding every
// shard's piece at once, as a merge of decoded lines does, exceeds it by
// the 32 MiB. The merged sweep.csv is the unsharded sweep's, byte for
// byte.
func TestMergeStreamsAPointSplitAcrossShards(t *testing.T) {
	const shards, reps, pad = 16, 64, 512 << 10
	path := writeScenario(t, integrityYAML)
	spec := sweep.Spec{Scenario: path, Axes: []sweep.Axis{mustAxis(t, "workers=2")}, Replications: reps, Level: 0.95}
	padded := func(r *sweep.Record) *sweep.Record {
		for _, p := range r.Points {
			for i := range p.Results {
				p.Results[i].Result = append(p.Results[i].Result, make([]byte, pad)...)
			}
		}
		return r
	}
	whole, err := sweep.Run(spec, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := csvOf(t, padded(whole))
	one := whole.Points[0].Results[0] // a padded result, for the sizes below
	whole = nil
	files := make([][]byte, shards)
	for i := range shards {
		s := spec
		s.Shard, s.Shards = i, shards
		r, err := sweep.Run(s, sweep.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(r.Points[0].Results); n != reps/shards {
			t.Fatalf("shard %d holds %d of the point's replications, want %d", i, n, reps/shards)
		}
		files[i] = encode(t, padded(r))
	}
	if got, ok := mergeStreams(t, files...); !ok || got != want {
		t.Fatalf("the shards merged (ok %v):\n%s\nwant the unsharded sweep:\n%s", ok, got, want)
	}

	// What pooling keeps: an accumulator with results in it (measured
	// over several, so that the collector's own bookkeeping averages out).
	cfg := mustLoad(t, path)
	const accs = 8
	before := liveHeap()
	pool := make([]*summary.Accumulator, accs)
	for i := range pool {
		pool[i] = summary.NewAccumulator(cfg, 0.95)
		r, err := sweep.DecodeResult(one.Result)
		if err != nil {
			t.Fatal(err)
		}
		pool[i].Add(r)
	}
	accBytes := (max(liveHeap(), before) - before) / accs
	runtime.KeepAlive(pool)
	pool = nil
	// One replication in hand: its JSON (base64) and its decoded bytes.
	jsonBytes := uint64(len(fmt.Sprintf(`{"replication":%d,"result":""}`, reps))) + uint64(4*((len(one.Result)+2)/3))
	kept := accBytes + jsonBytes + uint64(len(one.Result)) + reps*64 // 64 bytes a replication's place, generously

	var readers []*sweep.ShardReader
	for i, f := range files {
		s, err := sweep.NewShardReader(fmt.Sprintf("shard %d", i), bytes.NewReader(f))
		if err != nil {
			t.Fatal(err)
		}
		readers = append(readers, s)
	}
	base := liveHeap()
	var peak uint64
	sample := func() { peak = max(peak, liveHeap()) }
	_, err = sweep.MergeShards(readers, func(*sweep.Record) (func(*sweep.RawPoint) error, error) {
		acc := summary.NewAccumulator(cfg, 0.95)
		return func(rp *sweep.RawPoint) error {
			sample()
			return rp.EachResult(func(rep sweep.Replica) error {
				sample()
				r, err := sweep.DecodeResult(rep.Result)
				if err != nil {
					return err
				}
				acc.Add(r)
				return nil
			})
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all := uint64(reps * len(one.Result))
	t.Logf("live heap before the merge %d; peak during it %d (+%d); kept: accumulator %d, one replication %d; the point's results %d", base, peak, peak-base, accBytes, jsonBytes+uint64(len(one.Result)), all)
	if peak > base+kept {
		t.Errorf("merging %d shards of one point kept %d bytes beyond what was live before, want at most %d (an accumulator and one replication); the point's results are %d", shards, peak-base, kept, all)
	}
}

// streamResults merges shard files with MergeShards and returns every
// point's results as EachResult reads them, without summarising them;
// ok is false when MergeShards or EachResult refuses the files.
func streamResults(files ...[]byte) (points []*sweep.RawPoint, ok bool) {
	var shards []*sweep.ShardReader
	for i, f := range files {
		s, err := sweep.NewShardReader(fmt.Sprintf("shard %d", i), bytes.NewReader(f))
		if err != nil {
			return nil, false
		}
		shards = append(shards, s)
	}
	_, err := sweep.MergeShards(shards, func(*sweep.Record) (func(*sweep.RawPoint) error, error) {
		return func(rp *sweep.RawPoint) error {
			q := &sweep.RawPoint{Index: rp.Index, Warmup: rp.Warmup, Planned: rp.Planned, Note: rp.Note}
			points = append(points, q)
			return rp.EachResult(func(rep sweep.Replica) error {
				q.Results = append(q.Results, rep)
				return nil
			})
		}, nil
	})
	return points, err == nil
}

// TestMergeShardsRefusesBitFlips: the streaming merge checks what
// ReadRecord checks. With a bit of a shard file flipped (each bit of every
// 31st byte; of every 211th with -short), MergeShards refuses the files
// exactly when ReadRecord refuses the damaged one, and otherwise hands on
// the points and results that merging the records gives.
func TestMergeShardsRefusesBitFlips(t *testing.T) {
	files, want := integrityShards(t)
	if got, ok := mergeStreams(t, files[0], files[1]); !ok || got != want {
		t.Fatalf("the undamaged shards do not merge into the unsharded sweep")
	}
	other, err := sweep.ReadRecord("shard 1", bytes.NewReader(files[1]))
	if err != nil {
		t.Fatal(err)
	}
	step := 31
	if testing.Short() {
		step = 211
	}
	b := bytes.Clone(files[0])
	flips, accepted, wrong := 0, 0, 0
	for i := 0; i < len(b); i += step {
		for bit := range 8 {
			b[i] ^= 1 << bit
			flips++
			got, ok := streamResults(b, files[1])
			rec, err := sweep.ReadRecord("shard 0", bytes.NewReader(b))
			var whole *sweep.Record
			if err == nil {
				whole, err = sweep.Merge([]*sweep.Record{rec, other})
			}
			switch {
			case ok != (err == nil):
				wrong++
				if wrong <= 5 {
					t.Errorf("bit %d of byte %d (%q → %q): MergeShards accepts %v, ReadRecord and Merge %v", bit, i, files[0][i], b[i], ok, err)
				}
			case ok:
				accepted++
				if !reflect.DeepEqual(got, whole.Points) {
					wrong++
					t.Errorf("bit %d of byte %d: MergeShards hands on other results than Merge", bit, i)
				}
			}
			b[i] ^= 1 << bit
		}
	}
	t.Logf("%d bytes, %d flips: %d merged, %d disagreements", len(b), flips, accepted, wrong)
}

// FuzzMergeShards feeds a damaged first shard, beside an undamaged
// second, to the streaming merge: it must not panic, and must accept the
// files exactly when ReadRecord and Merge do, handing on the points and
// results Merge gives. `go test ./plan/sweep -run XXX -fuzz
// '^FuzzMergeShards$'` fuzzes it.
func FuzzMergeShards(f *testing.F) {
	path := writeScenario(f, integrityYAML)
	spec := sweep.Spec{Scenario: path, Axes: []sweep.Axis{{Key: "workers", Values: []string{"2", "3"}}}, Replications: 1, Level: 0.95}
	var files [2][]byte
	for i := range files {
		s := spec
		s.Shard, s.Shards = i, 2
		r, err := sweep.Run(s, sweep.Options{})
		if err != nil {
			f.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := r.WriteTo(&b); err != nil {
			f.Fatal(err)
		}
		files[i] = b.Bytes()
	}
	other, err := sweep.ReadRecord("shard 1", bytes.NewReader(files[1]))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(files[0])
	lines := bytes.SplitAfter(files[0], []byte("\n"))
	f.Add(bytes.Join([][]byte{lines[0], lines[len(lines)-2]}, nil)) // the point dropped
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := streamResults(data, files[1])
		rec, err := sweep.ReadRecord("shard 0", bytes.NewReader(data))
		var whole *sweep.Record
		if err == nil {
			whole, err = sweep.Merge([]*sweep.Record{rec, other})
		}
		if ok != (err == nil) {
			t.Fatalf("MergeShards accepts %v, ReadRecord and Merge %v", ok, err)
		}
		if ok && !reflect.DeepEqual(got, whole.Points) {
			t.Fatalf("MergeShards hands on other results than Merge")
		}
	})
}
