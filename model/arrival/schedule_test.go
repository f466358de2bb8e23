package arrival

import (
	"fmt"
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestScheduleCounts: the count in each segment matches ∫rate over it, a
// rate-0 segment gets no arrivals, and a schedule that ends at rate 0 stops.
func TestScheduleCounts(t *testing.T) {
	const s = time.Second
	points := []RatePoint{{0, 2}, {1000 * s, 8}, {2000 * s, 0}, {3000 * s, 3}, {4000 * s, 0}}
	p, err := Schedule(points, 0)
	if err != nil {
		t.Fatal(err)
	}
	times := generate(t, p, newRand(), math.MaxInt64)
	for k, pt := range points[:len(points)-1] {
		from, to := pt.At, points[k+1].At
		want := pt.Rate * (to - from).Seconds() // reference: rate × length
		if got := p.Expected(from, to); math.Abs(got-want) > 1e-9*want {
			t.Errorf("Expected(%v, %v) = %g, want %g", from, to, got, want)
		}
		checkPoissonCount(t, fmt.Sprintf("segment %d [%v, %v) at %g/s", k, from, to, pt.Rate),
			countIn(times, from, to), want)
	}
	if n := len(times); n > 0 && times[n-1] >= 4000*s {
		t.Errorf("last arrival at %v, want before 4000s (rate 0 from there on)", times[n-1])
	}
	// Once ended, it stays ended, from wherever it is asked.
	r := newRand()
	for _, prev := range []time.Duration{3999 * s, 4000 * s, 1e6 * s} {
		if at, ok := p.Next(1, prev, r); ok && at >= 4000*s {
			t.Errorf("Next(1, %v) = %v, true; want false or an instant before 4000s", prev, at)
		}
	}
}

// TestScheduleStartsAtRateZero: the first arrival waits for the first
// positive segment.
func TestScheduleStartsAtRateZero(t *testing.T) {
	p, _ := Schedule([]RatePoint{{0, 0}, {5 * time.Second, 1000}}, 0)
	r := newRand()
	for range 100 {
		at, ok := p.Next(0, 0, r)
		if !ok || at < 5*time.Second || at > 6*time.Second {
			t.Fatalf("Next(0, 0) = %v, %v; want an instant in [5s, 6s) (rate 1000/s from 5s)", at, ok)
		}
	}
}

// TestScheduleRepeat: a diurnal schedule repeating every 24h; counts per
// segment, summed over 20 days, match 20 × ∫rate.
func TestScheduleRepeat(t *testing.T) {
	const h, days = time.Hour, 20
	points := []RatePoint{{0, 0.02}, {9 * h, 0.08}, {18 * h, 0.03}}
	p, err := Schedule(points, 24*h)
	if err != nil {
		t.Fatal(err)
	}
	// Λ(24h) = 0.02·9h + 0.08·9h + 0.03·6h = 648 + 2592 + 648 = 3888.
	if got := p.Expected(0, 24*h); math.Abs(got-3888) > 1e-9 {
		t.Errorf("Expected(0, 24h) = %g, want 3888", got)
	}
	if got := p.Expected(17*h, 24*h+10*h); math.Abs(got-(288+648+648+288)) > 1e-9 {
		t.Errorf("Expected(17h, 34h) = %g, want 1872 (0.08·1h + 0.03·6h + 0.02·9h + 0.08·1h)", got)
	}
	times := generate(t, p, newRand(), days*24*h)
	ends := []time.Duration{9 * h, 18 * h, 24 * h}
	counts := make([]int, len(points))
	perDay := make([]int, days)
	for _, x := range times {
		o := x % (24 * h)
		k := 0
		for o >= ends[k] {
			k++
		}
		counts[k]++
		perDay[x/(24*h)]++
	}
	for k, pt := range points {
		want := days * pt.Rate * (ends[k] - pt.At).Seconds()
		checkPoissonCount(t, fmt.Sprintf("segment %d over %d days", k, days), counts[k], want)
	}
	for d, c := range perDay {
		checkPoissonCount(t, fmt.Sprintf("day %d", d), c, 3888)
	}
}

// TestScheduleSkipsPeriods: with E covering many periods per arrival (one
// arrival per ~17 days), Next skips whole periods in one step, and every
// arrival still lands in the only positive segment.
func TestScheduleSkipsPeriods(t *testing.T) {
	const h, days = time.Hour, 100000 // 274 years, near the end of time.Duration
	// Λ per period = 0.001/s × 60 s = 0.06.
	p, _ := Schedule([]RatePoint{{0, 0}, {h, 0.001}, {h + time.Minute, 0}}, 24*h)
	times := generate(t, p, newRand(), days*24*h)
	checkPoissonCount(t, fmt.Sprintf("%d days at 0.06 per day", days), len(times), days*0.06)
	firstHalf := 0
	for _, x := range times {
		o := x % (24 * h)
		if o < h || o >= h+time.Minute {
			t.Fatalf("arrival at %v is at offset %v in its day, want in [1h, 1h1m)", x, o)
		}
		if o < h+30*time.Second {
			firstHalf++
		}
	}
	// Within the window the rate is constant, so arrivals are uniform on
	// it: the first half holds Binomial(n, 1/2); allow 4 standard
	// deviations, 4·√(n/4).
	n := float64(len(times))
	if tol := 4 * math.Sqrt(n/4); math.Abs(float64(firstHalf)-n/2) > tol {
		t.Errorf("%d of %d arrivals in the first half of the window, want %.0f ± %.0f", firstHalf, len(times), n/2, tol)
	}
}

// TestScheduleEndOfTime: a repeating schedule ends at the largest Duration
// instead of wrapping. Λ over the 48h left is 2 × 23h × 1e-12/s ≈ 1.7e-7,
// so an arrival there has that probability per draw.
func TestScheduleEndOfTime(t *testing.T) {
	p, _ := Schedule([]RatePoint{{0, 0}, {time.Hour, 1e-12}}, 24*time.Hour)
	r := newRand()
	prev := time.Duration(math.MaxInt64 - int64(48*time.Hour))
	for i := range 50 {
		if at, ok := p.Next(int64(i), prev, r); ok {
			t.Fatalf("Next(%d, MaxInt64−48h) = %v, true; want false (next arrival past the end of time)", i, at)
		}
	}
}

// TestScheduleOnePointIsInverseTransform: a constant-rate schedule turns
// each uniform u into a gap of exactly −ln(1 − u)/rate (one uniform per
// arrival, inverse transform), rounded to the nanosecond once per arrival.
func TestScheduleOnePointIsInverseTransform(t *testing.T) {
	s, _ := Schedule([]RatePoint{{0, 7}}, 0)
	rs, ru := newRand(), newRand()
	var prev time.Duration
	for n := range int64(1000) {
		got, _ := s.Next(n, prev, rs)
		want, _ := after(prev, -math.Log(1-ru.Float64())/7)
		if d := got - want; d < -1 || d > 1 {
			t.Fatalf("arrival %d: Schedule({0: 7}) = %v, inverse transform = %v", n, got, want)
		}
		prev = got
	}
}

// TestScheduleProperties: for random schedules, instants never decrease,
// never fall in a rate-0 segment, and draw exactly one uniform each.
func TestScheduleProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 6).Draw(rt, "points")
		points := make([]RatePoint, n)
		at := time.Duration(0)
		for k := range points {
			if k > 0 {
				at += time.Duration(rapid.Int64Range(1, int64(time.Minute)).Draw(rt, "gap"))
			}
			rate := 0.0
			if rapid.Bool().Draw(rt, "positive") {
				rate = rapid.Float64Range(0.01, 1e4).Draw(rt, "rate")
			}
			points[k] = RatePoint{at, rate}
		}
		repeat := time.Duration(0)
		if rapid.Bool().Draw(rt, "repeat") {
			repeat = at + time.Duration(rapid.Int64Range(1, int64(time.Minute)).Draw(rt, "tail"))
		}
		p, err := Schedule(points, repeat)
		if err != nil {
			rt.Skip(err) // all rates 0
		}
		rateAt := func(x time.Duration) float64 {
			if repeat > 0 {
				x %= repeat
			}
			k := len(points) - 1
			for points[k].At > x {
				k--
			}
			return points[k].Rate
		}
		src := &countingSource{src: newRand()}
		r := randFrom(src)
		prev := time.Duration(0)
		for i := range int64(200) {
			before := src.draws
			x, ok := p.Next(i, prev, r)
			if src.draws-before != 1 {
				rt.Fatalf("Next(%d, %v) drew %d uniforms, want 1", i, prev, src.draws-before)
			}
			if !ok {
				break
			}
			if x < prev {
				rt.Fatalf("Next(%d, %v) = %v, before prev", i, prev, x)
			}
			if rateAt(x) == 0 {
				rt.Fatalf("Next(%d, %v) = %v, in a rate-0 segment", i, prev, x)
			}
			prev = x
		}
	})
}
