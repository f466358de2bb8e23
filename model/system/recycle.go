package system

import (
	"sync"
	"time"

	"github.com/budgetsim/budgetsim/sim/stats"
)

// A replication allocates hundreds of kilobytes of histograms and time
// series, a summary.Accumulator about as much again. A sweep of small
// points or a planner's probes run thousands of them, so as garbage they
// would set the pace of the collector, whose work grows with the bytes
// allocated, not with the events simulated. Those who pool a Result and
// keep nothing of it hand its memory back (Result.Recycle, and
// summary.Accumulator.Recycle through RecycleHistogram, RecycleSeries and
// Tail.Release), and later simulations in the process take it from these
// pools, zeroed.

var (
	histogramPool sync.Pool // *stats.Histogram
	seriesPool    sync.Pool // *Series
	// Chunks of the run and request tables, returned by Model.Run when it
	// is done with them (they never leave the model).
	runChunks     sync.Pool // *[1 << container.ChunkBits]run
	requestChunks sync.Pool // *[1 << container.ChunkBits]request
	// Tail tables' storage (tailTable.resize and release).
	tailPool sync.Pool // *tailBuf
)

// NewHistogram returns an empty histogram, recycled when one is free. The
// simulation's results and the summaries that pool them (model/summary)
// take their histograms from here.
func NewHistogram() *stats.Histogram {
	if h, ok := histogramPool.Get().(*stats.Histogram); ok {
		*h = stats.Histogram{}
		return h
	}
	return stats.NewHistogram()
}

// RecycleHistogram hands h, when not nil, to a later NewHistogram; the
// caller must not use h afterwards.
func RecycleHistogram(h *stats.Histogram) {
	if h != nil {
		histogramPool.Put(h)
	}
}

// NewSeries returns an empty series for a scenario of tools tools,
// recycled when one is free. A recycled series differs from a new one only
// in the capacity of its slices, which grow by appending zeros.
func NewSeries(tools int) *Series {
	s, ok := seriesPool.Get().(*Series)
	if !ok {
		s = &Series{Bins: make([]Bin, 0, maxBins)}
	}
	s.Width = 10 * time.Millisecond
	s.Bins = s.Bins[:0]
	s.curLo, s.curHi, s.cur = 0, 0, 0
	busy := s.ToolBusy[:cap(s.ToolBusy)] // rows past len are kept for reuse
	for len(busy) < tools {
		busy = append(busy, nil)
	}
	s.ToolBusy = busy[:tools]
	for i, b := range s.ToolBusy {
		if b == nil {
			b = make([]float64, 0, maxBins)
		}
		s.ToolBusy[i] = b[:0]
	}
	// Only rate-limited tools count calls, from nil.
	s.ToolCalls = make([][]int64, tools)
	s.ToolLimit = nil                                                  // adaptive concurrency's, made when a tool has it
	s.BreakerOpen, s.BreakerHalfOpen, s.BreakerRefused = nil, nil, nil // a breaker's model sets them
	return s
}

// RecycleSeries hands s, when not nil, to a later NewSeries; the caller
// must not use s afterwards.
func RecycleSeries(s *Series) {
	if s != nil {
		seriesPool.Put(s)
	}
}

// Recycle hands r's histograms, time series and tail bands to later
// simulations in this process and sets those fields to nil (the tail's
// p99 breakdown, already computed, stays). A caller that has pooled r
// (Accumulator.Add) and keeps nothing of it calls Recycle to spare the
// garbage collector about 400 KB per replication; r must not be used
// afterwards except for its plain counters.
func (r *Result) Recycle() {
	RecycleHistogram(r.Latency)
	RecycleHistogram(r.Wait)
	r.Latency, r.Wait = nil, nil
	for i, h := range r.StepLatency {
		RecycleHistogram(h)
		r.StepLatency[i] = nil
	}
	for i, h := range r.ToolDelay {
		RecycleHistogram(h)
		r.ToolDelay[i] = nil
	}
	for i := range r.Classes {
		c := &r.Classes[i]
		RecycleHistogram(c.Latency)
		RecycleHistogram(c.Wait)
		c.Latency, c.Wait = nil, nil
	}
	RecycleSeries(r.Series)
	r.Series = nil
	r.Tail.Release()
}
