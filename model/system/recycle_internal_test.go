package system

import (
	"slices"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/sim/stats"
)

// dirtySeries returns a series with bins, busy time and calls in it, and
// coarsened once.
func dirtySeries(tools int) *Series {
	s := NewSeries(tools)
	s.add(3*time.Second, binArrival, 5)
	s.add(maxBins*s.Width+time.Second, binEnded, 2) // coarsens
	for t := range tools {
		s.addBusy(time.Second, 2*time.Second, t)
		s.ToolCalls[t] = append(s.ToolCalls[t], 7)
	}
	return s
}

func TestRecycledSeriesIsLikeNew(t *testing.T) {
	for _, tools := range []int{0, 1, 2, 5, 1} {
		// sync.Pool may drop what it is given (it does at random under
		// the race detector): whatever comes back must be like new.
		RecycleSeries(dirtySeries(3))
		s := NewSeries(tools)
		if s.Width != 10*time.Millisecond || len(s.Bins) != 0 || s.curLo != 0 || s.curHi != 0 || s.cur != 0 {
			t.Errorf("tools %d: width %v, %d bins, cur [%v, %v) %d; want 10ms, 0 bins, zero cursor", tools, s.Width, len(s.Bins), s.curLo, s.curHi, s.cur)
		}
		if len(s.ToolBusy) != tools || len(s.ToolCalls) != tools {
			t.Fatalf("tools %d: %d busy and %d call rows", tools, len(s.ToolBusy), len(s.ToolCalls))
		}
		for i := range tools {
			if s.ToolBusy[i] == nil || len(s.ToolBusy[i]) != 0 {
				t.Errorf("tools %d: busy row %d = %v, want empty and non-nil", tools, i, s.ToolBusy[i])
			}
			if s.ToolCalls[i] != nil {
				t.Errorf("tools %d: call row %d = %v, want nil (only rate-limited tools count calls)", tools, i, s.ToolCalls[i])
			}
		}
		// What is added after reuse reads as in a new series.
		s.add(25*time.Millisecond, binAttempt, 1)
		if len(s.Bins) != 3 || s.Bins[0] != (Bin{}) || s.Bins[2].Attempts != 1 {
			t.Errorf("tools %d: bins after one attempt at 25ms: %+v", tools, s.Bins)
		}
	}
}

func TestRecycledHistogramIsEmpty(t *testing.T) {
	for range 3 {
		h := NewHistogram()
		h.Add(0.25)
		h.Add(3)
		RecycleHistogram(h)
		if g := NewHistogram(); *g != (stats.Histogram{}) {
			t.Fatalf("recycled histogram holds %d values, want an empty one", g.Count())
		}
	}
}

// A tail table on recycled storage, grown up and down, holds what a new
// one holds.
func TestRecycledTailTableIsLikeNew(t *testing.T) {
	fill := func(tt *tailTable) {
		stages := []time.Duration{time.Millisecond, 2 * time.Millisecond, 0}
		for _, lat := range []float64{1, 0.5, 3e-6, 40, 1e-9, 7, 2e4, 0.25} {
			tt.add(lat, stages)
		}
	}
	want := &tailTable{stages: 3}
	fill(want)
	for range 3 {
		dirty := &tailTable{stages: 5}
		fill(dirty)
		dirty.add(123, []time.Duration{1, 2, 3, 4, 5})
		dirty.release()
		got := &tailTable{stages: 3}
		fill(got)
		if got.lo != want.lo || !slices.Equal(got.n, want.n) || !slices.Equal(got.sums, want.sums) {
			t.Fatalf("tail table on recycled storage: lo %d, %d bands; want lo %d, %d bands, same counts and sums", got.lo, len(got.n), want.lo, len(want.n))
		}
	}
}
