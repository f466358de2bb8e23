package system

import (
	"slices"
	"time"

	"github.com/budgetsim/budgetsim/model/breaker"
	"github.com/budgetsim/budgetsim/model/retry"
)

// A tool's client-side circuit breaker (Tool.CircuitBreaker) is one
// model/breaker.Breaker shared by every caller of the tool. It is the
// first of the tool's admission gates (lifecycle.go):
//
//   - admitBreaker asks it before a call that would reach the tool (a cache
//     hit does not; the lease is checked first, the rate-limit token and the
//     cost reservation after): an open breaker, or a half-open one whose
//     probes are out, refuses the call locally (refusedBreaker), and the
//     step falls back or the run ends refused, as any local refusal;
//   - release records the outcome of a permitted call that ended: every
//     error answer and every timeout is a failure; a call is slow when it
//     took longer than the breaker's slow-call duration, as its caller
//     measured it. It gives back, counting for nothing, the permission of a
//     call refused afterwards (a token wait that would outlast the
//     deadline, a cost reservation that does not fit) or cancelled by its
//     group or hedge.
//
// The breaker reports its changes of state to breakerTransition, which
// keeps the time spent in each state per bin of the series and in the
// measured window.

// refusedBreaker is the reason of a call refused by an open circuit breaker,
// as traces spell it.
const refusedBreaker = "circuit_open"

// toolBreaker is a tool's breaker and what the model keeps of its history.
type toolBreaker struct {
	b     *breaker.Breaker
	state breaker.State
	since time.Duration // when it entered state
	stats BreakerStats
}

// BreakerStats are what a tool's circuit breaker did over the measured
// window (Result.ToolWindow). The refusals are those of measured runs; each
// is judged by the call's own draws, as draw would have made them had it
// been dialed (its error draw, the outages and the script, and its latency
// against the lease it would have had), not by the load it would have
// added: RefusedWouldFail are the calls the breaker saved, which would have
// failed; RefusedWouldSucceed the successes it cost.
type BreakerStats struct {
	// Opened counts the changes to open (from closed or half-open).
	Opened int64 `json:"opened"`
	// OpenSeconds and HalfOpenSeconds are the time spent in each state.
	OpenSeconds     float64 `json:"open_s"`
	HalfOpenSeconds float64 `json:"half_open_s"`
	// Refused counts the calls of measured runs the breaker refused.
	Refused             int64 `json:"refused"`
	RefusedWouldFail    int64 `json:"refused_would_fail"`
	RefusedWouldSucceed int64 `json:"refused_would_succeed"`
}

// Merge adds o to s.
func (s *BreakerStats) Merge(o BreakerStats) {
	s.Opened += o.Opened
	s.OpenSeconds += o.OpenSeconds
	s.HalfOpenSeconds += o.HalfOpenSeconds
	s.Refused += o.Refused
	s.RefusedWouldFail += o.RefusedWouldFail
	s.RefusedWouldSucceed += o.RefusedWouldSucceed
}

// newBreakers makes the breakers of cfg's tools, or returns nil when no
// tool has one.
func (m *Model) newBreakers(cfg *Config) []toolBreaker {
	var out []toolBreaker
	for i, t := range cfg.Tools {
		if t.CircuitBreaker == nil {
			continue
		}
		if out == nil {
			out = make([]toolBreaker, len(cfg.Tools))
		}
		c := *t.CircuitBreaker
		tool := int32(i)
		c.OnTransition = func(tr breaker.Transition) { m.breakerTransition(tool, tr) }
		b, err := breaker.New(c)
		if err != nil {
			panic("system: invalid circuit breaker (the loader validates it): " + err.Error())
		}
		out[i].b = b
	}
	if out != nil {
		s := m.res.Series
		s.BreakerOpen = make([][]float64, len(cfg.Tools))
		s.BreakerHalfOpen = make([][]float64, len(cfg.Tools))
		s.BreakerRefused = make([][]int64, len(cfg.Tools))
		m.res.Breakers = make([]BreakerStats, len(cfg.Tools))
	}
	return out
}

// admitBreaker is the circuit breaker's gate: it refuses locally what
// would reach an open tool.
func (m *Model) admitBreaker(ri int32, r *run, tp *toolPlan, lease time.Duration) admission {
	if m.breakerAllow(r, tp, lease) {
		return admitted
	}
	m.refuse(ri, refusedBreaker)
	return refused
}

// breakerAllow asks run r's tool's breaker for a call at now. A call it
// refuses is counted, and judged by its own draws (see BreakerStats).
func (m *Model) breakerAllow(r *run, tp *toolPlan, lease time.Duration) bool {
	now := m.s.Now()
	tb := &m.breakers[r.tool]
	if tb.b.Allow(now) {
		r.cur.held |= holdBreaker
		return true
	}
	if !r.measured {
		return false
	}
	tb.stats.Refused++
	s := m.res.Series
	i := s.index(now)
	row := s.BreakerRefused[r.tool]
	for len(row) <= i {
		row = append(row, 0)
	}
	row[i]++
	s.BreakerRefused[r.tool] = row
	// What the call would have drawn, had it been dialed: draw is keyed by
	// the attempt, so asking it moves no other draw. It writes three
	// fields of the attempt that a refused call leaves unread; they are
	// put back all the same.
	a := &r.cur
	version, raU, hasRA := a.version, a.raU, a.hasRA
	o, lat, hung := m.draw(r, tp, false)
	a.version, a.raU, a.hasRA = version, raU, hasRA
	if o == retry.OK && !hung && lat <= lease {
		tb.stats.RefusedWouldSucceed++
	} else {
		tb.stats.RefusedWouldFail++
	}
	return false
}

// breakerRecord records the outcome o of run r's permitted call, which took
// elapsed (release calls it).
func (m *Model) breakerRecord(r *run, o retry.Outcome, elapsed time.Duration) {
	res := breaker.Success
	if o != retry.OK {
		res = breaker.Failure
	}
	m.breakers[r.tool].b.Record(m.s.Now(), res, elapsed)
}

// breakerRelease gives back the permission of run r's call, refused locally
// or cancelled after its breaker permitted it (release calls it).
func (m *Model) breakerRelease(r *run) {
	m.breakers[r.tool].b.Release(m.s.Now())
}

// breakerTransition is tool t's breaker's OnTransition: it closes the
// interval the breaker spent in its previous state.
func (m *Model) breakerTransition(t int32, tr breaker.Transition) {
	tb := &m.breakers[t]
	m.breakerSpan(t, tb, tr.At)
	tb.state, tb.since = tr.To, tr.At
	if tr.To == breaker.Open && m.win.warm && tr.At >= m.win.warmStart {
		tb.stats.Opened++
	}
}

// breakerSpan adds the time tool t's breaker spent in its current state,
// from tb.since to `to`, to the series and (its part after the warm-up) to
// its figures.
func (m *Model) breakerSpan(t int32, tb *toolBreaker, to time.Duration) {
	from := tb.since
	if tb.state == breaker.Closed || to <= from {
		return
	}
	s := m.res.Series
	rows := s.BreakerOpen
	if tb.state == breaker.HalfOpen {
		rows = s.BreakerHalfOpen
	}
	last := s.index(to)
	row := rows[t]
	for len(row) <= last {
		row = append(row, 0)
	}
	for i := int(from / s.Width); i <= last; i++ {
		lo := max(from, time.Duration(i)*s.Width)
		hi := min(to, time.Duration(i+1)*s.Width)
		if hi > lo {
			row[i] += secs(hi - lo)
		}
	}
	rows[t] = row
	if m.win.warm {
		d := secs(to - max(from, m.win.warmStart))
		if d > 0 {
			if tb.state == breaker.Open {
				tb.stats.OpenSeconds += d
			} else {
				tb.stats.HalfOpenSeconds += d
			}
		}
	}
}

// finishBreakers closes every breaker's current state at end, applying an
// open period that ran out with no call to see it, and hands the figures
// to the result.
func (m *Model) finishBreakers(end time.Duration) {
	for t := range m.breakers {
		tb := &m.breakers[t]
		if tb.b == nil {
			continue
		}
		tb.b.State(end) // reports an Open → HalfOpen that came due unseen
		m.breakerSpan(int32(t), tb, end)
		tb.since = end
		m.res.Breakers[t] = tb.stats
	}
}

// halveBreakers merges s's breaker bins pairwise, as Series.halve does the
// others.
func halveBreakers(s *Series) {
	for _, rows := range [...][][]float64{s.BreakerOpen, s.BreakerHalfOpen} {
		for t, b := range rows {
			rows[t] = halvePairs(b)
		}
	}
	for t, b := range s.BreakerRefused {
		s.BreakerRefused[t] = halvePairs(b)
	}
}

// cloneBreakers gives c, a copy of a series, breaker bins of its own.
func cloneBreakers(c *Series) {
	c.BreakerOpen = cloneRows(c.BreakerOpen)
	c.BreakerHalfOpen = cloneRows(c.BreakerHalfOpen)
	c.BreakerRefused = cloneRows(c.BreakerRefused)
}

func cloneRows[T int64 | float64](rows [][]T) [][]T {
	if rows == nil {
		return nil
	}
	out := make([][]T, len(rows))
	for t, b := range rows {
		out[t] = slices.Clone(b)
	}
	return out
}

// mergeBreakers adds o's breaker bins to s's, of the same width.
func mergeBreakers(s, o *Series) {
	if o.BreakerOpen == nil {
		return
	}
	s.BreakerOpen = addBins(s.BreakerOpen, o.BreakerOpen)
	s.BreakerHalfOpen = addBins(s.BreakerHalfOpen, o.BreakerHalfOpen)
	s.BreakerRefused = addBins(s.BreakerRefused, o.BreakerRefused)
}
