package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"

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

// integerKey reports whether key takes only integers.
func integerKey(key string) bool {
	switch key {
	case "workers", "queue.capacity", "attempts", "retry.attempts":
		return true
	}
	return strings.HasSuffix(key, ".concurrency") || strings.HasSuffix(key, ".attempts") || strings.HasSuffix(key, ".queue_capacity")
}

// ParseRange parses "key=lo..hi": integers for counts ("workers=1..200"),
// rates ("tools.api.rate_limit.rate=1/s..100/s", searched per second) or
// plain numbers. lo must be ≥ 0 and below hi. Keys that take integers
// (workers, queue.capacity, *.concurrency, *.attempts) need integer ends;
// plain integer ends make any key an integer search.
func ParseRange(s string) (Range, error) {
	key, spec, ok := strings.Cut(s, "=")
	key, spec = strings.TrimSpace(key), strings.TrimSpace(spec)
	los, his, ok2 := strings.Cut(spec, "..")
	if !ok || !ok2 || key == "" {
		return Range{}, fmt.Errorf("%q: must be key=lo..hi (e.g. workers=1..200)", s)
	}
	r := Range{Key: key}
	parse := func(what, v string) (float64, bool, error) {
		v = strings.TrimSpace(v)
		if strings.Contains(v, "/") {
			x, err := scenarios.ParseRate(v)
			return x, true, err
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false, fmt.Errorf("%s %q is not a number or a rate (5/s)", what, v)
		}
		return x, false, nil
	}
	var rateLo, rateHi bool
	var err error
	if r.Lo, rateLo, err = parse("lower end", los); err != nil {
		return Range{}, fmt.Errorf("%q: %v", s, err)
	}
	if r.Hi, rateHi, err = parse("upper end", his); err != nil {
		return Range{}, fmt.Errorf("%q: %v", s, err)
	}
	if rateLo != rateHi {
		return Range{}, fmt.Errorf("%q: both ends must be rates, or neither", s)
	}
	r.Rate = rateLo
	if !(r.Lo >= 0 && r.Lo < r.Hi) {
		return Range{}, fmt.Errorf("%q: need 0 ≤ lo < hi, got %g..%g", s, r.Lo, r.Hi)
	}
	ints := !r.Rate && r.Lo == math.Trunc(r.Lo) && r.Hi == math.Trunc(r.Hi) && !strings.ContainsAny(los+his, ".eE")
	if integerKey(key) && !ints {
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
