package sim

import (
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

func TestSameInstantEventsAreFIFO(t *testing.T) {
	s := New(0)
	for i := range 5 {
		s.At(time.Second, 1, int32(i), 0)
	}
	s.At(500*time.Millisecond, 2, 99, 0)
	var got []int32
	for {
		ev, ok := s.Next()
		if !ok {
			break
		}
		got = append(got, ev.Ref)
	}
	want := []int32{99, 0, 1, 2, 3, 4}
	if !slices.Equal(got, want) {
		t.Fatalf("delivery order = %v, want %v", got, want)
	}
	if s.Now() != time.Second {
		t.Fatalf("Now() = %v, want 1s", s.Now())
	}
}

func TestCancel(t *testing.T) {
	s := New(0)
	a := s.At(2*time.Second, 1, 1, 0)
	b := s.At(1*time.Second, 1, 2, 0)
	if !s.Cancel(b) {
		t.Fatal("Cancel(pending) = false, want true")
	}
	if s.Cancel(b) {
		t.Fatal("second Cancel = true, want false")
	}
	// The slot of b is reused; the old handle must not cancel the new event.
	c := s.At(3*time.Second, 1, 3, 0)
	if s.Cancel(b) || !s.Pending(c) {
		t.Fatal("a stale handle cancelled a reused slot")
	}
	ev, _ := s.Next()
	if ev.Ref != 1 || s.Pending(a) {
		t.Fatalf("Next() = ref %d, want 1 (b was cancelled)", ev.Ref)
	}
	if s.Cancel(a) {
		t.Fatal("Cancel after delivery = true, want false")
	}
	if s.Cancel(Timer{}) {
		t.Fatal("Cancel(zero Timer) = true, want false")
	}
}

// TestAgainstReference drives the heap and the source lane with random
// schedules, replacements and cancellations and compares the delivery order
// with a sorted reference; Len, PeekTime and Pending are checked along the
// way, also right after Next has taken the heap's root (see Sim.Next).
func TestAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type ref struct {
		at  time.Duration
		seq int
		id  int32
	}
	for trial := range 50 {
		s := New(0)
		var live []ref
		timers := map[int32]Timer{}
		seq := 0
		var got, want []int32
		srcID := int32(-1) // the source lane's live event, if any
		dropSource := func() {
			if i := slices.IndexFunc(live, func(x ref) bool { return x.id == srcID }); i >= 0 {
				live = slices.Delete(live, i, i+1)
			}
			srcID = -1
		}
		for op := range 2000 {
			switch x := r.IntN(10); {
			case x < 5:
				at := s.Now() + time.Duration(r.IntN(50))
				id := int32(op)
				timers[id] = s.At(at, 0, id, 0)
				seq++
				live = append(live, ref{at, seq, id})
			case x == 5:
				// The source lane: a new event replaces the pending one.
				at := s.Now() + time.Duration(r.IntN(50))
				id := int32(op)
				dropSource()
				timers[id] = s.Source(at, 0, id, 0)
				seq++
				live = append(live, ref{at, seq, id})
				srcID = id
			case x < 8 && len(live) > 0:
				i := r.IntN(len(live))
				if !s.Cancel(timers[live[i].id]) {
					t.Fatalf("trial %d: Cancel of live event %d = false", trial, live[i].id)
				}
				if live[i].id == srcID {
					srcID = -1
				}
				live = slices.Delete(live, i, i+1)
			default:
				ev, ok := s.Next()
				if !ok {
					if len(live) != 0 {
						t.Fatalf("trial %d: Next() empty with %d live", trial, len(live))
					}
					continue
				}
				slices.SortFunc(live, func(a, b ref) int {
					if a.at != b.at {
						return int(a.at - b.at)
					}
					return a.seq - b.seq
				})
				want = append(want, live[0].id)
				if live[0].id == srcID {
					srcID = -1
				}
				live = live[1:]
				got = append(got, ev.Ref)
				if op%3 == 0 {
					// Right after Next (the root taken, not yet
					// replaced), PeekTime sees the next event.
					at, ok := s.PeekTime()
					wantAt := time.Duration(-1)
					for _, x := range live {
						if wantAt < 0 || x.at < wantAt {
							wantAt = x.at
						}
					}
					if ok != (len(live) > 0) || ok && at != wantAt {
						t.Fatalf("trial %d: PeekTime() = %v, %v; want %v, %v", trial, at, ok, wantAt, len(live) > 0)
					}
				}
				if s.Pending(timers[ev.Ref]) {
					t.Fatalf("trial %d: delivered event %d still pending", trial, ev.Ref)
				}
			}
			if s.Len() != len(live) {
				t.Fatalf("trial %d: Len() = %d, want %d", trial, s.Len(), len(live))
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: delivery order differs from reference", trial)
		}
	}
}

func TestSourceLane(t *testing.T) {
	s := New(0)
	s.At(time.Second, 1, 1, 0)
	a := s.Source(time.Second, 2, 2, 0) // same instant, scheduled later: after ref 1
	if !s.Pending(a) || s.Len() != 2 {
		t.Fatalf("Pending(source) = %v, Len = %d; want true, 2", s.Pending(a), s.Len())
	}
	b := s.Source(2*time.Second, 2, 3, 0) // replaces a
	if s.Pending(a) || !s.Pending(b) || s.Len() != 2 {
		t.Fatal("a replaced source event is still pending")
	}
	if at, _ := s.PeekTime(); at != time.Second {
		t.Fatalf("PeekTime = %v, want 1s", at)
	}
	ev, _ := s.Next()
	if ev.Ref != 1 {
		t.Fatalf("first event ref %d, want 1", ev.Ref)
	}
	if at, _ := s.PeekTime(); at != 2*time.Second {
		t.Fatalf("PeekTime = %v, want 2s (the source lane)", at)
	}
	ev, _ = s.Next()
	if ev.Ref != 3 || ev.Kind != 2 || s.Pending(b) {
		t.Fatalf("second event = %+v, want the source lane's ref 3", ev)
	}
	c := s.Source(3*time.Second, 2, 4, 0)
	if !s.Cancel(c) || s.Cancel(c) || s.Len() != 0 {
		t.Fatal("Cancel of the source lane")
	}
	if _, ok := s.Next(); ok {
		t.Fatal("Next after cancelling the only event = true")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Source(past) did not panic")
		}
	}()
	s.Source(time.Millisecond, 0, 0, 0)
}

// TestReservedPlaces: a batch of three fed one at a time through the
// source lane in places reserved before other events were scheduled is
// delivered exactly as the three scheduled at once would be: all before a
// same-instant event scheduled after the reservation, even one scheduled
// while the batch is being delivered.
func TestReservedPlaces(t *testing.T) {
	run := func(reserved bool) (order []int32) {
		s := New(0)
		var first uint64
		if reserved {
			first = s.ReserveSeq(3)
			s.SourceSeq(0, first, 1, 0, 0)
		} else {
			for i := range int32(3) {
				s.At(0, 1, i, 0)
			}
		}
		s.At(0, 2, 100, 0)
		for {
			ev, ok := s.Next()
			if !ok {
				return order
			}
			order = append(order, ev.Ref)
			if ev.Kind != 1 {
				continue
			}
			s.At(0, 2, 200+ev.Ref, 0) // e.g. a 429 answered at once
			if reserved && ev.Ref < 2 {
				s.SourceSeq(0, first+uint64(ev.Ref)+1, 1, ev.Ref+1, 0)
			}
		}
	}
	want, got := run(false), run(true)
	if !slices.Equal(got, want) || !slices.Equal(want, []int32{0, 1, 2, 100, 200, 201, 202}) {
		t.Fatalf("reserved places deliver %v; scheduled at once %v; want [0 1 2 100 200 201 202]", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("SourceSeq with a place not reserved did not panic")
		}
	}()
	s := New(0)
	s.SourceSeq(0, s.ReserveSeq(1)+1, 1, 0, 0)
}

func TestSchedulingInThePastPanics(t *testing.T) {
	s := New(0)
	s.At(time.Second, 0, 0, 0)
	s.Next()
	defer func() {
		if recover() == nil {
			t.Fatal("At(past) did not panic")
		}
	}()
	s.At(time.Millisecond, 0, 0, 0)
}

func TestHotPathAllocationFree(t *testing.T) {
	s := New(64)
	for i := range 32 {
		s.After(time.Duration(i), 0, 0, 0)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		ev, _ := s.Next()
		tm := s.At(ev.At+time.Millisecond, 0, 0, 0)
		s.Cancel(tm)
		s.At(ev.At+time.Microsecond, 0, 0, 0)
		s.Source(ev.At+time.Nanosecond, 0, 0, 0)
	})
	if allocs != 0 {
		t.Fatalf("allocations per event = %v, want 0", allocs)
	}
}

func TestStreams(t *testing.T) {
	a1 := NewStream(1, "arrivals")
	a2 := NewStream(1, "arrivals")
	b := NewStream(1, "tool:search")
	for i := range 100 {
		x, y := a1.Float64(), a2.Float64()
		if x != y {
			t.Fatalf("draw %d: same (seed, name) gave %v and %v", i, x, y)
		}
		if b.Float64() == x {
			t.Fatalf("draw %d: streams with different names coincide", i)
		}
	}
	// Keyed draws depend only on the key, not on the draws before them.
	k := NewStream(7, "tool")
	k.Key(3, 1, 2)
	first := k.Float64()
	k.Float64()
	k.Key(9, 9, 9)
	k.Float64()
	k.Key(3, 1, 2)
	if again := k.Float64(); again != first {
		t.Fatalf("Key(3,1,2) draw = %v, then %v", first, again)
	}
	if ReplicationSeed(5, 0) != 5 || ReplicationSeed(5, 1) == ReplicationSeed(5, 2) {
		t.Fatal("ReplicationSeed: replication 0 must keep the seed and others must differ")
	}
}

func TestKeyedAllocationFree(t *testing.T) {
	k := NewStream(1, "x")
	allocs := testing.AllocsPerRun(1000, func() {
		k.Key(1, 2, 3)
		k.Float64()
	})
	if allocs != 0 {
		t.Fatalf("Key+Float64 allocations = %v, want 0", allocs)
	}
}

func TestParallelKeepsOrder(t *testing.T) {
	for _, w := range []int{1, 2, 7} {
		got := Parallel(20, w, func(i int) int { return i * i })
		for i, v := range got {
			if v != i*i {
				t.Fatalf("Parallel(20, %d)[%d] = %d, want %d", w, i, v, i*i)
			}
		}
	}
}

// TestParallelEachOrderAndWindow: results come to each in index order,
// equal to a sequential run, whatever the workers; no more than window
// results are ever started ahead of the next one handed over.
func TestParallelEachOrderAndWindow(t *testing.T) {
	const n, window = 300, 8
	for _, workers := range []int{1, 2, 4, 16} {
		var started, handed atomic.Int64
		var maxAhead atomic.Int64
		var got []int
		ParallelEach(n, workers, window, func(i int) int {
			if ahead := started.Add(1) - handed.Load(); ahead > maxAhead.Load() {
				maxAhead.Store(ahead)
			}
			x := i
			for k := range (i * 7919) % 2000 { // uneven work, so results finish out of order
				x ^= k
			}
			return i*i + x - x
		}, func(i, v int) {
			if v != i*i {
				t.Fatalf("workers %d: each(%d, %d), want %d", workers, i, v, i*i)
			}
			got = append(got, i)
			handed.Add(1)
		})
		if len(got) != n || !slices.IsSorted(got) {
			t.Fatalf("workers %d: %d results, sorted %v", workers, len(got), slices.IsSorted(got))
		}
		if m := maxAhead.Load(); m > max(window, int64(workers)) {
			t.Errorf("workers %d: %d results started ahead of the next handed over, want ≤ %d", workers, m, max(window, workers))
		}
	}
}
