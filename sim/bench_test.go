package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// mmc is a minimal M/M/c model on the engine: the smallest loop that
// exercises scheduling, delivery and a FIFO waiting line. It measures the
// engine, not the budgetsim system model (see model/system's benchmarks).
func mmc(b *testing.B, customers int) {
	const (
		kArrival Kind = iota
		kDeparture
	)
	lambda, mu, c := 9.0, 1.0, 10
	s := New(1024)
	arr := NewStream(1, "arrivals").Rand()
	svc := NewStream(1, "service").Rand()
	exp := func(r *rand.Rand, rate float64) time.Duration {
		return time.Duration(r.ExpFloat64() / rate * 1e9)
	}
	busy, waiting, arrived := 0, 0, 0
	s.After(exp(arr, lambda), kArrival, 0, 0)
	for {
		ev, ok := s.Next()
		if !ok {
			break
		}
		switch ev.Kind {
		case kArrival:
			arrived++
			if arrived < customers {
				s.After(exp(arr, lambda), kArrival, 0, 0)
			}
			if busy < c {
				busy++
				s.After(exp(svc, mu), kDeparture, 0, 0)
			} else {
				waiting++
			}
		case kDeparture:
			if waiting > 0 {
				waiting--
				s.After(exp(svc, mu), kDeparture, 0, 0)
			} else {
				busy--
			}
		}
	}
	b.ReportMetric(float64(s.Processed()), "events/op")
}

// BenchmarkEngineMMc reports events/s for the engine alone on M/M/c
// (λ = 9/s, μ = 1/s, c = 10), 100k customers per op.
func BenchmarkEngineMMc(b *testing.B) {
	b.ReportAllocs()
	var events float64
	for b.Loop() {
		mmc(b, 100_000)
		events += 200_000
	}
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkScheduleNext measures one schedule plus one delivery with a
// steady population of 1000 pending events.
func BenchmarkScheduleNext(b *testing.B) {
	s := New(2048)
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		s.After(time.Duration(r.IntN(1e6)), 0, 0, 0)
	}
	b.ReportAllocs()
	for b.Loop() {
		ev, _ := s.Next()
		s.At(ev.At+time.Duration(r.IntN(1e6)), 0, 0, 0)
	}
}
