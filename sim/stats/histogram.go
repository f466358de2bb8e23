package stats

import (
	"fmt"
	"math"
)

// Histogram geometry. Each power-of-two octave [2^e, 2^(e+1)) is split into
// 2^subBits linear sub-buckets of width 2^e/128; the octaves cover
// [2^minExp, 2^maxExp).
const (
	subBits     = 7
	subBuckets  = 1 << subBits // 128 sub-buckets per octave
	minExp      = -32          // smallest tracked octave: [2^-32, 2^-31)
	maxExp      = 32           // exclusive: values >= 2^32 overflow
	octaves     = maxExp - minExp
	numRegular  = octaves * subBuckets // 8192
	underflowIx = 0                    // counts[0]: values in [0, 2^-32)
	overflowIx  = numRegular + 1       // counts[8193]: values >= 2^32
	numBuckets  = numRegular + 2
)

const (
	// HistogramLow is the smallest value a Histogram resolves to within
	// RelativeError: 2^-32 ≈ 2.3e-10 (0.23 ns when recording seconds).
	// Values in [0, HistogramLow) are counted in an underflow bucket.
	HistogramLow = 0x1p-32

	// HistogramHigh is the exclusive upper end of the range a Histogram
	// resolves: 2^32 ≈ 4.3e9 (about 136 years when recording seconds).
	// Values >= HistogramHigh are counted in an overflow bucket.
	HistogramHigh = 0x1p32

	// RelativeError bounds the relative error of Histogram.Quantile for
	// ranks that fall in [HistogramLow, HistogramHigh): the returned value v
	// and the exact nearest-rank sample quantile q satisfy
	// |v-q| <= RelativeError*q. A sub-bucket of octave [2^e, 2^(e+1)) has
	// width 2^e/128, so its midpoint is within 2^e/256 of any value in it,
	// and every value in it is >= 2^e: the bound is 1/256, attained at the
	// bottom edge of an octave.
	RelativeError = 1.0 / 256
)

// Histogram is a log-linear ("HDR-style") histogram of float64 values >= 0,
// such as latencies in seconds or costs in currency units, from which
// quantiles can be read to within RelativeError.
//
// Each power-of-two octave in [HistogramLow, HistogramHigh) is divided into
// 128 linear sub-buckets; values below the range (including 0) go to an
// underflow bucket and values above it to an overflow bucket. Count, Sum, Min
// and Max are kept exactly. The bucket index is computed from the bits of the
// float64 (exponent and top 7 mantissa bits), without logarithms.
//
// All state, about 66 KB, is held inline: the zero value is an empty
// histogram ready to use, Add never allocates, and the struct holds no
// pointers, so assigning a Histogram makes an independent copy (pass
// *Histogram to avoid the copying cost). Two Histograms compare == exactly
// when their bucket counts, Count, exact Sum, Min and Max agree; all of these
// depend only on the multiset of recorded values, not on insertion order nor
// on how recording was sharded and merged.
//
// A Histogram is not safe for concurrent use; give each goroutine its own and
// Merge them.
type Histogram struct {
	counts   [numBuckets]uint64
	octaves  [octaves]uint64 // octaves[o]: sum of counts over octave o's sub-buckets
	count    uint64
	min, max float64
	sum      exactSum
}

// NewHistogram returns a new, empty Histogram. It is the only allocation a
// Histogram makes; new(Histogram) or a zero-valued variable work as well.
func NewHistogram() *Histogram {
	return new(Histogram)
}

// bucketIndex returns the index in counts of the bucket holding x, which
// must be finite and >= 0 (-0 is treated as 0).
func bucketIndex(x float64) int {
	b := math.Float64bits(x)
	e := int(b>>52)&0x7ff - 1023 // unbiased exponent; subnormals and 0 give -1023
	if e < minExp {
		return underflowIx
	}
	if e >= maxExp {
		return overflowIx
	}
	return 1 + ((e-minExp)<<subBits | int(b>>(52-subBits))&(subBuckets-1))
}

// bucketMid returns the midpoint of regular bucket i (1 <= i <= numRegular),
// built directly from its bits: exponent, the 7 sub-bucket bits, and the
// next mantissa bit set to add half a sub-bucket width. It is exact.
func bucketMid(i int) float64 {
	r := i - 1
	e := r>>subBits + minExp
	sub := uint64(r & (subBuckets - 1))
	return math.Float64frombits(uint64(e+1023)<<52 | sub<<(52-subBits) | 1<<(52-subBits-1))
}

// bucketLow returns the inclusive lower edge of regular bucket i.
func bucketLow(i int) float64 {
	r := i - 1
	e := r>>subBits + minExp
	sub := uint64(r & (subBuckets - 1))
	return math.Float64frombits(uint64(e+1023)<<52 | sub<<(52-subBits))
}

// checkValue panics unless x is finite and >= 0.
func checkValue(method string, x float64) {
	if !(x >= 0 && x <= math.MaxFloat64) {
		panicValue(method, x)
	}
}

// panicValue is kept out of line so that the checks in Add stay cheap.
//
//go:noinline
func panicValue(method string, x float64) {
	panic(fmt.Sprintf("stats: Histogram.%s(%v): value must be finite and >= 0", method, x))
}

// Add records one observation x. x must be finite and >= 0; a NaN, negative
// or infinite x is a programmer error and panics. -0 is recorded as 0. Add
// does not allocate.
func (h *Histogram) Add(x float64) {
	checkValue("Add", x)
	h.add(x, 1)
}

// AddN records n observations of the value x, as n calls of Add(x) would.
// AddN(x, 0) validates x and changes nothing.
func (h *Histogram) AddN(x float64, n uint64) {
	checkValue("AddN", x)
	if n == 0 {
		return
	}
	h.add(x, n)
}

func (h *Histogram) add(x float64, n uint64) {
	if x == 0 {
		x = 0 // canonicalise -0 so that == on Histograms sees no difference
	}
	i := bucketIndex(x)
	h.counts[i] += n
	if i != underflowIx && i != overflowIx {
		h.octaves[(i-1)>>subBits] += n
	}
	// x is neither NaN nor -0 here, so plain comparisons do what min and
	// max do, without their NaN and signed-zero handling.
	if h.count == 0 {
		h.min, h.max = x, x
	} else if x < h.min {
		h.min = x
	} else if x > h.max {
		h.max = x
	}
	h.count += n
	h.sum.add(x, n)
}

// Count returns the number of recorded observations.
func (h *Histogram) Count() uint64 { return h.count }

// Sum returns the sum of the recorded observations, 0 if there are none. It
// is accumulated exactly (in fixed point wide enough for any float64) and
// rounded to nearest once, here, so it does not depend on insertion order or
// sharding. It is +Inf only if the exact sum exceeds math.MaxFloat64.
func (h *Histogram) Sum() float64 { return h.sum.float64() }

// Mean returns Sum()/Count(), or NaN if the histogram is empty.
func (h *Histogram) Mean() float64 {
	if h.count == 0 {
		return math.NaN()
	}
	return h.Sum() / float64(h.count)
}

// Min returns the smallest recorded value exactly, or NaN if the histogram
// is empty.
func (h *Histogram) Min() float64 {
	if h.count == 0 {
		return math.NaN()
	}
	return h.min
}

// Max returns the largest recorded value exactly, or NaN if the histogram is
// empty.
func (h *Histogram) Max() float64 {
	if h.count == 0 {
		return math.NaN()
	}
	return h.max
}

// representative returns the value reported for bucket i: the midpoint of a
// regular bucket clamped to [Min, Max], Min for the underflow bucket and Max
// for the overflow bucket (each contains that extreme).
func (h *Histogram) representative(i int) float64 {
	switch i {
	case underflowIx:
		return h.min
	case overflowIx:
		return h.max
	}
	return min(max(bucketMid(i), h.min), h.max)
}

// Quantile returns the p-quantile of the recorded values by the nearest-rank
// estimator: the value of rank r = ⌈p·n⌉ (at least 1) among the n sorted
// observations, estimated by the midpoint of the bucket holding that rank,
// clamped to [Min, Max]. p·n is computed in float64; a product that exceeds
// an integer k by a relative 2^-50 or less (rounding error, as in
// 0.07·100 = 7.000000000000001) is taken as k, so p = k/n gives rank k.
// Otherwise this is the estimator gonum's stat.Quantile(p, stat.Empirical,
// x, nil) computes on sorted data.
//
// The result is within RelativeError of the exact nearest-rank sample
// quantile when the rank falls in [HistogramLow, HistogramHigh). A rank in
// the underflow bucket reports Min (absolute error < HistogramLow; exact
// when all small values are equal, e.g. zero waits), and a rank in the
// overflow bucket reports Max. The extreme ranks are known exactly: rank 1
// (including p = 0) reports Min and rank n (p = 1) reports Max.
//
// The result depends only on the recorded multiset, not on insertion order.
// Quantile returns NaN if the histogram is empty and panics if p is NaN or
// outside [0, 1]. It does not allocate; it visits at most 64 octave totals
// and the 128 buckets of one octave.
func (h *Histogram) Quantile(p float64) float64 {
	if !(p >= 0 && p <= 1) {
		panic(fmt.Sprintf("stats: Histogram.Quantile(%v): p must be in [0, 1]", p))
	}
	if h.count == 0 {
		return math.NaN()
	}
	rank := nearestRank(p, h.count)
	switch {
	case rank <= 1:
		return h.min
	case rank >= h.count:
		return h.max
	}
	// Skip whole octaves by their totals, then scan one octave's buckets.
	cum := h.counts[underflowIx]
	if cum >= rank {
		return h.min
	}
	for o, oc := range h.octaves {
		if cum+oc < rank {
			cum += oc
			continue
		}
		first := 1 + o<<subBits
		for i := first; i < first+subBuckets; i++ {
			cum += h.counts[i]
			if cum >= rank {
				return h.representative(i)
			}
		}
	}
	return h.max // the rank is in the overflow bucket
}

// nearestRank returns ⌈p·n⌉ for p in [0, 1], forgiving float64 rounding
// error that puts p·n just above an integer (see Histogram.Quantile).
func nearestRank(p float64, n uint64) uint64 {
	r := p * float64(n)
	if f := math.Floor(r); r-f <= r*0x1p-50 {
		return uint64(f)
	}
	return uint64(math.Ceil(r))
}

// Merge adds all observations recorded in o to h, exactly: recording values
// into shards and merging the shards gives a Histogram == to recording all
// the values into one, whatever the merge order. o is not modified; h and o
// may be the same histogram (which doubles every count).
func (h *Histogram) Merge(o *Histogram) {
	if o.count == 0 {
		return
	}
	if h.count == 0 {
		h.min, h.max = o.min, o.max
	} else {
		h.min = min(h.min, o.min)
		h.max = max(h.max, o.max)
	}
	// Only o's non-empty octaves: a latency histogram uses a few of its 64,
	// and leaving the rest of h untouched spares a fresh h's pages.
	if c := o.counts[underflowIx]; c != 0 {
		h.counts[underflowIx] += c
	}
	if c := o.counts[overflowIx]; c != 0 {
		h.counts[overflowIx] += c
	}
	for oi, oc := range o.octaves {
		if oc == 0 {
			continue
		}
		h.octaves[oi] += oc
		first := 1 + oi<<subBits
		for i, c := range o.counts[first : first+subBuckets] {
			h.counts[first+i] += c
		}
	}
	h.count += o.count
	if h == o {
		s := o.sum
		h.sum.merge(&s)
		return
	}
	h.sum.merge(&o.sum)
}

// Reset empties h, making it equal to a zero Histogram.
func (h *Histogram) Reset() { *h = Histogram{} }

// CDFPoint is one point of an empirical cumulative distribution function
// read from a Histogram: a fraction Fraction of the recorded observations
// fall in buckets whose representative value is <= Value.
type CDFPoint struct {
	Value    float64 // representative value of a bucket, as Quantile reports it
	Fraction float64 // cumulative fraction of observations, in (0, 1]
}

// CDFPoints appends to dst one CDFPoint per non-empty bucket, in increasing
// order of Value, and returns the extended slice. Value is the bucket's
// representative as Quantile reports it (midpoint clamped to [Min, Max], Min
// for underflow, Max for overflow), except that the last point is (Max, 1),
// as Quantile(1) reports. Quantile(pt.Fraction) == pt.Value for every point
// but possibly the first (rank 1 reports Min). A Histogram has at most 8194 buckets, so the result is small
// enough to plot directly as a step function. An empty histogram appends
// nothing.
func (h *Histogram) CDFPoints(dst []CDFPoint) []CDFPoint {
	if h.count == 0 {
		return dst
	}
	n := float64(h.count)
	var cum uint64
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		cum += c
		v := h.representative(i)
		if cum == h.count {
			v = h.max
		}
		dst = append(dst, CDFPoint{Value: v, Fraction: float64(cum) / n})
	}
	return dst
}
