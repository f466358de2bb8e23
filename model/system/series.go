package system

import "time"

// Series counts events in equal-width bins of virtual time, for rate-over-time
// charts (the retry-storm picture). It holds at most maxBins bins: when time
// runs past them, adjacent bins are merged and the width doubles, so memory
// stays bounded whatever the horizon.
type Series struct {
	// Width is the bin width.
	Width time.Duration
	// Bins holds, per bin, the measured arrivals, attempts dialed and
	// completions.
	Bins []Bin
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

func newSeries() *Series {
	return &Series{Width: 10 * time.Millisecond, Bins: make([]Bin, 0, maxBins)}
}

func (s *Series) add(at time.Duration, f binField, n int64) {
	i := int(at / s.Width)
	for i >= maxBins {
		s.halve()
		i = int(at / s.Width)
	}
	for len(s.Bins) <= i {
		s.Bins = append(s.Bins, Bin{})
	}
	b := &s.Bins[i]
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
	s.Width *= 2
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
// two so that both have the same width.
func (s *Series) Merge(o *Series) {
	oc := *o
	oc.Bins = append([]Bin(nil), o.Bins...)
	for s.Width < oc.Width {
		s.halve()
	}
	for oc.Width < s.Width {
		oc.halve()
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
}
