package system

import (
	"slices"
	"time"

	"github.com/budgetsim/budgetsim/sim"
)

// Series counts events in equal-width bins of virtual time, for rate-over-time
// charts (the retry-storm picture). It holds at most maxBins bins: when time
// runs past them, adjacent bins are merged and the width doubles, so memory
// stays bounded whatever the horizon.
type Series struct {
	_ sim.CacheLinePad
	// Width is the bin width.
	Width time.Duration
	// Bins holds, per bin, the measured arrivals, attempts dialed and
	// completions.
	Bins []Bin
	// ToolBusy holds, per tool and bin, the server time (seconds) spent in
	// the bin: each served request's service interval is spread over the
	// bins it overlaps.
	ToolBusy [][]float64
	// ToolCalls holds, per tool with a rate limit and bin, the calls that
	// reached the tool (ToolStats.Calls) in the bin; nil for other tools.
	ToolCalls [][]int64
	// ToolLimit holds, per tool with adaptive concurrency and bin, the
	// time integral of its limit over the bin (limit × seconds: divide by
	// the width for the bin's mean limit); nil without such tools.
	ToolLimit [][]float64
	// BreakerOpen and BreakerHalfOpen hold, per tool and bin, the seconds
	// the tool's circuit breaker spent open and half-open in the bin;
	// BreakerRefused the calls of measured runs it refused in the bin.
	// They are nil when no tool has a breaker, and a tool without one has
	// a nil row.
	BreakerOpen, BreakerHalfOpen [][]float64
	BreakerRefused               [][]int64

	// The bin index last returned and its interval [curLo, curHi): time
	// mostly moves within one bin, which then needs no division. curHi = 0
	// (the zero value, and after halve) matches nothing.
	curLo, curHi time.Duration
	cur          int
	_            sim.CacheLinePad
}

// Bin is one interval [i·Width, (i+1)·Width) of a Series.
type Bin struct {
	Arrivals  int64 `json:"arrivals"`
	Attempts  int64 `json:"attempts"`
	Completed int64 `json:"completed"`
	// Ended counts measured runs that left the system (any outcome).
	Ended int64 `json:"ended"`
}

type binField int

const (
	binArrival binField = iota
	binAttempt
	binCompleted
	binEnded
)

const maxBins = 4096

// addBusy adds tool t's service interval [from, to) to the bins it
// overlaps, in seconds of server time.
func (s *Series) addBusy(from, to time.Duration, t int) {
	if to <= from {
		return
	}
	if from >= s.curLo && to < s.curHi && s.cur < len(s.ToolBusy[t]) {
		// Within the current bin (the common case): what span(first)
		// below computes for it.
		s.ToolBusy[t][s.cur] += float64(to-from) / 1e9
		return
	}
	last := s.index(to)
	first := s.cur
	if from < s.curLo {
		first = int(from / s.Width)
	}
	b := s.ToolBusy[t]
	if len(b) <= last {
		for len(b) <= last {
			b = append(b, 0)
		}
		// Written only when it grew: the headers share a small
		// allocation, and a write per call would bounce its cache line
		// between replications running in parallel.
		s.ToolBusy[t] = b
	}
	span := func(i int) {
		lo := max(from, time.Duration(i)*s.Width)
		hi := min(to, time.Duration(i+1)*s.Width)
		if hi > lo {
			b[i] += float64(hi-lo) / 1e9
		}
	}
	span(first)
	if last > first {
		// The bins between are covered whole: each gets the width, the
		// same float the general case computes for them.
		w := float64(s.Width) / 1e9
		for i := first + 1; i < last; i++ {
			b[i] += w
		}
		span(last)
	}
}

// addCall counts a call that reached tool t at instant at.
func (s *Series) addCall(at time.Duration, t int) {
	i := s.index(at)
	c := s.ToolCalls[t]
	if len(c) <= i {
		for len(c) <= i {
			c = append(c, 0)
		}
		s.ToolCalls[t] = c
	}
	c[i]++
}

// index returns at's bin, coarsening the series until it fits.
func (s *Series) index(at time.Duration) int {
	if at >= s.curLo && at < s.curHi {
		return s.cur
	}
	i := int(at / s.Width)
	for i >= maxBins {
		s.halve()
		i = int(at / s.Width)
	}
	s.cur, s.curLo = i, time.Duration(i)*s.Width
	s.curHi = s.curLo + s.Width
	return i
}

// bin returns at's bin, growing the series to hold it.
func (s *Series) bin(at time.Duration) *Bin {
	if at >= s.curLo && at < s.curHi && s.cur < len(s.Bins) {
		return &s.Bins[s.cur]
	}
	i := s.index(at)
	for len(s.Bins) <= i {
		s.Bins = append(s.Bins, Bin{})
	}
	return &s.Bins[i]
}

func (s *Series) add(at time.Duration, f binField, n int64) {
	b := s.bin(at)
	switch f {
	case binArrival:
		b.Arrivals += n
	case binAttempt:
		b.Attempts += n
	case binCompleted:
		b.Completed += n
	case binEnded:
		b.Ended += n
	}
}

// halve merges bins pairwise and doubles the width.
func (s *Series) halve() {
	n := (len(s.Bins) + 1) / 2
	for i := range n {
		b := s.Bins[2*i]
		if 2*i+1 < len(s.Bins) {
			c := s.Bins[2*i+1]
			b.Arrivals += c.Arrivals
			b.Attempts += c.Attempts
			b.Completed += c.Completed
			b.Ended += c.Ended
		}
		s.Bins[i] = b
	}
	s.Bins = s.Bins[:n]
	for t, b := range s.ToolBusy {
		s.ToolBusy[t] = halvePairs(b)
	}
	for t, c := range s.ToolCalls {
		s.ToolCalls[t] = halvePairs(c)
	}
	for t, c := range s.ToolLimit {
		s.ToolLimit[t] = halvePairs(c)
	}
	halveBreakers(s)
	s.Width *= 2
	s.curLo, s.curHi, s.cur = 0, 0, 0
}

// halvePairs sums adjacent pairs of xs in place and returns the halved
// slice.
func halvePairs[T int64 | float64](xs []T) []T {
	m := (len(xs) + 1) / 2
	for i := range m {
		v := xs[2*i]
		if 2*i+1 < len(xs) {
			v += xs[2*i+1]
		}
		xs[i] = v
	}
	return xs[:m]
}

// addBins adds src to dst bin by bin, growing dst as needed.
func addBins[T int64 | float64](dst [][]T, src [][]T) [][]T {
	for len(dst) < len(src) {
		dst = append(dst, nil)
	}
	for t, b := range src {
		for len(dst[t]) < len(b) {
			dst[t] = append(dst[t], 0)
		}
		for i, v := range b {
			dst[t][i] += v
		}
	}
	return dst
}

// PeakAttemptRate returns the largest number of attempts dialed in one bin,
// per second of bin width.
func (s *Series) PeakAttemptRate() float64 {
	var peak int64
	for _, b := range s.Bins {
		peak = max(peak, b.Attempts)
	}
	return float64(peak) / s.Width.Seconds()
}

// Merge adds o's counts to s bin by bin, first coarsening the finer of the
// two so that both have the same width. o is not modified.
func (s *Series) Merge(o *Series) {
	for s.Width < o.Width {
		s.halve()
	}
	oc := o
	if o.Width < s.Width {
		// Coarsen a copy. Replications of one scenario usually end with
		// the same width, and then nothing is copied.
		c := *o
		c.Bins = slices.Clone(o.Bins)
		c.ToolBusy = make([][]float64, len(o.ToolBusy))
		for t, b := range o.ToolBusy {
			c.ToolBusy[t] = slices.Clone(b)
		}
		c.ToolCalls = make([][]int64, len(o.ToolCalls))
		for t, b := range o.ToolCalls {
			c.ToolCalls[t] = slices.Clone(b)
		}
		if o.ToolLimit != nil {
			c.ToolLimit = make([][]float64, len(o.ToolLimit))
			for t, b := range o.ToolLimit {
				c.ToolLimit[t] = slices.Clone(b)
			}
		}
		cloneBreakers(&c)
		for c.Width < s.Width {
			c.halve()
		}
		oc = &c
	}
	for len(s.Bins) < len(oc.Bins) {
		s.Bins = append(s.Bins, Bin{})
	}
	for i, b := range oc.Bins {
		s.Bins[i].Arrivals += b.Arrivals
		s.Bins[i].Attempts += b.Attempts
		s.Bins[i].Completed += b.Completed
		s.Bins[i].Ended += b.Ended
	}
	s.ToolBusy = addBins(s.ToolBusy, oc.ToolBusy)
	s.ToolCalls = addBins(s.ToolCalls, oc.ToolCalls)
	if oc.ToolLimit != nil {
		s.ToolLimit = addBins(s.ToolLimit, oc.ToolLimit)
	}
	mergeBreakers(s, oc)
}
