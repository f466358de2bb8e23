package charts

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func TestFormatSeconds(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0s"},
		{0.25, "250ms"},
		{0.1 + 0.2, "300ms"}, // float noise hidden
		{1, "1s"},
		{1.5, "1.5s"},
		{1.3945, "1.39s"},
		{10, "10s"},
		{1125, "1125s"}, // integer digits kept
		{0.0001, "100µs"},
		{2.5e-7, "250ns"},
		{-0.5, "-500ms"},
		{0.0009996, "1000µs"},
	}
	for _, tt := range tests {
		if got := FormatSeconds(tt.in); got != tt.want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatPercent(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0%"}, {0.5, "50%"}, {0.99, "99%"}, {0.999, "99.9%"}, {0.9999, "99.99%"}, {1, "100%"}, {0.975, "97.5%"},
	}
	for _, tt := range tests {
		if got := FormatPercent(tt.in); got != tt.want {
			t.Errorf("FormatPercent(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func labels(ticks []plot.Tick) string {
	var ls []string
	for _, tk := range ticks {
		if tk.Label != "" {
			ls = append(ls, tk.Label)
		}
	}
	return strings.Join(ls, " ")
}

func TestLogTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   string
	}{
		{0.028, 12, "100ms 1s 10s"},                       // powers of ten only: ≥ 3 in range
		{0.064, 0.4, "100ms 200ms"},                       // narrow: 1-2-5
		{0.3, 0.8, "300ms 400ms 500ms 600ms 700ms 800ms"}, // narrower: every mark
		{0.0099, 101, "10ms 100ms 1s 10s 100s"},
		{0, 10, ""}, // never asked for ≤ 0, but must not loop or panic
	}
	for _, tt := range tests {
		if got := labels(logTicks{format: FormatSeconds}.Ticks(tt.lo, tt.hi)); got != tt.want {
			t.Errorf("logTicks.Ticks(%v, %v) labels = %q, want %q", tt.lo, tt.hi, got, tt.want)
		}
	}
}

func TestLinearTicks(t *testing.T) {
	tests := []struct {
		name   string
		ticker plot.Ticker
		lo, hi float64
		want   string
	}{
		{"seconds", linearSecondsTicks{}, 0, 1.22, "0s 0.2s 0.4s 0.6s 0.8s 1s 1.2s"},
		{"milliseconds", linearSecondsTicks{}, 0, 0.16, "0ms 20ms 40ms 60ms 80ms 100ms 120ms 140ms 160ms"},
		{"large seconds", linearSecondsTicks{}, 1116, 2230, "1200s 1400s 1600s 1800s 2000s 2200s"},
		{"numbers", numberTicks{}, 0, 67, "0 10 20 30 40 50 60"},
		{"percent", percentTicks{}, 0.971, 1.0001, "97.5% 98% 98.5% 99% 99.5% 100%"},
	}
	for _, tt := range tests {
		if got := labels(tt.ticker.Ticks(tt.lo, tt.hi)); got != tt.want {
			t.Errorf("%s: Ticks(%v, %v) labels = %q, want %q", tt.name, tt.lo, tt.hi, got, tt.want)
		}
	}
}

// TestNinesScale checks that 90 %, 99 % and 99.9 % are equally spaced:
// −log10(1 − F) is 1, 2 and 3 for them.
func TestNinesScale(t *testing.T) {
	const hi = 0.999
	tests := []struct{ f, want float64 }{
		{0, 0}, {0.9, 1.0 / 3}, {0.99, 2.0 / 3}, {0.999, 1}, {1, 1}, {-0.1, 0},
	}
	for _, tt := range tests {
		if got := (ninesScale{}).Normalize(0, hi, tt.f); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("ninesScale.Normalize(0, %v, %v) = %v, want %v", hi, tt.f, got, tt.want)
		}
	}
	if got, want := labels(ninesTicks{}.Ticks(0, 0.9999)), "0% 50% 90% 99% 99.9% 99.99%"; got != want {
		t.Errorf("ninesTicks.Ticks(0, 0.9999) labels = %q, want %q", got, want)
	}
}

func TestLogScaleNeverPanics(t *testing.T) {
	for _, x := range []float64{-1, 0, math.NaN()} {
		if got := (logScale{}).Normalize(0.1, 10, x); got != 0 {
			t.Errorf("logScale.Normalize(0.1, 10, %v) = %v, want 0 (the axis minimum)", x, got)
		}
	}
	if got := (logScale{}).Normalize(0.1, 10, 1); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("logScale.Normalize(0.1, 10, 1) = %v, want 0.5", got)
	}
}
