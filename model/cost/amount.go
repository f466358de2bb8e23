package cost

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Amount is a quantity of budget in micro-units: Amount(1) is one millionth
// of a unit and [Unit] is one unit. Units are abstract (a cent, a credit, a
// thousand tokens: the scenario decides); pick the unit so that the smallest
// price matters at six decimal places.
//
// Amounts are int64 so that the books are exact: reserving 0.1 and settling
// 0.07 leaves exactly 0.03, the identity Remaining + Reserved + Pending +
// Spent == Limit holds with ==, not within a tolerance, and a simulation
// gives the same balances on every platform. With float64 the identity
// drifts (0.1 + 0.2 != 0.3) and a ledger could refuse, or admit, a call by a
// rounding error. The range is ±9.2e12 units.
//
// The zero value is zero. An Amount formats as a decimal (String) and
// marshals as text, so it reads from and writes to YAML and JSON strings.
type Amount int64

const (
	// Micro is the smallest Amount, one millionth of a unit.
	Micro Amount = 1
	// Unit is one whole unit, 10^6 micro-units.
	Unit Amount = 1_000_000
	// MaxAmount is the largest Amount, about 9.2e12 units.
	MaxAmount Amount = math.MaxInt64
)

// decimals is the number of decimal places in a Unit.
const decimals = 6

// ErrAmountSyntax is wrapped by the errors of [ParseAmount] and
// [AmountFromFloat] for input that is not a decimal amount.
var ErrAmountSyntax = errors.New("invalid amount syntax")

// ErrAmountRange is wrapped by the errors of [ParseAmount] and
// [AmountFromFloat] for amounts beyond ±[MaxAmount].
var ErrAmountRange = errors.New("amount out of range")

// ParseAmount parses a decimal number of units, such as "12", "-0.25",
// "+3." or ".000001", into an exact Amount. It accepts an optional sign,
// decimal digits and at most one '.', and nothing else (no exponent,
// separators or spaces). Digits beyond the sixth decimal place must be zeros:
// an amount that is not a whole number of micro-units is an error, not
// silently rounded. Errors wrap [ErrAmountSyntax] or [ErrAmountRange] and
// quote the input.
func ParseAmount(s string) (Amount, error) {
	in := s
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var whole, frac uint64  // whole units, micro-units of the fraction
	digits, places := 0, -1 // places counts digits after '.', -1 before it
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && places < 0:
			places = 0
		case '0' <= c && c <= '9':
			digits++
			d := uint64(c - '0')
			if places < 0 {
				if whole > (math.MaxUint64-9)/10 {
					return 0, fmt.Errorf("cost: amount %q: %w", in, ErrAmountRange)
				}
				whole = whole*10 + d
				continue
			}
			places++
			if places > decimals {
				if d != 0 {
					return 0, fmt.Errorf("cost: amount %q: more than %d decimal places: %w", in, decimals, ErrAmountSyntax)
				}
				continue
			}
			frac = frac*10 + d
		default:
			return 0, fmt.Errorf("cost: amount %q: unexpected %q: %w", in, c, ErrAmountSyntax)
		}
	}
	if digits == 0 {
		return 0, fmt.Errorf("cost: amount %q: no digits: %w", in, ErrAmountSyntax)
	}
	for p := max(places, 0); p < decimals; p++ {
		frac *= 10
	}
	limit := uint64(math.MaxInt64) // the magnitude of MinInt64 is one more
	if neg {
		limit++
	}
	if whole > (limit-frac)/uint64(Unit) {
		return 0, fmt.Errorf("cost: amount %q: %w", in, ErrAmountRange)
	}
	mag := whole*uint64(Unit) + frac
	if neg {
		return Amount(-mag), nil // two's complement: exact for MinInt64 too
	}
	return Amount(mag), nil
}

// AmountFromFloat converts f units to the nearest Amount, rounding
// f×10^6 half away from zero (math.Round). Floats are for input from
// outside (a price computed elsewhere); keep the books in Amounts. It
// returns an error wrapping [ErrAmountSyntax] for NaN and ±Inf and
// [ErrAmountRange] beyond ±[MaxAmount].
func AmountFromFloat(f float64) (Amount, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("cost: amount %v: %w", f, ErrAmountSyntax)
	}
	r := math.Round(f * float64(Unit))
	// 2^63 is exactly representable; MaxInt64 is not, and rounds up to it.
	if r < -(1<<63) || r >= 1<<63 {
		return 0, fmt.Errorf("cost: amount %v: %w", f, ErrAmountRange)
	}
	return Amount(r), nil
}

// AddSat returns a + b and true, or, when the sum is beyond the range of
// an Amount, the bound it passed ([MaxAmount], or the smallest Amount) and
// false: the books saturate, with the caller told, instead of wrapping to
// the other sign.
func (a Amount) AddSat(b Amount) (Amount, bool) {
	s := a + b
	switch {
	case b > 0 && s < a:
		return MaxAmount, false
	case b < 0 && s > a:
		return math.MinInt64, false
	}
	return s, true
}

// Float64 returns a in units, a/10^6, to the nearest float64.
func (a Amount) Float64() float64 {
	whole, frac := a/Unit, a%Unit
	return float64(whole) + float64(frac)/float64(Unit)
}

// String formats a as a decimal number of units with no trailing zeros:
// "12", "-0.25", "0.000001". ParseAmount(a.String()) == a.
func (a Amount) String() string {
	var buf [24]byte
	return string(a.appendText(buf[:0]))
}

func (a Amount) appendText(b []byte) []byte {
	mag := uint64(a)
	if a < 0 {
		b = append(b, '-')
		mag = -mag // two's complement: exact for MinInt64 too
	}
	b = strconv.AppendUint(b, mag/uint64(Unit), 10)
	frac := mag % uint64(Unit)
	if frac == 0 {
		return b
	}
	var digits [decimals]byte
	for i := decimals - 1; i >= 0; i-- {
		digits[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := decimals
	for digits[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, digits[:n]...)
}

// MarshalText implements encoding.TextMarshaler with the String form.
func (a Amount) MarshalText() ([]byte, error) {
	return a.appendText(nil), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseAmount.
func (a *Amount) UnmarshalText(text []byte) error {
	v, err := ParseAmount(string(text))
	if err != nil {
		return err
	}
	*a = v
	return nil
}
