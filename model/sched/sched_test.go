package sched

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func mustPop[T any](t *testing.T, q Queue[T]) Item[T] {
	t.Helper()
	it, ok := q.Pop(0)
	if !ok {
		t.Fatal("Pop: nothing eligible")
	}
	return it
}

func TestPriorityOrder(t *testing.T) {
	q, err := NewPriority[string](nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []int{2, 0, 1, 0, 2} {
		_ = q.Push(time.Duration(i)*time.Second, Item[string]{Tenant: fmt.Sprint("t", i%2), Priority: p, Value: fmt.Sprint(p, "/", i)})
	}
	var got []string
	for q.Len() > 0 {
		got = append(got, mustPop[string](t, q).Value)
	}
	if s := strings.Join(got, " "); s != "0/1 0/3 1/2 2/0 2/4" {
		t.Fatalf("order = %s, want 0/1 0/3 1/2 2/0 2/4", s)
	}
	if _, ok := q.Pop(0); ok {
		t.Fatal("Pop on an empty queue reported an item")
	}
}

func TestMaxInFlightPassesOver(t *testing.T) {
	ts := []Tenant{{Name: "a", MaxInFlight: 1}, {Name: "b"}}
	p, _ := NewPriority[int](ts)
	f, _ := NewFair[int](ts)
	for _, q := range []Queue[int]{p, f} {
		_ = q.Push(0, Item[int]{Tenant: "a", Value: 1})
		_ = q.Push(0, Item[int]{Tenant: "a", Value: 2})
		_ = q.Push(0, Item[int]{Tenant: "b", Priority: 1, Value: 3})
		if v := mustPop(t, q).Value; v != 1 {
			t.Fatalf("%T: first = %d, want 1", q, v)
		}
		// a is at its cap: its second item is passed over, not dropped.
		if v := mustPop(t, q).Value; v != 3 {
			t.Fatalf("%T: second = %d, want 3 (a at its cap)", q, v)
		}
		if _, ok := q.Pop(0); ok || q.Len() != 1 || q.InFlight("a") != 1 {
			t.Fatalf("%T: Pop with only a capped tenant waiting: ok=%v len=%d", q, ok, q.Len())
		}
		if err := q.Done(0, "a"); err != nil {
			t.Fatal(err)
		}
		if v := mustPop(t, q).Value; v != 2 {
			t.Fatalf("%T: after Done = %d, want 2", q, v)
		}
		_ = q.Done(0, "a")
		if err := q.Done(0, "a"); err == nil {
			t.Fatalf("%T: Done with nothing in flight: no error", q)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		ts   []Tenant
		want string
	}{
		{[]Tenant{{Name: "x"}, {Name: "x"}}, "tenants[1].Name"},
		{[]Tenant{{Name: "x", Weight: -1}}, "tenants[0].Weight"},
		{[]Tenant{{Name: "x", Weight: math.Inf(1)}}, "tenants[0].Weight"},
		{[]Tenant{{Name: "x", MaxInFlight: -2}}, "tenants[0].MaxInFlight"},
	} {
		if _, err := NewFair[int](tc.ts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewFair(%v) = %v, want an error naming %s", tc.ts, err, tc.want)
		}
		if _, err := NewPriority[int](tc.ts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewPriority(%v) = %v, want an error naming %s", tc.ts, err, tc.want)
		}
	}
	f, _ := NewFair[int](nil)
	if err := f.Push(0, Item[int]{Tenant: "x", Cost: math.NaN()}); err == nil || !strings.Contains(err.Error(), "Cost") || f.Len() != 0 {
		t.Errorf("Push(Cost NaN) = %v, len %d; want an error naming Cost and nothing pushed", err, f.Len())
	}
}

// TestQueueInvariants drives both disciplines with random Push, Pop and
// Done calls and checks, against a plain list of waiting items: work in
// flight never exceeds a cap; Pop fails only when no waiting item's tenant
// is below its cap; items of one tenant and priority leave in push order;
// and under Priority the popped item is the earliest of the most urgent
// eligible ones.
func TestQueueInvariants(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nt := rapid.IntRange(1, 4).Draw(rt, "tenants")
		ts := make([]Tenant, nt)
		for i := range ts {
			ts[i] = Tenant{
				Name:        fmt.Sprint("t", i),
				Weight:      float64(rapid.IntRange(1, 4).Draw(rt, "weight")),
				MaxInFlight: rapid.IntRange(0, 3).Draw(rt, "cap"),
			}
		}
		fair := rapid.Bool().Draw(rt, "fair")
		var q Queue[int]
		if fair {
			q, _ = NewFair[int](ts)
		} else {
			q, _ = NewPriority[int](ts)
		}
		type waiting struct{ tenant, prio, id int }
		var list []waiting // in push order
		inFlight := make([]int, nt)
		id := 0
		eligible := func(i int) bool { return ts[i].MaxInFlight == 0 || inFlight[i] < ts[i].MaxInFlight }
		for step := 0; step < 200; step++ {
			switch rapid.IntRange(0, 2).Draw(rt, "op") {
			case 0:
				w := waiting{rapid.IntRange(0, nt-1).Draw(rt, "who"), rapid.IntRange(0, 3).Draw(rt, "prio"), id}
				id++
				cost := float64(rapid.IntRange(1, 5).Draw(rt, "cost"))
				if err := q.Push(time.Duration(step), Item[int]{Tenant: ts[w.tenant].Name, Priority: w.prio, Cost: cost, Value: w.id}); err != nil {
					rt.Fatal(err)
				}
				list = append(list, w)
			case 1:
				it, ok := q.Pop(time.Duration(step))
				any := false
				for _, w := range list {
					any = any || eligible(w.tenant)
				}
				if ok != any {
					rt.Fatalf("Pop ok=%v, but an eligible item waiting=%v", ok, any)
				}
				if !ok {
					continue
				}
				k := -1
				for i, w := range list {
					if w.id == it.Value {
						k = i
					}
				}
				got := list[k]
				if !eligible(got.tenant) {
					rt.Fatalf("popped item %d of tenant %d at its cap", got.id, got.tenant)
				}
				for _, w := range list[:k] {
					if w.tenant == got.tenant && (fair || w.prio == got.prio) {
						rt.Fatalf("item %d left before item %d of the same tenant pushed earlier", got.id, w.id)
					}
					if !fair && eligible(w.tenant) && w.prio <= got.prio {
						rt.Fatalf("priority: popped %v before earlier eligible %v", got, w)
					}
				}
				if !fair {
					for _, w := range list[k+1:] {
						if eligible(w.tenant) && w.prio < got.prio {
							rt.Fatalf("priority: popped %v before more urgent eligible %v", got, w)
						}
					}
				}
				list = append(list[:k], list[k+1:]...)
				inFlight[got.tenant]++
				if c := ts[got.tenant].MaxInFlight; c > 0 && inFlight[got.tenant] > c {
					rt.Fatalf("tenant %d: %d in flight > cap %d", got.tenant, inFlight[got.tenant], c)
				}
			case 2:
				i := rapid.IntRange(0, nt-1).Draw(rt, "done")
				err := q.Done(time.Duration(step), ts[i].Name)
				if (err == nil) != (inFlight[i] > 0) {
					rt.Fatalf("Done(%d) with %d in flight: err=%v", i, inFlight[i], err)
				}
				if err == nil {
					inFlight[i]--
				}
			}
			if q.Len() != len(list) {
				rt.Fatalf("Len = %d, want %d", q.Len(), len(list))
			}
			for i := range ts {
				if q.InFlight(ts[i].Name) != inFlight[i] {
					rt.Fatalf("InFlight(%d) = %d, want %d", i, q.InFlight(ts[i].Name), inFlight[i])
				}
			}
		}
	})
}

// TestFairShares checks SFQ's fairness bound on every prefix of the Pops
// while all tenants are backlogged: |C_f/w_f − C_g/w_g| ≤ max(c_f/w_f,
// c_g/w_g), where C is the cost handed out and c the largest item cost.
// So each tenant's share of the work converges to its weight share, with
// an error that shrinks as 1/(work handed out).
func TestFairShares(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nt := rapid.IntRange(2, 4).Draw(rt, "tenants")
		ts := make([]Tenant, nt)
		cmax := make([]float64, nt)
		for i := range ts {
			ts[i] = Tenant{Name: fmt.Sprint("t", i), Weight: float64(rapid.IntRange(1, 8).Draw(rt, "weight"))}
		}
		q, _ := NewFair[int](ts)
		waiting := make([]int, nt)
		for i := range ts {
			n := rapid.IntRange(30, 80).Draw(rt, "items")
			for range n {
				c := float64(rapid.IntRange(1, 10).Draw(rt, "cost"))
				cmax[i] = max(cmax[i], c)
				_ = q.Push(0, Item[int]{Tenant: ts[i].Name, Cost: c, Value: i})
			}
			waiting[i] = n
		}
		served := make([]float64, nt)
		for {
			all := true
			for _, w := range waiting {
				all = all && w > 0
			}
			if !all {
				break
			}
			it, _ := q.Pop(0)
			_ = q.Done(0, it.Tenant)
			served[it.Value] += max(it.Cost, 0)
			waiting[it.Value]--
			for f := range ts {
				for g := range ts {
					gap := served[f]/ts[f].Weight - served[g]/ts[g].Weight
					bound := max(cmax[f]/ts[f].Weight, cmax[g]/ts[g].Weight)
					if gap > bound+1e-9 {
						rt.Fatalf("C_%d/w = %v, C_%d/w = %v: gap %v > bound %v", f, served[f]/ts[f].Weight, g, served[g]/ts[g].Weight, gap, bound)
					}
				}
			}
		}
	})
}

// TestFloodingTenant runs four workers with 1s jobs. A noisy tenant pushes
// 1000 jobs at once; a quiet tenant of equal weight pushes 3 jobs a second,
// more than its half of the 4 jobs/s the workers do. Under fair queuing the
// quiet tenant gets its half (2 jobs/s) however deep the noisy backlog;
// under FIFO (one priority) it waits behind the whole flood.
func TestFloodingTenant(t *testing.T) {
	run := func(q Queue[int]) (quiet, noisy int, firstQuietWait time.Duration) {
		for range 1000 {
			_ = q.Push(0, Item[int]{Tenant: "noisy"})
		}
		firstQuietWait = -1
		var inService []string
		for sec := 0; sec < 100; sec++ {
			now := time.Duration(sec) * time.Second
			for _, ten := range inService {
				_ = q.Done(now, ten)
			}
			inService = inService[:0]
			for range 4 {
				it, ok := q.Pop(now)
				if !ok {
					break
				}
				inService = append(inService, it.Tenant)
				if it.Tenant == "quiet" {
					quiet++
					if firstQuietWait < 0 {
						firstQuietWait = now - it.Enqueued
					}
				} else {
					noisy++
				}
			}
			for k := range 3 {
				_ = q.Push(now+time.Duration(k+1)*250*time.Millisecond, Item[int]{Tenant: "quiet"})
			}
		}
		return quiet, noisy, firstQuietWait
	}
	ts := []Tenant{{Name: "noisy"}, {Name: "quiet"}}
	f, _ := NewFair[int](ts)
	quiet, noisy, w := run(f)
	// 99 seconds with quiet jobs waiting, 4 slots each: 198 each, ±1 by the
	// SFQ bound (item cost 1, weight 1).
	if quiet < 197 || quiet > 199 || quiet+noisy != 400 {
		t.Errorf("fair: quiet %d, noisy %d jobs in 100s; want quiet 198±1 of 400", quiet, noisy)
	}
	if w > time.Second {
		t.Errorf("fair: first quiet job waited %v, want ≤ 1s", w)
	}
	p, _ := NewPriority[int](ts)
	quiet, noisy, _ = run(p)
	if quiet != 0 || noisy != 400 {
		t.Errorf("fifo: quiet %d, noisy %d; want the flood to take every slot (0, 400)", quiet, noisy)
	}
}

// TestFairWindows interleaves pushes and pops at random and checks SFQ's
// fairness theorem on every stretch of pops during which two tenants
// stay backlogged: |ΔC_f/w_f − ΔC_g/w_g| ≤ c_f/w_f + c_g/w_g.
func TestFairWindows(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nt := rapid.IntRange(2, 3).Draw(rt, "tenants")
		ts := make([]Tenant, nt)
		for i := range ts {
			ts[i] = Tenant{Name: fmt.Sprint("t", i), Weight: float64(rapid.IntRange(1, 5).Draw(rt, "weight"))}
		}
		q, _ := NewFair[int](ts)
		cmax := make([]float64, nt)
		waiting := make([]int, nt)
		// Per pop k: cumulative cost per tenant after it, and whether each
		// tenant had items before it and after it.
		var cum [][]float64
		var before, after [][]bool
		served := make([]float64, nt)
		for step := 0; step < 150; step++ {
			if rapid.IntRange(0, 2).Draw(rt, "op") > 0 {
				i := rapid.IntRange(0, nt-1).Draw(rt, "who")
				c := float64(rapid.IntRange(1, 6).Draw(rt, "cost"))
				cmax[i] = max(cmax[i], c)
				_ = q.Push(0, Item[int]{Tenant: ts[i].Name, Cost: c, Value: i})
				waiting[i]++
				continue
			}
			b := make([]bool, nt)
			for i := range b {
				b[i] = waiting[i] > 0
			}
			it, ok := q.Pop(0)
			if !ok {
				continue
			}
			_ = q.Done(0, it.Tenant)
			waiting[it.Value]--
			served[it.Value] += it.Cost
			a := make([]bool, nt)
			for i := range a {
				a[i] = waiting[i] > 0
			}
			cum = append(cum, append([]float64(nil), served...))
			before, after = append(before, b), append(after, a)
		}
		for f := 0; f < nt; f++ {
			for g := f + 1; g < nt; g++ {
				bound := cmax[f]/ts[f].Weight + cmax[g]/ts[g].Weight
				for i := range cum {
					if !before[i][f] || !before[i][g] {
						continue
					}
					for j := i; j < len(cum); j++ {
						df, dg := cum[j][f], cum[j][g]
						if i > 0 {
							df, dg = df-cum[i-1][f], dg-cum[i-1][g]
						}
						if gap := math.Abs(df/ts[f].Weight - dg/ts[g].Weight); gap > bound+1e-9 {
							rt.Fatalf("pops %d..%d: tenants %d, %d: gap %v > bound %v", i, j, f, g, gap, bound)
						}
						if !after[j][f] || !after[j][g] {
							break
						}
					}
				}
			}
		}
	})
}

// TestFairWindowsWithDeadlines is TestFairWindows with a clock and
// deadlines: items expire while they wait, expired items are handed out
// free of charge, and SFQ's bound holds for the work that is not expired
// on every stretch of pops during which two tenants stay backlogged,
// expired items counting as cost 0. Charging an expired item as a turn
// breaks it: a tenant whose items keep expiring falls behind without
// bound.
func TestFairWindowsWithDeadlines(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nt := rapid.IntRange(2, 3).Draw(rt, "tenants")
		ts := make([]Tenant, nt)
		for i := range ts {
			ts[i] = Tenant{Name: fmt.Sprint("t", i), Weight: float64(rapid.IntRange(1, 5).Draw(rt, "weight"))}
		}
		q, _ := NewFair[int](ts)
		cmax := make([]float64, nt)
		waiting := make([]int, nt)
		var cum [][]float64
		var before, after [][]bool
		served := make([]float64, nt)
		expired := 0
		for step := 0; step < 200; step++ {
			now := time.Duration(step+1) * time.Second
			if rapid.IntRange(0, 2).Draw(rt, "op") > 0 {
				i := rapid.IntRange(0, nt-1).Draw(rt, "who")
				c := float64(rapid.IntRange(1, 6).Draw(rt, "cost"))
				cmax[i] = max(cmax[i], c)
				var dl time.Duration
				if life := rapid.IntRange(0, 20).Draw(rt, "life"); life > 0 {
					dl = now + time.Duration(life)*time.Second
				}
				_ = q.Push(now, Item[int]{Tenant: ts[i].Name, Cost: c, Value: i, Deadline: dl})
				waiting[i]++
				continue
			}
			b := make([]bool, nt)
			for i := range b {
				b[i] = waiting[i] > 0
			}
			it, ok := q.Pop(now)
			if !ok {
				continue
			}
			_ = q.Done(now, it.Tenant)
			waiting[it.Value]--
			if it.Expired(now) {
				expired++
			} else {
				served[it.Value] += it.Cost
			}
			a := make([]bool, nt)
			for i := range a {
				a[i] = waiting[i] > 0
			}
			cum = append(cum, append([]float64(nil), served...))
			before, after = append(before, b), append(after, a)
		}
		for f := 0; f < nt; f++ {
			for g := f + 1; g < nt; g++ {
				bound := cmax[f]/ts[f].Weight + cmax[g]/ts[g].Weight
				for i := range cum {
					if !before[i][f] || !before[i][g] {
						continue
					}
					for j := i; j < len(cum); j++ {
						df, dg := cum[j][f], cum[j][g]
						if i > 0 {
							df, dg = df-cum[i-1][f], dg-cum[i-1][g]
						}
						if gap := math.Abs(df/ts[f].Weight - dg/ts[g].Weight); gap > bound+1e-9 {
							rt.Fatalf("pops %d..%d (%d expired in all): tenants %d, %d: unexpired work %v, %v: gap %v > bound %v", i, j, expired, f, g, df, dg, gap, bound)
						}
						if !after[j][f] || !after[j][g] {
							break
						}
					}
				}
			}
		}
	})
}

// TestExpiredItemsAreNotATurn: tenants of equal weight with 200 items
// waiting each; every other item of tenant a has expired, none of b's
// has. Over the first 100 unexpired items handed out, a gets its half,
// within SFQ's bound of 2 (one item each way): its expired items cost it
// nothing. Charged as turns, they would cut a to a third.
func TestExpiredItemsAreNotATurn(t *testing.T) {
	f, _ := NewFair[int]([]Tenant{{Name: "a"}, {Name: "b"}})
	for i := range 200 {
		var dl time.Duration
		if i%2 == 0 {
			dl = time.Second
		}
		_ = f.Push(0, Item[int]{Tenant: "a", Deadline: dl})
		_ = f.Push(0, Item[int]{Tenant: "b"})
	}
	now := 2 * time.Second
	live := map[string]int{}
	for live["a"]+live["b"] < 100 {
		it, ok := f.Pop(now)
		if !ok {
			t.Fatal("Pop: nothing waiting")
		}
		_ = f.Done(now, it.Tenant)
		if !it.Expired(now) {
			live[it.Tenant]++
		}
	}
	if d := live["a"] - live["b"]; d < -2 || d > 2 {
		t.Errorf("unexpired items handed out: a %d, b %d; want 50 each within 2", live["a"], live["b"])
	}
}

// TestRefundIsExpiry: an item the caller drops after Pop and refunds
// costs its tenant what an expired item costs, nothing: a queue where some
// items carry a passed deadline and one where the same items are refunded
// instead hand out the same items in the same order.
func TestRefundIsExpiry(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nt := rapid.IntRange(2, 3).Draw(rt, "tenants")
		ts := make([]Tenant, nt)
		for i := range ts {
			ts[i] = Tenant{Name: fmt.Sprint("t", i), Weight: float64(rapid.IntRange(1, 4).Draw(rt, "weight"))}
		}
		expiring, _ := NewFair[int](ts)
		refunded, _ := NewFair[int](ts)
		now := time.Hour
		dropped := map[int]bool{}
		for step := range 300 {
			if rapid.IntRange(0, 2).Draw(rt, "op") > 0 {
				i := rapid.IntRange(0, nt-1).Draw(rt, "who")
				c := float64(rapid.IntRange(1, 5).Draw(rt, "cost"))
				drop := rapid.Bool().Draw(rt, "drop")
				dropped[step] = drop
				var dl time.Duration
				if drop {
					dl = time.Second // long passed at now
				}
				_ = expiring.Push(now, Item[int]{Tenant: ts[i].Name, Cost: c, Value: step, Deadline: dl})
				_ = refunded.Push(now, Item[int]{Tenant: ts[i].Name, Cost: c, Value: step})
				continue
			}
			a, okA := expiring.Pop(now)
			b, okB := refunded.Pop(now)
			if okA != okB || a.Value != b.Value {
				rt.Fatalf("step %d: the expiring queue pops %v (%v), the refunding one %v (%v)", step, a.Value, okA, b.Value, okB)
			}
			if !okA {
				continue
			}
			if dropped[b.Value] {
				if err := refunded.Refund(); err != nil {
					rt.Fatal(err)
				}
			}
			_ = expiring.Done(now, a.Tenant)
			_ = refunded.Done(now, b.Tenant)
		}
	})
	f, _ := NewFair[int](nil)
	if err := f.Refund(); err == nil {
		t.Error("Refund with no Pop before it: no error")
	}
}

// TestPushOutTakesFromTheTenantOverItsShare: in a queue bounded at C
// items, making room by PushOut takes an item only from a tenant holding
// more than its weight's share of the room, C·w/W (longest queue drop:
// its waiting items per weight are at least everyone's, the arrival
// counted, so at least (C+1)·w/W); and the arrival is refused only when
// its own tenant would hold the most per weight.
func TestPushOutTakesFromTheTenantOverItsShare(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nt := rapid.IntRange(2, 4).Draw(rt, "tenants")
		ts := make([]Tenant, nt)
		total := 0.0
		for i := range ts {
			ts[i] = Tenant{Name: fmt.Sprint("t", i), Weight: float64(rapid.IntRange(1, 5).Draw(rt, "weight"))}
			total += ts[i].Weight
		}
		capacity := rapid.IntRange(1, 20).Draw(rt, "capacity")
		q, _ := NewFair[int](ts)
		waiting := make([]int, nt)
		for range 400 {
			if rapid.IntRange(0, 3).Draw(rt, "op") == 0 {
				if it, ok := q.Pop(0); ok {
					_ = q.Done(0, it.Tenant)
					waiting[it.Value]--
				}
				continue
			}
			i := rapid.IntRange(0, nt-1).Draw(rt, "who")
			if q.Len() >= capacity {
				out, ok := q.PushOut(ts[i].Name)
				if !ok {
					for j := range ts {
						if j != i && float64(waiting[j])/ts[j].Weight > float64(waiting[i]+1)/ts[i].Weight {
							rt.Fatalf("arrival of %s refused though %s holds %d of weight %g against its %d+1 of weight %g", ts[i].Name, ts[j].Name, waiting[j], ts[j].Weight, waiting[i], ts[i].Weight)
						}
					}
					continue
				}
				v := out.Value
				if share := float64(capacity+1) * ts[v].Weight / total; float64(waiting[v]) < share-1e-9 {
					rt.Fatalf("pushed out an item of %s, holding %d of %d with weight %g of %g: below its share %.2f", ts[v].Name, waiting[v], capacity, ts[v].Weight, total, share)
				}
				if v == i {
					rt.Fatalf("pushed out an item of the arriving tenant %s instead of refusing the arrival", ts[i].Name)
				}
				waiting[v]--
			}
			_ = q.Push(0, Item[int]{Tenant: ts[i].Name, Value: i})
			waiting[i]++
			if q.Len() > capacity {
				rt.Fatalf("%d items waiting in a queue bounded at %d", q.Len(), capacity)
			}
		}
	})
}
