package scenarios

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ParseDuration parses a scenario duration: Go syntax with a unit
// ("250ms", "1.5s", "2h", "1m30s"; units ns, us or µs, ms, s, m, h), or
// "0". A bare number other than 0 is an error, because "2" could mean
// seconds or milliseconds. Negative durations are errors, and so are
// durations longer than time.Duration holds (about 292 years). The result
// is exact integer nanoseconds.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	if s == "0" {
		return 0, nil
	}
	if isDecimal(s) {
		if strings.HasPrefix(s, "-") {
			return 0, fmt.Errorf("must be ≥ 0, got %s", s)
		}
		return 0, fmt.Errorf("%q has no unit: write e.g. %sms or %ss", s, s, s)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if durationSyntax().MatchString(s) {
			return 0, fmt.Errorf("%q is too long: at most %v (about 292 years)", s, time.Duration(math.MaxInt64))
		}
		return 0, fmt.Errorf("%q is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("must be ≥ 0, got %s", s)
	}
	return d, nil
}

// durationSyntax matches what time.ParseDuration accepts; a match that
// time.ParseDuration rejects overflowed int64 nanoseconds. It is compiled
// on first use, by an error message, not at every start of the CLI.
var durationSyntax = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)
})

// isDecimal reports whether s is a plain decimal number: an optional sign,
// digits and at most one point, no exponent.
func isDecimal(s string) bool {
	s = strings.TrimLeft(s, "+-")
	digits, point := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			point++
		default:
			return false
		}
	}
	return digits > 0 && point <= 1
}

// ParseRate parses a rate "N/unit" with unit s, m or h (also sec, second,
// min, minute, hr, hour), returning events per second: "9/s" is 9, "30/m"
// is 0.5. N is a finite number ≥ 0 (exponents allowed: "1e3/h").
func ParseRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	num, unit, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("%q has no unit: write e.g. %s/s, %s/m or %s/h", s, s, s, s)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a rate: %s is out of range", s, strings.TrimSpace(num))
	}
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a rate: the part before / must be a number", s)
	}
	var per float64
	switch strings.TrimSpace(unit) {
	case "s", "sec", "second":
		per = 1
	case "m", "min", "minute":
		per = 60
	case "h", "hr", "hour":
		per = 3600
	default:
		return 0, fmt.Errorf("%q: unknown rate unit %q (use /s, /m or /h)", s, strings.TrimSpace(unit))
	}
	if v < 0 {
		return 0, fmt.Errorf("must be ≥ 0, got %s", s)
	}
	if v == 0 {
		return 0, nil // not -0 for "-0/s"
	}
	return v / per, nil
}

// FormatRate prints a per-second rate in the scenario syntax.
func FormatRate(perSecond float64) string {
	return strconv.FormatFloat(perSecond, 'g', -1, 64) + "/s"
}
