package sched

import (
	"fmt"
	"math"
	"time"
)

// Fair is weighted fair queuing across tenants by start-time fair queuing
// (SFQ: P. Goyal, H. M. Vin and H. Cheng, "Start-time fair queuing: a
// scheduling algorithm for integrated services packet switching
// networks", ACM SIGCOMM 1996). Each item gets a start tag
//
//	S = max(v, F of the tenant's previous item),  F = S + Cost/Weight
//
// where v, the virtual time, is the start tag of the item most recently
// handed out (and, once the queue has run empty, the largest finish tag
// handed out). Pop returns the eligible item with the smallest start tag,
// the earliest pushed among equal tags.
//
// Guarantee: when no tenant is held back by its MaxInFlight, over any
// stretch of Pops during which tenants f and g both have items waiting,
// the costs handed out, C_f and C_g, satisfy
// |C_f/w_f − C_g/w_g| ≤ c_f/w_f + c_g/w_g, where c is the largest single
// item cost of each (SFQ's fairness theorem; from the moment both start
// backlogged, the tighter max(c_f/w_f, c_g/w_g)). So a tenant that floods
// the queue cannot push another backlogged tenant's share below its
// weight, and a tenant that was idle does not bank credit for later: its
// first new item starts at the current virtual time. A tenant held back at
// its cap keeps its tags, so once a slot frees it is served ahead of the
// tenants that ran on meanwhile. SFQ needs no knowledge of service times
// or of the number of workers, which makes it suit a pool of workers.
//
// Pop takes time proportional to the number of tenants. The zero value is
// not usable: use [NewFair].
type Fair[T any] struct {
	t       tenants
	q       []fifo[T] // per tenant
	lastFin []float64 // finish tag of each tenant's latest item
	v       float64   // virtual time
	maxFin  float64   // largest finish tag handed out
}

// NewFair returns an empty fair queue for the declared tenants (nil for
// none: tenants are then added with weight 1 as they Push). It returns an
// error naming the field of a duplicate name, a negative or non-finite
// weight or a negative MaxInFlight.
func NewFair[T any](ts []Tenant) (*Fair[T], error) {
	t, err := newTenants(ts)
	if err != nil {
		return nil, err
	}
	n := len(t.spec)
	return &Fair[T]{t: t, q: make([]fifo[T], n), lastFin: make([]float64, n)}, nil
}

// Push adds it at now, setting it.Enqueued to now and its tags. It returns
// an error naming Cost if the cost is negative or not finite, and pushes
// nothing then.
func (f *Fair[T]) Push(now time.Duration, it Item[T]) error {
	if math.IsNaN(it.Cost) || math.IsInf(it.Cost, 0) || it.Cost < 0 {
		return fmt.Errorf("sched: Cost: must be finite and ≥ 0 (0 for 1), got %v", it.Cost)
	}
	ti, added := f.t.lookup(it.Tenant)
	if added {
		f.q = append(f.q, fifo[T]{})
		f.lastFin = append(f.lastFin, 0)
	}
	cost := it.Cost
	if cost == 0 {
		cost = 1
	}
	start := max(f.v, f.lastFin[ti])
	fin := start + cost/f.t.spec[ti].Weight
	f.lastFin[ti] = fin
	it.Enqueued = now
	f.t.seq++
	f.q[ti].push(entry[T]{it: it, seq: f.t.seq, start: start, fin: fin})
	f.t.waiting++
	return nil
}

// Pop removes and returns the eligible item with the smallest start tag
// (see [Fair]). It reports false if nothing is waiting or every tenant
// with waiting items is at its MaxInFlight.
func (f *Fair[T]) Pop(now time.Duration) (Item[T], bool) {
	best := -1
	for ti := range f.q {
		if f.q[ti].len() == 0 || !f.t.eligible(ti) {
			continue
		}
		if best < 0 {
			best = ti
			continue
		}
		e, b := f.q[ti].front(), f.q[best].front()
		if e.start < b.start || (e.start == b.start && e.seq < b.seq) {
			best = ti
		}
	}
	if best < 0 {
		var zero Item[T]
		return zero, false
	}
	e := f.q[best].pop()
	f.t.inFlight[best]++
	f.t.waiting--
	f.v = max(f.v, e.start)
	f.maxFin = max(f.maxFin, e.fin)
	if f.t.waiting == 0 {
		// The queue has run empty: SFQ sets the virtual time to the
		// largest finish tag served, so that no tenant carries credit
		// into the next busy period.
		f.v = f.maxFin
	}
	return e.it, true
}

// Done reports that an item of tenant has finished (see [Queue]).
func (f *Fair[T]) Done(now time.Duration, tenant string) error { return f.t.done(tenant) }

// Len returns the number of waiting items.
func (f *Fair[T]) Len() int { return f.t.waiting }

// InFlight returns the tenant's items popped and not yet Done.
func (f *Fair[T]) InFlight(tenant string) int { return f.t.inFlightOf(tenant) }

// Compile-time checks that both disciplines implement Queue.
var (
	_ Queue[int] = (*Priority[int])(nil)
	_ Queue[int] = (*Fair[int])(nil)
)
