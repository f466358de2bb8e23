package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/budgetsim/budgetsim/plan/sweep"
	"github.com/budgetsim/budgetsim/scenarios"
)

// Range is the searched scenario key and the interval of values to search.
// The key's value must be monotone in capacity: a larger value never makes
// an objective worse (workers, queue.capacity, tools.NAME.concurrency,
// tools.NAME.rate_limit.rate, …).
type Range struct {
	Key    string
	Lo, Hi float64
	// Integer ranges are searched over integers (counts); others to a
	// relative tolerance.
	Integer bool
	// Rate ranges are written as rates per second ("12.5/s").
	Rate bool
}

// ParseRange parses "key=lo..hi": integers for counts ("workers=1..200"),
// rates ("tools.api.rate_limit.rate=1/s..100/s", searched per second) or
// plain numbers. The range is read by sweep.ParseSpan, as --vary reads its
// ranges. lo must be ≥ 0 and below hi. Keys that take integers
// (sweep.IntegerKey: workers, queue.capacity, *.concurrency, *.attempts)
// need integer ends; plain integer ends make any key an integer search.
func ParseRange(s string) (Range, error) {
	key, spec, ok := strings.Cut(s, "=")
	key, spec = strings.TrimSpace(key), strings.TrimSpace(spec)
	if !ok || key == "" || !strings.Contains(spec, "..") {
		return Range{}, fmt.Errorf("%q: must be key=lo..hi (e.g. workers=1..200)", s)
	}
	sp, err := sweep.ParseSpan(spec)
	if err != nil {
		return Range{}, fmt.Errorf("%q: %v", s, err)
	}
	switch {
	case sp.Count != 0:
		return Range{}, fmt.Errorf("%q: a search range has no point count: key=lo..hi", s)
	case sp.Lo.Unit == sweep.Duration:
		return Range{}, fmt.Errorf("%q: the ends must be numbers or rates (5/s), not durations", s)
	}
	r := Range{Key: key, Lo: sp.Lo.X, Hi: sp.Hi.X, Rate: sp.Lo.Unit == sweep.Rate}
	if !(r.Lo >= 0 && r.Lo < r.Hi) {
		return Range{}, fmt.Errorf("%q: need 0 ≤ lo < hi, got %g..%g", s, r.Lo, r.Hi)
	}
	ints := !r.Rate && sp.Lo.Integer && sp.Hi.Integer
	if sweep.IntegerKey(key) && !ints {
		return Range{}, fmt.Errorf("%q: %s takes integers, so both ends must be integers", s, key)
	}
	if ints && r.Hi > 1e15 {
		return Range{}, fmt.Errorf("%q: upper end %g is too large", s, r.Hi)
	}
	r.Integer = ints
	return r, nil
}

// Format writes v as the value of a --set override: an integer, a rate
// ("2.5/s") or a number, in the shortest form that parses back to v.
func (r Range) Format(v float64) string {
	switch {
	case r.Integer:
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	case r.Rate:
		return scenarios.FormatRate(v)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// String returns "key=lo..hi".
func (r Range) String() string { return r.Key + "=" + r.Format(r.Lo) + ".." + r.Format(r.Hi) }
