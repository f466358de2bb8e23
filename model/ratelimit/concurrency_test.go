package ratelimit_test

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/budgetsim/budgetsim/model/ratelimit"
)

func TestConcurrency(t *testing.T) {
	c, err := ratelimit.NewConcurrency(2)
	if err != nil {
		t.Fatalf("NewConcurrency(2): %v", err)
	}
	steps := []struct {
		op    string // "acquire" or "release"
		ok    bool   // TryAcquire's answer
		inUse int
	}{
		{"acquire", true, 1},
		{"acquire", true, 2},
		{"acquire", false, 2},
		{"release", false, 1},
		{"acquire", true, 2},
		{"acquire", false, 2},
		{"release", false, 1},
		{"release", false, 0},
	}
	for i, s := range steps {
		if s.op == "acquire" {
			if got := c.TryAcquire(); got != s.ok {
				t.Errorf("step %d: c.TryAcquire() = %v, want %v", i, got, s.ok)
			}
		} else {
			c.Release()
		}
		if got := c.InUse(); got != s.inUse {
			t.Errorf("step %d: after %s, c.InUse() = %d, want %d", i, s.op, got, s.inUse)
		}
	}
	if got := c.Limit(); got != 2 {
		t.Errorf("c.Limit() = %d, want 2", got)
	}
}

func TestConcurrencyUnlimited(t *testing.T) {
	var zero ratelimit.Concurrency
	explicit, err := ratelimit.NewConcurrency(0)
	if err != nil {
		t.Fatalf("NewConcurrency(0): %v", err)
	}
	for name, c := range map[string]*ratelimit.Concurrency{"zero value": &zero, "NewConcurrency(0)": explicit} {
		for i := range 1000 {
			if !c.TryAcquire() {
				t.Fatalf("%s: TryAcquire() #%d = false, want true (unlimited)", name, i+1)
			}
		}
		if got := c.InUse(); got != 1000 {
			t.Errorf("%s: InUse() = %d, want 1000", name, got)
		}
		if got := c.Limit(); got != 0 {
			t.Errorf("%s: Limit() = %d, want 0", name, got)
		}
	}
}

func TestNewConcurrencyError(t *testing.T) {
	_, err := ratelimit.NewConcurrency(-1)
	if want := "limit: must be ≥ 0 (0 = unlimited), got -1"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("NewConcurrency(-1) error = %v, want containing %q", err, want)
	}
}

func TestConcurrencyOverReleasePanics(t *testing.T) {
	c, _ := ratelimit.NewConcurrency(3)
	c.TryAcquire()
	c.Release()
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("Release() with nothing in use did not panic")
			}
		}()
		c.Release()
	}()
	if got := c.InUse(); got != 0 {
		t.Errorf("after the panicking Release, InUse() = %d, want 0", got)
	}
}

// Goroutines hammering one semaphore never hold more than the limit at once
// (checked by each holder counting itself in), and every slot comes back.
func TestConcurrencyParallel(t *testing.T) {
	const limit, goroutines, rounds = 3, 16, 500
	c, _ := ratelimit.NewConcurrency(limit)
	var holders, peak, admitted atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range rounds {
				if !c.TryAcquire() {
					continue
				}
				admitted.Add(1)
				h := holders.Add(1)
				for {
					p := peak.Load()
					if h <= p || peak.CompareAndSwap(p, h) {
						break
					}
				}
				holders.Add(-1)
				c.Release()
			}
		})
	}
	wg.Wait()
	if got := peak.Load(); got > limit {
		t.Errorf("peak holders = %d, want ≤ %d", got, limit)
	}
	if got := c.InUse(); got != 0 {
		t.Errorf("after all releases, InUse() = %d, want 0", got)
	}
	if admitted.Load() == 0 {
		t.Errorf("no TryAcquire succeeded in %d attempts", goroutines*rounds)
	}
}

func TestConcurrencyAllocs(t *testing.T) {
	c, _ := ratelimit.NewConcurrency(1)
	allocs := testing.AllocsPerRun(1000, func() {
		if c.TryAcquire() {
			c.Release()
		}
	})
	if allocs != 0 {
		t.Errorf("TryAcquire/Release: %v allocs per run, want 0", allocs)
	}
}

func BenchmarkConcurrencyTryAcquireRelease(b *testing.B) {
	c, _ := ratelimit.NewConcurrency(4)
	b.ReportAllocs()
	for b.Loop() {
		if c.TryAcquire() {
			c.Release()
		}
	}
}

func BenchmarkConcurrencyParallel(b *testing.B) {
	c, _ := ratelimit.NewConcurrency(4)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if c.TryAcquire() {
				c.Release()
			}
		}
	})
}
