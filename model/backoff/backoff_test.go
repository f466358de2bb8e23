package backoff

import (
	"math"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

const ms = time.Millisecond

// uMax is the largest float64 below 1: the u → 1 edge.
var uMax = math.Nextafter(1, 0)

func TestCeiling(t *testing.T) {
	t.Parallel()
	p := Policy{Base: 100 * ms, Cap: 1 * time.Second, Multiplier: 2}
	for _, tt := range []struct {
		p     Policy
		retry int
		want  time.Duration
	}{
		{p, 1, 100 * ms},
		{p, 2, 200 * ms},
		{p, 4, 800 * ms},
		{p, 5, 1 * time.Second}, // 1.6 s capped
		{p, 1000, 1 * time.Second},
		{p, math.MaxInt, 1 * time.Second},
		// Overflow safety: 10^999 is +Inf in float64.
		{Policy{Base: 1 * time.Second, Cap: 1 << 62, Multiplier: 10}, 1000, 1 << 62},
		{Policy{Base: 1, Cap: math.MaxInt64, Multiplier: 10}, 1000, math.MaxInt64},
		// gRPC connection backoff: 1 s · 1.6 = 1.6 s, then 2.56 s (rounded to the nearest ns).
		{GRPCConnection(), 2, 1600 * ms},
		{GRPCConnection(), 3, 2560 * ms},
		{GRPCConnection(), 11, 109_951_162_778},   // 1.6^10 s = 109.9511627776 s
		{GRPCConnection(), 12, 120 * time.Second}, // 1.6^11 s = 175.9 s capped
		{Policy{Base: 50 * ms, Cap: 50 * ms, Multiplier: 3}, 7, 50 * ms},
		{Policy{Base: 50 * ms, Cap: 400 * ms, Multiplier: 1}, 7, 50 * ms},
		{Policy{}, 3, 0},
		// Cap 0 means no cap; growth saturates at the largest Duration.
		{Policy{Base: 100 * ms, Multiplier: 2}, 11, 102400 * ms},
		{Policy{Base: 100 * ms, Multiplier: 2}, 1000, math.MaxInt64},
	} {
		if got := tt.p.Ceiling(tt.retry); got != tt.want {
			t.Errorf("%+v.Ceiling(%d) = %v, want %v", tt.p, tt.retry, got, tt.want)
		}
	}
}

func TestDelayEdges(t *testing.T) {
	t.Parallel()
	base := Policy{Base: 100 * ms, Cap: 1 * time.Second, Multiplier: 2}
	with := func(j Jitter) Policy { p := base; p.Jitter = j; return p }
	for _, tt := range []struct {
		p     Policy
		retry int
		prev  time.Duration
		u     float64
		want  time.Duration
	}{
		{with(None), 3, 0, 0, 400 * ms},
		{with(None), 3, 0, uMax, 400 * ms},
		// Full: random_between(0, c).
		{with(Full), 3, 0, 0, 0},
		{with(Full), 3, 0, 0.5, 200 * ms},
		{with(Full), 3, 0, uMax, 400 * ms},  // u·c rounds to c at the top edge
		{with(Full), 10, 0, 0.25, 250 * ms}, // capped ceiling 1 s
		// Equal: c/2 + random_between(0, c/2).
		{with(Equal), 3, 0, 0, 200 * ms},
		{with(Equal), 3, 0, 0.5, 300 * ms},
		{with(Equal), 3, 0, uMax, 400 * ms},
		// Decorrelated: min(cap, random_between(base, 3·prev)); prev 0 means base.
		{with(Decorrelated), 1, 0, 0, 100 * ms},
		{with(Decorrelated), 1, 0, 0.5, 200 * ms}, // between(100, 300)
		{with(Decorrelated), 1, 0, uMax, 300 * ms},
		{with(Decorrelated), 5, 250 * ms, 0, 100 * ms},
		{with(Decorrelated), 5, 250 * ms, 0.5, 425 * ms},         // 100 + 0.5·(750−100)
		{with(Decorrelated), 5, 500 * ms, uMax, 1 * time.Second}, // 1.5 s capped
		{with(Decorrelated), 5, 10 * ms, 0.5, 100 * ms},          // 3·prev below base: base
		{with(Decorrelated), 5, math.MaxInt64, 0.5, 1 * time.Second},
		{Policy{Base: 100 * ms, Multiplier: 1, Jitter: Decorrelated}, 5, 10 * time.Second, 0.5, 15050 * ms}, // no cap
		// Proportional: c·(1 + 0.2·(2u−1)), default spread 0.2.
		{with(Proportional), 3, 0, 0, 320 * ms},
		{with(Proportional), 3, 0, 0.5, 400 * ms},
		{with(Proportional), 3, 0, uMax, 480 * ms},
		{with(Proportional), 10, 0, uMax, 1200 * ms}, // exceeds Cap by Spread, as in grpc-go
		{Policy{Base: 100 * ms, Cap: 1 * time.Second, Multiplier: 2, Jitter: Proportional, Spread: 0.5}, 1, 0, 0, 50 * ms},
		{Policy{Base: 1 << 62, Cap: math.MaxInt64, Multiplier: 2, Jitter: Proportional}, 3, 0, uMax, math.MaxInt64},
	} {
		if got := tt.p.Delay(tt.retry, tt.prev, tt.u); got != tt.want {
			t.Errorf("Policy{Jitter: %v}.Delay(%d, %v, %v) = %v, want %v", tt.p.Jitter, tt.retry, tt.prev, tt.u, got, tt.want)
		}
	}
}

// TestDecorrelatedChain follows a chain of Decorrelated sleeps, each fed the
// previous one, with u = 0.5: sleep = min(cap, base + 0.5·(3·prev − base)).
func TestDecorrelatedChain(t *testing.T) {
	t.Parallel()
	p := Policy{Base: 100 * ms, Cap: 2 * time.Second, Multiplier: 1, Jitter: Decorrelated}
	want := []time.Duration{
		200 * ms,  // 100 + 0.5·(300 − 100)
		350 * ms,  // 100 + 0.5·(600 − 100)
		575 * ms,  // 100 + 0.5·(1050 − 100)
		912500000, // 100 + 0.5·(1725 − 100) = 912.5 ms
		1418750000,
		2 * time.Second, // 100 + 0.5·(4256.25 − 100) capped
		2 * time.Second,
	}
	prev := time.Duration(0)
	for i, w := range want {
		got := p.Delay(i+1, prev, 0.5)
		if got != w {
			t.Fatalf("Delay(%d, %v, 0.5) = %v, want %v", i+1, prev, got, w)
		}
		prev = got
	}
}

// TestDelayBounds checks the documented range of every jitter on random
// policies, retries, previous sleeps and draws.
func TestDelayBounds(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		base := time.Duration(rapid.Int64Range(0, 1e10).Draw(t, "base"))
		p := Policy{
			Base:       base,
			Cap:        base + time.Duration(rapid.Int64Range(1, 1e11).Draw(t, "cap−base")),
			Multiplier: rapid.Float64Range(1, 20).Draw(t, "multiplier"),
			Jitter:     Jitter(rapid.IntRange(0, 4).Draw(t, "jitter")),
			Spread:     rapid.Float64Range(0, 1).Draw(t, "spread"),
		}
		retry := rapid.IntRange(1, 2000).Draw(t, "retry")
		prev := time.Duration(rapid.Int64Range(0, 1e11).Draw(t, "prev"))
		u := rapid.Float64Range(0, uMax).Draw(t, "u")
		c := p.Ceiling(retry)
		if c < min(p.Base, p.Cap) || c > p.Cap {
			t.Fatalf("%+v.Ceiling(%d) = %v outside [base, cap]", p, retry, c)
		}
		if retry > 1 && c < p.Ceiling(retry-1) {
			t.Fatalf("%+v.Ceiling(%d) = %v < Ceiling(%d)", p, retry, c, retry-1)
		}
		d := p.Delay(retry, prev, u)
		lo, hi := c, c
		switch p.Jitter {
		case Full:
			lo = 0
		case Equal:
			lo = c / 2
		case Decorrelated:
			if prev == 0 {
				prev = p.Base
			}
			lo, hi = p.Base, min(p.Cap, max(p.Base, 3*prev))
		case Proportional:
			sp := p.Spread
			if sp == 0 {
				sp = DefaultSpread
			}
			// ±1 ns for rounding the product.
			lo = time.Duration(float64(c)*(1-sp)) - 1
			hi = time.Duration(float64(c)*(1+sp)) + 1
		}
		if d < lo || d > hi {
			t.Fatalf("%+v.Delay(%d, %v, %v) = %v outside [%v, %v]", p, retry, prev, u, d, lo, hi)
		}
	})
}

func TestDelayPanics(t *testing.T) {
	t.Parallel()
	p := Policy{Base: ms, Cap: time.Second, Multiplier: 2, Jitter: Full}
	for _, f := range []struct {
		name string
		call func()
	}{
		{"Delay(0, 0, 0.5)", func() { p.Delay(0, 0, 0.5) }},
		{"Delay(1, 0, 1)", func() { p.Delay(1, 0, 1) }},
		{"Delay(1, 0, -0.1)", func() { p.Delay(1, 0, -0.1) }},
		{"Delay(1, 0, NaN)", func() { p.Delay(1, 0, math.NaN()) }},
		{"Ceiling(0)", func() { p.Ceiling(0) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", f.name)
				}
			}()
			f.call()
		}()
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := Policy{Base: ms, Cap: time.Second, Multiplier: 2, Jitter: Full}
	if err := ok.Validate(); err != nil {
		t.Errorf("%+v.Validate() = %v, want nil", ok, err)
	}
	if err := GRPCConnection().Validate(); err != nil {
		t.Errorf("GRPCConnection().Validate() = %v, want nil", err)
	}
	for _, tt := range []struct {
		mut  func(*Policy)
		want string
	}{
		{func(p *Policy) { p.Base = -1 }, "base: must be ≥ 0, got -1ns"},
		{func(p *Policy) { p.Cap = ms / 2 }, "cap: must be 0 (no cap) or ≥ base (1ms), got 500µs"},
		{func(p *Policy) { p.Multiplier = 0.5 }, "multiplier: must be ≥ 1 and finite, got 0.5"},
		{func(p *Policy) { p.Multiplier = math.NaN() }, "multiplier: must be ≥ 1 and finite, got NaN"},
		{func(p *Policy) { p.Multiplier = math.Inf(1) }, "multiplier: must be ≥ 1 and finite, got +Inf"},
		{func(p *Policy) { p.Jitter = 9 }, "jitter: unknown value 9"},
		{func(p *Policy) { p.Spread = 1.5 }, "spread: must be in [0, 1], got 1.5"},
	} {
		p := ok
		tt.mut(&p)
		if err := p.Validate(); err == nil || err.Error() != tt.want {
			t.Errorf("%+v.Validate() = %v, want %q", p, err, tt.want)
		}
	}
}

func TestJitterText(t *testing.T) {
	t.Parallel()
	for j := None; j <= Proportional; j++ {
		got, err := ParseJitter(j.String())
		if err != nil || got != j {
			t.Errorf("ParseJitter(%q) = %v, %v; want %v", j.String(), got, err, j)
		}
		b, err := j.MarshalText()
		var back Jitter
		if err != nil || back.UnmarshalText(b) != nil || back != j {
			t.Errorf("text round trip of %v: %q, %v, %v", j, b, err, back)
		}
	}
	if _, err := ParseJitter("Full"); err == nil || !strings.Contains(err.Error(), `"Full"`) {
		t.Errorf(`ParseJitter("Full") error = %v, want one naming the value`, err)
	}
	if got := Jitter(7).String(); got != "Jitter(7)" {
		t.Errorf("Jitter(7).String() = %q, want %q", got, "Jitter(7)")
	}
	if _, err := Jitter(7).MarshalText(); err == nil {
		t.Errorf("Jitter(7).MarshalText() error = nil, want one")
	}
	var j Jitter
	if err := j.UnmarshalText([]byte("bogus")); err == nil {
		t.Errorf("UnmarshalText(bogus) error = nil, want one")
	}
}

func TestDelayAllocs(t *testing.T) {
	p := Policy{Base: 100 * ms, Cap: 10 * time.Second, Multiplier: 2}
	var sink time.Duration
	allocs := testing.AllocsPerRun(1000, func() {
		for j := None; j <= Proportional; j++ {
			p.Jitter = j
			sink += p.Delay(7, 300*ms, 0.3)
		}
	})
	if allocs != 0 {
		t.Errorf("Delay allocates %v times per run, want 0", allocs)
	}
	_ = sink
}

func BenchmarkDelay(b *testing.B) {
	for j := None; j <= Proportional; j++ {
		b.Run(j.String(), func(b *testing.B) {
			p := Policy{Base: 100 * ms, Cap: 10 * time.Second, Multiplier: 1.6, Jitter: j}
			b.ReportAllocs()
			var sink, prev time.Duration
			for i := 0; b.Loop(); i++ {
				prev = p.Delay(i&15+1, prev, float64(i&1023)/1024)
				sink += prev
			}
			_ = sink
		})
	}
}
