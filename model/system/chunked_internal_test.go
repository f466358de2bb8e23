package system

import (
	"sync"
	"testing"
)

// TestChunkedKeepsEntries: entries keep their values and their addresses
// while the table grows across many chunks (nothing is copied).
func TestChunkedKeepsEntries(t *testing.T) {
	var c chunked[run]
	const n = 5<<chunkBits + 17
	first := c.at(c.add())
	first.id = 42
	for i := 1; i < n; i++ {
		c.at(c.add()).id = int64(i)
	}
	if c.len() != n || c.at(0) != first || first.id != 42 {
		t.Fatalf("len %d (want %d); entry 0 moved or changed: %p vs %p, id %d", c.len(), n, c.at(0), first, first.id)
	}
	for i := int32(1); i < n; i++ {
		if got := c.at(i).id; got != int64(i) {
			t.Fatalf("entry %d holds %d", i, got)
		}
	}
}

// A table's released chunks serve the next table zeroed.
func TestChunkedReusesChunksZeroed(t *testing.T) {
	var pool sync.Pool
	for range 3 {
		a := chunked[int64]{pool: &pool}
		for range 300 {
			*a.at(a.add()) = 7
		}
		a.release()
		if a.len() != 0 || a.chunks != nil {
			t.Fatalf("release left %d entries", a.len())
		}
		b := chunked[int64]{pool: &pool}
		for range 300 {
			if i := b.add(); *b.at(i) != 0 {
				t.Fatalf("entry %d of a table on recycled chunks = %d, want 0", i, *b.at(i))
			}
		}
		b.release()
	}
}
