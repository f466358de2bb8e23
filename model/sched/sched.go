package sched

import (
	"fmt"
	"math"
	"time"
)

// A Tenant is a party whose work shares the queue: a customer, a class of
// work or a team.
type Tenant struct {
	// Name identifies the tenant in [Item.Tenant].
	Name string
	// Weight is the tenant's share under [Fair]: while backlogged, a
	// tenant receives work in proportion Weight / (sum of the weights of
	// the backlogged tenants). 0 means 1. [Priority] ignores it.
	Weight float64
	// MaxInFlight caps the tenant's items that have been popped and not
	// yet reported Done. 0 means no cap.
	MaxInFlight int
}

// An Item is one unit of work waiting in a queue.
type Item[T any] struct {
	// Tenant names the tenant the work belongs to. A tenant not declared
	// when the queue was made is added on its first Push with weight 1 and
	// no cap on work in flight.
	Tenant string
	// Priority orders work under [Priority]: lower values first, 0 before
	// 1. [Fair] ignores it.
	Priority int
	// Cost is the item's size under [Fair]: its expected service time or
	// its tokens, in any unit shared by all items. 0 means 1, so that
	// shares count items. [Priority] ignores it.
	Cost float64
	// Value is the caller's payload, returned unchanged by Pop.
	Value T
	// Enqueued is the instant of the Push, set by Push.
	Enqueued time.Duration
	// Deadline is the instant from which the item is no longer worth
	// serving, on the clock of Push and Pop; 0 means none. Pop hands an
	// expired item out like any other, so that the caller can record and
	// drop it, and [Fair] charges its tenant nothing for it. [Priority]
	// ignores it.
	Deadline time.Duration
}

// Expired reports whether the item's deadline has been reached at now:
// Deadline > 0 and now ≥ Deadline.
func (it *Item[T]) Expired(now time.Duration) bool {
	return it.Deadline > 0 && now >= it.Deadline
}

// Queue is the interface both disciplines implement.
type Queue[T any] interface {
	// Push adds it at now. It returns an error naming the field if the
	// item is invalid.
	Push(now time.Duration, it Item[T]) error
	// Pop removes and returns the next eligible item at now, counting it
	// in flight for its tenant; ok is false if no item is waiting or
	// every waiting item's tenant is at its MaxInFlight.
	Pop(now time.Duration) (it Item[T], ok bool)
	// Done reports at now that an item of tenant popped earlier has
	// finished, freeing a slot of its MaxInFlight. It returns an error if
	// the tenant has nothing in flight.
	Done(now time.Duration, tenant string) error
	// Len returns the number of items waiting.
	Len() int
	// InFlight returns the number of items of tenant popped and not yet
	// Done.
	InFlight(tenant string) int
}

// entry is a queued item with its tie-breaking sequence number.
type entry[T any] struct {
	it  Item[T]
	seq uint64
}

// fifo is a first-in-first-out queue of entries.
type fifo[T any] struct {
	items []entry[T]
	head  int
}

func (f *fifo[T]) len() int         { return len(f.items) - f.head }
func (f *fifo[T]) front() *entry[T] { return &f.items[f.head] }
func (f *fifo[T]) push(e entry[T])  { f.items = append(f.items, e) }
func (f *fifo[T]) pop() entry[T] {
	e := f.items[f.head]
	f.items[f.head] = entry[T]{}
	f.head++
	if f.head == len(f.items) {
		f.items, f.head = f.items[:0], 0
	} else if f.head > 32 && f.head*2 > len(f.items) {
		n := copy(f.items, f.items[f.head:])
		clear(f.items[n:])
		f.items, f.head = f.items[:n], 0
	}
	return e
}

// tenants is the bookkeeping both disciplines share: tenants in the order
// they were declared or first seen, their specs and their work in flight.
type tenants struct {
	index    map[string]int
	spec     []Tenant
	inFlight []int
	seq      uint64
	waiting  int
}

func newTenants(ts []Tenant) (tenants, error) {
	t := tenants{index: make(map[string]int, len(ts))}
	for i, x := range ts {
		if _, dup := t.index[x.Name]; dup {
			return tenants{}, fmt.Errorf("sched: tenants[%d].Name: duplicate tenant %q", i, x.Name)
		}
		if math.IsNaN(x.Weight) || math.IsInf(x.Weight, 0) || x.Weight < 0 {
			return tenants{}, fmt.Errorf("sched: tenants[%d].Weight: must be finite and ≥ 0 (0 for 1), got %v", i, x.Weight)
		}
		if x.MaxInFlight < 0 {
			return tenants{}, fmt.Errorf("sched: tenants[%d].MaxInFlight: must be ≥ 0 (0 for no cap), got %d", i, x.MaxInFlight)
		}
		if x.Weight == 0 {
			x.Weight = 1
		}
		t.add(x)
	}
	return t, nil
}

func (t *tenants) add(x Tenant) int {
	i := len(t.spec)
	t.index[x.Name] = i
	t.spec = append(t.spec, x)
	t.inFlight = append(t.inFlight, 0)
	return i
}

// lookup returns the index of the tenant name, adding it with weight 1 and
// no cap if it is new, and whether it was added.
func (t *tenants) lookup(name string) (int, bool) {
	if i, ok := t.index[name]; ok {
		return i, false
	}
	return t.add(Tenant{Name: name, Weight: 1}), true
}

func (t *tenants) eligible(i int) bool {
	c := t.spec[i].MaxInFlight
	return c == 0 || t.inFlight[i] < c
}

func (t *tenants) done(tenant string) error {
	i, ok := t.index[tenant]
	if !ok || t.inFlight[i] == 0 {
		return fmt.Errorf("sched: Done(%q): tenant has no work in flight", tenant)
	}
	t.inFlight[i]--
	return nil
}

func (t *tenants) inFlightOf(tenant string) int {
	if i, ok := t.index[tenant]; ok {
		return t.inFlight[i]
	}
	return 0
}
