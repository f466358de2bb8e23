package stats

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Serialised forms of a Histogram. Both are lossless: decoding an encoded
// Histogram gives one that compares == to the original (bucket counts, Count,
// the exact Sum, Min and Max), so histograms recorded on different machines
// can be shipped, decoded and merged with the same result as merging them in
// one process. Only the non-empty buckets are written: a histogram of 20000
// exponential latencies (about 900 non-empty buckets) takes 2.7 KB in the
// binary form and 22 KB in the JSON form, against the 66 KB of the
// in-memory value.
//
// The binary form (MarshalBinary, AppendBinary, UnmarshalBinary) is:
//
//	byte     'H', then format version 1
//	uvarint  Count
//	8 bytes  Min, then 8 bytes Max (IEEE 754 bits, little-endian; only if Count > 0)
//	uvarint  index w of the lowest non-zero word of the exact sum
//	uvarint  number k of words from there on; then k words, 8 bytes each, little-endian
//	uvarint  number b of non-empty buckets; then b pairs
//	         (uvarint gap, uvarint count), where a bucket's index is the
//	         previous bucket's index + 1 + gap (the first: gap from -1)
//
// The exact sum is the fixed-point integer the Histogram accumulates, in
// units of 2^-1074 (the smallest subnormal float64), as little-endian 64-bit
// words; bucket indexes follow the geometry of this package (index 0 is the
// underflow bucket, 1..8192 the regular sub-buckets in increasing order,
// 8193 the overflow bucket).
//
// The JSON form (MarshalJSON, UnmarshalJSON) does not expose bucket
// indexes; each non-empty bucket is named by its lower edge, so the file is
// readable on its own:
//
//	{"sub_buckets": 128, "count": 3, "min": 0.1, "max": 2.5,
//	 "sum": 3.1, "sum_exact": "0x...p-...",
//	 "bucket_low": [0.099609375, 0.5, 2.5], "bucket_count": [1, 1, 1]}
//
// sub_buckets is the number of linear sub-buckets per octave (always 128;
// a reader must reject another value). min and max are omitted when count is
// 0. sum is Sum() (informational, but checked on decoding when present; it
// is omitted when it would be +Inf); sum_exact is the
// exact sum as a hexadecimal integer mantissa and a binary exponent,
// "0x<hex>p<exp>" = hex × 2^exp, in the spirit of C99 hexadecimal floating
// constants but with an integer mantissa of any length. bucket_low holds the
// lower edges of the non-empty buckets in increasing order: 0 for the
// underflow bucket [0, HistogramLow), HistogramHigh for the overflow bucket,
// and otherwise the exact lower edge of a sub-bucket; bucket_count holds
// their counts.
//
// Decoding checks everything it can: the bucket counts add up to count, Min
// and Max fall in the first and last non-empty buckets, and the exact sum
// lies between count×Min and count×Max. A failed decode leaves the
// Histogram unchanged and returns an error naming the field and the bad
// value.

const (
	binaryTag     = 'H'
	binaryVersion = 1
)

// errTruncated is returned for binary data that ends early.
var errTruncated = errors.New("stats: Histogram.UnmarshalBinary: data ends early")

// MarshalBinary encodes h in the compact binary form described in the
// package's codec documentation. It implements encoding.BinaryMarshaler and
// never fails.
func (h *Histogram) MarshalBinary() ([]byte, error) {
	return h.AppendBinary(nil)
}

// AppendBinary appends the binary form of h to b and returns the extended
// slice. It implements encoding.BinaryAppender and never fails.
func (h *Histogram) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, binaryTag, binaryVersion)
	b = binary.AppendUvarint(b, h.count)
	if h.count > 0 {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(h.min))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(h.max))
	}
	lo, hi := h.sum.span()
	b = binary.AppendUvarint(b, uint64(lo))
	b = binary.AppendUvarint(b, uint64(hi-lo))
	for _, w := range h.sum[lo:hi] {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	n := 0
	h.nonEmpty(func(int, uint64) { n++ })
	b = binary.AppendUvarint(b, uint64(n))
	prev := -1
	h.nonEmpty(func(i int, c uint64) {
		b = binary.AppendUvarint(b, uint64(i-prev-1))
		b = binary.AppendUvarint(b, c)
		prev = i
	})
	return b, nil
}

// nonEmpty calls f for each non-empty bucket in increasing index order,
// skipping empty octaves by their totals.
func (h *Histogram) nonEmpty(f func(i int, c uint64)) {
	if c := h.counts[underflowIx]; c != 0 {
		f(underflowIx, c)
	}
	for o, oc := range h.octaves {
		if oc == 0 {
			continue
		}
		first := 1 + o<<subBits
		for i, c := range h.counts[first : first+subBuckets] {
			if c != 0 {
				f(first+i, c)
			}
		}
	}
	if c := h.counts[overflowIx]; c != 0 {
		f(overflowIx, c)
	}
}

// UnmarshalBinary decodes the binary form written by MarshalBinary into h,
// replacing its contents. It implements encoding.BinaryUnmarshaler. On error
// h is unchanged.
func (h *Histogram) UnmarshalBinary(data []byte) error {
	const where = "stats: Histogram.UnmarshalBinary"
	r := byteReader{data: data}
	tag, ok1 := r.byte()
	version, ok2 := r.byte()
	if !ok1 || !ok2 {
		return errTruncated
	}
	if tag != binaryTag {
		return fmt.Errorf("%s: not a histogram: first byte %#x, want %#x", where, tag, binaryTag)
	}
	if version != binaryVersion {
		return fmt.Errorf("%s: format version %d, this build reads %d", where, version, binaryVersion)
	}
	var p histogramParts
	var ok bool
	if p.count, ok = r.uvarint(); !ok {
		return errTruncated
	}
	if p.count > 0 {
		minBits, ok1 := r.uint64()
		maxBits, ok2 := r.uint64()
		if !ok1 || !ok2 {
			return errTruncated
		}
		p.min, p.max = math.Float64frombits(minBits), math.Float64frombits(maxBits)
	}
	lo, ok1 := r.uvarint()
	k, ok2 := r.uvarint()
	if !ok1 || !ok2 {
		return errTruncated
	}
	if lo > exactSumWords || k > exactSumWords-lo {
		return fmt.Errorf("%s: sum: words [%d, %d+%d) outside the %d-word accumulator", where, lo, lo, k, exactSumWords)
	}
	for i := range k {
		w, ok := r.uint64()
		if !ok {
			return errTruncated
		}
		p.sum[lo+i] = w
	}
	nb, ok := r.uvarint()
	if !ok {
		return errTruncated
	}
	if nb > numBuckets {
		return fmt.Errorf("%s: %d non-empty buckets, a histogram has only %d", where, nb, numBuckets)
	}
	p.index = make([]int, 0, nb)
	p.counts = make([]uint64, 0, nb)
	prev := int64(-1)
	for range nb {
		gap, ok1 := r.uvarint()
		c, ok2 := r.uvarint()
		if !ok1 || !ok2 {
			return errTruncated
		}
		if gap >= numBuckets {
			return fmt.Errorf("%s: bucket gap %d exceeds the %d buckets", where, gap, numBuckets)
		}
		i := prev + 1 + int64(gap)
		if i >= numBuckets {
			return fmt.Errorf("%s: bucket index %d exceeds the last bucket %d", where, i, numBuckets-1)
		}
		p.index = append(p.index, int(i))
		p.counts = append(p.counts, c)
		prev = i
	}
	if len(r.data) != r.off {
		return fmt.Errorf("%s: %d trailing bytes after the histogram", where, len(r.data)-r.off)
	}
	return h.assemble(where, &p)
}

// histogramJSON is the JSON form of a Histogram.
type histogramJSON struct {
	SubBuckets  int       `json:"sub_buckets"`
	Count       uint64    `json:"count"`
	Min         *float64  `json:"min,omitempty"`
	Max         *float64  `json:"max,omitempty"`
	Sum         *float64  `json:"sum,omitempty"`
	SumExact    string    `json:"sum_exact"`
	BucketLow   []float64 `json:"bucket_low"`
	BucketCount []uint64  `json:"bucket_count"`
}

// MarshalJSON encodes h in the JSON form described in the package's codec
// documentation. It implements json.Marshaler. Call it on a *Histogram
// (the method has a pointer receiver, so a Histogram held by value in a
// struct is not encoded this way).
func (h *Histogram) MarshalJSON() ([]byte, error) {
	v := histogramJSON{
		SubBuckets:  subBuckets,
		Count:       h.count,
		SumExact:    h.sum.hex(),
		BucketLow:   []float64{},
		BucketCount: []uint64{},
	}
	if h.count > 0 {
		lo, hi := h.min, h.max
		v.Min, v.Max = &lo, &hi
	}
	if s := h.Sum(); !math.IsInf(s, 0) {
		v.Sum = &s // +Inf (a sum beyond MaxFloat64) has no JSON number
	}
	h.nonEmpty(func(i int, c uint64) {
		v.BucketLow = append(v.BucketLow, bucketEdge(i))
		v.BucketCount = append(v.BucketCount, c)
	})
	return json.Marshal(v)
}

// UnmarshalJSON decodes the JSON form written by MarshalJSON into h,
// replacing its contents. It implements json.Unmarshaler. On error h is
// unchanged.
func (h *Histogram) UnmarshalJSON(data []byte) error {
	const where = "stats: Histogram.UnmarshalJSON"
	var v histogramJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if v.SubBuckets != subBuckets {
		return fmt.Errorf("%s: sub_buckets: this build reads %d sub-buckets per octave, got %d", where, subBuckets, v.SubBuckets)
	}
	if len(v.BucketLow) != len(v.BucketCount) {
		return fmt.Errorf("%s: bucket_low has %d entries but bucket_count has %d", where, len(v.BucketLow), len(v.BucketCount))
	}
	if len(v.BucketLow) > numBuckets {
		return fmt.Errorf("%s: bucket_low: %d buckets, a histogram has only %d", where, len(v.BucketLow), numBuckets)
	}
	p := histogramParts{count: v.Count}
	if v.Count > 0 {
		if v.Min == nil || v.Max == nil {
			return fmt.Errorf("%s: min and max are required when count is %d", where, v.Count)
		}
		p.min, p.max = *v.Min, *v.Max
	} else if v.Min != nil || v.Max != nil {
		return fmt.Errorf("%s: min and max must be absent when count is 0", where)
	}
	sum, err := parseExactSum(v.SumExact)
	if err != nil {
		return fmt.Errorf("%s: sum_exact: %w", where, err)
	}
	p.sum = sum
	if got := p.sum.float64(); v.Sum != nil && got != *v.Sum {
		return fmt.Errorf("%s: sum: %v does not match sum_exact %s, which rounds to %v", where, *v.Sum, v.SumExact, got)
	}
	p.index = make([]int, len(v.BucketLow))
	p.counts = v.BucketCount
	for j, low := range v.BucketLow {
		i, ok := edgeIndex(low)
		if !ok {
			return fmt.Errorf("%s: bucket_low[%d]: %v is not the lower edge of a bucket", where, j, low)
		}
		p.index[j] = i
	}
	return h.assemble(where, &p)
}

// histogramParts are the decoded fields of a serialised Histogram, before
// they are checked and assembled.
type histogramParts struct {
	count    uint64
	min, max float64
	sum      exactSum
	index    []int    // bucket indexes, strictly increasing
	counts   []uint64 // counts of those buckets
}

// assemble checks p and, if it describes a valid Histogram, replaces *h
// with it.
func (h *Histogram) assemble(where string, p *histogramParts) error {
	var g Histogram
	var total uint64
	prev := -1
	for j, i := range p.index {
		c := p.counts[j]
		if i <= prev {
			return fmt.Errorf("%s: bucket %d: buckets must be listed once each in increasing order (after %s)", where, j, describeBucket(prev))
		}
		if c == 0 {
			return fmt.Errorf("%s: bucket %d (%s): count 0; only non-empty buckets are listed", where, j, describeBucket(i))
		}
		if total+c < total {
			return fmt.Errorf("%s: bucket counts overflow uint64", where)
		}
		total += c
		g.counts[i] = c
		if i != underflowIx && i != overflowIx {
			g.octaves[(i-1)>>subBits] += c
		}
		prev = i
	}
	if total != p.count {
		return fmt.Errorf("%s: count: %d, but the bucket counts add up to %d", where, p.count, total)
	}
	g.count = p.count
	g.sum = p.sum
	if p.count == 0 {
		if g.sum != (exactSum{}) {
			return fmt.Errorf("%s: sum: %v for an empty histogram, want 0", where, g.sum.float64())
		}
		*h = g
		return nil
	}
	mn, mx := p.min, p.max
	if mn == 0 {
		mn = 0 // canonicalise -0, as Add does
	}
	if mx == 0 {
		mx = 0
	}
	if !(mn >= 0 && mn <= math.MaxFloat64) {
		return fmt.Errorf("%s: min: must be finite and >= 0, got %v", where, p.min)
	}
	if !(mx >= mn && mx <= math.MaxFloat64) {
		return fmt.Errorf("%s: max: must be finite and >= min %v, got %v", where, mn, p.max)
	}
	if first := p.index[0]; bucketIndex(mn) != first {
		return fmt.Errorf("%s: min: %v is not in the first non-empty bucket (%s)", where, mn, describeBucket(first))
	}
	if last := p.index[len(p.index)-1]; bucketIndex(mx) != last {
		return fmt.Errorf("%s: max: %v is not in the last non-empty bucket (%s)", where, mx, describeBucket(last))
	}
	g.min, g.max = mn, mx
	// Every value lies in [min, max], so count×min <= sum <= count×max,
	// exactly.
	var lo, hi exactSum
	lo.add(mn, p.count)
	hi.add(mx, p.count)
	if g.sum.cmp(&lo) < 0 || g.sum.cmp(&hi) > 0 {
		return fmt.Errorf("%s: sum: %v is outside [count×min, count×max] = [%v, %v]", where, g.sum.float64(), lo.float64(), hi.float64())
	}
	*h = g
	return nil
}

// bucketEdge returns the lower edge that names bucket i in the JSON form.
func bucketEdge(i int) float64 {
	switch i {
	case underflowIx:
		return 0
	case overflowIx:
		return HistogramHigh
	}
	return bucketLow(i)
}

// edgeIndex returns the bucket whose lower edge (as bucketEdge names it) is
// x.
func edgeIndex(x float64) (int, bool) {
	if !(x >= 0 && x <= math.MaxFloat64) {
		return 0, false
	}
	i := bucketIndex(x)
	return i, bucketEdge(i) == x
}

func describeBucket(i int) string {
	switch {
	case i < 0:
		return "the start"
	case i == underflowIx:
		return "the underflow bucket"
	case i == overflowIx:
		return "the overflow bucket"
	}
	return "bucket [" + strconv.FormatFloat(bucketLow(i), 'g', -1, 64) + ", …)"
}

// span returns the range [lo, hi) of words holding the non-zero part of a
// (lo == hi when a is 0).
func (a *exactSum) span() (lo, hi int) {
	hi = exactSumWords
	for hi > 0 && a[hi-1] == 0 {
		hi--
	}
	for lo < hi && a[lo] == 0 {
		lo++
	}
	return lo, hi
}

// cmp compares a and o as integers: -1, 0 or +1.
func (a *exactSum) cmp(o *exactSum) int {
	for i := exactSumWords - 1; i >= 0; i-- {
		switch {
		case a[i] < o[i]:
			return -1
		case a[i] > o[i]:
			return 1
		}
	}
	return 0
}

// bigInt returns a as a big.Int (in units of 2^-1074).
func (a *exactSum) bigInt() *big.Int {
	var be [exactSumWords * 8]byte
	for i, w := range a {
		binary.BigEndian.PutUint64(be[(exactSumWords-1-i)*8:], w)
	}
	return new(big.Int).SetBytes(be[:])
}

// hex formats a as "0x<hex>p<exp>", value = hex × 2^exp, with an odd
// mantissa (or "0x0p0").
func (a *exactSum) hex() string {
	n := a.bigInt()
	if n.Sign() == 0 {
		return "0x0p0"
	}
	tz := n.TrailingZeroBits()
	n.Rsh(n, tz)
	return "0x" + n.Text(16) + "p" + strconv.Itoa(int(tz)-1074)
}

// parseExactSum parses the form written by exactSum.hex; the mantissa need
// not be odd.
func parseExactSum(s string) (exactSum, error) {
	var a exactSum
	mant, exp, ok := strings.Cut(s, "p")
	if !ok || !strings.HasPrefix(mant, "0x") || len(mant) == 2 {
		return a, fmt.Errorf("%q is not of the form 0x<hex>p<exponent>", s)
	}
	n, ok := new(big.Int).SetString(mant[2:], 16)
	if !ok {
		return a, fmt.Errorf("%q: mantissa %q is not hexadecimal", s, mant[2:])
	}
	e, err := strconv.Atoi(exp)
	if err != nil {
		return a, fmt.Errorf("%q: exponent %q is not an integer", s, exp)
	}
	if n.Sign() == 0 {
		return a, nil
	}
	shift := e + 1074
	if shift < 0 || shift > exactSumWords*64 {
		return a, fmt.Errorf("%q: not a multiple of 2^-1074 that fits the accumulator", s)
	}
	n.Lsh(n, uint(shift))
	if n.BitLen() > exactSumWords*64 {
		return a, fmt.Errorf("%q: larger than the %d-bit accumulator", s, exactSumWords*64)
	}
	var be [exactSumWords * 8]byte
	n.FillBytes(be[:])
	for i := range a {
		a[i] = binary.BigEndian.Uint64(be[(exactSumWords-1-i)*8:])
	}
	return a, nil
}

// byteReader reads the binary form.
type byteReader struct {
	data []byte
	off  int
}

func (r *byteReader) byte() (byte, bool) {
	if r.off >= len(r.data) {
		return 0, false
	}
	r.off++
	return r.data[r.off-1], true
}

func (r *byteReader) uvarint() (uint64, bool) {
	v, n := binary.Uvarint(r.data[r.off:])
	if n <= 0 {
		return 0, false
	}
	r.off += n
	return v, true
}

func (r *byteReader) uint64() (uint64, bool) {
	if len(r.data)-r.off < 8 {
		return 0, false
	}
	v := binary.LittleEndian.Uint64(r.data[r.off:])
	r.off += 8
	return v, true
}
