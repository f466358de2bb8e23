package system

import "sync"

// chunkBits sets the size of a chunked table's chunks: 128 entries.
const chunkBits = 7

// chunked is a table of T that grows by fixed-size chunks. Entries never
// move, so growing it copies nothing, and a table that grows large (the
// requests piling up at an overloaded tool in a retry storm) is neither
// copied nor zeroed again at every doubling, as append would.
type chunked[T any] struct {
	chunks []*[1 << chunkBits]T
	n      int32
	// pool, when set, holds free chunks of this type: add takes them
	// (zeroed) before allocating, release returns the table's.
	pool *sync.Pool
}

// add appends a zero entry and returns its index.
func (c *chunked[T]) add() int32 {
	if int(c.n) == len(c.chunks)<<chunkBits {
		c.chunks = append(c.chunks, c.newChunk())
	}
	i := c.n
	c.n++
	return i
}

func (c *chunked[T]) newChunk() *[1 << chunkBits]T {
	if c.pool != nil {
		if p, ok := c.pool.Get().(*[1 << chunkBits]T); ok {
			*p = [1 << chunkBits]T{}
			return p
		}
	}
	return new([1 << chunkBits]T)
}

// release empties the table and hands its chunks to the pool, if any:
// nothing may hold an entry's pointer afterwards.
func (c *chunked[T]) release() {
	if c.pool != nil {
		for _, p := range c.chunks {
			c.pool.Put(p)
		}
	}
	c.chunks, c.n = nil, 0
}

// at returns entry i, which add must have returned.
func (c *chunked[T]) at(i int32) *T {
	return &c.chunks[i>>chunkBits][i&(1<<chunkBits-1)]
}

// len returns the number of entries added.
func (c *chunked[T]) len() int { return int(c.n) }
