package sched

import (
	"slices"
	"time"
)

// Priority is strict non-preemptive priority queuing: Pop returns the
// waiting item with the lowest Priority value among the tenants below
// their MaxInFlight, and among equal priorities the one pushed first.
// An item in service is never interrupted by a more urgent arrival: the
// discipline whose per-class mean waits Cobham (1954) derived for the
// M/G/1 queue ("Priority assignment in waiting line problems", Operations
// Research 2(1):70–76; Kleinrock, Queueing Systems Vol. 2, §3.6).
//
// Pop takes time proportional to the number of tenants times the number
// of distinct priorities in use. The zero value is not usable: use
// [NewPriority].
type Priority[T any] struct {
	t      tenants
	levels []int       // distinct priorities seen, ascending
	q      [][]fifo[T] // q[tenant][level]
}

// NewPriority returns an empty priority queue for the declared tenants
// (nil for none: tenants are then added as they Push). It returns an error
// naming the field of a duplicate name, a negative weight or a negative
// MaxInFlight.
func NewPriority[T any](ts []Tenant) (*Priority[T], error) {
	t, err := newTenants(ts)
	if err != nil {
		return nil, err
	}
	return &Priority[T]{t: t, q: make([][]fifo[T], len(t.spec))}, nil
}

// Push adds it at now, setting it.Enqueued to now. It never fails: every
// priority is valid.
func (p *Priority[T]) Push(now time.Duration, it Item[T]) error {
	ti, added := p.t.lookup(it.Tenant)
	if added {
		p.q = append(p.q, nil)
	}
	li, found := slices.BinarySearch(p.levels, it.Priority)
	if !found {
		p.levels = slices.Insert(p.levels, li, it.Priority)
		for i := range p.q {
			if li < len(p.q[i]) {
				p.q[i] = slices.Insert(p.q[i], li, fifo[T]{})
			}
		}
	}
	if len(p.q[ti]) < len(p.levels) {
		p.q[ti] = append(p.q[ti], make([]fifo[T], len(p.levels)-len(p.q[ti]))...)
	}
	it.Enqueued = now
	p.t.seq++
	p.q[ti][li].push(entry[T]{it: it, seq: p.t.seq})
	p.t.waiting++
	return nil
}

// Pop removes and returns the most urgent eligible item (see [Priority]).
// It reports false if nothing is waiting or every tenant with waiting
// items is at its MaxInFlight.
func (p *Priority[T]) Pop(now time.Duration) (Item[T], bool) {
	for li := range p.levels {
		best, bestSeq := -1, uint64(0)
		for ti, qs := range p.q {
			if li >= len(qs) || qs[li].len() == 0 || !p.t.eligible(ti) {
				continue
			}
			if s := qs[li].front().seq; best < 0 || s < bestSeq {
				best, bestSeq = ti, s
			}
		}
		if best >= 0 {
			e := p.q[best][li].pop()
			p.t.inFlight[best]++
			p.t.waiting--
			return e.it, true
		}
	}
	var zero Item[T]
	return zero, false
}

// Done reports that an item of tenant has finished (see [Queue]).
func (p *Priority[T]) Done(now time.Duration, tenant string) error { return p.t.done(tenant) }

// Len returns the number of waiting items.
func (p *Priority[T]) Len() int { return p.t.waiting }

// InFlight returns the tenant's items popped and not yet Done.
func (p *Priority[T]) InFlight(tenant string) int { return p.t.inFlightOf(tenant) }
