package ratelimit_test

import (
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/ratelimit"
	"pgregory.net/rapid"
)

// d is the emission interval of a 10-per-second bucket; the time lines below
// are written in multiples of it, as in golang.org/x/time/rate's rate_test.go.
const d = 100 * time.Millisecond

// origins are the clock origins every time line is replayed at: instants
// are differences from an arbitrary origin, so the answers must not depend
// on it (a negative origin included).
var origins = []time.Duration{0, -7 * time.Hour, 1000*time.Hour + 3}

func mustBucket(t testing.TB, rate float64, burst int) *ratelimit.TokenBucket {
	t.Helper()
	b, err := ratelimit.NewTokenBucket(rate, burst)
	if err != nil {
		t.Fatalf("NewTokenBucket(%v, %d): %v", rate, burst, err)
	}
	return b
}

func TestNewTokenBucket(t *testing.T) {
	tests := []struct {
		rate     float64
		burst    int
		interval time.Duration
	}{
		{10, 1, 100 * time.Millisecond},
		{2, 5, 500 * time.Millisecond},
		{0.5, 1, 2 * time.Second},
		// 1e9/3 = 333333333.33… rounds down to 333333333ns.
		{3, 1, 333333333},
		// 1e9/0.7692307692307693 = 1.3e9 (golang.org/issues/34861's rate).
		{0.7692307692307693, 1, 1300 * time.Millisecond},
		// 1e9/7 = 142857142.86… rounds up.
		{7, 2, 142857143},
		{ratelimit.MaxRate, 1, 1},
	}
	for _, tt := range tests {
		b, err := ratelimit.NewTokenBucket(tt.rate, tt.burst)
		if err != nil {
			t.Errorf("NewTokenBucket(%v, %d) error: %v", tt.rate, tt.burst, err)
			continue
		}
		if got := b.Interval(); got != tt.interval {
			t.Errorf("NewTokenBucket(%v, %d).Interval() = %v, want %v", tt.rate, tt.burst, got, tt.interval)
		}
		if got := b.Burst(); got != tt.burst {
			t.Errorf("NewTokenBucket(%v, %d).Burst() = %d, want %d", tt.rate, tt.burst, got, tt.burst)
		}
		if got, want := b.Rate(), 1e9/float64(tt.interval); got != want {
			t.Errorf("NewTokenBucket(%v, %d).Rate() = %v, want %v", tt.rate, tt.burst, got, want)
		}
	}
}

func TestNewTokenBucketErrors(t *testing.T) {
	tests := []struct {
		rate  float64
		burst int
		want  string // the field name and the bad value
	}{
		{0, 1, "rate: must be > 0, got 0"},
		{-1, 1, "rate: must be > 0, got -1"},
		{math.NaN(), 1, "rate: must be > 0, got NaN"},
		{math.Inf(1), 1, "rate: must be ≤ 1e+09 per second (an interval of at least 1ns), got +Inf"},
		{2e9, 1, "got 2e+09"},
		{1e-12, 1, "rate: interval 1s/rate overflows time.Duration, got 1e-12"},
		{1, 0, "burst: must be ≥ 1, got 0"},
		{1, -3, "burst: must be ≥ 1, got -3"},
		{1, math.MaxInt64/int(time.Second) + 1, "burst: burst × interval (1s) overflows time.Duration, got 9223372037"},
	}
	for _, tt := range tests {
		b, err := ratelimit.NewTokenBucket(tt.rate, tt.burst)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewTokenBucket(%v, %d) = %v, %v; want error containing %q", tt.rate, tt.burst, b, err, tt.want)
		}
	}
}

func TestNewTokenBucketEvery(t *testing.T) {
	b, err := ratelimit.NewTokenBucketEvery(300*time.Millisecond, 4)
	if err != nil {
		t.Fatalf("NewTokenBucketEvery(300ms, 4) error: %v", err)
	}
	if got := b.Interval(); got != 300*time.Millisecond {
		t.Errorf("NewTokenBucketEvery(300ms, 4).Interval() = %v, want 300ms", got)
	}
	for _, bad := range []struct {
		interval time.Duration
		burst    int
		want     string
	}{
		{0, 1, "interval: must be > 0, got 0s"},
		{-time.Second, 1, "interval: must be > 0, got -1s"},
		{time.Second, 0, "burst: must be ≥ 1, got 0"},
	} {
		if _, err := ratelimit.NewTokenBucketEvery(bad.interval, bad.burst); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("NewTokenBucketEvery(%v, %d) error = %v, want containing %q", bad.interval, bad.burst, err, bad.want)
		}
	}
}

// allow is one step of a time line: at instant k·d plus off, AllowAt(n)
// should report ok.
type allow struct {
	k   int
	off time.Duration
	n   int
	ok  bool
}

func runAllow(t *testing.T, newBucket func() *ratelimit.TokenBucket, steps []allow) {
	t.Helper()
	for _, origin := range origins {
		b := newBucket()
		for i, s := range steps {
			now := origin + time.Duration(s.k)*d + s.off
			if got := b.AllowAt(now, s.n); got != s.ok {
				t.Errorf("origin %v, step %d: b.AllowAt(t%d%+v, %d) = %v, want %v", origin, i, s.k, s.off, s.n, got, s.ok)
			}
		}
	}
}

func bucket(rate float64, burst int) func() *ratelimit.TokenBucket {
	return func() *ratelimit.TokenBucket {
		b, err := ratelimit.NewTokenBucket(rate, burst)
		if err != nil {
			panic(err)
		}
		return b
	}
}

// The time lines of golang.org/x/time/rate's TestLimiterBurst1,
// TestLimiterBurst3 and TestLimiterJumpBackwards, which this bucket must
// reproduce exactly.
func TestAllowAtBurst1(t *testing.T) {
	runAllow(t, bucket(10, 1), []allow{
		{0, 0, 1, true},
		{0, 0, 1, false},
		{0, 0, 1, false},
		{1, 0, 1, true},
		{1, 0, 1, false},
		{1, 0, 1, false},
		{2, 0, 2, false}, // burst size is 1, so n=2 always fails
		{2, 0, 1, true},
		{2, 0, 1, false},
	})
}

func TestAllowAtBurst3(t *testing.T) {
	runAllow(t, bucket(10, 3), []allow{
		{0, 0, 2, true},
		{0, 0, 2, false},
		{0, 0, 1, true},
		{0, 0, 1, false},
		{1, 0, 4, false},
		{2, 0, 1, true},
		{3, 0, 1, true},
		{4, 0, 1, true},
		{4, 0, 1, true},
		{4, 0, 1, false},
		{4, 0, 1, false},
		{9, 0, 3, true},
		{9, 0, 0, true},
	})
}

func TestAllowAtJumpBackwards(t *testing.T) {
	runAllow(t, bucket(10, 3), []allow{
		{1, 0, 1, true}, // start at t1
		{0, 0, 1, true}, // jump back to t0, two tokens remain
		{0, 0, 1, true},
		{0, 0, 1, false},
		{0, 0, 1, false},
		{1, 0, 1, true}, // got a token
		{1, 0, 1, false},
		{1, 0, 1, false},
		{2, 0, 1, true}, // got another token
		{2, 0, 1, false},
		{2, 0, 1, false},
	})
}

// A large jump backwards neither refills nor locks the bucket: it keeps the
// token count of the latest instant and refills from the new now.
func TestAllowAtJumpBackwardsFar(t *testing.T) {
	runAllow(t, bucket(10, 2), []allow{
		{100, 0, 2, true},     // empty at t100
		{-36000, 0, 1, false}, // an hour earlier: still empty, no refill
		{-35999, 0, 1, true},  // one interval later: one token, not an hour's wait
		{-35999, 0, 1, false},
		{-35997, 0, 2, true}, // refilled to the burst, not beyond
		{-35997, 0, 1, false},
	})
}

// A token comes back exactly on the interval boundary, not a nanosecond
// earlier, and a request exactly on the boundary is admitted.
func TestAllowAtBoundary(t *testing.T) {
	runAllow(t, bucket(10, 2), []allow{
		{0, 0, 2, true},
		{1, -1, 1, false},
		{1, 0, 1, true},
		{1, 0, 1, false},
		{3, -1, 2, false},
		{3, -1, 1, true},
		{3, 0, 1, true},
		{3, 0, 1, false},
	})
}

// reserve is one ReserveWithinAt step: at k·d, for n tokens with at most
// maxWait, the call should report (wantWait, ok).
type reserve struct {
	k        int
	n        int
	maxWait  time.Duration
	wantWait time.Duration
	ok       bool
}

const inf = ratelimit.InfDuration

func runReserve(t *testing.T, b *ratelimit.TokenBucket, origin time.Duration, steps []reserve) {
	t.Helper()
	for i, s := range steps {
		now := origin + time.Duration(s.k)*d
		var wait time.Duration
		var ok bool
		if s.maxWait == inf {
			wait = b.ReserveAt(now, s.n)
			ok = wait != inf
		} else {
			wait, ok = b.ReserveWithinAt(now, s.n, s.maxWait)
		}
		if wait != s.wantWait || ok != s.ok {
			t.Errorf("origin %v, step %d: b.ReserveWithinAt(t%d, %d, %v) = (%v, %v), want (%v, %v)",
				origin, i, s.k, s.n, s.maxWait, wait, ok, s.wantWait, s.ok)
		}
	}
}

func TestReserve(t *testing.T) {
	tests := []struct {
		name  string
		rate  float64
		burst int
		steps []reserve
	}{
		// golang.org/x/time/rate TestSimpleReserve: act at t0, t2, t4.
		{"simple", 10, 2, []reserve{
			{0, 2, inf, 0, true},
			{0, 2, inf, 2 * d, true},
			{3, 2, inf, 1 * d, true},
		}},
		// TestMix: n > burst is never granted; debt blocks AllowAt.
		{"n over burst", 10, 2, []reserve{
			{0, 3, inf, inf, false},
			{0, 2, inf, 0, true},
			{1, 2, 0, 1 * d, false},
			{1, 2, inf, 1 * d, true},
			{1, 1, 0, 2 * d, false},
			{3, 1, 0, 0, true},
		}},
		// TestReserveMax: maxWait d admits a wait of exactly d, not 2d.
		{"max wait", 10, 2, []reserve{
			{0, 2, d, 0, true},
			{0, 1, d, d, true},
			{0, 1, d, 2 * d, false},
			{0, 1, 2*d - 1, 2 * d, false},
			{0, 1, 2 * d, 2 * d, true},
		}},
		// A negative maxWait (the deadline has passed) accepts nothing, not
		// even a request that need not wait.
		{"negative max wait", 10, 2, []reserve{
			{0, 1, -1, 0, false},
			{0, 2, 0, 0, true},
		}},
		// TestReserveJumpBack: after a jump back the schedule is kept, so
		// the limit is not violated.
		{"jump back", 10, 2, []reserve{
			{1, 2, inf, 0, true},
			{0, 1, inf, 1 * d, true},
			{2, 2, inf, 1 * d, true},
		}},
		// Reservations queue up: each waits one interval more than the last.
		{"queue", 2, 1, []reserve{
			{0, 1, inf, 0, true},
			{0, 1, inf, 5 * d, true},
			{0, 1, inf, 10 * d, true},
			{0, 0, inf, 10 * d, true}, // n=0: wait until the queue is served
			{10, 1, inf, 5 * d, true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, origin := range origins {
				runReserve(t, mustBucket(t, tt.rate, tt.burst), origin, tt.steps)
			}
		})
	}
}

// ReserveWithinAt that refuses leaves the bucket exactly as it was.
func TestReserveWithinAtRefusalChangesNothing(t *testing.T) {
	b := mustBucket(t, 10, 3)
	b.AllowAt(0, 3)
	if wait, ok := b.ReserveWithinAt(0, 2, 2*d-1); ok || wait != 2*d {
		t.Fatalf("b.ReserveWithinAt(0, 2, 2d-1ns) = (%v, %v), want (%v, false)", wait, ok, 2*d)
	}
	if got := b.TokensAt(0); got != 0 {
		t.Errorf("after refusal: b.TokensAt(0) = %v, want 0", got)
	}
	if wait, ok := b.ReserveWithinAt(0, 2, 2*d); !ok || wait != 2*d {
		t.Errorf("b.ReserveWithinAt(0, 2, 2d) = (%v, %v), want (%v, true)", wait, ok, 2*d)
	}
}

func TestTokensAtAndNextAt(t *testing.T) {
	b := mustBucket(t, 10, 3)
	type probe struct {
		now    time.Duration
		tokens float64
		next   time.Duration
	}
	check := func(step string, ps []probe) {
		t.Helper()
		for _, p := range ps {
			if got := b.TokensAt(p.now); got != p.tokens {
				t.Errorf("%s: b.TokensAt(%v) = %v, want %v", step, p.now, got, p.tokens)
			}
			if got := b.NextAt(p.now); got != p.next {
				t.Errorf("%s: b.NextAt(%v) = %v, want %v", step, p.now, got, p.next)
			}
		}
	}
	check("fresh", []probe{{0, 3, 0}, {-time.Hour, 3, -time.Hour}})
	b.ReserveAt(0, 3) // empty at t0
	check("after 3", []probe{
		{0, 0, d},
		{d / 4, 0.25, d},
		{d, 1, d},
		{3 * d, 3, 3 * d},
		{9 * d, 3, 9 * d}, // capped at the burst
	})
	b.ReserveAt(0, 2) // two tokens of debt
	check("after debt", []probe{
		{0, -2, 3 * d},
		{d, -1, 3 * d},
		{3 * d, 1, 3 * d},
		{-d, -2, 2 * d}, // looking back keeps the debt, seen from -d
	})
	// Reads do not remember a backward look: the schedule is unchanged.
	check("after look back", []probe{{0, -2, 3 * d}})
}

func TestZeroTokenBucket(t *testing.T) {
	var b ratelimit.TokenBucket
	for _, n := range []int{0, 1, 5} {
		if b.AllowAt(0, n) {
			t.Errorf("zero TokenBucket: AllowAt(0, %d) = true, want false", n)
		}
		if got := b.ReserveAt(time.Hour, n); got != inf {
			t.Errorf("zero TokenBucket: ReserveAt(1h, %d) = %v, want InfDuration", n, got)
		}
		if wait, ok := b.ReserveWithinAt(time.Hour, n, inf-1); ok || wait != inf {
			t.Errorf("zero TokenBucket: ReserveWithinAt(1h, %d, max) = (%v, %v), want (InfDuration, false)", n, wait, ok)
		}
	}
	if got := b.TokensAt(0); got != 0 {
		t.Errorf("zero TokenBucket: TokensAt(0) = %v, want 0", got)
	}
	if got := b.NextAt(0); got != inf {
		t.Errorf("zero TokenBucket: NextAt(0) = %v, want InfDuration", got)
	}
	if got := b.Rate(); got != 0 {
		t.Errorf("zero TokenBucket: Rate() = %v, want 0", got)
	}
}

func TestTokenBucketNegativeNPanics(t *testing.T) {
	b := mustBucket(t, 10, 1)
	for name, f := range map[string]func(){
		"AllowAt":         func() { b.AllowAt(0, -1) },
		"ReserveAt":       func() { b.ReserveAt(0, -1) },
		"ReserveWithinAt": func() { b.ReserveWithinAt(0, -1, inf) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("b.%s(0, -1) did not panic", name)
				}
			}()
			f()
		}()
	}
}

// TestLongRunRate checks that a greedy client (one that takes every token
// the moment it appears) gets exactly the configured rate. Polling every
// 10ms hits every interval boundary of these rates, so over [0, span) the
// bucket admits burst at t0 plus one token at each boundary k·T with
// 0 < k·T < span: burst + ceil(span/T) − 1. With the end instant included,
// the boundary at span (if span is a multiple of T) counts too.
func TestLongRunRate(t *testing.T) {
	tests := []struct {
		rate      float64
		burst     int
		span      time.Duration
		inclusive bool
		want      int
	}{
		{2, 5, 1000 * time.Second, false, 5 + 2000 - 1}, // 2004
		{2, 5, 1000 * time.Second, true, 5 + 2000},      // 2005
		{2, 1, 1000 * time.Second, false, 1 + 2000 - 1}, // 2000
		{10, 3, 100 * time.Second, false, 3 + 1000 - 1}, // 1002
		// T = 200ms, polled at 10ms: 600s/200ms = 3000 boundaries.
		{5, 10, 600 * time.Second, true, 10 + 3000}, // 3010
	}
	const step = 10 * time.Millisecond
	for _, tt := range tests {
		b := mustBucket(t, tt.rate, tt.burst)
		got := 0
		for now := time.Duration(0); now < tt.span || (tt.inclusive && now == tt.span); now += step {
			for b.AllowAt(now, 1) {
				got++
			}
		}
		if got != tt.want {
			t.Errorf("greedy client of NewTokenBucket(%v, %d) over %v (inclusive=%v) admitted %d, want %d",
				tt.rate, tt.burst, tt.span, tt.inclusive, got, tt.want)
		}
	}
}

// TestConformanceProperty checks the token bucket's defining bound with
// random requests: for any two admitted requests acting at a ≤ b, the tokens
// of the requests acting in [a, b] sum to at most burst + floor((b−a)/T).
// It also checks that a greedy client (one that drains the bucket whenever
// it polls) is admitted exactly burst + floor((last−first)/T) tokens when it
// polls at gaps no longer than (burst−1)×T: a drained bucket holds less than
// one token, so within such a gap it cannot fill up and waste refill time.
func TestConformanceProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		interval := time.Duration(rapid.Int64Range(1, int64(time.Second)).Draw(t, "interval"))
		burst := rapid.IntRange(1, 8).Draw(t, "burst")
		b, err := ratelimit.NewTokenBucketEvery(interval, burst)
		if err != nil {
			t.Fatalf("NewTokenBucketEvery(%v, %d): %v", interval, burst, err)
		}
		type act struct {
			at time.Duration
			n  int
		}
		var acts []act
		now := time.Duration(rapid.Int64Range(-1e12, 1e12).Draw(t, "origin"))
		steps := rapid.IntRange(1, 60).Draw(t, "steps")
		for range steps {
			now += time.Duration(rapid.Int64Range(0, 3*int64(interval)).Draw(t, "gap"))
			n := rapid.IntRange(0, burst+1).Draw(t, "n")
			switch rapid.IntRange(0, 2).Draw(t, "method") {
			case 0:
				if b.AllowAt(now, n) {
					acts = append(acts, act{now, n})
				}
			case 1:
				if wait := b.ReserveAt(now, n); wait != ratelimit.InfDuration {
					acts = append(acts, act{now + wait, n})
				}
			case 2:
				maxWait := time.Duration(rapid.Int64Range(-1, 3*int64(interval)).Draw(t, "maxWait"))
				if wait, ok := b.ReserveWithinAt(now, n, maxWait); ok {
					if wait > maxWait {
						t.Fatalf("ReserveWithinAt(%v, %d, %v) = (%v, true): wait exceeds maxWait", now, n, maxWait, wait)
					}
					acts = append(acts, act{now + wait, n})
				}
			}
		}
		for i := range acts {
			for j := range acts {
				if acts[j].at < acts[i].at {
					continue
				}
				sum := 0
				for _, a := range acts {
					if a.at >= acts[i].at && a.at <= acts[j].at {
						sum += a.n
					}
				}
				if limit := burst + int((acts[j].at-acts[i].at)/interval); sum > limit {
					t.Fatalf("%d tokens act in [%v, %v], want ≤ %d (burst %d, interval %v)",
						sum, acts[i].at, acts[j].at, limit, burst, interval)
				}
			}
		}

		// Greedy client on a fresh bucket with burst ≥ 2.
		burst = max(burst, 2)
		g, _ := ratelimit.NewTokenBucketEvery(interval, burst)
		first := now
		got := 0
		for range steps {
			for g.AllowAt(now, 1) {
				got++
			}
			now += time.Duration(rapid.Int64Range(1, int64(burst-1)*int64(interval)).Draw(t, "pollGap"))
		}
		last := now
		for g.AllowAt(last, 1) {
			got++
		}
		if want := burst + int((last-first)/interval); got != want {
			t.Fatalf("greedy client over [%v, %v] got %d tokens, want %d", first, last, got, want)
		}
	})
}

// Many goroutines asking at one instant share exactly the burst
// (golang.org/x/time/rate TestSimultaneousRequests).
func TestTokenBucketSimultaneous(t *testing.T) {
	const burst, goroutines = 5, 64
	b := mustBucket(t, 1, burst)
	var ok atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			if b.AllowAt(time.Second, 1) {
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	if got := ok.Load(); got != burst {
		t.Errorf("%d goroutines calling AllowAt(1s, 1) once: %d admitted, want %d", goroutines, got, burst)
	}
}

func TestTokenBucketAllocs(t *testing.T) {
	b := mustBucket(t, 1000, 10)
	now := time.Duration(0)
	allocs := testing.AllocsPerRun(1000, func() {
		now += time.Millisecond
		b.AllowAt(now, 1)
		b.ReserveAt(now, 1)
		b.ReserveWithinAt(now, 2, time.Millisecond)
		b.TokensAt(now)
		b.NextAt(now)
	})
	if allocs != 0 {
		t.Errorf("TokenBucket methods: %v allocs per run, want 0", allocs)
	}
}

func BenchmarkTokenBucketAllowAt(b *testing.B) {
	lim := mustBucket(b, 1000, 10)
	now := time.Duration(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 100 * time.Microsecond
		lim.AllowAt(now, 1)
	}
}

func BenchmarkTokenBucketReserveWithinAt(b *testing.B) {
	lim := mustBucket(b, 1000, 10)
	now := time.Duration(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 100 * time.Microsecond
		lim.ReserveWithinAt(now, 1, 5*time.Millisecond)
	}
}

func BenchmarkTokenBucketAllowAtParallel(b *testing.B) {
	lim := mustBucket(b, 1, 1)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			lim.AllowAt(time.Second, 1)
		}
	})
}
