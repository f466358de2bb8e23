package system

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// referenceSeries bins by division every time, as Series did before it
// cached the current bin: the cache must not change a single count. Its
// coarsening repeats Series.halve on purpose: a reference that called the
// code under test would check nothing.
type referenceSeries struct {
	width time.Duration
	bins  []Bin
	busy  []float64
}

func (s *referenceSeries) index(at time.Duration) int {
	for int(at/s.width) >= maxBins {
		n := (len(s.bins) + 1) / 2
		for i := range n {
			b := s.bins[2*i]
			if 2*i+1 < len(s.bins) {
				c := s.bins[2*i+1]
				b.Arrivals += c.Arrivals
				b.Attempts += c.Attempts
				b.Completed += c.Completed
				b.Ended += c.Ended
			}
			s.bins[i] = b
		}
		s.bins = s.bins[:n]
		m := (len(s.busy) + 1) / 2
		for i := range m {
			v := s.busy[2*i]
			if 2*i+1 < len(s.busy) {
				v += s.busy[2*i+1]
			}
			s.busy[i] = v
		}
		s.busy = s.busy[:m]
		s.width *= 2
	}
	return int(at / s.width)
}

func TestSeriesMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	got := NewSeries(1)
	want := &referenceSeries{width: got.Width}
	now := time.Duration(0)
	for i := range 200_000 {
		// Mostly small steps within a bin, sometimes long jumps (which
		// coarsen the series), and busy intervals reaching back in time.
		step := time.Duration(r.IntN(int(2 * time.Millisecond)))
		if r.IntN(1000) == 0 {
			step = time.Duration(r.IntN(int(time.Hour)))
		}
		now += step
		if r.IntN(20) == 0 {
			now = (now/got.Width + 1) * got.Width // exactly on a bin edge
		}
		switch i % 3 {
		case 0:
			got.add(now, binArrival, 1)
			j := want.index(now)
			for len(want.bins) <= j {
				want.bins = append(want.bins, Bin{})
			}
			want.bins[j].Arrivals++
		default:
			from := now - time.Duration(r.IntN(int(time.Second)))
			from = max(from, 0)
			got.addBusy(from, now, 0)
			if now > from {
				last := want.index(now)
				for len(want.busy) <= last {
					want.busy = append(want.busy, 0)
				}
				for k := int(from / want.width); k <= last; k++ {
					lo := max(from, time.Duration(k)*want.width)
					hi := min(now, time.Duration(k+1)*want.width)
					if hi > lo {
						want.busy[k] += float64(hi-lo) / 1e9
					}
				}
			}
		}
	}
	if got.Width != want.width || !reflect.DeepEqual(got.Bins, want.bins) || !reflect.DeepEqual(got.ToolBusy[0], want.busy) {
		t.Fatalf("series differs from the reference: width %v vs %v, %d vs %d bins", got.Width, want.width, len(got.Bins), len(want.bins))
	}
	if got.Width == 10*time.Millisecond {
		t.Fatal("the test never coarsened the series")
	}
}

// TestSeriesMerge: merging coarsens the finer series to the coarser width,
// keeps every count, gives the same bins in either order, and leaves the
// merged-in series as it was (replications' results are read again).
func TestSeriesMerge(t *testing.T) {
	fill := func(seed uint64, span time.Duration) *Series {
		r := rand.New(rand.NewPCG(seed, 1))
		s := NewSeries(1)
		for range 5000 {
			at := time.Duration(r.Int64N(int64(span)))
			s.add(at, binArrival, 1)
			s.add(at, binCompleted, 2)
			s.addBusy(at, at+time.Second, 0)
		}
		return s
	}
	clone := func(s *Series) *Series {
		c := *s
		c.Bins = append([]Bin(nil), s.Bins...)
		c.ToolBusy = [][]float64{append([]float64(nil), s.ToolBusy[0]...)}
		return &c
	}
	total := func(s *Series) (n int64) {
		for _, b := range s.Bins {
			n += b.Arrivals + b.Completed
		}
		return n
	}
	fine, coarse := fill(1, time.Minute), fill(2, 10*time.Hour)
	if fine.Width >= coarse.Width {
		t.Fatalf("widths %v and %v: the test needs a finer and a coarser series", fine.Width, coarse.Width)
	}
	for _, tc := range []struct {
		name string
		a, b *Series
	}{{"fine+coarse", fine, coarse}, {"coarse+fine", coarse, fine}, {"fine+fine", fine, fill(3, time.Minute)}} {
		a, b := clone(tc.a), clone(tc.b)
		bBefore := clone(b)
		a.Merge(b)
		if !reflect.DeepEqual(b.Bins, bBefore.Bins) || !reflect.DeepEqual(b.ToolBusy, bBefore.ToolBusy) || b.Width != bBefore.Width {
			t.Errorf("%s: Merge modified the merged-in series", tc.name)
		}
		if got, want := total(a), total(tc.a)+total(tc.b); got != want {
			t.Errorf("%s: %d counts after merging, want %d", tc.name, got, want)
		}
		if a.Width != max(tc.a.Width, tc.b.Width) {
			t.Errorf("%s: width %v, want the coarser %v", tc.name, a.Width, max(tc.a.Width, tc.b.Width))
		}
	}
	ab, ba := clone(fine), clone(coarse)
	ab.Merge(coarse)
	ba.Merge(fine)
	if !reflect.DeepEqual(ab.Bins, ba.Bins) {
		t.Error("merging in the other order gives other bins")
	}
}
