package charts

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// FormatSeconds formats a duration given in seconds with the unit that
// keeps the number between 1 and 1000 where possible: "250µs", "100ms",
// "1.5s", "120s". Three significant digits are kept (all the digits of
// the integer part, so 1125 s stays "1125s"), which also hides float64
// noise: 0.1+0.2 prints as "300ms", not "300.00000000000006ms".
// Zero prints as "0s"; negative values keep their sign.
func FormatSeconds(s float64) string {
	a := math.Abs(s)
	switch {
	case s == 0:
		return "0s"
	case a < 1e-6:
		return trimNumber(s*1e9) + "ns"
	case a < 1e-3:
		return trimNumber(s*1e6) + "µs"
	case a < 1:
		return trimNumber(s*1e3) + "ms"
	}
	return trimNumber(s) + "s"
}

// FormatPercent formats a fraction as a percentage with the fewest digits
// that show it (at most six significant): 0.99 → "99%", 0.999 → "99.9%",
// 1 → "100%".
func FormatPercent(f float64) string {
	return strconv.FormatFloat(round(100*f, 6), 'f', -1, 64) + "%"
}

// trimNumber formats x with three significant digits, or more if its
// integer part has more, without exponent or trailing zeros.
func trimNumber(x float64) string {
	sig := 3
	if a := math.Abs(x); a >= 1000 {
		sig = int(math.Floor(math.Log10(a))) + 1
	}
	return strconv.FormatFloat(round(x, sig), 'f', -1, 64)
}

// round rounds x to sig significant digits.
func round(x float64, sig int) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', sig, 64), 64)
	if err != nil {
		return x
	}
	return v
}

// secondsScale picks one unit for every label of a linear time axis, from
// the largest magnitude shown, so that "0s, 0.5s, 1s" or "0ms, 50ms, 100ms"
// never mix units.
func secondsScale(maxAbs float64) (mult float64, unit string) {
	switch {
	case maxAbs < 1e-3:
		return 1e6, "µs"
	case maxAbs < 1:
		return 1e3, "ms"
	}
	return 1, "s"
}

// niceTicks returns ticks for a linear axis: labelled marks every step,
// where step is 1, 2 or 5 × 10^k chosen to give 4 to 10 labels (gonum's
// default aims at 3, which leaves a chart hard to read off), and unlabelled
// minor marks between them. Labels are placeholders ("x") that the
// callers replace with formatted values.
func niceTicks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	raw := (hi - lo) / 6
	mag := math.Pow10(int(math.Floor(math.Log10(raw))))
	var step, minor float64
	switch r := raw / mag; {
	case r < 1.5:
		step, minor = mag, mag/5
	case r < 3.5:
		step, minor = 2*mag, mag/2
	case r < 7.5:
		step, minor = 5*mag, mag
	default:
		step, minor = 10*mag, 2*mag
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo/minor - 1e-9); i*minor <= hi+1e-9*minor; i++ {
		v := i * minor
		tk := plot.Tick{Value: v}
		if r := math.Abs(math.Remainder(v, step)); r < 1e-6*step {
			tk.Label = "x"
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// linearSecondsTicks marks a linear time axis at niceTicks positions, all
// labelled in one unit ("0s", "0.5s", "1s").
type linearSecondsTicks struct{}

func (linearSecondsTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := niceTicks(lo, hi)
	var maxAbs float64
	for _, t := range ticks {
		if t.Label != "" {
			maxAbs = max(maxAbs, math.Abs(t.Value))
		}
	}
	mult, unit := secondsScale(maxAbs)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = trimNumber(cleanZero(ticks[i].Value, hi-lo)*mult) + unit
		}
	}
	return ticks
}

// cleanZero returns 0 for values that are zero up to rounding relative to
// the axis span (DefaultTicks can produce 1e-17 for 0).
func cleanZero(v, span float64) float64 {
	if math.Abs(v) < 1e-9*math.Abs(span) {
		return 0
	}
	return v
}

// numberTicks labels a linear axis at niceTicks positions without padded
// decimals ("250", "2.5", not "250.00").
type numberTicks struct{}

func (numberTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := niceTicks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = trimNumber(cleanZero(ticks[i].Value, hi-lo))
		}
	}
	return ticks
}

// percentTicks labels a linear axis of fractions as percentages ("99%",
// "99.5%").
type percentTicks struct{}

func (percentTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := niceTicks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = FormatPercent(cleanZero(ticks[i].Value, hi-lo))
		}
	}
	return ticks
}

// logTicks marks a log axis at 1, 2, …, 9 × 10^k. Powers of ten are
// labelled; when the axis spans fewer than three of them, 2× and 5× are
// labelled too, and when that still gives fewer than two labels every
// mark is, so a narrow axis never shows a single number. format labels a
// value (FormatSeconds for time axes).
type logTicks struct {
	format func(float64) string
}

func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil // a log axis with a non-positive bound: nothing to mark
	}
	first := int(math.Floor(math.Log10(lo)))
	last := int(math.Ceil(math.Log10(hi)))
	in := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	count := func(keep func(m int) bool) int {
		n := 0
		for e := first; e <= last; e++ {
			for m := 1; m <= 9; m++ {
				if keep(m) && in(float64(m)*math.Pow10(e)) {
					n++
				}
			}
		}
		return n
	}
	keep := func(m int) bool { return m == 1 }
	if count(keep) < 3 {
		keep = func(m int) bool { return m == 1 || m == 2 || m == 5 }
		if count(keep) < 2 {
			keep = func(int) bool { return true }
		}
	}
	var ticks []plot.Tick
	for e := first; e <= last; e++ {
		for m := 1; m <= 9; m++ {
			v := round(float64(m)*math.Pow10(e), 6)
			if !in(v) {
				continue
			}
			tk := plot.Tick{Value: v}
			if keep(m) {
				tk.Label = t.format(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// ninesScale is a "tail-stretched" probability scale: a fraction F is
// placed at −log10(1 − F), so 0, 90 %, 99 % and 99.9 % are equally spaced
// and the tail the percentiles describe gets as much room as the body
// (the scale HdrHistogram's percentile plots use). Fractions at or above
// the axis maximum (which must be below 1) are drawn at the top edge.
type ninesScale struct{}

func (ninesScale) Normalize(lo, hi, x float64) float64 {
	f := func(v float64) float64 {
		v = min(max(v, 0), hi)
		return -math.Log10(1 - v)
	}
	return (f(x) - f(lo)) / (f(hi) - f(lo))
}

// ninesTicks labels a ninesScale axis at 0 %, 50 %, 90 %, 99 %, 99.9 %, …
// with minor marks at 25 %, 75 %, 95 %, 99.5 %, …
type ninesTicks struct{}

func (ninesTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	add := func(v float64, label bool) {
		if v < lo-1e-12 || v > hi+1e-12 {
			return
		}
		tk := plot.Tick{Value: v}
		if label {
			tk.Label = FormatPercent(v)
		}
		ticks = append(ticks, tk)
	}
	add(0, true)
	add(0.25, false)
	add(0.5, true)
	add(0.75, false)
	for k := 1; k <= 9; k++ {
		add(round(1-math.Pow10(-k), 12), true)
		add(round(1-5*math.Pow10(-k-1), 12), false)
	}
	return ticks
}
