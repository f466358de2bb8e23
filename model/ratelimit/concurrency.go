package ratelimit

import (
	"fmt"
	"sync/atomic"
)

// Concurrency is a counting semaphore that bounds the number of calls in
// flight: TryAcquire takes a slot if one is free, Release gives it back. It
// never blocks; a caller that is refused queues or gives up by its own policy.
//
// The zero value is a valid Concurrency with no limit (Limit() == 0): every
// TryAcquire succeeds, and InUse still counts the calls in flight.
//
// A Concurrency is safe for concurrent use by multiple goroutines. Its
// methods do not allocate. It must not be copied after first use.
type Concurrency struct {
	limit int64 // 0 = unlimited
	inUse atomic.Int64
}

// NewConcurrency returns a semaphore with limit slots, none in use. A limit
// of 0 means unlimited. It returns an error naming limit if limit < 0.
func NewConcurrency(limit int) (*Concurrency, error) {
	if limit < 0 {
		return nil, fmt.Errorf("ratelimit: limit: must be ≥ 0 (0 = unlimited), got %d", limit)
	}
	return &Concurrency{limit: int64(limit)}, nil
}

// TryAcquire takes a slot and reports true if fewer than Limit() are in use
// (always, when unlimited); otherwise it reports false and changes nothing.
func (c *Concurrency) TryAcquire() bool {
	for {
		cur := c.inUse.Load()
		if c.limit > 0 && cur >= c.limit {
			return false
		}
		if c.inUse.CompareAndSwap(cur, cur+1) {
			return true
		}
	}
}

// Release gives back a slot taken by a successful TryAcquire. It panics if no
// slot is in use: releasing more than was acquired is a programmer error, and
// the count is left unchanged.
func (c *Concurrency) Release() {
	for {
		cur := c.inUse.Load()
		if cur <= 0 {
			panic("ratelimit: Concurrency.Release without a matching TryAcquire")
		}
		if c.inUse.CompareAndSwap(cur, cur-1) {
			return
		}
	}
}

// InUse returns the number of slots currently taken.
func (c *Concurrency) InUse() int { return int(c.inUse.Load()) }

// Limit returns the number of slots, or 0 if the semaphore is unlimited.
func (c *Concurrency) Limit() int { return int(c.limit) }
