package dist

import (
	"math/rand/v2"
	"testing"
)

var benchSink float64

// BenchmarkSample measures one draw per family; run with -benchmem to see
// the 0 allocs/op that TestSampleAllocs asserts.
func BenchmarkSample(b *testing.B) {
	for _, c := range allDists(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			r := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				benchSink += c.d.Sample(r)
			}
		})
	}
}

// BenchmarkMixtureQuantile measures the bisection (not a hot path: used for
// reports and planning).
func BenchmarkMixtureQuantile(b *testing.B) {
	ln, _ := LogNormal(0.04, 1)
	ex, _ := Exponential(2)
	m, _ := Mixture([]float64{0.9, 0.1}, []Dist{ln, ex})
	for b.Loop() {
		benchSink += m.Quantile(0.99)
	}
}
