package sched

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Fair is weighted fair queuing across tenants by start-time fair queuing
// (SFQ: P. Goyal, H. M. Vin and H. Cheng, "Start-time fair queuing: a
// scheduling algorithm for integrated services packet switching
// networks", ACM SIGCOMM 1996), with each item tagged when it reaches the
// head of its tenant's queue rather than when it is pushed. The head item
// of each tenant gets a start tag
//
//	S = max(v, F),  and on being handed out a finish tag F' = S + Cost/Weight
//
// where F is the finish tag of the tenant's last item handed out and v, the
// virtual time, is the start tag of the item most recently handed out (and,
// once the queue has run empty, the largest finish tag handed out). Pop
// returns the eligible head with the smallest start tag, the earliest
// pushed among equal tags.
//
// An item popped at or after its [Item.Deadline] is handed out (so that
// the caller can record and drop it) but charged nothing: its finish tag
// is its start tag, as if its cost were 0, and the tenant's next item
// starts where it would have. So a tenant whose waiting items expire is not
// charged turns for work nobody served, and keeps its share of the work
// that is served.
//
// Guarantee: when no tenant is held back by its MaxInFlight, over any
// stretch of Pops during which tenants f and g both have items waiting,
// the costs of the unexpired items handed out, C_f and C_g, satisfy
// |C_f/w_f − C_g/w_g| ≤ c_f/w_f + c_g/w_g, where c is the largest single
// item cost of each (SFQ's fairness theorem, expired items counting as
// cost 0). So a tenant that floods the queue cannot push another
// backlogged tenant's share below its weight, whether or not its own items
// outlive their deadlines, and a tenant that was idle does not bank credit
// for later: its first new item starts at the current virtual time. A
// tenant held back at its cap keeps its head's tag, so once a slot frees
// that one item is served ahead of the tenants that ran on meanwhile. SFQ
// needs no knowledge of service times or of the number of workers, which
// makes it suit a pool of workers.
//
// Tagging at the head instead of on arrival gives the same tags while a
// tenant stays backlogged and nothing expires; it is what lets an expired
// item give its turn back without retagging the items behind it.
//
// Pop takes time proportional to the number of tenants. The zero value is
// not usable: use [NewFair].
type Fair[T any] struct {
	t       tenants
	q       []fifo[T] // per tenant
	head    []float64 // start tag of each tenant's head item (if it has one)
	lastFin []float64 // finish tag of each tenant's latest item handed out
	v       float64   // virtual time
	maxFin  float64   // largest finish tag handed out
	last    popped    // the last Pop, for Refund
}

// popped is what Refund needs to undo the charge of the last Pop.
type popped struct {
	ok     bool    // a Pop with nothing pushed or popped since
	ti     int     // its tenant
	start  float64 // its item's start tag
	v      float64 // the virtual time right after it took the tag
	maxFin float64 // the largest finish tag before it
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
	return &Fair[T]{t: t, q: make([]fifo[T], n), head: make([]float64, n), lastFin: make([]float64, n)}, nil
}

// Push adds it at now, setting it.Enqueued to now; an item that reaches
// the head of its tenant's queue is tagged then. It returns an error
// naming Cost if the cost is negative or not finite, and pushes nothing
// then.
func (f *Fair[T]) Push(now time.Duration, it Item[T]) error {
	if math.IsNaN(it.Cost) || math.IsInf(it.Cost, 0) || it.Cost < 0 {
		return fmt.Errorf("sched: Cost: must be finite and ≥ 0 (0 for 1), got %v", it.Cost)
	}
	ti, added := f.t.lookup(it.Tenant)
	if added {
		f.q = append(f.q, fifo[T]{})
		f.head = append(f.head, 0)
		f.lastFin = append(f.lastFin, 0)
	}
	if f.q[ti].len() == 0 {
		f.head[ti] = max(f.v, f.lastFin[ti])
	}
	it.Enqueued = now
	f.last.ok = false
	f.t.seq++
	f.q[ti].push(entry[T]{it: it, seq: f.t.seq})
	f.t.waiting++
	return nil
}

// Pop removes and returns the eligible head with the smallest start tag
// (see [Fair]), charging its tenant unless the item's deadline has passed
// at now. It reports false if nothing is waiting or every tenant with
// waiting items is at its MaxInFlight.
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
		if s, b := f.head[ti], f.head[best]; s < b || (s == b && f.q[ti].front().seq < f.q[best].front().seq) {
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
	start := f.head[best]
	fin := start
	if !e.it.Expired(now) {
		cost := e.it.Cost
		if cost == 0 {
			cost = 1
		}
		fin = start + cost/f.t.spec[best].Weight
	}
	f.lastFin[best] = fin
	f.v = max(f.v, start)
	f.last = popped{ok: true, ti: best, start: start, v: f.v, maxFin: f.maxFin}
	f.maxFin = max(f.maxFin, fin)
	if f.q[best].len() > 0 {
		f.head[best] = max(f.v, fin)
	}
	if f.t.waiting == 0 {
		// The queue has run empty: SFQ sets the virtual time to the
		// largest finish tag served, so that no tenant carries credit
		// into the next busy period.
		f.v = f.maxFin
	}
	return e.it, true
}

// Refund gives back the turn of the item the last Pop returned, which the
// caller drops unserved for a reason its Deadline could not tell (a call
// whose caller gave up or cancelled it while it waited): its tenant is
// charged nothing, exactly as if the item had expired. It must follow that
// Pop with no Push or Pop in between, and returns an error otherwise.
func (f *Fair[T]) Refund() error {
	l := f.last
	if !l.ok {
		return errors.New("sched: Refund: not right after a Pop")
	}
	f.last.ok = false
	f.lastFin[l.ti] = l.start
	f.v = l.v
	f.maxFin = max(l.maxFin, l.start)
	if f.q[l.ti].len() > 0 {
		f.head[l.ti] = max(f.v, l.start)
	}
	if f.t.waiting == 0 {
		f.v = f.maxFin
	}
	return nil
}

// PushOut makes room for an item of tenant in a full queue by longest
// queue drop, weighted, from the front: of the tenants with items
// waiting, counting tenant with one item more (the one arriving), the one
// with the most waiting items per unit of weight gives up its oldest item,
// which PushOut removes and returns (the caller refuses it, then pushes
// the arrival); the item behind it takes over its start tag. When that
// tenant is the arriving one (it wins ties), nothing is removed and ok is
// false: the arrival is the item to refuse.
//
// This is the buffer management fair queuing needs (B. Suter, T. V.
// Lakshman, D. Stiliadis and A. K. Choudhury, "Design considerations for
// supporting TCP with per-flow queueing", IEEE INFOCOM 1998: longest queue
// drop; dropping from the front as in T. V. Lakshman, A. Neidhardt and
// T. J. Ott, "The drop from front strategy in TCP and in TCP over ATM",
// IEEE INFOCOM 1996). With tail drop, a tenant sending faster than its
// share fills a bounded queue, the others' arrivals find it full, and
// their backlog, and with it their share of the work, drains away,
// whatever order Pop serves in. Under longest queue drop a tenant holding
// no more than its weight's share of the room never loses an item to
// another's flood (a tenant losing one holds at least (C+1)·w/W of a
// queue of C), so a tenant that keeps sending keeps its backlog and the
// share Pop guarantees. The oldest item goes rather than the newest
// because it is the nearest to its deadline: the tenant keeps the runs
// that can still be served in time, and its place in the order.
func (f *Fair[T]) PushOut(tenant string) (out Item[T], ok bool) {
	ti, added := f.t.lookup(tenant)
	if added {
		f.q = append(f.q, fifo[T]{})
		f.head = append(f.head, 0)
		f.lastFin = append(f.lastFin, 0)
	}
	longest, most := ti, float64(f.q[ti].len()+1)/f.t.spec[ti].Weight
	for tj := range f.q {
		if tj == ti || f.q[tj].len() == 0 {
			continue
		}
		if per := float64(f.q[tj].len()) / f.t.spec[tj].Weight; per > most {
			longest, most = tj, per
		}
	}
	if longest == ti {
		return out, false
	}
	e := f.q[longest].pop()
	f.t.waiting--
	f.last.ok = false
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
