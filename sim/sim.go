package sim

import (
	"fmt"
	"time"
)

// Kind identifies what an Event means to the model that scheduled it.
type Kind int32

// Event is one scheduled occurrence. At is the virtual instant it happens;
// Kind, Ref and Arg are the model's own payload (for example an event type,
// an index into a table of runs, and a generation number).
type Event struct {
	At   time.Duration
	Kind Kind
	Ref  int32
	Arg  int64
}

// Timer is a handle to a scheduled event, used to cancel it. The zero Timer
// refers to no event: cancelling it is a no-op.
type Timer struct {
	slot int32 // slot index + 1, so that the zero value is "no timer"
	gen  uint32
}

// Valid reports whether t was returned by a scheduling call (it may since have
// fired or been cancelled; see Sim.Pending).
func (t Timer) Valid() bool { return t.slot != 0 }

// entry is one element of the 4-ary heap: the ordering key (at, seq) and the
// slot holding the payload, 24 bytes, so that sifting moves little memory
// and never chases a pointer.
type entry struct {
	at   time.Duration
	seq  uint64
	slot int32
}

// slot holds a scheduled event's payload and where its entry sits in the
// heap, so that Cancel removes it in O(log n). gen changes every time the
// slot is reused, which makes old Timer handles harmless.
type slot struct {
	pos  int32 // index in heap, or -1 when not scheduled
	gen  uint32
	kind Kind
	ref  int32
	arg  int64
}

// sourceSlot marks, in a Timer, the source lane (see Sim.Source).
const sourceSlot = -1

// Sim is one simulation's clock and future-event list. The zero value is not
// usable; call New. A Sim is not safe for concurrent use.
//
// Besides the heap, a Sim has one source lane: a single pending event that
// a model reschedules itself, such as the next arrival of an open process.
// Keeping it out of the heap saves a sift per arrival; it is ordered with
// the heap's events by the same (instant, scheduling order) key, so using
// it changes no delivery order.
type Sim struct {
	_         CacheLinePad
	now       time.Duration
	seq       uint64
	heap      []entry
	hole      bool // heap[0] was taken by Next and not yet replaced (see Next)
	slots     []slot
	free      []int32
	processed uint64

	src    entry // the source lane's key; valid when srcSet
	srcEv  Event
	srcSet bool
	srcGen uint32
	_      CacheLinePad
}

// CacheLinePad, as the first and last field of a small, often-written
// struct, keeps it off the cache lines of its neighbours in memory.
// Replications running in parallel allocate their simulators, streams and
// counters side by side; without padding, every write by one invalidates a
// line the other is using (false sharing), which measurably slowed
// replications running on two cores.
type CacheLinePad [64]byte

// New returns a simulator at virtual time 0 with room for hint pending events
// before its tables grow.
func New(hint int) *Sim {
	if hint < 16 {
		hint = 16
	}
	return &Sim{
		heap:  make([]entry, 0, hint),
		slots: make([]slot, 0, hint),
		free:  make([]int32, 0, hint),
	}
}

// Now returns the current virtual time: the instant of the event most
// recently returned by Next (0 before the first).
func (s *Sim) Now() time.Duration { return s.now }

// Len returns the number of pending events.
func (s *Sim) Len() int {
	n := len(s.heap)
	if s.hole {
		n--
	}
	if s.srcSet {
		n++
	}
	return n
}

// Processed returns the number of events returned by Next so far.
func (s *Sim) Processed() uint64 { return s.processed }

// At schedules an event at instant at and returns a handle to cancel it.
// Scheduling in the past is a programmer error and panics. Events at the same
// instant are delivered in the order they were scheduled.
func (s *Sim) At(at time.Duration, kind Kind, ref int32, arg int64) Timer {
	if at < s.now {
		panic(fmt.Sprintf("sim: At(%v) is before now (%v)", at, s.now))
	}
	var id int32
	if n := len(s.free); n > 0 {
		id = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		id = int32(len(s.slots))
		s.slots = append(s.slots, slot{})
	}
	s.seq++
	sl := &s.slots[id]
	sl.kind, sl.ref, sl.arg = kind, ref, arg
	e := entry{at: at, seq: s.seq, slot: id}
	if s.hole {
		// The root's event was just delivered: the new one takes its
		// place and sinks, one pass where a removal and an insertion
		// take two.
		s.hole = false
		s.heap[0] = e
		s.down(0)
		return Timer{slot: id + 1, gen: sl.gen}
	}
	pos := len(s.heap)
	s.heap = append(s.heap, e)
	s.up(pos)
	return Timer{slot: id + 1, gen: sl.gen}
}

// After schedules an event d after now; d < 0 is a programmer error.
func (s *Sim) After(d time.Duration, kind Kind, ref int32, arg int64) Timer {
	return s.At(s.now+d, kind, ref, arg)
}

// Source schedules an event in the source lane, replacing the lane's
// pending event if it has one (which is then never delivered). It orders
// exactly like At: by instant, then by scheduling order among all events.
// A model uses it for a stream it reschedules one at a time, like the next
// arrival; the returned Timer cancels it as At's do.
func (s *Sim) Source(at time.Duration, kind Kind, ref int32, arg int64) Timer {
	if at < s.now {
		panic(fmt.Sprintf("sim: Source(%v) is before now (%v)", at, s.now))
	}
	s.seq++
	s.srcGen++
	s.src = entry{at: at, seq: s.seq, slot: sourceSlot}
	s.srcEv = Event{At: at, Kind: kind, Ref: ref, Arg: arg}
	s.srcSet = true
	return Timer{slot: sourceSlot, gen: s.srcGen}
}

// ReserveSeq reserves the next n places in the scheduling order and returns
// the first: events scheduled later with At or Source are delivered after
// same-instant events given these places with SourceSeq. A model that would
// schedule n events at once (a batch of arrivals) reserves their places and
// feeds them through the source lane one at a time instead, in constant
// memory and in the same delivery order.
func (s *Sim) ReserveSeq(n uint64) uint64 {
	first := s.seq + 1
	s.seq += n
	return first
}

// SourceSeq is Source with a place in the scheduling order reserved earlier
// with ReserveSeq, instead of the next one. Using a place not yet reserved
// is a programmer error and panics.
func (s *Sim) SourceSeq(at time.Duration, seq uint64, kind Kind, ref int32, arg int64) Timer {
	if seq == 0 || seq > s.seq {
		panic(fmt.Sprintf("sim: SourceSeq(%v, %d): place %d was not reserved (last is %d)", at, seq, seq, s.seq))
	}
	t := s.Source(at, kind, ref, arg)
	s.seq-- // Source took a new place; give it back
	s.src.seq = seq
	return t
}

// Pending reports whether t's event is still scheduled (not yet delivered and
// not cancelled).
func (s *Sim) Pending(t Timer) bool {
	switch {
	case t.slot == 0:
		return false
	case t.slot == sourceSlot:
		return s.srcSet && t.gen == s.srcGen
	}
	sl := &s.slots[t.slot-1]
	return sl.gen == t.gen && sl.pos >= 0
}

// Cancel removes t's event from the future-event list and reports whether it
// was still pending. A cancelled event is never delivered and costs nothing
// further; cancelling twice, or after delivery, returns false. O(log n).
func (s *Sim) Cancel(t Timer) bool {
	if !s.Pending(t) {
		return false
	}
	if t.slot == sourceSlot {
		s.srcSet = false
		return true
	}
	s.fillHole()
	id := t.slot - 1
	pos := int(s.slots[id].pos)
	s.removeAt(pos)
	s.release(id)
	return true
}

// Next removes the earliest pending event, advances the clock to its instant
// and returns it. It returns false when no event is pending.
//
// An event taken from the heap leaves its place, the root, empty (a hole):
// the handler of an event usually schedules one at once, which At then
// sinks from the root. Any other use of the heap first fills the hole as a
// removal does (fillHole). The heap holds the same events either way, so
// the delivery order is the same.
func (s *Sim) Next() (Event, bool) {
	s.fillHole()
	if len(s.heap) == 0 || s.srcSet && less(&s.src, &s.heap[0]) {
		if !s.srcSet {
			return Event{}, false
		}
		s.srcSet = false
		s.now = s.src.at
		s.processed++
		return s.srcEv, true
	}
	e := s.heap[0]
	s.hole = true
	sl := &s.slots[e.slot]
	ev := Event{At: e.at, Kind: sl.kind, Ref: sl.ref, Arg: sl.arg}
	s.release(e.slot)
	s.now = e.at
	s.processed++
	return ev, true
}

// PeekTime returns the instant of the earliest pending event, or false.
func (s *Sim) PeekTime() (time.Duration, bool) {
	s.fillHole()
	if len(s.heap) == 0 || s.srcSet && less(&s.src, &s.heap[0]) {
		if !s.srcSet {
			return 0, false
		}
		return s.src.at, true
	}
	return s.heap[0].at, true
}

// fillHole completes the removal Next began, if no event took the root's
// place: the last entry goes down from the root.
func (s *Sim) fillHole() {
	if s.hole {
		s.hole = false
		s.removeAt(0)
	}
}

func (s *Sim) release(id int32) {
	s.slots[id].pos = -1
	s.slots[id].gen++
	s.free = append(s.free, id)
}

// removeAt deletes the heap element at pos, keeping the heap property.
func (s *Sim) removeAt(pos int) {
	last := len(s.heap) - 1
	if pos != last {
		s.heap[pos] = s.heap[last]
		s.slots[s.heap[pos].slot].pos = int32(pos)
	}
	s.heap = s.heap[:last]
	if pos < last {
		if !s.down(pos) {
			s.up(pos)
		}
	}
}

func less(a, b *entry) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// up and down implement a 4-ary min-heap: shallower than a binary heap, and
// the four children of a node share a cache line or two.
func (s *Sim) up(i int) {
	h := s.heap
	e := h[i]
	for i > 0 {
		p := (i - 1) / 4
		if !less(&e, &h[p]) {
			break
		}
		h[i] = h[p]
		s.slots[h[i].slot].pos = int32(i)
		i = p
	}
	h[i] = e
	s.slots[e.slot].pos = int32(i)
}

func (s *Sim) down(i0 int) bool {
	h := s.heap
	n := len(h)
	i := i0
	e := h[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		var m int
		if c+3 < n {
			// Four children: the earlier of each pair, then of the two.
			// Keys are unique (seq), so this finds the one child a scan
			// would, with one bounds check instead of one per child.
			ch := h[c : c+4 : c+4]
			a, b := 0, 2
			if less(&ch[1], &ch[0]) {
				a = 1
			}
			if less(&ch[3], &ch[2]) {
				b = 3
			}
			if less(&ch[b], &ch[a]) {
				a = b
			}
			m = c + a
		} else {
			m = c
			for j := c + 1; j < n; j++ {
				if less(&h[j], &h[m]) {
					m = j
				}
			}
		}
		if !less(&h[m], &e) {
			break
		}
		h[i] = h[m]
		s.slots[h[i].slot].pos = int32(i)
		i = m
	}
	h[i] = e
	s.slots[e.slot].pos = int32(i)
	return i > i0
}
