package stats

import (
	"math"
	"math/bits"
)

// exactSumWords is the size of an exactSum in 64-bit words. A finite
// non-negative float64 is an integer multiple of 2^-1074 below 2^1024, so it
// fits in 1074+1024 = 2098 bits; 64 more bits of headroom hold a sum of up to
// 2^64 such values (a Histogram's count is a uint64). 2162 bits round up to 34
// words.
const exactSumWords = 34

// exactSum is an exact fixed-point accumulator ("superaccumulator") for
// finite non-negative float64 values: the integer it holds, little-endian by
// word, is the sum in units of 2^-1074, the smallest subnormal float64.
// Because integer addition is associative, the sum does not depend on the
// order of the additions or on how they are split into shards and merged.
// Its zero value is the sum 0.
type exactSum [exactSumWords]uint64

// add adds n*x to a. x must be finite and >= 0 (a -0 adds nothing).
func (a *exactSum) add(x float64, n uint64) {
	b := math.Float64bits(x)
	e := int(b>>52) & 0x7ff
	m := b & (1<<52 - 1)
	pos := 0 // bit position of m's least significant bit, in units of 2^-1074
	if e != 0 {
		m |= 1 << 52
		pos = e - 1
	}
	if m == 0 || n == 0 {
		return
	}
	w, s := pos>>6, uint(pos&63)
	if n == 1 {
		// One value: m < 2^53 shifted by s < 64 spans two words. pos <=
		// 2045, so w+1 <= 32: one bounds check for both words.
		p := a[w : w+2 : w+2]
		var c uint64
		p[0], c = bits.Add64(p[0], m<<s, 0)
		p[1], c = bits.Add64(p[1], m>>(64-s), c) // m>>64 is 0 when s == 0
		for i := w + 2; c != 0 && i < exactSumWords; i++ {
			a[i], c = bits.Add64(a[i], 0, c)
		}
		return
	}
	hi, lo := bits.Mul64(m, n) // < 2^117
	p0, p1, p2 := lo, hi, uint64(0)
	if s != 0 {
		p0 = lo << s
		p1 = hi<<s | lo>>(64-s)
		p2 = hi >> (64 - s)
	}
	// pos <= 2045, so w+2 <= 33 < exactSumWords.
	var c uint64
	a[w], c = bits.Add64(a[w], p0, 0)
	a[w+1], c = bits.Add64(a[w+1], p1, c)
	a[w+2], c = bits.Add64(a[w+2], p2, c)
	for i := w + 3; c != 0 && i < exactSumWords; i++ {
		a[i], c = bits.Add64(a[i], 0, c)
	}
}

// merge adds o to a.
func (a *exactSum) merge(o *exactSum) {
	var c uint64
	for i := range a {
		a[i], c = bits.Add64(a[i], o[i], c)
	}
}

// float64 returns the sum rounded to the nearest float64 (ties to even), or
// +Inf if it exceeds math.MaxFloat64 after rounding.
func (a *exactSum) float64() float64 {
	t := exactSumWords - 1
	for t >= 0 && a[t] == 0 {
		t--
	}
	switch {
	case t < 0:
		return 0
	case t == 0:
		// float64(a[0]) rounds once; scaling by 2^-1074 is then exact: a
		// value that needed rounding is >= 2^53 * 2^-1074, a normal number.
		return math.Ldexp(float64(a[0]), -1074)
	}
	// Take the top 64 significant bits, OR-ing everything below them into
	// the lowest bit ("sticky bit"): float64(uint64) then rounds them to 53
	// bits exactly as rounding the whole integer would, since the sticky bit
	// sits 10 places below the rounding position.
	shift := t*64 + bits.Len64(a[t]) - 64 // > 0
	i, off := shift>>6, uint(shift&63)
	top := a[i]
	sticky := false
	if off != 0 {
		top = top>>off | a[i+1]<<(64-off)
		sticky = a[i]<<(64-off) != 0
	}
	for j := 0; j < i && !sticky; j++ {
		sticky = a[j] != 0
	}
	if sticky {
		top |= 1
	}
	// The scaled result is >= 2^63 * 2^(1-1074), a normal number, so
	// Ldexp is exact (or overflows to +Inf, which is the correct rounding).
	return math.Ldexp(float64(top), shift-1074)
}
