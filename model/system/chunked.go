package system

// chunkBits sets the size of a chunked table's chunks: 128 entries.
const chunkBits = 7

// chunked is a table of T that grows by fixed-size chunks. Entries never
// move, so growing it copies nothing, and a table that grows large (the
// requests piling up at an overloaded tool in a retry storm) is neither
// copied nor zeroed again at every doubling, as append would.
type chunked[T any] struct {
	chunks []*[1 << chunkBits]T
	n      int32
}

// add appends a zero entry and returns its index.
func (c *chunked[T]) add() int32 {
	if int(c.n) == len(c.chunks)<<chunkBits {
		c.chunks = append(c.chunks, new([1 << chunkBits]T))
	}
	i := c.n
	c.n++
	return i
}

// at returns entry i, which add must have returned.
func (c *chunked[T]) at(i int32) *T {
	return &c.chunks[i>>chunkBits][i&(1<<chunkBits-1)]
}

// len returns the number of entries added.
func (c *chunked[T]) len() int { return int(c.n) }
