package sweep_test

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/budgetsim/budgetsim/plan/sweep"
)

// integrityYAML is a scenario small enough that a shard file of it can be
// damaged in every bit, one at a time.
const integrityYAML = `name: tiny
seed: 3
runs: 40
warmup: 0
arrivals: {rate: 4/s}
workers: 2
steps:
  - {name: serve, tool: server}
tools:
  server:
    latency: {dist: exponential, mean: 200ms}
`

// integrityShards runs a two-point sweep in two shards and returns their
// files' bytes and the CSV and JSON of the unsharded sweep.
func integrityShards(t *testing.T) (files [2][]byte, want string) {
	t.Helper()
	path := writeScenario(t, integrityYAML)
	spec := sweep.Spec{Scenario: path, Axes: []sweep.Axis{mustAxis(t, "workers=2,3")}, Replications: 1, Level: 0.95}
	whole, err := sweep.Run(spec, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want = csvOf(t, whole)
	for i := range 2 {
		s := spec
		s.Shard, s.Shards = i, 2
		r, err := sweep.Run(s, sweep.Options{})
		if err != nil {
			t.Fatal(err)
		}
		files[i] = encode(t, r)
	}
	return files, want
}

// mergeFiles reads and merges shard files and summarises the merge; ok is
// false when any step refuses them.
func mergeFiles(t *testing.T, files ...[]byte) (out string, ok bool) {
	var recs []*sweep.Record
	for _, f := range files {
		r, err := sweep.ReadRecord("shard", bytes.NewReader(f))
		if err != nil {
			return "", false
		}
		recs = append(recs, r)
	}
	return mergeRecords(t, recs...)
}

// mergeRecords merges and summarises records; ok is false when either
// refuses them.
func mergeRecords(t *testing.T, recs ...*sweep.Record) (out string, ok bool) {
	m, err := sweep.Merge(recs)
	if err != nil {
		return "", false
	}
	if _, err := sweep.Summarize(m); err != nil {
		return "", false
	}
	return csvOf(t, m), true
}

// TestShardBitFlips flips every bit of a shard file, one at a time: each
// damaged file is refused, or merges into the unsharded sweep's output
// byte for byte. Never a different sweep.json with exit 0.
func TestShardBitFlips(t *testing.T) {
	files, want := integrityShards(t)
	if got, ok := mergeFiles(t, files[0], files[1]); !ok || got != want {
		t.Fatalf("the undamaged shards do not merge into the unsharded sweep")
	}
	other, err := sweep.ReadRecord("shard 1", bytes.NewReader(files[1]))
	if err != nil {
		t.Fatal(err)
	}
	// Two goroutines, each flipping the bits of every other byte of its
	// own copy; with -short, of every 14th byte.
	step := 2
	if testing.Short() {
		step = 14
	}
	var bad, accepted [2]int
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := bytes.Clone(files[0])
			for i := g; i < len(b); i += step {
				for bit := range 8 {
					b[i] ^= 1 << bit
					if rec, err := sweep.ReadRecord("shard 0", bytes.NewReader(b)); err == nil {
						accepted[g]++
						if got, ok := mergeRecords(t, rec, other); ok && got != want {
							if bad[g] < 5 {
								t.Errorf("bit %d of byte %d (%q → %q) merges into a different sweep", bit, i, files[0][i], b[i])
							}
							bad[g]++
						}
					}
					b[i] ^= 1 << bit
				}
			}
		}()
	}
	wg.Wait()
	n := 8 * ((len(files[0]) + step/2 - 1) / (step / 2))
	t.Logf("%d bytes, %d flips: %d read without error, %d of them merged differently", len(files[0]), n, accepted[0]+accepted[1], bad[0]+bad[1])
	if bad[0]+bad[1] > 0 {
		t.Errorf("%d of %d single-bit flips merged silently into a different sweep", bad[0]+bad[1], n)
	}
}

// TestShardTrailingBytes: bytes after a shard file's end are an error.
func TestShardTrailingBytes(t *testing.T) {
	files, _ := integrityShards(t)
	for _, tail := range []string{"x", "{}", "\n", " "} {
		if _, err := sweep.ReadRecord("shard", bytes.NewReader(append(bytes.Clone(files[0]), tail...))); err == nil {
			t.Errorf("ReadRecord accepts a shard file followed by %q", tail)
		}
	}
}

// shardLines splits a shard file into its lines (each with its "\n").
func shardLines(b []byte) [][]byte { return bytes.SplitAfter(b, []byte("\n")) }

// TestShardSwapsRefused: moving results between points of one shard file,
// or reordering, dropping or repeating its lines, is refused.
func TestShardSwapsRefused(t *testing.T) {
	path := writeScenario(t, integrityYAML)
	spec := sweep.Spec{Scenario: path, Axes: []sweep.Axis{mustAxis(t, "workers=2,3")}, Replications: 1, Level: 0.95, Shards: 1}
	r, err := sweep.Run(spec, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	file := encode(t, r)
	lines := shardLines(file) // header, point 0, point 1, trailer, ""
	if len(lines) != 5 {
		t.Fatalf("%d lines, want header, 2 points and the trailer", len(lines)-1)
	}
	// The results arrays of the two point lines, exchanged in place.
	results := func(l []byte) (pre, res, post []byte) {
		i := bytes.Index(l, []byte(`"results":`))
		j := bytes.LastIndex(l, []byte(`],`))
		return l[:i], l[i : j+1], l[j+1:]
	}
	p0, r0, s0 := results(lines[1])
	p1, r1, s1 := results(lines[2])
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for name, damaged := range map[string][]byte{
		"results swapped":  join(lines[0], join(p0, r1, s0), join(p1, r0, s1), lines[3]),
		"lines swapped":    join(lines[0], lines[2], lines[1], lines[3]),
		"line dropped":     join(lines[0], lines[2], lines[3]),
		"line repeated":    join(lines[0], lines[1], lines[1], lines[2], lines[3]),
		"trailer dropped":  join(lines[0], lines[1], lines[2]),
		"file cut short":   file[:len(file)-10],
		"two files joined": join(file, file),
	} {
		if _, err := sweep.ReadRecord("shard", bytes.NewReader(damaged)); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if _, err := sweep.ReadRecord("shard", bytes.NewReader(file)); err != nil {
		t.Errorf("the undamaged file: %v", err)
	}
}

// TestCSVMarksAnInterruptedSweep: every row of an interrupted sweep's
// sweep.csv says partial, a complete point's too (sweep.json says so in
// each point's warnings); an uninterrupted sweep's rows say false.
func TestCSVMarksAnInterruptedSweep(t *testing.T) {
	var stop atomic.Bool
	spec := sweep.Spec{Scenario: writeScenario(t, integrityYAML), Axes: []sweep.Axis{mustAxis(t, "workers=2,3")}, Replications: 2, Level: 0.95}
	r, err := sweep.Run(spec, sweep.Options{Parallel: 1, Interrupt: &stop, Progress: func(done, _ int) {
		if done == 2 {
			stop.Store(true)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := sweep.Run(spec, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rec  *sweep.Record
		want string
	}{{r, ",true"}, {whole, ",false"}} {
		sums, err := sweep.Summarize(tc.rec)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := sweep.WriteCSV(&b, sweep.Rows(sums)); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(b.String()), "\n")
		col := slices.Index(strings.Split(lines[0], ","), "partial")
		if col < 0 || len(lines) < 2 {
			t.Fatalf("sweep.csv:\n%s\nwant a partial column and rows", b.String())
		}
		for _, l := range lines[1:] {
			if cells := strings.Split(l, ","); col >= len(cells) || ","+cells[col] != tc.want {
				t.Errorf("sweep.csv row %q (interrupted %v): partial is not %s", l, tc.rec.Partial, tc.want[1:])
			}
		}
	}
}

// TestShardWriterMatchesWriteTo: a shard written point by point as Run
// completes them (ShardWriter, Options.PointDone) is byte for byte the
// file Record.WriteTo writes for the whole record, whole or interrupted.
func TestShardWriterMatchesWriteTo(t *testing.T) {
	spec := sweep.Spec{Scenario: writeScenario(t, integrityYAML), Axes: []sweep.Axis{mustAxis(t, "workers=2,3,4")}, Replications: 3, Level: 0.95, Shard: 1, Shards: 2}
	// options stops Run after n replications (0: never).
	options := func(n int, pointDone func(*sweep.RawPoint) error) sweep.Options {
		var stop atomic.Bool
		return sweep.Options{Parallel: 1, Interrupt: &stop, PointDone: pointDone, Progress: func(done, _ int) {
			if done == n {
				stop.Store(true)
			}
		}}
	}
	for _, stopAt := range []int{0, 2, 3} {
		want, err := sweep.Run(spec, options(stopAt, nil))
		if err != nil {
			t.Fatal(err)
		}
		sw, err := sweep.NewShardWriter(t.TempDir(), spec)
		if err != nil {
			t.Fatal(err)
		}
		added := 0
		got, err := sweep.Run(spec, options(stopAt, func(rp *sweep.RawPoint) error {
			added++
			return sw.Add(rp)
		}))
		if err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		if err := sw.Finish(&a, got); err != nil {
			t.Fatal(err)
		}
		sw.Close()
		if _, err := want.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) || want.Partial != (stopAt > 0) {
			t.Errorf("interrupt after %d: the file written point by point (%d added) differs from WriteTo's (partial %v)", stopAt, added, want.Partial)
		}
		if stopAt == 0 && added != 3 {
			t.Errorf("%d points added as they completed, want all 3", added)
		}
		if stopAt > 0 && added == 0 {
			t.Errorf("interrupt after %d: no point added before it", stopAt)
		}
	}
}
