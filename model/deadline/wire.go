package deadline

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// HeaderRemaining is the HTTP header that carries the remaining budget in
// whole milliseconds (FormatMillis, ParseMillis). It is this package's
// convention, not a standard header.
const HeaderRemaining = "Budget-Remaining-Ms"

// HeaderGRPCTimeout is gRPC's request header carrying the call's timeout
// (FormatGRPCTimeout, ParseGRPCTimeout), from the gRPC over HTTP/2 protocol
// spec (grpc/grpc doc/PROTOCOL-HTTP2.md).
const HeaderGRPCTimeout = "grpc-timeout"

// maxMillis is the largest millisecond count that fits a time.Duration.
const maxMillis = math.MaxInt64 / int64(time.Millisecond)

// FormatMillis encodes d as a count of whole milliseconds in ASCII decimal,
// rounding down so the receiver is never told it has more time than it has.
// A negative d encodes as "0".
func FormatMillis(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	return strconv.FormatInt(int64(d/time.Millisecond), 10)
}

// ParseMillis decodes a FormatMillis value: one or more ASCII digits, no
// sign, no spaces. Values too large for a time.Duration are an error.
func ParseMillis(s string) (time.Duration, error) {
	n, ok := parseDigits(s, 19)
	if !ok || n > maxMillis {
		return 0, fmt.Errorf("%s: want a non-negative integer count of milliseconds, got %q", HeaderRemaining, s)
	}
	return time.Duration(n) * time.Millisecond, nil
}

// grpcUnits are gRPC's TimeoutUnit values, coarsest first.
var grpcUnits = [...]struct {
	unit time.Duration
	c    byte
}{
	{time.Hour, 'H'},
	{time.Minute, 'M'},
	{time.Second, 'S'},
	{time.Millisecond, 'm'},
	{time.Microsecond, 'u'},
	{time.Nanosecond, 'n'},
}

// grpcMaxValue is the largest TimeoutValue: "positive integer as ASCII string
// of at most 8 digits" (PROTOCOL-HTTP2.md).
const grpcMaxValue = 99_999_999

// FormatGRPCTimeout encodes d as a grpc-timeout value: TimeoutValue (at most 8
// ASCII digits) followed by TimeoutUnit (H, M, S, m, u or n), per gRPC's
// PROTOCOL-HTTP2.md. It uses the coarsest unit that represents d exactly
// ("250m", "2S"); when none does within 8 digits, the finest unit that fits,
// rounding down so the receiver is never told it has more time than it has
// (grpc-go rounds up instead; the difference is below one part in 10⁷).
// d ≤ 0 encodes as "0n", as grpc-go sends for an expired deadline, although
// the spec asks for a positive value.
func FormatGRPCTimeout(d time.Duration) string {
	if d <= 0 {
		return "0n"
	}
	for _, u := range grpcUnits {
		if d%u.unit == 0 && d/u.unit <= grpcMaxValue {
			return strconv.FormatInt(int64(d/u.unit), 10) + string(u.c)
		}
	}
	for i := len(grpcUnits) - 1; i >= 0; i-- {
		u := grpcUnits[i]
		if d/u.unit <= grpcMaxValue {
			return strconv.FormatInt(int64(d/u.unit), 10) + string(u.c)
		}
	}
	// Unreachable: math.MaxInt64 ns is about 2.6 million hours.
	panic("deadline: FormatGRPCTimeout: duration does not fit in hours")
}

// ParseGRPCTimeout decodes a grpc-timeout value (see FormatGRPCTimeout). A
// value whose duration exceeds time.Duration (possible in hours or minutes)
// saturates at Unlimited, as grpc-go does. It returns an error naming the
// header for an empty value, more than 8 digits, a non-digit or an unknown
// unit.
func ParseGRPCTimeout(s string) (time.Duration, error) {
	if len(s) < 2 {
		return 0, fmt.Errorf("%s: want 1 to 8 digits and a unit (H, M, S, m, u, n), got %q", HeaderGRPCTimeout, s)
	}
	n, ok := parseDigits(s[:len(s)-1], 8)
	if !ok {
		return 0, fmt.Errorf("%s: want 1 to 8 digits and a unit (H, M, S, m, u, n), got %q", HeaderGRPCTimeout, s)
	}
	c := s[len(s)-1]
	for _, u := range grpcUnits {
		if u.c == c {
			if n > int64(Unlimited/u.unit) {
				return Unlimited, nil
			}
			return time.Duration(n) * u.unit, nil
		}
	}
	return 0, fmt.Errorf("%s: unknown unit %q in %q (want H, M, S, m, u or n)", HeaderGRPCTimeout, c, s)
}

// parseDigits parses 1 to maxDigits ASCII digits; 19 digits may still
// overflow int64, which it reports as not ok.
func parseDigits(s string, maxDigits int) (int64, bool) {
	if len(s) == 0 || len(s) > maxDigits {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (math.MaxInt64-int64(c-'0'))/10 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
