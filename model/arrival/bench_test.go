package arrival

import (
	"testing"
	"time"
)

// hotProcesses returns one process of each kind, shaped like a scenario.
func hotProcesses(tb testing.TB) []struct {
	name string
	p    Process
} {
	tb.Helper()
	h := time.Hour
	must := func(p Process, err error) Process {
		if err != nil {
			tb.Fatal(err)
		}
		return p
	}
	times := make([]time.Duration, 1<<16)
	for i := range times {
		times[i] = time.Duration(i) * time.Millisecond
	}
	hourly := make([]RatePoint, 24)
	for i := range hourly {
		hourly[i] = RatePoint{time.Duration(i) * h, float64(1 + i%7)}
	}
	return []struct {
		name string
		p    Process
	}{
		{"Poisson", must(Poisson(50))},
		{"Constant", must(Constant(50))},
		{"Batch", must(Batch(1 << 62))},
		{"Schedule3", must(Schedule([]RatePoint{{0, 2}, {9 * h, 8}, {18 * h, 3}}, 24*h))},
		{"Schedule24", must(Schedule(hourly, 24*h))},
		{"ScheduleSparse", must(Schedule([]RatePoint{{0, 0}, {h, 0.001}, {h + time.Minute, 0}}, 24*h))},
		{"Diurnal", must(Diurnal(50, 0.8, 24*h, 0))},
		{"Trace", must(Trace(times))},
	}
}

// TestNextAllocationFree: Next is on the simulator's hot path.
func TestNextAllocationFree(t *testing.T) {
	for _, c := range hotProcesses(t) {
		r := newRand()
		var n int64
		var prev time.Duration
		allocs := testing.AllocsPerRun(1000, func() {
			at, ok := c.p.Next(n, prev, r)
			if !ok {
				n, prev = 0, 0
				return
			}
			n, prev = n+1, at
		})
		if allocs != 0 {
			t.Errorf("%s: Next allocates %g times per call, want 0", c.name, allocs)
		}
	}
}

var benchSink time.Duration

// BenchmarkNext measures one arrival of each process; run with -benchmem
// to see the 0 allocs/op that TestNextAllocationFree asserts.
func BenchmarkNext(b *testing.B) {
	for _, c := range hotProcesses(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			r := newRand()
			var n int64
			var prev time.Duration
			for b.Loop() {
				at, ok := c.p.Next(n, prev, r)
				if !ok {
					n, prev = 0, 0
					continue
				}
				n, prev = n+1, at
			}
			benchSink += prev
		})
	}
}
