package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration parses a scenario duration: Go syntax with a unit
// ("250ms", "1.5s", "2h", "1m30s"), or "0". A bare number other than 0 is an
// error, because "2" could mean seconds or milliseconds. Negative durations
// are errors.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	if s == "0" {
		return 0, nil
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return 0, fmt.Errorf("%q has no unit: write e.g. %sms or %ss", s, s, s)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("must be ≥ 0, got %s", s)
	}
	return d, nil
}

// ParseRate parses a rate "N/unit" with unit s, m or h (also sec, min,
// hour), returning events per second. "9/s" is 9, "30/m" is 0.5.
func ParseRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	num, unit, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("%q has no unit: write e.g. %s/s, %s/m or %s/h", s, s, s, s)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
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
		return 0, fmt.Errorf("%q: unknown rate unit %q (use /s, /m or /h)", s, unit)
	}
	if v < 0 {
		return 0, fmt.Errorf("must be ≥ 0, got %s", s)
	}
	return v / per, nil
}

// FormatRate prints a per-second rate in the scenario syntax.
func FormatRate(perSecond float64) string {
	return strconv.FormatFloat(perSecond, 'g', -1, 64) + "/s"
}
