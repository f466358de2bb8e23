package system

import "testing"

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
