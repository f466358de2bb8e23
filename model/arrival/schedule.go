package arrival

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// RatePoint is one step of a piecewise-constant rate schedule: from instant
// At on (an offset from the start of the schedule, or of each period when it
// repeats) the rate is Rate arrivals per second, until the next point.
type RatePoint struct {
	At   time.Duration
	Rate float64
}

// Schedule returns a non-homogeneous Poisson process whose rate is
// piecewise constant: points[k].Rate from points[k].At until
// points[k+1].At. For example 2/s from 0h, 8/s from 9h and 3/s from 18h.
//
// If repeat is 0 the schedule does not repeat: the last point's rate holds
// forever, and when it is 0 the process ends (Next returns false) once the
// arrivals before it are used up. If repeat > 0 the rate is periodic,
// rate(t) = rate(t mod repeat), and the last point's rate holds until the
// end of each period (24h gives a diurnal pattern).
//
// The process is simulated exactly by inverting the cumulative rate
// Λ(t) = ∫₀ᵗ rate: Next draws one uniform u, sets E = −ln(1 − u) ~ Exp(1)
// and returns the t with Λ(t) − Λ(prev) = E, walking the segments from prev
// (segments with rate 0 are crossed without arrivals; whole periods are
// skipped in one step). Under common random numbers this is a time change
// of one unit-rate Poisson stream, and a one-point schedule reproduces
// Poisson with the same rate draw for draw. The method is the inversion
// of the cumulative rate (the "expectation function") for nonstationary
// Poisson processes described in Law, Simulation Modeling and Analysis,
// chapter 8; it rests on the time-change theorem: Λ(T₁), Λ(T₂), … of a
// Poisson process with rate function rate(t) form a unit-rate Poisson
// process (Çinlar, Introduction to Stochastic Processes, 1975, ch. 4).
//
// Validation: points must not be empty; points[0].At must be 0; At must
// increase strictly; rates must be finite and ≥ 0, and not all 0; repeat
// must be ≥ 0 and, when > 0, after the last point's At. The slice is copied.
func Schedule(points []RatePoint, repeat time.Duration) (Process, error) {
	if len(points) == 0 {
		return nil, paramErr("points", "must not be empty")
	}
	if points[0].At != 0 {
		return nil, paramErr("points[0].at", "must be 0, got %v", points[0].At)
	}
	anyPositive := false
	for k, p := range points {
		if k > 0 && p.At <= points[k-1].At {
			return nil, paramErr(index("points", k)+".at", "must be after points[%d].at (%v), got %v",
				k-1, points[k-1].At, p.At)
		}
		if err := checkRate(index("points", k)+".rate", p.Rate, false); err != nil {
			return nil, err
		}
		anyPositive = anyPositive || p.Rate > 0
	}
	last := len(points) - 1
	switch {
	case repeat < 0:
		return nil, paramErr("repeat", "must be ≥ 0 (0: no repeat), got %v", repeat)
	case repeat > 0 && repeat <= points[last].At:
		return nil, paramErr("repeat", "must be after the last point (points[%d].at = %v), got %v",
			last, points[last].At, repeat)
	case !anyPositive:
		return nil, paramErr("points", "every rate is 0: the process would have no arrivals")
	}
	s := &schedule{
		at:     make([]time.Duration, len(points)),
		rate:   make([]float64, len(points)),
		cum:    make([]float64, len(points)),
		repeat: repeat,
	}
	for k, p := range points {
		s.at[k], s.rate[k] = p.At, p.Rate
		if k > 0 {
			s.cum[k] = s.cum[k-1] + float64(s.rate[k-1]*(s.at[k]-s.at[k-1]).Seconds())
		}
	}
	if repeat > 0 {
		s.perPeriod = s.cum[last] + float64(s.rate[last]*(repeat-s.at[last]).Seconds())
	}
	return s, nil
}

type schedule struct {
	at        []time.Duration // segment starts, offsets within a period; at[0] = 0
	rate      []float64       // arrivals per second in each segment
	cum       []float64       // cum[k] = Λ(at[k]) within a period
	repeat    time.Duration   // period; 0: no repeat
	perPeriod float64         // Λ over one period (repeat > 0)
}

// segment returns the last k with at[k] ≤ o, for o ≥ 0.
func (s *schedule) segment(o time.Duration) int {
	lo, hi := 0, len(s.at) // invariant: at[lo] ≤ o, and at[hi] > o or hi = len
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if s.at[mid] <= o {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

func (s *schedule) Next(n int64, prev time.Duration, r *rand.Rand) (time.Duration, bool) {
	checkN(n)
	e := exp1(r) // remaining Λ to cover
	prev = max(prev, 0)
	// base is the start of prev's period (0 without repeat); o the offset in it.
	base, o := time.Duration(0), prev
	if s.repeat > 0 {
		o = prev % s.repeat
		base = prev - o
	}
	last := len(s.at) - 1
	for k := s.segment(o); ; {
		rate := s.rate[k]
		if k == last && s.repeat == 0 {
			if rate == 0 {
				return 0, false // rate 0 forever after
			}
			return after(base+o, e/rate)
		}
		end := s.repeat
		if k < last {
			end = s.at[k+1]
		}
		if rate > 0 {
			c := float64(rate * (end - o).Seconds()) // Λ over the rest of the segment
			if e < c {
				at, ok := after(base+o, e/rate)
				// e/rate < end − o, but rounding to the nanosecond may
				// reach end, which belongs to the next segment (perhaps
				// one with rate 0): keep the arrival in [o, end).
				return min(at, base+end-1), ok
			}
			e -= c
		}
		if k < last {
			k, o = k+1, end
			continue
		}
		// End of a period: move to the next one, skipping the whole periods
		// that E covers. The new period must end by MaxInt64:
		// base + (skip+1)·repeat ≤ MaxInt64, that is skip < room.
		skip := 1.0
		if e >= s.perPeriod {
			skip += math.Floor(e / s.perPeriod)
		}
		room := (math.MaxInt64 - base) / s.repeat
		if !(skip < float64(room)) {
			return 0, false
		}
		base += time.Duration(skip) * s.repeat
		e = max(e-float64((skip-1)*s.perPeriod), 0)
		k, o = 0, 0
	}
}

// cumulative returns Λ(t) for t ≥ 0, split as whole periods q and the
// integral within the current period, so differences stay accurate late in
// a long run.
func (s *schedule) cumulative(t time.Duration) (q int64, within float64) {
	if s.repeat > 0 {
		q, t = int64(t/s.repeat), t%s.repeat
	}
	k := s.segment(t)
	return q, s.cum[k] + float64(s.rate[k]*(t-s.at[k]).Seconds())
}

func (s *schedule) Expected(from, to time.Duration) float64 {
	from, to, ok := clampWindow(from, to)
	if !ok {
		return 0
	}
	qf, wf := s.cumulative(from)
	qt, wt := s.cumulative(to)
	return float64(float64(qt-qf)*s.perPeriod) + (wt - wf)
}

func (s *schedule) MeanRate() float64 {
	if s.repeat == 0 {
		return s.rate[len(s.rate)-1]
	}
	return s.perPeriod / s.repeat.Seconds()
}

func (s *schedule) String() string {
	var b strings.Builder
	b.WriteString("schedule(")
	for k := range s.at {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.at[k].String())
		b.WriteString(": ")
		b.WriteString(formatFloat(s.rate[k]))
		b.WriteString("/s")
	}
	if s.repeat > 0 {
		b.WriteString("; repeat ")
		b.WriteString(s.repeat.String())
	}
	b.WriteString(")")
	return b.String()
}

// index returns "name[k]".
func index(name string, k int) string { return name + "[" + strconv.Itoa(k) + "]" }
