package scenarios_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/scenarios"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"0", 0},
		{"0s", 0},
		{"-0s", 0},
		{"1ns", 1},
		{"1us", time.Microsecond},
		{"1µs", time.Microsecond}, // U+00B5 micro sign
		{"1μs", time.Microsecond}, // U+03BC Greek mu
		{"250ms", 250 * time.Millisecond},
		{"1.5s", 1500 * time.Millisecond},
		{"2m", 2 * time.Minute},
		{"2h", 2 * time.Hour},
		{"1h30m", 90 * time.Minute},
		{"1m30.5s", 90*time.Second + 500*time.Millisecond},
		{"+5s", 5 * time.Second},
		{" 5s ", 5 * time.Second},
		{".5s", 500 * time.Millisecond},
		{"0.000000001s", 1},
		{"2562047h47m16.854775807s", math.MaxInt64}, // the longest time.Duration
	}
	for _, tt := range tests {
		got, err := scenarios.ParseDuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v, want %v, nil", tt.in, got, err, tt.want)
		}
	}
}

func TestParseDurationErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "empty duration"},
		{"   ", "empty duration"},
		{"2", `"2" has no unit: write e.g. 2ms or 2s`},
		{"1.5", `"1.5" has no unit: write e.g. 1.5ms or 1.5s`},
		{"+3", `"+3" has no unit: write e.g. +3ms or +3s`},
		{"-2", "must be ≥ 0, got -2"},
		{"-1s", "must be ≥ 0, got -1s"},
		{"-1h30m", "must be ≥ 0, got -1h30m"},
		{"1e3", `"1e3" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)`},
		{"1e3s", `"1e3s" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)`},
		{"NaN", `"NaN" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)`},
		{"inf", `"inf" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)`},
		{"0x10", `"0x10" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)`},
		{"5 s", `"5 s" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)`},
		{"5sec", `"5sec" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)`},
		{"1d", `"1d" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)`},
		{"1_000ms", `"1_000ms" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)`},
		{"1.2.3s", `"1.2.3s" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)`},
		{"s", `"s" is not a duration (use ns, us, ms, s, m, h: e.g. 250ms, 2s, 1h30m)`},
		{"2562047h47m16.854775808s", `"2562047h47m16.854775808s" is too long: at most 2562047h47m16.854775807s (about 292 years)`},
		{"9999999999h", `"9999999999h" is too long: at most 2562047h47m16.854775807s (about 292 years)`},
	}
	for _, tt := range tests {
		got, err := scenarios.ParseDuration(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v, want error %q", tt.in, got, err, tt.want)
		}
		if got != 0 {
			t.Errorf("ParseDuration(%q) = %v with an error, want 0", tt.in, got)
		}
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want float64 // per second
	}{
		{"9/s", 9},
		{"9/sec", 9},
		{"9/second", 9},
		{"30/m", 0.5},
		{"30/min", 0.5},
		{"30/minute", 0.5},
		{"7200/h", 2},
		{"7200/hr", 2},
		{"7200/hour", 2},
		{"0.8/s", 0.8},
		{"1e3/h", 1000.0 / 3600},
		{" 9 / s ", 9},
		{"0/s", 0},
		{"-0/s", 0},
	}
	for _, tt := range tests {
		got, err := scenarios.ParseRate(tt.in)
		if err != nil || got != tt.want || math.Signbit(got) {
			t.Errorf("ParseRate(%q) = %v, %v, want %v, nil", tt.in, got, err, tt.want)
		}
	}
}

func TestParseRateErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"9", `"9" has no unit: write e.g. 9/s, 9/m or 9/h`},
		{"", `"" has no unit: write e.g. /s, /m or /h`},
		{"9/x", `"9/x": unknown rate unit "x" (use /s, /m or /h)`},
		{"9/ms", `"9/ms": unknown rate unit "ms" (use /s, /m or /h)`},
		{"9/", `"9/": unknown rate unit "" (use /s, /m or /h)`},
		{"9/S", `"9/S": unknown rate unit "S" (use /s, /m or /h)`},
		{"9/s/s", `"9/s/s": unknown rate unit "s/s" (use /s, /m or /h)`},
		{"/s", `"/s" is not a rate: the part before / must be a number`},
		{"fast/s", `"fast/s" is not a rate: the part before / must be a number`},
		{"NaN/s", `"NaN/s" is not a rate: the part before / must be a number`},
		{"inf/s", `"inf/s" is not a rate: the part before / must be a number`},
		{"1e400/s", `"1e400/s" is not a rate: 1e400 is out of range`},
		{"-1/s", "must be ≥ 0, got -1/s"},
	}
	for _, tt := range tests {
		got, err := scenarios.ParseRate(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseRate(%q) = %v, %v, want error %q", tt.in, got, err, tt.want)
		}
	}
}

func TestFormatRateRoundTrip(t *testing.T) {
	for _, r := range []float64{0, 0.5, 9, 1.0 / 3, 1e-9, 1e9} {
		s := scenarios.FormatRate(r)
		got, err := scenarios.ParseRate(s)
		if err != nil || got != r || !strings.HasSuffix(s, "/s") {
			t.Errorf("ParseRate(FormatRate(%v) = %q) = %v, %v, want %v", r, s, got, err, r)
		}
	}
}
