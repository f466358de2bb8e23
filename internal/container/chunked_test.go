package container

import (
	"sync"
	"testing"
)

// entry stands for a table's element: a struct larger than a word.
type entry struct {
	id  int64
	pad [3]int64
}

// TestChunkedKeepsEntries: entries keep their values and their addresses
// while the table grows across many chunks (nothing is copied).
func TestChunkedKeepsEntries(t *testing.T) {
	var c Chunked[entry]
	const n = 5<<ChunkBits + 17
	first := c.At(c.Add())
	first.id = 42
	for i := 1; i < n; i++ {
		c.At(c.Add()).id = int64(i)
	}
	if c.Len() != n || c.At(0) != first || first.id != 42 {
		t.Fatalf("len %d (want %d); entry 0 moved or changed: %p vs %p, id %d", c.Len(), n, c.At(0), first, first.id)
	}
	for i := int32(1); i < n; i++ {
		if got := c.At(i).id; got != int64(i) {
			t.Fatalf("entry %d holds %d", i, got)
		}
	}
}

// A table's released chunks serve the next table zeroed.
func TestChunkedReusesChunksZeroed(t *testing.T) {
	var pool sync.Pool
	for range 3 {
		a := Chunked[int64]{Pool: &pool}
		for range 300 {
			*a.At(a.Add()) = 7
		}
		a.Release()
		if a.Len() != 0 || a.chunks != nil {
			t.Fatalf("release left %d entries", a.Len())
		}
		b := Chunked[int64]{Pool: &pool}
		for range 300 {
			if i := b.Add(); *b.At(i) != 0 {
				t.Fatalf("entry %d of a table on recycled chunks = %d, want 0", i, *b.At(i))
			}
		}
		b.Release()
	}
}
