package stats_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/budgetsim/budgetsim/sim/stats"
)

// quantilePs are the probabilities checked against exact sample quantiles:
// the extremes, the rank-1 boundary, and the percentiles a capacity planner
// reads.
var quantilePs = []float64{0, 1e-5, 1e-4, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999, 1}

// TestQuantileVsExact compares Histogram.Quantile with the exact
// nearest-rank quantile of the same sample, gonum's
// stat.Quantile(p, stat.Empirical, sorted, nil). The claim under test is
// |got-want| <= RelativeError*want for every p, with no statistical slack:
// both sides estimate the same order statistic. n is a power of two so that
// p*n is exact in float64 and both sides pick the same rank.
func TestQuantileVsExact(t *testing.T) {
	const n = 1 << 14
	tests := []struct {
		name string
		rand func() float64
	}{
		{"Exponential(rate=1)", distuv.Exponential{Rate: 1, Src: rand.NewPCG(1, 2)}.Rand},
		{"Exponential(rate=50)", distuv.Exponential{Rate: 50, Src: rand.NewPCG(3, 4)}.Rand},
		{"LogNormal(mu=0,sigma=2)", distuv.LogNormal{Mu: 0, Sigma: 2, Src: rand.NewPCG(5, 6)}.Rand},
		{"LogNormal(mu=3,sigma=0.5)", distuv.LogNormal{Mu: 3, Sigma: 0.5, Src: rand.NewPCG(7, 8)}.Rand},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := stats.NewHistogram()
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = tt.rand()
				h.Add(xs[i])
			}
			slices.Sort(xs)
			if xs[0] < stats.HistogramLow || xs[n-1] >= stats.HistogramHigh {
				t.Fatalf("sample range [%v, %v] leaves the histogram range", xs[0], xs[n-1])
			}
			for _, p := range quantilePs {
				want := stat.Quantile(p, stat.Empirical, xs, nil)
				got := h.Quantile(p)
				if e := math.Abs(got-want) / want; e > stats.RelativeError {
					t.Errorf("Quantile(%v) = %v, want %v within %v (relative error %v)",
						p, got, want, stats.RelativeError, e)
				}
			}
			if got, want := h.Quantile(0), xs[0]; got != want {
				t.Errorf("Quantile(0) = %v, want Min %v exactly", got, want)
			}
			if got, want := h.Quantile(1), xs[n-1]; got != want {
				t.Errorf("Quantile(1) = %v, want Max %v exactly", got, want)
			}
		})
	}
}

// TestQuantileRank checks that a float64 product p*n rounded just above an
// integer does not move the nearest rank up by one. (nearestRank itself is
// pinned in TestNearestRank.)
func TestQuantileRank(t *testing.T) {
	var h stats.Histogram
	for i := 1; i <= 100; i++ {
		h.Add(float64(i))
	}
	// 0.07*100 = 7.000000000000001 in float64; rank 7 has bucket
	// [7, 7+1/32), midpoint 7+1/64, which is within RelativeError of 7
	// but not of 8.
	if got, want := h.Quantile(0.07), 7.0; math.Abs(got-want) > want*stats.RelativeError {
		t.Errorf("Histogram{1..100}.Quantile(0.07) = %v, want %v within %v", got, want, stats.RelativeError)
	}
}

// TestHistogramExactMoments checks that Count, Sum, Min, Max and Mean are
// exact: Sum is the correctly rounded sum, which plain float64 addition does
// not produce here.
func TestHistogramExactMoments(t *testing.T) {
	var h stats.Histogram
	xs := []float64{1e16, 1, 1, 1, 1}
	naive := 0.0
	for _, x := range xs {
		h.Add(x)
		naive += x // float64 rounds each 1e16+1 back to 1e16 (ties to even)
	}
	want := 1e16 + 4 // exact, and representable
	if naive == want {
		t.Fatalf("test data: naive float64 sum %v already equals %v", naive, want)
	}
	if got := h.Sum(); got != want {
		t.Errorf("Sum() = %v, want %v (naive float64 sum %v)", got, want, naive)
	}
	if got, want := h.Count(), uint64(5); got != want {
		t.Errorf("Count() = %d, want %d", got, want)
	}
	if got, want := h.Min(), 1.0; got != want {
		t.Errorf("Min() = %v, want %v", got, want)
	}
	if got, want := h.Max(), 1e16; got != want {
		t.Errorf("Max() = %v, want %v", got, want)
	}
	if got, want := h.Mean(), (1e16+4)/5; got != want {
		t.Errorf("Mean() = %v, want %v", got, want)
	}
}

// TestHistogramEdgeValues covers the empty histogram, zeros (exact zero
// quantiles for e.g. queue waits that never waited), -0, and the underflow
// and overflow buckets, which report Min and Max.
func TestHistogramEdgeValues(t *testing.T) {
	var h stats.Histogram
	for name, got := range map[string]float64{
		"Quantile(0.5)": h.Quantile(0.5), "Mean()": h.Mean(), "Min()": h.Min(), "Max()": h.Max(),
	} {
		if !math.IsNaN(got) {
			t.Errorf("empty Histogram: %s = %v, want NaN", name, got)
		}
	}
	if got := h.Sum(); got != 0 {
		t.Errorf("empty Histogram: Sum() = %v, want 0", got)
	}
	if got := h.CDFPoints(nil); len(got) != 0 {
		t.Errorf("empty Histogram: CDFPoints(nil) = %v, want none", got)
	}

	h.AddN(0, 90)
	h.Add(math.Copysign(0, -1))
	h.AddN(2, 9)
	tests := []struct {
		p, want float64
	}{
		{0.5, 0},
		{0.91, 0},  // rank 91: the -0 recorded as +0
		{0.92, 2},  // rank 92: bucket [2, 2+1/64) clamped to Max = 2
		{1, 2},     // Max
		{0.9, 0},   // rank 90
		{0.915, 2}, // ceil(91.5) = 92
	}
	for _, tt := range tests {
		got := h.Quantile(tt.p)
		if got != tt.want || math.Signbit(got) {
			t.Errorf("Quantile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if got := h.Min(); got != 0 || math.Signbit(got) {
		t.Errorf("Min() = %v, want +0", got)
	}

	var o stats.Histogram
	o.Add(1e-12) // underflow
	o.Add(3e-12) // underflow
	o.Add(1)
	o.Add(5e9) // overflow
	o.Add(7e9) // overflow
	for _, tt := range []struct{ p, want float64 }{
		{0.2, 1e-12}, {0.4, 1e-12}, {0.8, 7e9}, {1, 7e9},
	} {
		if got := o.Quantile(tt.p); got != tt.want {
			t.Errorf("under/overflow: Quantile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
}

// TestHistogramPanics checks that programmer errors panic with a message.
func TestHistogramPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func(h *stats.Histogram)
	}{
		{"Add(NaN)", func(h *stats.Histogram) { h.Add(math.NaN()) }},
		{"Add(-1)", func(h *stats.Histogram) { h.Add(-1) }},
		{"Add(+Inf)", func(h *stats.Histogram) { h.Add(math.Inf(1)) }},
		{"AddN(-1, 0)", func(h *stats.Histogram) { h.AddN(-1, 0) }},
		{"Quantile(-0.1)", func(h *stats.Histogram) { h.Quantile(-0.1) }},
		{"Quantile(1.5)", func(h *stats.Histogram) { h.Quantile(1.5) }},
		{"Quantile(NaN)", func(h *stats.Histogram) { h.Quantile(math.NaN()) }},
	}
	for _, tt := range tests {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s did not panic", tt.name)
				}
			}()
			var h stats.Histogram
			h.Add(1)
			tt.f(&h)
		}()
	}
}

// sample returns n values mixing an exponential body, a lognormal tail,
// exact zeros and out-of-range values, to exercise every kind of bucket.
func sample(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	xs := make([]float64, n)
	for i := range xs {
		switch rng.IntN(10) {
		case 0:
			xs[i] = 0
		case 1:
			xs[i] = math.Exp(4 * rng.NormFloat64())
		case 2:
			xs[i] = 1e-11 * rng.Float64()
		case 3:
			xs[i] = 1e10 * (1 + rng.Float64())
		default:
			xs[i] = rng.ExpFloat64()
		}
	}
	return xs
}

// TestMergeEqualsSingle checks that recording values in shards and merging
// the shards, in any order and grouping, gives a Histogram == to recording
// all values into one.
func TestMergeEqualsSingle(t *testing.T) {
	xs := sample(5000, 1)
	single := stats.NewHistogram()
	for _, x := range xs {
		single.Add(x)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{1, 2, 3, 7, 16} {
		shards := make([]*stats.Histogram, k)
		for i := range shards {
			shards[i] = stats.NewHistogram()
		}
		for _, x := range xs {
			shards[rng.IntN(k)].Add(x)
		}
		// Left fold in shard order.
		fold := stats.NewHistogram()
		for _, s := range shards {
			fold.Merge(s)
		}
		// Pairwise tree in reverse order.
		tree := slices.Clone(shards)
		slices.Reverse(tree)
		for len(tree) > 1 {
			var next []*stats.Histogram
			for i := 0; i+1 < len(tree); i += 2 {
				m := stats.NewHistogram()
				m.Merge(tree[i])
				m.Merge(tree[i+1])
				next = append(next, m)
			}
			if len(tree)%2 == 1 {
				next = append(next, tree[len(tree)-1])
			}
			tree = next
		}
		if *fold != *single {
			t.Errorf("k=%d: fold of Merge != single Histogram (Sum %v vs %v, Count %d vs %d)",
				k, fold.Sum(), single.Sum(), fold.Count(), single.Count())
		}
		if *tree[0] != *single {
			t.Errorf("k=%d: tree of Merge != single Histogram", k)
		}
	}

	// Merging an empty histogram changes nothing; merging into an empty one copies.
	var empty stats.Histogram
	c := *single
	c.Merge(&empty)
	if c != *single {
		t.Errorf("h.Merge(empty) changed h")
	}
	empty.Merge(single)
	if empty != *single {
		t.Errorf("empty.Merge(h) != h")
	}
}

// TestMergeSelfAndAddN checks h.Merge(h) against recording every value
// twice with AddN.
func TestMergeSelfAndAddN(t *testing.T) {
	xs := sample(1000, 2)
	var h, twice stats.Histogram
	for _, x := range xs {
		h.Add(x)
		twice.AddN(x, 2)
	}
	h.Merge(&h)
	if h != twice {
		t.Errorf("h.Merge(h) != AddN(x, 2) for each x (Sum %v vs %v)", h.Sum(), twice.Sum())
	}
}

// TestOrderIndependence checks that the Histogram, hence every quantile,
// does not depend on insertion order.
func TestOrderIndependence(t *testing.T) {
	xs := sample(5000, 3)
	var a stats.Histogram
	for _, x := range xs {
		a.Add(x)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 5 {
		rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		var b stats.Histogram
		for _, x := range xs {
			b.Add(x)
		}
		if a != b {
			t.Fatalf("trial %d: Histogram of shuffled input differs", trial)
		}
		for _, p := range quantilePs {
			if qa, qb := a.Quantile(p), b.Quantile(p); qa != qb {
				t.Fatalf("trial %d: Quantile(%v) = %v after shuffle, want %v", trial, p, qb, qa)
			}
		}
	}
	slices.Sort(xs)
	var s stats.Histogram
	for _, x := range slices.Backward(xs) {
		s.Add(x)
	}
	if a != s {
		t.Errorf("Histogram of reverse-sorted input differs")
	}
}

// TestReset checks that Reset returns a Histogram to the zero value.
func TestReset(t *testing.T) {
	h := stats.NewHistogram()
	for _, x := range sample(100, 4) {
		h.Add(x)
	}
	h.Reset()
	if *h != (stats.Histogram{}) {
		t.Errorf("after Reset, Histogram != zero value (Count %d)", h.Count())
	}
}

// TestCDFPoints checks the CDF read from a histogram: increasing values and
// fractions, last point (Max, 1), and agreement with Quantile.
func TestCDFPoints(t *testing.T) {
	xs := sample(3000, 5)
	var h stats.Histogram
	for _, x := range xs {
		h.Add(x)
	}
	pts := h.CDFPoints(nil)
	if len(pts) < 2 {
		t.Fatalf("CDFPoints returned %d points, want many", len(pts))
	}
	for i := 1; i < len(pts); i++ {
		if !(pts[i].Value >= pts[i-1].Value && pts[i].Fraction > pts[i-1].Fraction) {
			t.Fatalf("CDFPoints not increasing at %d: %v then %v", i, pts[i-1], pts[i])
		}
	}
	last := pts[len(pts)-1]
	if last.Value != h.Max() || last.Fraction != 1 {
		t.Errorf("last CDFPoint = %+v, want {Value:%v Fraction:1}", last, h.Max())
	}
	// Each point's fraction is an exact cumulative count/n; its quantile
	// lands in the same bucket, so reports the same value (except the
	// first point, where rank 1 reports Min exactly).
	for i, pt := range pts[1:] {
		if got := h.Quantile(pt.Fraction); got != pt.Value {
			t.Errorf("point %d: Quantile(%v) = %v, want %v", i+1, pt.Fraction, got, pt.Value)
		}
	}
	// Appends to dst.
	dst := make([]stats.CDFPoint, 1, 1+len(pts))
	if got := h.CDFPoints(dst); len(got) != 1+len(pts) || got[0] != (stats.CDFPoint{}) {
		t.Errorf("CDFPoints(dst) did not append to dst")
	}
}

// TestHistogramAllocs checks that recording and querying do not allocate.
func TestHistogramAllocs(t *testing.T) {
	h := stats.NewHistogram()
	o := stats.NewHistogram()
	o.Add(3)
	x := 0.001
	dst := make([]stats.CDFPoint, 0, 8194) // one per bucket at most
	for name, f := range map[string]func(){
		"Add":       func() { x *= 1.37; h.Add(math.Mod(x, 1e3)) },
		"AddN":      func() { h.AddN(0.5, 3) },
		"Quantile":  func() { _ = h.Quantile(0.99) },
		"Sum":       func() { _ = h.Sum() },
		"Merge":     func() { h.Merge(o) },
		"CDFPoints": func() { _ = h.CDFPoints(dst[:0]) },
	} {
		if a := testing.AllocsPerRun(1000, f); a != 0 {
			t.Errorf("Histogram.%s: AllocsPerRun = %v, want 0", name, a)
		}
	}
}

func BenchmarkHistogramAdd(b *testing.B) {
	xs := sample(4096, 6)
	h := stats.NewHistogram()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Add(xs[i&4095])
	}
}

func BenchmarkHistogramQuantile(b *testing.B) {
	h := stats.NewHistogram()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		h.Add(rng.ExpFloat64()) // latencies in seconds, mean 1 s
	}
	for _, p := range []float64{0.5, 0.99} {
		b.Run(fmt.Sprintf("p=%v", p), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = h.Quantile(p)
			}
		})
	}
}

func BenchmarkHistogramMerge(b *testing.B) {
	h, o := stats.NewHistogram(), stats.NewHistogram()
	for _, x := range sample(1000, 8) {
		o.Add(x)
	}
	b.ReportAllocs()
	for b.Loop() {
		h.Merge(o)
	}
}

func ExampleHistogram() {
	h := stats.NewHistogram()
	// Latencies in seconds: 1 ms, 2 ms, ..., 1000 ms.
	for i := 1; i <= 1000; i++ {
		h.Add(float64(i) / 1000)
	}
	fmt.Printf("n=%d mean=%.4f min=%g max=%g\n", h.Count(), h.Mean(), h.Min(), h.Max())
	for _, p := range []float64{0.5, 0.9, 0.99, 1} {
		// Nearest-rank quantiles are 0.5, 0.9, 0.99 and 1 exactly; the
		// histogram reports bucket midpoints within RelativeError (1/256).
		fmt.Printf("p%g = %.4f\n", 100*p, h.Quantile(p))
	}
	// Output:
	// n=1000 mean=0.5005 min=0.001 max=1
	// p50 = 0.5020
	// p90 = 0.9004
	// p99 = 0.9902
	// p100 = 1.0000
}
