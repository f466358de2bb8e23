package sweep_test

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/budgetsim/budgetsim/plan/sweep"
)

// TestShardLineMemory: reading and writing a shard file's point line
// allocate a bounded multiple of the line's size (measured in bytes
// allocated, which do not depend on timing): the line and its decoded
// results, not copies on copies (10 times the line before). A 32 MiB
// result (a 43 MiB line of base64) is read and written with at most 4
// times the line allocated, so that merging shards whose lines are at
// sweep.MaxShardLineBytes stays inside the 4 GB docs/limits.md promises.
func TestShardLineMemory(t *testing.T) {
	path := writeScenario(t, integrityYAML)
	spec := sweep.Spec{Scenario: path, Axes: []sweep.Axis{mustAxis(t, "workers=2")}, Replications: 1, Level: 0.95}
	r, err := sweep.Run(spec, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Points[0].Results[0].Result = make([]byte, 32<<20)
	var buf bytes.Buffer
	if _, err := r.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	size := buf.Len()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := sweep.NewShardReader("shard", bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); err != io.EOF {
		t.Fatalf("after the point: %v, want io.EOF", err)
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(p)
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > 4*uint64(size) {
		t.Errorf("reading a %d-byte line allocated %d bytes (%.1f×), want at most 4×", size, alloc, float64(alloc)/float64(size))
	}
	// Reading a whole record's line at the bound (4×, the bound above)
	// with room for a second line's results (2×) must stay within half
	// the 4 GB budget, the other half the garbage collector's headroom.
	// (A merge streams its lines: TestMergeStreamsAPointSplitAcrossShards.)
	if sweep.MaxShardLineBytes*6 > 2<<30 {
		t.Errorf("MaxShardLineBytes %d: two lines at the bound would not fit 2 GiB", sweep.MaxShardLineBytes)
	}
	// Writing the line allocates the encoder's buffer, not copies of it.
	runtime.ReadMemStats(&before)
	if _, err := r.WriteTo(io.Discard); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if w := after.TotalAlloc - before.TotalAlloc; w > 4*uint64(size) {
		t.Errorf("writing a %d-byte line allocated %d bytes (%.1f×), want at most 4×", size, w, float64(w)/float64(size))
	}
}
