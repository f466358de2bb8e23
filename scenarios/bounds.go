package scenarios

import (
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// bounds is the range a key's value must be in, as the key table gives it
// (Key.Min, Max and MinExclusive). The loader checks values against it and
// the reference prints it, so the two say the same.
type bounds struct {
	lo, hi float64 // ±math.MaxFloat64 when a side is open-ended
	loOpen bool    // the value must be above lo
}

// bounds returns the range of k's values. A number's range applies when
// Min < Max; a duration or rate with MinExclusive must be above Min (0).
func (k Key) bounds() bounds {
	b := bounds{lo: -math.MaxFloat64, hi: math.MaxFloat64}
	switch {
	case k.Min < k.Max:
		b.lo, b.hi, b.loOpen = k.Min, k.Max, k.MinExclusive
	case k.MinExclusive:
		b.lo, b.loOpen = k.Min, true
	}
	if b.hi >= math.MaxInt64 {
		b.hi = math.MaxFloat64 // an int64's limit is no real limit
	}
	return b
}

func (b bounds) hasLo() bool { return b.lo > -math.MaxFloat64 }
func (b bounds) hasHi() bool { return b.hi < math.MaxFloat64 }

// contains reports whether v is in b.
func (b bounds) contains(v float64) bool {
	return v <= b.hi && (v > b.lo || v == b.lo && !b.loOpen)
}

// text describes b with numbers formatted by f: "[1, 10]", "(0, 1]",
// "≥ 0", "> 0", "≤ 5", or "" when b is unbounded.
func (b bounds) text(f func(float64) string) string {
	switch {
	case b.hasLo() && b.hasHi():
		open := "["
		if b.loOpen {
			open = "("
		}
		return open + f(b.lo) + ", " + f(b.hi) + "]"
	case b.hasLo() && b.loOpen:
		return "> " + f(b.lo)
	case b.hasLo():
		return "≥ " + f(b.lo)
	case b.hasHi():
		return "≤ " + f(b.hi)
	}
	return ""
}

// must is the message for a value s outside b.
func (b bounds) must(f func(float64) string, s string) string {
	t := b.text(f)
	if strings.HasPrefix(t, "[") || strings.HasPrefix(t, "(") {
		t = "in " + t
	}
	return "must be " + t + ", got " + s
}

// gNum formats a bound of a number as the messages print it (%g).
func gNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// integerKey parses n, the value of key k at path, as a whole number in
// k's range.
func (d *decoder) integerKey(k Key, n *yaml.Node, path string) int64 {
	b := k.bounds()
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if b.hasLo() {
		lo = int64(math.Ceil(b.lo))
		if b.loOpen && float64(lo) == b.lo {
			lo++
		}
	}
	if b.hasHi() {
		hi = int64(math.Floor(b.hi))
	}
	return d.integer(n, path, lo, hi)
}

// numberKey parses n, the value of key k at path, as a finite number in
// k's range.
func (d *decoder) numberKey(k Key, n *yaml.Node, path string) float64 {
	return d.numberIn(n, path, k.bounds())
}

// durationKey parses n, the value of key k at path, as a duration of at
// most MaxDuration, above 0 where k says MinExclusive. (The table gives a
// duration or rate no other bound: TestKeysDocumented checks it, so the
// bound the message states is 0.)
func (d *decoder) durationKey(k Key, n *yaml.Node, path string) time.Duration {
	before := len(d.errs)
	v := d.duration(n, path, MaxDuration)
	if len(d.errs) == before && !k.bounds().contains(v.Seconds()) {
		d.errorf(n, path, "%s", k.bounds().must(gNum, resolve(n).Value))
		return 0
	}
	return v
}

// rateKey parses n, the value of key k at path, as a rate, above 0 where k
// says MinExclusive.
func (d *decoder) rateKey(k Key, n *yaml.Node, path string) float64 {
	before := len(d.errs)
	v := d.rate(n, path)
	if len(d.errs) == before && !k.bounds().contains(v) {
		d.errorf(n, path, "%s", k.bounds().must(gNum, resolve(n).Value))
		return 0
	}
	return v
}
