// Package container holds the simulator's tables: Chunked, a table that
// grows by fixed-size chunks and recycles them, and Ring, a FIFO of
// indices. They know nothing of what they hold.
package container

import "sync"

// ChunkBits sets the size of a Chunked table's chunks: 128 entries.
const ChunkBits = 7

// Chunked is a table of T that grows by fixed-size chunks. Entries never
// move, so growing it copies nothing, and a table that grows large (the
// requests piling up at an overloaded tool in a retry storm) is neither
// copied nor zeroed again at every doubling, as append would.
type Chunked[T any] struct {
	chunks []*[1 << ChunkBits]T
	n      int32
	// Pool, when set, holds free chunks of this type: Add takes them
	// (zeroed) before allocating, Release returns the table's.
	Pool *sync.Pool
}

// Add appends a zero entry and returns its index.
func (c *Chunked[T]) Add() int32 {
	if int(c.n) == len(c.chunks)<<ChunkBits {
		c.chunks = append(c.chunks, c.newChunk())
	}
	i := c.n
	c.n++
	return i
}

func (c *Chunked[T]) newChunk() *[1 << ChunkBits]T {
	if c.Pool != nil {
		if p, ok := c.Pool.Get().(*[1 << ChunkBits]T); ok {
			*p = [1 << ChunkBits]T{}
			return p
		}
	}
	return new([1 << ChunkBits]T)
}

// Release empties the table and hands its chunks to the pool, if any:
// nothing may hold an entry's pointer afterwards.
func (c *Chunked[T]) Release() {
	if c.Pool != nil {
		for _, p := range c.chunks {
			c.Pool.Put(p)
		}
	}
	c.chunks, c.n = nil, 0
}

// At returns entry i, which Add must have returned.
func (c *Chunked[T]) At(i int32) *T {
	return &c.chunks[i>>ChunkBits][i&(1<<ChunkBits-1)]
}

// Len returns the number of entries added.
func (c *Chunked[T]) Len() int { return int(c.n) }
