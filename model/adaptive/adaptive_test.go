package adaptive_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/adaptive"
)

const ms = time.Millisecond

func aimd(t *testing.T, c adaptive.AIMDConfig) *adaptive.AIMD {
	t.Helper()
	a, err := adaptive.NewAIMD(c)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func gradient(t *testing.T, c adaptive.GradientConfig) *adaptive.Gradient {
	t.Helper()
	g, err := adaptive.NewGradient(c)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestAIMDRules pins each branch of AIMDLimit's update on scripted samples.
func TestAIMDRules(t *testing.T) {
	t.Parallel()
	cfg := adaptive.AIMDConfig{Initial: 20, Min: 5, Max: 22, BackoffRatio: 0.9, Timeout: time.Second}
	a := aimd(t, cfg)
	steps := []struct {
		s    adaptive.Sample
		want int
		why  string
	}{
		{adaptive.Sample{RTT: 10 * ms, InFlight: 10}, 21, "2×10 ≥ 20: +1"},
		{adaptive.Sample{RTT: 10 * ms, InFlight: 10}, 21, "2×10 < 21: app-limited, unchanged"},
		{adaptive.Sample{RTT: 10 * ms, InFlight: 11}, 22, "+1"},
		{adaptive.Sample{RTT: 10 * ms, InFlight: 22}, 22, "clamped at Max"},
		{adaptive.Sample{RTT: 10 * ms, InFlight: 22, Dropped: true}, 19, "⌊22×0.9⌋ = 19"},
		{adaptive.Sample{RTT: time.Second, InFlight: 19}, 20, "RTT = Timeout is not a timeout: +1"},
		{adaptive.Sample{RTT: time.Second + 1, InFlight: 1}, 18, "RTT > Timeout counts as a drop: ⌊20×0.9⌋"},
		{adaptive.Sample{Dropped: true}, 16, "⌊18×0.9⌋ = 16"},
		{adaptive.Sample{Dropped: true}, 14, "⌊16×0.9⌋ = 14"},
		{adaptive.Sample{Dropped: true}, 12, ""},
		{adaptive.Sample{Dropped: true}, 10, ""},
		{adaptive.Sample{Dropped: true}, 9, ""},
		{adaptive.Sample{Dropped: true}, 8, ""},
		{adaptive.Sample{Dropped: true}, 7, ""},
		{adaptive.Sample{Dropped: true}, 6, ""},
		{adaptive.Sample{Dropped: true}, 5, "⌊6×0.9⌋ = 5"},
		{adaptive.Sample{Dropped: true}, 5, "clamped at Min"},
	}
	for i, st := range steps {
		if got := a.Update(st.s); got != st.want || a.Limit() != st.want {
			t.Fatalf("step %d %+v: Update = %d, Limit = %d, want %d (%s)", i, st.s, got, a.Limit(), st.want, st.why)
		}
	}
}

// TestAIMDConvergence: against a dependency that drops every call beyond
// capacity C when the caller fills its limit, AIMD settles into the sawtooth
// between ⌊0.9(C+1)⌋ and C+1; and under sustained success at full use it
// climbs one per sample to Max.
func TestAIMDConvergence(t *testing.T) {
	t.Parallel()
	const capacity = 50
	const lowTooth = 45 // ⌊0.9×(capacity+1)⌋
	a := aimd(t, adaptive.AIMDConfig{Initial: 150, Min: 1, Max: 200, BackoffRatio: 0.9, Timeout: time.Second})
	prev := a.Limit()
	for i := range 2000 {
		l := a.Limit()
		got := a.Update(adaptive.Sample{RTT: 10 * ms, InFlight: l, Dropped: l > capacity})
		if i < 10 && got >= prev { // 150 → 135 → … → 50 in ten floored drops
			t.Fatalf("sample %d: limit %d did not fall from %d under drops", i, got, prev)
		}
		if i >= 100 && (got < lowTooth || got > capacity+1) {
			t.Fatalf("sample %d: limit %d outside the sawtooth [%d, %d]", i, got, lowTooth, capacity+1)
		}
		prev = got
	}
	b := aimd(t, adaptive.AIMDConfig{Initial: 20, Min: 1, Max: 200, BackoffRatio: 0.9, Timeout: time.Second})
	for i := 1; i <= 200; i++ {
		got := b.Update(adaptive.Sample{RTT: 10 * ms, InFlight: b.Limit()})
		if want := min(200, 20+i); got != want {
			t.Fatalf("success %d: limit %d, want %d", i, got, want)
		}
	}
}

// TestGradientRules pins Gradient2Limit's update on scripted samples,
// computing each expected value from the formula by hand.
func TestGradientRules(t *testing.T) {
	t.Parallel()
	cfg := adaptive.GradientConfig{Initial: 20, Min: 1, Max: 200, Smoothing: 0.2, QueueSize: 4, LongWindow: 600, RTTTolerance: 1.5}
	g := gradient(t, cfg)
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Abs(want) }

	// Steady RTT: gradient 1, each sample adds QueueSize·Smoothing = 0.8.
	for i := 1; i <= 10; i++ {
		g.Update(adaptive.Sample{RTT: 100 * ms, InFlight: 20})
		if want := 20 + 0.8*float64(i); !near(g.Estimate(), want) {
			t.Fatalf("steady sample %d: Estimate = %v, want %v", i, g.Estimate(), want)
		}
	}
	if g.Limit() != 28 || !near(g.LongRTT(), float64(100*ms)) {
		t.Fatalf("after warm-up: Limit = %d, LongRTT = %v; want 28, 100ms", g.Limit(), g.LongRTT())
	}

	// RTT triples: the long average moves by 2/601 of the difference and
	// the gradient is 1.5·long/300ms, just above the 0.5 floor.
	f := 2.0 / 601
	long := 100*(1-f) + 300*f // ms
	grad := 1.5 * long / 300
	want := 28*(1-0.2) + (28*grad+4)*0.2
	g.Update(adaptive.Sample{RTT: 300 * ms, InFlight: 28})
	if !near(g.Estimate(), want) || !near(g.LongRTT(), long*float64(ms)) {
		t.Fatalf("RTT ×3: Estimate = %v, LongRTT = %v; want %v, %vms", g.Estimate(), g.LongRTT(), want, long)
	}

	// App-limited (in flight < limit/2): the long RTT moves, the limit not.
	est := g.Estimate()
	g.Update(adaptive.Sample{RTT: 300 * ms, InFlight: 13})
	long = long*(1-f) + 300*f
	if g.Estimate() != est || !near(g.LongRTT(), long*float64(ms)) {
		t.Fatalf("app-limited: Estimate = %v (was %v), LongRTT = %v, want %vms", g.Estimate(), est, g.LongRTT(), long)
	}

	// Latency recovers far below the baseline: the baseline takes the
	// sample, then is cut by 5%; the gradient is capped at 1.
	long = long*(1-f) + 10*f
	g.Update(adaptive.Sample{RTT: 10 * ms, InFlight: 28})
	if want := est + 0.8; !near(g.Estimate(), want) || !near(g.LongRTT(), 0.95*long*float64(ms)) {
		t.Fatalf("recovery: Estimate = %v, LongRTT = %v; want %v, %vms", g.Estimate(), g.LongRTT(), want, 0.95*long)
	}
}

// TestGradientShrinksWhenRTTRises: after a baseline at 100ms, a sustained
// RTT of 300ms makes the limit fall on every sample (L' ≈ 0.9L + 0.8,
// toward 8) while the baseline lags; the floor it falls toward rises with
// the baseline (to about 11 after 40 samples), and once the baseline has
// caught up the limit grows again.
func TestGradientShrinksWhenRTTRises(t *testing.T) {
	t.Parallel()
	g := gradient(t, adaptive.GradientConfig{Initial: 50, Min: 1, Max: 200, Smoothing: 0.2, QueueSize: 4, LongWindow: 600, RTTTolerance: 1.5})
	for range 10 {
		g.Update(adaptive.Sample{RTT: 100 * ms, InFlight: g.Limit()})
	}
	prev := g.Estimate()
	for i := range 40 {
		g.Update(adaptive.Sample{RTT: 300 * ms, InFlight: g.Limit()})
		if g.Estimate() >= prev {
			t.Fatalf("sample %d at 3× RTT: estimate %v did not fall from %v", i, g.Estimate(), prev)
		}
		prev = g.Estimate()
	}
	if g.Limit() > 12 {
		t.Fatalf("after 40 samples at 3× RTT: limit %d, want ≤ 12", g.Limit())
	}
	// Once 1.5·long ≥ 300ms (long ≥ 200ms, after ~208 samples) the
	// gradient is 1 again and the limit grows.
	for range 400 {
		g.Update(adaptive.Sample{RTT: 300 * ms, InFlight: g.Limit()})
	}
	if g.Limit() < 50 {
		t.Fatalf("after the baseline adapted: limit %d, want it grown back to ≥ 50", g.Limit())
	}
}

func TestLimiter(t *testing.T) {
	t.Parallel()
	a := aimd(t, adaptive.AIMDConfig{Initial: 2, Min: 1, Max: 10, BackoffRatio: 0.5, Timeout: time.Second})
	l, err := adaptive.NewLimiter(a)
	if err != nil {
		t.Fatal(err)
	}
	t1, ok1 := l.Acquire(0)
	t2, ok2 := l.Acquire(5 * ms)
	_, ok3 := l.Acquire(6 * ms)
	if !ok1 || !ok2 || ok3 || t1.InFlight != 1 || t2.InFlight != 2 || t2.Start != 5*ms {
		t.Fatalf("Acquire: %v %v %v, tickets %+v %+v", ok1, ok2, ok3, t1, t2)
	}
	// t2 took 1.5s: over the timeout, so a drop: limit ⌊2×0.5⌋ = 1.
	if got := l.Success(1505*ms, t2); got != 1 {
		t.Fatalf("Success after 1.5s = %d, want 1 (timeout halves)", got)
	}
	// One still in flight at limit 1: refused.
	if _, ok := l.Acquire(2 * time.Second); ok {
		t.Fatal("Acquire admitted a call at the limit")
	}
	l.Ignore(t1) // frees the slot, no sample
	if l.Limit() != 1 || l.InFlight() != 0 {
		t.Fatalf("after Ignore: Limit %d, InFlight %d; want 1, 0", l.Limit(), l.InFlight())
	}
	t3, _ := l.Acquire(3 * time.Second)
	if got := l.Success(3*time.Second+10*ms, t3); got != 2 {
		t.Fatalf("Success at full use = %d, want 2", got)
	}
	t4, _ := l.Acquire(4 * time.Second)
	l.Dropped(4*time.Second, t4)
	want := adaptive.Counts{Acquired: 4, Rejected: 2, Succeeded: 2, Dropped: 1, Ignored: 1}
	if c := l.Counts(); c != want {
		t.Fatalf("Counts = %+v, want %+v", c, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("ending a call twice did not panic")
		}
	}()
	l.Ignore(t4)
}

func TestValidate(t *testing.T) {
	t.Parallel()
	if _, err := adaptive.NewLimiter(nil); err == nil || !strings.Contains(err.Error(), "algorithm:") {
		t.Errorf("NewLimiter(nil): err = %v", err)
	}
	ai := []struct {
		field string
		edit  func(*adaptive.AIMDConfig)
	}{
		{"Min", func(c *adaptive.AIMDConfig) { c.Min = 0 }},
		{"Max", func(c *adaptive.AIMDConfig) { c.Max = 10 }},
		{"Initial", func(c *adaptive.AIMDConfig) { c.Initial = 300 }},
		{"BackoffRatio", func(c *adaptive.AIMDConfig) { c.BackoffRatio = 1 }},
		{"BackoffRatio", func(c *adaptive.AIMDConfig) { c.BackoffRatio = 0.4 }},
		{"Timeout", func(c *adaptive.AIMDConfig) { c.Timeout = 0 }},
	}
	for _, tt := range ai {
		c := adaptive.DefaultAIMD()
		tt.edit(&c)
		if _, err := adaptive.NewAIMD(c); err == nil || !strings.Contains(err.Error(), tt.field+":") {
			t.Errorf("AIMD with bad %s: err = %v", tt.field, err)
		}
	}
	gr := []struct {
		field string
		edit  func(*adaptive.GradientConfig)
	}{
		{"Initial", func(c *adaptive.GradientConfig) { c.Initial = 1 }},
		{"Smoothing", func(c *adaptive.GradientConfig) { c.Smoothing = 0 }},
		{"QueueSize", func(c *adaptive.GradientConfig) { c.QueueSize = -1 }},
		{"LongWindow", func(c *adaptive.GradientConfig) { c.LongWindow = 0 }},
		{"RTTTolerance", func(c *adaptive.GradientConfig) { c.RTTTolerance = 0.9 }},
		{"RTTTolerance", func(c *adaptive.GradientConfig) { c.RTTTolerance = math.NaN() }},
	}
	for _, tt := range gr {
		c := adaptive.DefaultGradient()
		tt.edit(&c)
		if _, err := adaptive.NewGradient(c); err == nil || !strings.Contains(err.Error(), tt.field+":") {
			t.Errorf("Gradient with bad %s: err = %v", tt.field, err)
		}
	}
	if adaptive.DefaultAIMD().Validate() != nil || adaptive.DefaultGradient().Validate() != nil {
		t.Error("defaults invalid")
	}
}
