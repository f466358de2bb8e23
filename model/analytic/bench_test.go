package analytic

import (
	"fmt"
	"testing"
)

// TestNoAllocs checks that the per-call paths a planner runs in its search
// loops allocate nothing (Distribution, which returns a slice, is exempt).
func TestNoAllocs(t *testing.T) {
	mmc := MMc{Lambda: 450, Mu: 1, C: 470}
	mmck := MMcK{Lambda: 12, Mu: 1, C: 10, K: 200}
	mg1 := MG1{Lambda: 0.8, MeanService: 1, SecondMoment: 10}
	var sink float64
	var isink int
	fs := []struct {
		name string
		f    func()
	}{
		{"MM1.SojournQuantile", func() { sink, _ = MM1{1, 2}.SojournQuantile(0.99) }},
		{"MMc.ErlangC", func() { sink, _ = mmc.ErlangC() }},
		{"MMc.MeanSojourn", func() { sink, _ = mmc.MeanSojourn() }},
		{"MMc.SojournCDF", func() { sink, _ = mmc.SojournCDF(2) }},
		{"MMc.SojournQuantile", func() { sink, _ = mmc.SojournQuantile(0.99) }},
		{"MMcK.MeanSojourn", func() { sink, _ = mmck.MeanSojourn() }},
		{"MMcK.BlockingProbability", func() { sink, _ = mmck.BlockingProbability() }},
		{"MG1.MeanWait", func() { sink, _ = mg1.MeanWait() }},
		{"MinServersForWait", func() { isink, _ = MinServersForWait(450, 1, 0.99, 0.05) }},
		{"MinServersForMeanWait", func() { isink, _ = MinServersForMeanWait(450, 1, 0.01) }},
	}
	for _, f := range fs {
		if n := testing.AllocsPerRun(20, f.f); n != 0 {
			t.Errorf("%s: AllocsPerRun = %v, want 0", f.name, n)
		}
	}
	_, _ = sink, isink
}

var benchSink float64

func BenchmarkMMcErlangC(b *testing.B) {
	for _, c := range []int{10, 1000} {
		q := MMc{Lambda: 0.9 * float64(c), Mu: 1, C: c}
		b.Run(fmt.Sprintf("c=%d", c), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchSink, _ = q.ErlangC()
			}
		})
	}
}

func BenchmarkMMcSojournQuantile(b *testing.B) {
	q := MMc{Lambda: 9, Mu: 1, C: 10}
	b.ReportAllocs()
	for b.Loop() {
		benchSink, _ = q.SojournQuantile(0.99)
	}
}

func BenchmarkMMcKMeanSojourn(b *testing.B) {
	q := MMcK{Lambda: 12, Mu: 1, C: 10, K: 200}
	b.ReportAllocs()
	for b.Loop() {
		benchSink, _ = q.MeanSojourn()
	}
}

func BenchmarkMinServersForWait(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		c, _ := MinServersForWait(450, 1, 0.99, 0.05)
		benchSink = float64(c)
	}
}
