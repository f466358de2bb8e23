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
// inside {…} or […] do not split) or "key=a..b:n" (n points spaced
// linearly from a to b, both included). The ends of a range carry the same
// unit: rates ("1/s..10/s:10", returned per second as "1/s", "2/s", …),
// durations ("100ms..2s:5", returned as Go durations rounded to the
// nanosecond: "100ms", "575ms", …) or plain numbers ("0.1..0.5:5"); a bare
// 0 takes the other end's unit. When both ends are integers ("1..200:20")
// the points are rounded to the nearest integer (halves away from zero) and
// repeated values dropped, so that integer keys get integers. Keys that only
// take integers (workers, queue.capacity, runs, seed, arrivals.count,
// *.attempts, *.concurrency) refuse non-integer ends. Descending ranges are
// allowed. Errors name the argument and the bad part.
func ParseAxis(s string) (Axis, error) {
	key, spec, ok := strings.Cut(s, "=")
	key, spec = strings.TrimSpace(key), strings.TrimSpace(spec)
	if !ok || key == "" || spec == "" {
		return Axis{}, fmt.Errorf("%q: must be key=v1,v2,… or key=a..b:n (e.g. arrivals.rate=1/s..10/s:10)", s)
	}
	var vals []string
	var err error
	if strings.Contains(spec, "..") && !strings.ContainsAny(spec, "{[") {
		vals, err = rangeValues(key, spec)
	} else {
		vals, err = listValues(spec)
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

// listValues splits "v1,v2,…" at commas outside braces and brackets.
func listValues(list string) ([]string, error) {
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

// integerKey reports whether key only takes integer values.
func integerKey(key string) bool {
	switch key {
	case "workers", "queue.capacity", "runs", "seed", "arrivals.count", "attempts":
		return true
	}
	return strings.HasSuffix(key, ".attempts") || strings.HasSuffix(key, ".concurrency")
}

// unitKind is the kind of a range's ends.
type unitKind int

const (
	plain unitKind = iota
	rate
	duration
)

// parseEnd parses one end of a range: a rate (per second), a duration
// (seconds, and exact nanoseconds) or a plain number. zero reports a bare
// "0", which fits any unit.
func parseEnd(s string) (x float64, ns int64, u unitKind, zero bool, err error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, 0, plain, true, nil
	}
	if strings.Contains(s, "/") {
		r, err := scenarios.ParseRate(s)
		return r, 0, rate, false, err
	}
	if v, perr := strconv.ParseFloat(s, 64); perr == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, 0, plain, false, fmt.Errorf("%q is not a finite number", s)
		}
		return v, 0, plain, false, nil
	}
	d, err := scenarios.ParseDuration(s)
	if err != nil {
		return 0, 0, plain, false, fmt.Errorf("%q is not a number, a rate (5/s) or a duration (250ms)", s)
	}
	return d.Seconds(), int64(d), duration, false, nil
}

// rangeValues expands "a..b:n".
func rangeValues(key, spec string) ([]string, error) {
	as, rest, _ := strings.Cut(spec, "..")
	i := strings.LastIndex(rest, ":")
	if i < 0 {
		return nil, fmt.Errorf("range %q needs a point count: a..b:n (e.g. 1/s..10/s:10)", spec)
	}
	bs, ns := rest[:i], rest[i+1:]
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil || n < 2 || n > MaxPoints {
		return nil, fmt.Errorf("range %q: point count %q must be an integer in [2, %d]", spec, ns, MaxPoints)
	}
	a, ans, au, az, err := parseEnd(as)
	if err != nil {
		return nil, fmt.Errorf("range start: %v", err)
	}
	b, bns, bu, bz, err := parseEnd(bs)
	if err != nil {
		return nil, fmt.Errorf("range end: %v", err)
	}
	switch {
	case az:
		au = bu
	case bz:
		bu = au
	}
	if au != bu {
		return nil, fmt.Errorf("range %q: both ends need the same unit (a rate, a duration or a plain number)", spec)
	}
	vals := make([]string, 0, n)
	den := float64(n - 1)
	switch au {
	case rate:
		for i := range n {
			vals = append(vals, formatPoint((float64(a*float64(n-1-i))+float64(b*float64(i)))/den, a, b)+"/s")
		}
	case duration:
		// Exact integer nanoseconds: a + (b-a)·i/(n-1), rounded.
		for i := range n {
			num := new(big.Int).Mul(big.NewInt(bns-ans), big.NewInt(int64(i)))
			q := roundDiv(num, int64(n-1))
			vals = append(vals, time.Duration(ans+q).String())
		}
	default:
		_, aerr := strconv.ParseInt(strings.TrimSpace(as), 10, 64)
		_, berr := strconv.ParseInt(strings.TrimSpace(bs), 10, 64)
		integers := (aerr == nil || az) && (berr == nil || bz)
		if integerKey(key) && !integers {
			return nil, fmt.Errorf("range %q: %s takes integers, so both ends must be integers", spec, key)
		}
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
	x, _, _, _, err := parseEnd(value)
	if err != nil {
		return math.NaN()
	}
	return x
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
