package arrival

import (
	"errors"
	"math"
	"slices"
	"sort"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestConstructorErrors(t *testing.T) {
	h := time.Hour
	tests := []struct {
		call string
		f    func() (Process, error)
		want string
	}{
		{"Poisson(0)", func() (Process, error) { return Poisson(0) }, "rate: must be > 0, got 0"},
		{"Poisson(-1)", func() (Process, error) { return Poisson(-1) }, "rate: must be > 0, got -1"},
		{"Poisson(NaN)", func() (Process, error) { return Poisson(math.NaN()) }, "rate: must be a number, got NaN"},
		{"Poisson(+Inf)", func() (Process, error) { return Poisson(math.Inf(1)) }, "rate: must be finite, got +Inf"},
		{"Constant(-0.5)", func() (Process, error) { return Constant(-0.5) }, "rate: must be > 0, got -0.5"},
		{"Batch(0)", func() (Process, error) { return Batch(0) }, "count: must be ≥ 1, got 0"},
		{"Schedule(nil, 0)", func() (Process, error) { return Schedule(nil, 0) }, "points: must not be empty"},
		{"Schedule({1h: 2}, 0)", func() (Process, error) { return Schedule([]RatePoint{{h, 2}}, 0) },
			"points[0].at: must be 0, got 1h0m0s"},
		{"Schedule({0: 2, 9h: 8, 8h: 3}, 0)", func() (Process, error) {
			return Schedule([]RatePoint{{0, 2}, {9 * h, 8}, {8 * h, 3}}, 0)
		}, "points[2].at: must be after points[1].at (9h0m0s), got 8h0m0s"},
		{"Schedule({0: 2, 9h: 8, 9h: 3}, 0)", func() (Process, error) {
			return Schedule([]RatePoint{{0, 2}, {9 * h, 8}, {9 * h, 3}}, 0)
		}, "points[2].at: must be after points[1].at (9h0m0s), got 9h0m0s"},
		{"Schedule({0: 2, 9h: 8, 18h: -1}, 0)", func() (Process, error) {
			return Schedule([]RatePoint{{0, 2}, {9 * h, 8}, {18 * h, -1}}, 0)
		}, "points[2].rate: must be ≥ 0, got -1"},
		{"Schedule({0: +Inf}, 0)", func() (Process, error) {
			return Schedule([]RatePoint{{0, math.Inf(1)}}, 0)
		}, "points[0].rate: must be finite, got +Inf"},
		{"Schedule({0: 0, 1h: 0}, 24h)", func() (Process, error) {
			return Schedule([]RatePoint{{0, 0}, {h, 0}}, 24*h)
		}, "points: every rate is 0: the process would have no arrivals"},
		{"Schedule({0: 1}, -1s)", func() (Process, error) { return Schedule([]RatePoint{{0, 1}}, -time.Second) },
			"repeat: must be ≥ 0 (0: no repeat), got -1s"},
		{"Schedule({0: 2, 18h: 3}, 12h)", func() (Process, error) {
			return Schedule([]RatePoint{{0, 2}, {18 * h, 3}}, 12*h)
		}, "repeat: must be after the last point (points[1].at = 18h0m0s), got 12h0m0s"},
		{"Schedule({0: 2, 18h: 3}, 18h)", func() (Process, error) {
			return Schedule([]RatePoint{{0, 2}, {18 * h, 3}}, 18*h)
		}, "repeat: must be after the last point (points[1].at = 18h0m0s), got 18h0m0s"},
		{"Diurnal(0, 0.5, 24h, 0)", func() (Process, error) { return Diurnal(0, 0.5, 24*h, 0) },
			"mean: must be > 0, got 0"},
		{"Diurnal(5, 1.5, 24h, 0)", func() (Process, error) { return Diurnal(5, 1.5, 24*h, 0) },
			"amplitude: must be in [0, 1], got 1.5"},
		{"Diurnal(5, -0.1, 24h, 0)", func() (Process, error) { return Diurnal(5, -0.1, 24*h, 0) },
			"amplitude: must be in [0, 1], got -0.1"},
		{"Diurnal(5, NaN, 24h, 0)", func() (Process, error) { return Diurnal(5, math.NaN(), 24*h, 0) },
			"amplitude: must be in [0, 1], got NaN"},
		{"Diurnal(5, 0.5, 0, 0)", func() (Process, error) { return Diurnal(5, 0.5, 0, 0) },
			"period: must be > 0, got 0s"},
		{"Diurnal(5, 0.5, 24h, Inf)", func() (Process, error) { return Diurnal(5, 0.5, 24*h, math.Inf(-1)) },
			"phase: must be finite, got -Inf"},
		{"Trace(nil)", func() (Process, error) { return Trace(nil) }, "times: must not be empty"},
		{"Trace({-1s})", func() (Process, error) { return Trace([]time.Duration{-time.Second}) },
			"times[0]: must be ≥ 0, got -1s"},
		{"Trace({0, 2s, 2s, 1s})", func() (Process, error) {
			return Trace([]time.Duration{0, 2 * time.Second, 2 * time.Second, time.Second})
		}, "times[3]: out of order: 1s is before times[2] = 2s"},
	}
	for _, tt := range tests {
		p, err := tt.f()
		if err == nil {
			t.Errorf("%s = %v, nil; want error %q", tt.call, p, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("%s error = %q, want %q", tt.call, err, tt.want)
		}
		var pe *ParamError
		if !errors.As(err, &pe) {
			t.Errorf("%s error is %T, want *ParamError", tt.call, err)
		}
	}
}

func TestString(t *testing.T) {
	mk := func(p Process, err error) Process {
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		p    Process
		want string
	}{
		{mk(Poisson(5)), "poisson(rate=5/s)"},
		{mk(Constant(0.25)), "constant(rate=0.25/s)"},
		{mk(Batch(100)), "batch(count=100)"},
		{mk(Schedule([]RatePoint{{0, 2}, {9 * time.Hour, 8}, {18 * time.Hour, 3}}, 24*time.Hour)),
			"schedule(0s: 2/s, 9h0m0s: 8/s, 18h0m0s: 3/s; repeat 24h0m0s)"},
		{mk(Schedule([]RatePoint{{0, 5}, {time.Minute, 0}}, 0)), "schedule(0s: 5/s, 1m0s: 0/s)"},
		{mk(Diurnal(5, 0.5, 24*time.Hour, 0)), "diurnal(mean=5/s, amplitude=0.5, period=24h0m0s, phase=0)"},
		{mk(Trace([]time.Duration{0, time.Second, time.Minute})), "trace(n=3, first=0s, last=1m0s)"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestMeanRate(t *testing.T) {
	h := time.Hour
	mk := func(p Process, err error) Process {
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		p    Process
		want float64
	}{
		{mk(Poisson(5)), 5},
		{mk(Constant(3)), 3},
		{mk(Batch(10)), 0},
		// (2·9h + 8·9h + 3·6h) / 24h = 108/24 arrivals per second.
		{mk(Schedule([]RatePoint{{0, 2}, {9 * h, 8}, {18 * h, 3}}, 24*h)), 4.5},
		// Without repeat the last rate holds forever.
		{mk(Schedule([]RatePoint{{0, 2}, {9 * h, 8}, {18 * h, 3}}, 0)), 3},
		{mk(Schedule([]RatePoint{{0, 5}, {h, 0}}, 0)), 0},
		{mk(Diurnal(5, 0.9, 24*h, 1)), 5},
		// 4 gaps over 2 s.
		{mk(Trace([]time.Duration{0, 0, time.Second, time.Second, 2 * time.Second})), 2},
		{mk(Trace([]time.Duration{time.Second})), 0},
	}
	for _, tt := range tests {
		if got := tt.p.MeanRate(); math.Abs(got-tt.want) > 1e-12*tt.want {
			t.Errorf("%v.MeanRate() = %g, want %g", tt.p, got, tt.want)
		}
	}
}

func TestAfter(t *testing.T) {
	const maxD = time.Duration(math.MaxInt64)
	tests := []struct {
		t      time.Duration
		s      float64
		want   time.Duration
		wantOK bool
	}{
		{0, 1.5, 1500 * time.Millisecond, true},
		{10, 0.4e-9, 10, true},          // rounds down
		{10, 0.6e-9, 11, true},          // rounds up
		{maxD - 5, 5e-9, maxD, true},    // the last representable instant
		{maxD - 5, 6e-9, 0, false},      // one past it
		{0, 9.3e9, 0, false},            // 9.3e18 ns > MaxInt64
		{0, math.Inf(1), 0, false},      // rate 0
		{0, math.NaN(), 0, false},       // never a number
		{time.Hour, 0, time.Hour, true}, // a zero gap
		{0, 1e300, 0, false},            // far beyond
		{maxD, 0, maxD, true},           // no room, no gap
	}
	for _, tt := range tests {
		got, ok := after(tt.t, tt.s)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("after(%d, %g) = %d, %v, want %d, %v", tt.t, tt.s, got, ok, tt.want, tt.wantOK)
		}
	}
}

// TestPoissonCounts checks counts in ten windows against λT.
func TestPoissonCounts(t *testing.T) {
	const rate = 20.0
	p, _ := Poisson(rate)
	const w = 100 * time.Second
	times := generate(t, p, newRand(), 10*w)
	for i := range 10 {
		from, to := time.Duration(i)*w, time.Duration(i+1)*w
		checkPoissonCount(t, "Poisson(20) in ["+from.String()+", "+to.String()+")",
			countIn(times, from, to), p.Expected(from, to))
	}
	checkPoissonCount(t, "Poisson(20) in [0, 1000s)", len(times), rate*1000)
}

// TestPoissonGaps checks the inter-arrival distribution against
// Exp(rate): the fraction of gaps below the median ln2/rate, and the
// Kolmogorov–Smirnov distance.
func TestPoissonGaps(t *testing.T) {
	const rate, n = 20.0, 20000
	p, _ := Poisson(rate)
	r := newRand()
	gaps := make([]float64, n)
	prev := time.Duration(0)
	for i := range gaps {
		at, ok := p.Next(int64(i), prev, r)
		if !ok {
			t.Fatalf("Poisson(20).Next(%d, %v) ended", i, prev)
		}
		gaps[i] = (at - prev).Seconds()
		prev = at
	}

	// Below the median: Binomial(n, 1/2), standard deviation √(n/4);
	// allow 4 standard deviations.
	below := 0
	for _, g := range gaps {
		if g < math.Ln2/rate {
			below++
		}
	}
	if frac, tol := float64(below)/n, 4*math.Sqrt(0.25/n); math.Abs(frac-0.5) > tol {
		t.Errorf("fraction of gaps below the median ln2/λ = %.4f, want 0.5 ± %.4f", frac, tol)
	}

	// One-sample KS: D_n = sup |F_n − F|. The asymptotic 1% critical
	// value is 1.628/√n (Kolmogorov distribution quantile K(0.99) =
	// 1.628; e.g. scipy.stats.kstwobign.ppf(0.99)).
	sort.Float64s(gaps)
	exp := distuv.Exponential{Rate: rate}
	d := 0.0
	for i, g := range gaps {
		f := exp.CDF(g)
		d = max(d, math.Abs(float64(i+1)/n-f), math.Abs(f-float64(i)/n))
	}
	if crit := 1.628 / math.Sqrt(n); d > crit {
		t.Errorf("KS distance of gaps from Exp(20) = %.4f, want ≤ %.4f (1%% level)", d, crit)
	}
}

// TestPoissonEndsAtOverflow: an arrival past the largest Duration ends the
// process instead of wrapping around.
func TestPoissonEndsAtOverflow(t *testing.T) {
	p, _ := Poisson(1e-9) // one per 31.7 years on average
	r := newRand()
	prev := time.Duration(math.MaxInt64 - int64(time.Second))
	for i := range 100 {
		if at, ok := p.Next(int64(i), prev, r); ok {
			t.Fatalf("Poisson(1e-9).Next(%d, MaxInt64−1s) = %v, true; want false", i, at)
		}
	}
}

func TestConstantExact(t *testing.T) {
	p, _ := Constant(3) // period 1/3 s: not a whole number of nanoseconds
	r := newRand()
	tests := []struct {
		n    int64
		want time.Duration
	}{
		{0, 333333333},
		{1, 666666667},
		{2, time.Second},
		{299, 100 * time.Second},
		{3*86400*365 - 1, 365 * 24 * time.Hour}, // a year later: no drift
	}
	for _, tt := range tests {
		if got, ok := p.Next(tt.n, 0, r); got != tt.want || !ok {
			t.Errorf("Constant(3).Next(%d, 0) = %v, %v, want %v, true", tt.n, got, ok, tt.want)
		}
	}
	// Constant draws nothing: r's next value is unchanged.
	if got, want := r.Uint64(), newRand().Uint64(); got != want {
		t.Errorf("Constant.Next consumed randomness: next Uint64 = %d, want %d", got, want)
	}
	if got, ok := p.Next(math.MaxInt64-1, 0, r); ok {
		t.Errorf("Constant(3).Next(MaxInt64−1, 0) = %v, true; want false (overflow)", got)
	}
}

func TestBatch(t *testing.T) {
	p, _ := Batch(3)
	r := newRand()
	got := generate(t, p, r, time.Hour)
	if want := []time.Duration{0, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("Batch(3) arrivals = %v, want %v", got, want)
	}
	if got := p.Expected(0, time.Nanosecond); got != 3 {
		t.Errorf("Batch(3).Expected(0, 1ns) = %g, want 3", got)
	}
	if got := p.Expected(time.Nanosecond, time.Hour); got != 0 {
		t.Errorf("Batch(3).Expected(1ns, 1h) = %g, want 0", got)
	}
}

func TestNextPanicsOnNegativeIndex(t *testing.T) {
	p, _ := Trace([]time.Duration{0})
	defer func() {
		if recover() == nil {
			t.Errorf("Trace.Next(-1, 0) did not panic")
		}
	}()
	p.Next(-1, 0, newRand())
}

// TestExpectedWindows: empty and reversed windows hold nothing, and time
// before 0 carries no rate.
func TestExpectedWindows(t *testing.T) {
	s := time.Second
	for _, c := range hotProcesses(t) {
		p := c.p
		if got := p.Expected(5*s, 5*s); got != 0 {
			t.Errorf("%s.Expected(5s, 5s) = %g, want 0", c.name, got)
		}
		if got := p.Expected(5*s, 4*s); got != 0 {
			t.Errorf("%s.Expected(5s, 4s) = %g, want 0", c.name, got)
		}
		if got, want := p.Expected(-time.Hour, 3*s), p.Expected(0, 3*s); got != want {
			t.Errorf("%s.Expected(−1h, 3s) = %g, want Expected(0, 3s) = %g", c.name, got, want)
		}
	}
	// Reference values: rate × length.
	pc, _ := Constant(4)
	if got := pc.Expected(time.Second, 3*time.Second); got != 8 {
		t.Errorf("Constant(4).Expected(1s, 3s) = %g, want 8", got)
	}
}
