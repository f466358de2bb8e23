package stats

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestBucketIndexEdges checks the bucket of values at and around the range
// limits and bucket edges.
func TestBucketIndexEdges(t *testing.T) {
	tests := []struct {
		x    float64
		want int
	}{
		{0, underflowIx},
		{math.SmallestNonzeroFloat64, underflowIx},
		{math.Nextafter(HistogramLow, 0), underflowIx},
		{HistogramLow, 1},
		{HistogramLow * (1 + 1.0/128), 2},
		{1, 1 + 32*128},
		{1.5, 1 + 32*128 + 64},
		{math.Nextafter(2, 0), 1 + 33*128 - 1},
		{2, 1 + 33*128},
		{math.Nextafter(HistogramHigh, 0), numRegular},
		{HistogramHigh, overflowIx},
		{math.MaxFloat64, overflowIx},
	}
	for _, tt := range tests {
		if got := bucketIndex(tt.x); got != tt.want {
			t.Errorf("bucketIndex(%v) = %d, want %d", tt.x, got, tt.want)
		}
	}
}

// TestBucketGeometry checks every regular bucket: its lower edge, midpoint
// and the largest float64 below the next bucket's edge all map back to it,
// and its midpoint is the arithmetic mean of its edges.
func TestBucketGeometry(t *testing.T) {
	for i := 1; i <= numRegular; i++ {
		lo, mid := bucketLow(i), bucketMid(i)
		hi := HistogramHigh
		if i < numRegular {
			hi = bucketLow(i + 1)
		}
		top := math.Nextafter(hi, 0)
		for _, x := range []float64{lo, mid, top} {
			if got := bucketIndex(x); got != i {
				t.Fatalf("bucketIndex(%v) = %d, want %d (bucket [%v, %v))", x, got, i, lo, hi)
			}
		}
		if want := (lo + hi) / 2; mid != want {
			t.Fatalf("bucketMid(%d) = %v, want (%v+%v)/2 = %v", i, mid, lo, hi, want)
		}
	}
}

// TestRelativeErrorClaim verifies the RelativeError constant: for every
// regular bucket, the midpoint is within RelativeError (relative to the
// value) of both edges, so of every value in the bucket, and the bound is
// attained exactly at the bottom edge of each octave, so it is tight.
func TestRelativeErrorClaim(t *testing.T) {
	worst := 0.0
	for i := 1; i <= numRegular; i++ {
		lo, mid := bucketLow(i), bucketMid(i)
		hi := HistogramHigh
		if i < numRegular {
			hi = bucketLow(i + 1)
		}
		// The relative error |mid-x|/x is largest at x = lo (smallest x,
		// largest distance); at x -> hi it is (hi-mid)/hi < (mid-lo)/lo.
		errLo := (mid - lo) / lo
		errHi := (hi - mid) / hi
		if errLo > RelativeError || errHi > RelativeError {
			t.Fatalf("bucket %d [%v, %v) mid %v: relative errors %v, %v > RelativeError %v",
				i, lo, hi, mid, errLo, errHi, RelativeError)
		}
		worst = max(worst, errLo, errHi)
	}
	if worst != RelativeError {
		t.Errorf("worst bucket relative error = %v, want exactly RelativeError = %v", worst, RelativeError)
	}

	// Log-uniform values across the whole range.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		x := math.Exp2(minExp + float64(octaves)*rng.Float64())
		if x >= HistogramHigh {
			continue
		}
		m := bucketMid(bucketIndex(x))
		if e := math.Abs(m-x) / x; e > RelativeError {
			t.Fatalf("x = %v: bucket midpoint %v has relative error %v > %v", x, m, e, RelativeError)
		}
	}
}

// bigSum returns the exact sum of n[i]*xs[i] rounded to float64 by
// math/big, as the reference for exactSum.
func bigSum(xs []float64, ns []uint64) float64 {
	sum := new(big.Float).SetPrec(2400) // > 2162 bits: every partial sum is exact
	for i, x := range xs {
		term := new(big.Float).SetPrec(2400).SetFloat64(x)
		term.Mul(term, new(big.Float).SetUint64(ns[i]))
		sum.Add(sum, term)
	}
	f, _ := sum.Float64() // ToNearestEven
	return f
}

// TestExactSumMatchesBig compares exactSum with arbitrary-precision sums of
// values spread over the whole float64 range, subnormals included.
func TestExactSumMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func() float64 {
		switch rng.IntN(6) {
		case 0:
			return math.Float64frombits(rng.Uint64N(1 << 52)) // subnormal
		case 1:
			return math.Ldexp(1+rng.Float64(), rng.IntN(2046)-1022) // any normal
		case 2:
			return math.Ldexp(1, rng.IntN(100)-50) // powers of two (ties)
		case 3:
			return math.MaxFloat64 * rng.Float64() / (1 << 20)
		default:
			return rng.ExpFloat64()
		}
	}
	for trial := range 300 {
		var a exactSum
		n := 1 + rng.IntN(40)
		xs, ns := make([]float64, n), make([]uint64, n)
		for i := range xs {
			xs[i] = gen()
			ns[i] = 1
			if rng.IntN(4) == 0 {
				ns[i] = rng.Uint64N(1 << 16)
			}
			a.add(xs[i], ns[i])
		}
		got, want := a.float64(), bigSum(xs, ns)
		if got != want {
			t.Fatalf("trial %d: exactSum of %v × %v = %v, want %v", trial, xs, ns, got, want)
		}
	}
}

// TestExactSumRounding pins hand-checked cases: round-to-nearest-even ties,
// a sticky bit far below the rounding point, overflow to +Inf.
func TestExactSumRounding(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"empty", nil, 0},
		{"tie to even (down)", []float64{1, 0x1p-53}, 1},
		{"tie to even (up)", []float64{1 + 0x1p-52, 0x1p-53}, 1 + 0x1p-51},
		{"sticky breaks tie", []float64{1, 0x1p-53, 0x1p-1074}, 1 + 0x1p-52},
		{"float64 addition would lose it", []float64{1e16, 1, 1}, 1e16 + 2},
		{"subnormals", []float64{0x1p-1074, 0x1p-1074, 0x1p-1073}, 0x1p-1072},
		{"overflow", []float64{math.MaxFloat64, math.MaxFloat64}, math.Inf(1)},
		{"max exact", []float64{math.MaxFloat64 / 2, math.MaxFloat64 / 2}, math.MaxFloat64},
	}
	for _, tt := range tests {
		var a exactSum
		for _, x := range tt.xs {
			a.add(x, 1)
		}
		if got := a.float64(); got != tt.want {
			t.Errorf("%s: exactSum%v = %v, want %v", tt.name, tt.xs, got, tt.want)
		}
	}
}

// TestInt128 checks TimeWeighted's 128-bit accumulator and its rounding to
// float64 against math/big.
func TestInt128(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		var hi int64
		var lo uint64
		want := new(big.Int)
		for range 1 + rng.IntN(20) {
			level := rng.Int64N(2*maxExactLevel+1) - maxExactLevel
			if rng.IntN(3) == 0 {
				level = rng.Int64N(21) - 10
			}
			dt := time.Duration(rng.Int64N(math.MaxInt64))
			hi, lo = add128(hi, lo, level, dt)
			want.Add(want, new(big.Int).Mul(big.NewInt(level), big.NewInt(int64(dt))))
		}
		wf, _ := new(big.Float).SetInt(want).Float64()
		if got := int128Float(hi, lo); got != wf {
			t.Fatalf("trial %d: int128Float = %v, want %v (%v)", trial, got, wf, want)
		}
	}
}

// TestNearestRank pins ⌈p·n⌉, including products p*n that float64 rounds
// just above an integer (the products are shown as Go prints them).
func TestNearestRank(t *testing.T) {
	tests := []struct {
		p    float64
		n    uint64
		want uint64
	}{
		{0, 100, 0},
		{0.07, 100, 7}, // 7.000000000000001
		{0.99, 100, 99},
		{0.991, 100, 100},
		{0.5, 100, 50},
		{0.505, 100, 51},
		{0.001, 100, 1},
		{1, 100, 100},
		{0.67, 3000, 2010}, // 2010.0000000000002
		{2010.0 / 3000, 3000, 2010},
		{2011.0 / 3000, 3000, 2011},
		{1.0 / 7, 7, 1},
		{3.0 / 7, 7, 3},
		{6.0 / 7, 7, 6},
		{0.999, 1000000, 999000},
		{0x1p-60, 1 << 20, 1},
	}
	for _, tt := range tests {
		if got := nearestRank(tt.p, tt.n); got != tt.want {
			t.Errorf("nearestRank(%v, %d) = %d, want %d (p*n = %v)", tt.p, tt.n, got, tt.want, tt.p*float64(tt.n))
		}
	}
}

// TestTQuantileRounded: tQuantile keeps 16 significant bits of gonum's
// Student-t quantile (so that the last digits gonum's iterations leave to
// the CPU cannot reach the result) and stays within 2^-16 of it.
func TestTQuantileRounded(t *testing.T) {
	for _, nu := range []float64{1, 2, 9, 99, 1586, 9999} {
		for _, p := range []float64{0.95, 0.975, 0.995, 0.9995, 1 - 0.01/44} {
			got := tQuantile(nu, p)
			want := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(p)
			if math.Abs(got-want) > want*0x1p-16 {
				t.Errorf("tQuantile(%v, %v) = %v, gonum %v: more than 2^-16 apart", nu, p, got, want)
			}
			frac, _ := math.Frexp(got)
			if scaled := frac * (1 << 16); scaled != math.Trunc(scaled) {
				t.Errorf("tQuantile(%v, %v) = %v keeps more than 16 significant bits", nu, p, got)
			}
		}
	}
}

// TestMeanSD: meanSD agrees with gonum's stat.MeanStdDev (the same corrected
// two-pass algorithm; gonum may sum in another order) to 1e-12, and gives
// 0 spread for equal values.
func TestMeanSD(t *testing.T) {
	xs := []float64{0.1, 0.25, 1e3, 3.5, -2, 7.125, 0.3, 1e-3, 42, 5}
	m, sd := meanSD(xs)
	wm, wsd := stat.MeanStdDev(xs, nil)
	if math.Abs(m-wm) > 1e-12*math.Abs(wm) || math.Abs(sd-wsd) > 1e-12*wsd {
		t.Errorf("meanSD = %v, %v; gonum %v, %v", m, sd, wm, wsd)
	}
	if m, sd := meanSD([]float64{0.75, 0.75, 0.75}); m != 0.75 || sd != 0 {
		t.Errorf("meanSD(0.75 ×3) = %v, %v; want 0.75, 0", m, sd)
	}
}
