package deadline

import (
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func TestMillis(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0"},
		{-5 * ms, "0"},
		{1, "0"}, // rounds down: never claim more than remains
		{999_999, "0"},
		{1 * ms, "1"},
		{1500*ms + 999_999, "1500"},
		{Unlimited, "9223372036854"},
	} {
		if got := FormatMillis(tt.d); got != tt.want {
			t.Errorf("FormatMillis(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"250", 250 * ms, true},
		{"007", 7 * ms, true},
		{"9223372036854", 9223372036854 * ms, true},
		{"9223372036855", 0, false}, // overflows time.Duration
		{"99999999999999999999", 0, false},
		{"", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{" 1", 0, false},
		{"1.5", 0, false},
	} {
		got, err := ParseMillis(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseMillis(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), HeaderRemaining) {
			t.Errorf("ParseMillis(%q) error %q does not name the header", tt.in, err)
		}
	}
}

func TestGRPCTimeout(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{250 * ms, "250m"},
		{2 * s, "2S"},
		{2 * time.Hour, "2H"},
		{90 * time.Minute, "90M"},
		{1, "1n"},
		{99_999_999, "99999999n"},
		{100_000_001, "100000u"}, // not exact in any unit: finest that fits, rounded down
		{1500 * time.Microsecond, "1500u"},
		{0, "0n"},
		{-1, "0n"},
		{Unlimited, "2562047H"}, // 2562047.79 h rounded down
	} {
		if got := FormatGRPCTimeout(tt.d); got != tt.want {
			t.Errorf("FormatGRPCTimeout(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"250m", 250 * ms, true},
		{"2S", 2 * s, true},
		{"1H", time.Hour, true},
		{"3M", 3 * time.Minute, true},
		{"7u", 7 * time.Microsecond, true},
		{"0n", 0, true},
		{"99999999H", Unlimited, true}, // exceeds time.Duration: saturates
		{"99999999n", 99_999_999, true},
		{"100000000n", 0, false}, // 9 digits
		{"", 0, false},
		{"m", 0, false},
		{"5", 0, false},
		{"5s", 0, false}, // units are case-sensitive: s is not a unit
		{"-5S", 0, false},
		{"5 S", 0, false},
	} {
		got, err := ParseGRPCTimeout(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseGRPCTimeout(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), HeaderGRPCTimeout) {
			t.Errorf("ParseGRPCTimeout(%q) error %q does not name the header", tt.in, err)
		}
	}
}

// TestGRPCTimeoutRoundTrip checks on random durations that the encoding is at
// most 8 digits and a unit, and decodes to d rounded down by less than one
// unit of the encoding (so by less than one part in 10⁷ when d ≥ 100 ms).
func TestGRPCTimeoutRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		d := time.Duration(rapid.Int64Range(1, Unlimited.Nanoseconds()).Draw(t, "d"))
		enc := FormatGRPCTimeout(d)
		if len(enc) > 9 {
			t.Fatalf("FormatGRPCTimeout(%v) = %q: more than 8 digits", d, enc)
		}
		got, err := ParseGRPCTimeout(enc)
		if err != nil {
			t.Fatalf("ParseGRPCTimeout(FormatGRPCTimeout(%v) = %q): %v", d, enc, err)
		}
		var unit time.Duration
		for _, u := range grpcUnits {
			if u.c == enc[len(enc)-1] {
				unit = u.unit
			}
		}
		if got > d || d-got >= unit {
			t.Fatalf("ParseGRPCTimeout(%q) = %v, want within one %v below %v", enc, got, unit, d)
		}
	})
}
