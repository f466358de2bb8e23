package sweep

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/budgetsim/budgetsim/scenarios"
)

// MaxPoints bounds the number of values of one axis and the number of
// points of a grid, so that a typo ("1..1000000:1000000") is refused instead
// of running for days.
const MaxPoints = 10000

// Axis is one varied scenario key and the values it takes, in order. Each
// value is applied as the override Key=Value (a --set), so it uses the
// scenario syntax: "5/s", "250ms", "12", "full".
type Axis struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// ParseAxis parses one --vary argument: "key=v1,v2,…" (a list; commas
// inside {…} or […] do not split), "key=a..b:n" (n points spaced linearly
// from a to b, both included) or "key=a..b" with integer ends (every
// integer from a to b, as plan's --search reads the same range). The ends
// of a range are read by ParseSpan, the parser --search uses too: they
// carry the same unit, rates ("1/s..10/s:10", returned per second as
// "1/s", "2/s", …), durations ("100ms..2s:5", returned as Go durations
// rounded to the nanosecond: "100ms", "575ms", …) or plain numbers
// ("0.1..0.5:5"); a bare 0 takes the other end's unit. When both ends are
// integers ("1..200:20") the points are rounded to the nearest integer
// (halves away from zero) and repeated values dropped, so that integer keys
// get integers. Keys that only take integers (IntegerKey) refuse
// non-integer ends. Descending ranges are allowed. Errors name the
// argument and the bad part.
func ParseAxis(s string) (Axis, error) {
	key, spec, ok := strings.Cut(s, "=")
	key, spec = strings.TrimSpace(key), strings.TrimSpace(spec)
	if !ok || key == "" || spec == "" {
		return Axis{}, fmt.Errorf("%q: must be key=v1,v2,… or key=a..b:n (e.g. arrivals.rate=1/s..10/s:10, workers=10..20)", s)
	}
	var vals []string
	var err error
	if IsSpan(spec) {
		vals, err = rangeValues(key, spec)
	} else {
		vals, err = SplitList(spec)
	}
	if err != nil {
		return Axis{}, fmt.Errorf("%q: %v", s, err)
	}
	if len(vals) > MaxPoints {
		return Axis{}, fmt.Errorf("%q: %d values is too many (at most %d)", s, len(vals), MaxPoints)
	}
	seen := make(map[string]bool, len(vals))
	for _, v := range vals {
		if seen[v] {
			return Axis{}, fmt.Errorf("%q: value %q is listed twice", s, v)
		}
		seen[v] = true
	}
	return Axis{Key: key, Values: vals}, nil
}

// IsSpan reports whether the values part of a --vary argument is a range
// ("a..b" or "a..b:n") rather than a list: it has ".." outside any {…} or
// […] value.
func IsSpan(spec string) bool {
	return strings.Contains(spec, "..") && !strings.ContainsAny(spec, "{[")
}

// SplitList splits the values of a --vary list, "v1,v2,…", at the commas
// outside braces and brackets, so that "{a: 1, b: 2},{a: 3}" is two
// values; it trims spaces and refuses an empty value.
func SplitList(list string) ([]string, error) {
	var vals []string
	depth, start := 0, 0
	for i, c := range list {
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				vals = append(vals, strings.TrimSpace(list[start:i]))
				start = i + 1
			}
		}
	}
	vals = append(vals, strings.TrimSpace(list[start:]))
	for _, v := range vals {
		if v == "" {
			return nil, fmt.Errorf("empty value in the list")
		}
	}
	return vals, nil
}

// IntegerKey reports whether scenario key only takes integer values:
// workers, queue.capacity, runs, seed, arrivals.count and every
// *.attempts, *.concurrency and *.queue_capacity. A range of such a key
// needs integer ends.
func IntegerKey(key string) bool {
	switch key {
	case "workers", "queue.capacity", "runs", "seed", "arrivals.count", "attempts":
		return true
	}
	return strings.HasSuffix(key, ".attempts") || strings.HasSuffix(key, ".concurrency") || strings.HasSuffix(key, ".queue_capacity")
}

// Unit is the kind of a range's ends.
type Unit int

// The units of a range's ends.
const (
	Plain    Unit = iota // a number without a unit
	Rate                 // events per second ("5/s", "300/m")
	Duration             // a duration ("250ms")
)

// End is one end of a Span.
type End struct {
	Text    string  // as written, without surrounding spaces
	X       float64 // the value: per second for a rate, seconds for a duration
	NS      int64   // a duration's exact nanoseconds
	Unit    Unit
	Integer bool // a plain number written as an integer ("20", not "20.0" or "2e1")
}

// Span is the range of a --vary or --search argument, "a..b" or "a..b:n",
// with its ends parsed: sweeps, comparisons and the capacity search read
// ranges with this one parser.
type Span struct {
	Lo, Hi End
	// Count is the n of "a..b:n": the number of points; 0 when the range
	// gives none.
	Count int
}

// ParseSpan parses "a..b" or "a..b:n" (n in [2, MaxPoints]). The ends are
// rates (per second), durations or plain numbers, both of the same unit; a
// bare 0 takes the other end's unit. Errors name the bad part.
func ParseSpan(spec string) (Span, error) {
	as, rest, ok := strings.Cut(spec, "..")
	if !ok {
		return Span{}, fmt.Errorf("range %q: must be a..b or a..b:n", spec)
	}
	var sp Span
	bs := rest
	if i := strings.LastIndex(rest, ":"); i >= 0 {
		ns := rest[i+1:]
		bs = rest[:i]
		n, err := strconv.Atoi(strings.TrimSpace(ns))
		if err != nil || n < 2 || n > MaxPoints {
			return Span{}, fmt.Errorf("range %q: point count %q must be an integer in [2, %d]", spec, ns, MaxPoints)
		}
		sp.Count = n
	}
	var err error
	var az, bz bool
	if sp.Lo, az, err = parseEnd(as); err != nil {
		return Span{}, fmt.Errorf("range start: %v", err)
	}
	if sp.Hi, bz, err = parseEnd(bs); err != nil {
		return Span{}, fmt.Errorf("range end: %v", err)
	}
	switch {
	case az:
		sp.Lo.Unit = sp.Hi.Unit
	case bz:
		sp.Hi.Unit = sp.Lo.Unit
	}
	if sp.Lo.Unit != sp.Hi.Unit {
		return Span{}, fmt.Errorf("range %q: both ends need the same unit (a rate, a duration or a plain number)", spec)
	}
	return sp, nil
}

// parseEnd parses one end of a range: a rate (per second), a duration
// (seconds, and exact nanoseconds) or a plain number. zero reports a bare
// "0", which fits any unit.
func parseEnd(s string) (e End, zero bool, err error) {
	s = strings.TrimSpace(s)
	e.Text = s
	if s == "0" {
		e.Integer = true
		return e, true, nil
	}
	if strings.Contains(s, "/") {
		r, err := scenarios.ParseRate(s)
		e.X, e.Unit = r, Rate
		return e, false, err
	}
	if v, perr := strconv.ParseFloat(s, 64); perr == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return e, false, fmt.Errorf("%q is not a finite number", s)
		}
		_, ierr := strconv.ParseInt(s, 10, 64)
		e.X, e.Integer = v, ierr == nil
		return e, false, nil
	}
	d, err := scenarios.ParseDuration(s)
	if err != nil {
		return e, false, fmt.Errorf("%q is not a number, a rate (5/s) or a duration (250ms)", s)
	}
	e.X, e.NS, e.Unit = d.Seconds(), int64(d), Duration
	return e, false, nil
}

// rangeValues expands "a..b:n", or "a..b" with integer ends.
func rangeValues(key, spec string) ([]string, error) {
	sp, err := ParseSpan(spec)
	if err != nil {
		return nil, err
	}
	a, b := sp.Lo.X, sp.Hi.X
	integers := sp.Lo.Unit == Plain && sp.Lo.Integer && sp.Hi.Integer
	if IntegerKey(key) && !integers {
		return nil, fmt.Errorf("range %q: %s takes integers, so both ends must be integers", spec, key)
	}
	n := sp.Count
	if n == 0 {
		if !integers {
			return nil, fmt.Errorf("range %q needs a point count: a..b:n (e.g. 1/s..10/s:10); only integer ends may leave it out (10..20 is every integer from 10 to 20)", spec)
		}
		if math.Abs(b-a) >= MaxPoints {
			return nil, fmt.Errorf("range %q: %g values is too many (at most %d); give a point count, a..b:n", spec, math.Abs(b-a)+1, MaxPoints)
		}
		n = int(math.Abs(b-a)) + 1
		if n < 2 {
			return nil, fmt.Errorf("range %q: both ends are equal; list the one value instead", spec)
		}
	}
	vals := make([]string, 0, n)
	den := float64(n - 1)
	switch sp.Lo.Unit {
	case Rate:
		for i := range n {
			vals = append(vals, formatPoint((float64(a*float64(n-1-i))+float64(b*float64(i)))/den, a, b)+"/s")
		}
	case Duration:
		// Exact integer nanoseconds: a + (b-a)·i/(n-1), rounded.
		ans, bns := sp.Lo.NS, sp.Hi.NS
		for i := range n {
			num := new(big.Int).Mul(big.NewInt(bns-ans), big.NewInt(int64(i)))
			q := roundDiv(num, int64(n-1))
			vals = append(vals, time.Duration(ans+q).String())
		}
	default:
		for i := range n {
			x := (float64(a*float64(n-1-i)) + float64(b*float64(i))) / den
			if integers {
				s := strconv.FormatFloat(math.Round(x), 'f', 0, 64)
				if len(vals) > 0 && vals[len(vals)-1] == s {
					continue
				}
				vals = append(vals, s)
				continue
			}
			vals = append(vals, formatPoint(x, a, b))
		}
	}
	return vals, nil
}

// formatPoint formats a range point x with the fewest significant digits
// (at most 15) that keep it within a relative 1e-12 of the span |b−a|, so
// that 0..0.3:4 gives 0.1, not the float64 sum 0.09999999999999999.
func formatPoint(x, a, b float64) string {
	tol := 1e-12 * math.Max(math.Abs(b-a), math.Abs(x))
	for prec := 1; prec < 15; prec++ {
		s := strconv.FormatFloat(x, 'g', prec, 64)
		if y, _ := strconv.ParseFloat(s, 64); math.Abs(y-x) <= tol {
			return strconv.FormatFloat(y, 'g', -1, 64) // "10", not "1e+01"
		}
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// roundDiv returns num/d rounded to the nearest integer, halves away from
// zero; d > 0.
func roundDiv(num *big.Int, d int64) int64 {
	bd := big.NewInt(d)
	q, r := new(big.Int).QuoRem(num, bd, new(big.Int))
	r.Abs(r).Lsh(r, 1)
	if r.Cmp(bd) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q.Int64()
}

// Number returns the numeric value of an axis value as sweep.csv's value
// column reports it: a rate in events per second ("5/s" → 5), a duration in
// seconds ("250ms" → 0.25), a plain number as is; NaN for anything else
// ("full", "{dist: constant, value: 2ms}").
func Number(value string) float64 {
	e, _, err := parseEnd(value)
	if err != nil {
		return math.NaN()
	}
	return e.X
}

// Point is one combination of axis values: Values[k] is the value of axis k.
type Point struct {
	Index  int
	Values []string
}

// Grid returns every combination of the axes' values, the last axis
// varying fastest (row-major), with Index numbering them from 0.
func Grid(axes []Axis) []Point {
	total := 1
	for _, a := range axes {
		total *= len(a.Values)
	}
	if len(axes) == 0 {
		total = 0
	}
	points := make([]Point, total)
	for i := range points {
		vals := make([]string, len(axes))
		k := i
		for j := len(axes) - 1; j >= 0; j-- {
			n := len(axes[j].Values)
			vals[j] = axes[j].Values[k%n]
			k /= n
		}
		points[i] = Point{Index: i, Values: vals}
	}
	return points
}

// Sets returns the point's overrides, "key=value" in axis order.
func (p Point) Sets(axes []Axis) []string {
	sets := make([]string, len(axes))
	for k, a := range axes {
		sets[k] = a.Key + "=" + p.Values[k]
	}
	return sets
}

// Label returns "key=value key=value …", for tables and messages.
func (p Point) Label(axes []Axis) string {
	return strings.Join(p.Sets(axes), " ")
}

// Parameter returns sweep.csv's parameter column for the point: the last
// axis's key, preceded by "key=value;" for every other axis, so that rows
// with the same parameter form one curve of a grid ("workers=8;arrivals.rate").
func (p Point) Parameter(axes []Axis) string {
	var b strings.Builder
	for k, a := range axes[:len(axes)-1] {
		b.WriteString(a.Key + "=" + p.Values[k] + ";")
	}
	b.WriteString(axes[len(axes)-1].Key)
	return b.String()
}

// Value returns sweep.csv's value column: Number of the last axis's value.
func (p Point) Value() float64 { return Number(p.Values[len(p.Values)-1]) }
