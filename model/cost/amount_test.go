package cost_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/cost"
	"go.yaml.in/yaml/v3"
	"pgregory.net/rapid"
)

func TestParseAmount(t *testing.T) {
	tests := []struct {
		in   string
		want cost.Amount
	}{
		{"0", 0},
		{"-0", 0},
		{"12", 12 * cost.Unit},
		{"+12", 12 * cost.Unit},
		{"-0.25", -250_000},
		{"0.000001", cost.Micro},
		{".5", 500_000},
		{"3.", 3 * cost.Unit},
		{"007.10", 7_100_000},
		{"1.2345670000", 1_234_567}, // zeros past the sixth place are exact
		{"9223372036854.775807", math.MaxInt64},
		{"-9223372036854.775808", math.MinInt64},
	}
	for _, tt := range tests {
		got, err := cost.ParseAmount(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseAmount(%q) = %d, %v; want %d, nil", tt.in, got, err, tt.want)
		}
	}
}

func TestParseAmountErrors(t *testing.T) {
	tests := []struct {
		in      string
		class   error
		message string
	}{
		{"", cost.ErrAmountSyntax, `amount "": no digits`},
		{"-", cost.ErrAmountSyntax, "no digits"},
		{".", cost.ErrAmountSyntax, "no digits"},
		{"1.2.3", cost.ErrAmountSyntax, `unexpected '.'`},
		{"1e3", cost.ErrAmountSyntax, `unexpected 'e'`},
		{" 1", cost.ErrAmountSyntax, `unexpected ' '`},
		{"1_000", cost.ErrAmountSyntax, `unexpected '_'`},
		{"--1", cost.ErrAmountSyntax, `unexpected '-'`},
		{"0.0000001", cost.ErrAmountSyntax, "more than 6 decimal places"},
		{"1.2345675", cost.ErrAmountSyntax, "more than 6 decimal places"},
		{"9223372036854.775808", cost.ErrAmountRange, "out of range"},
		{"-9223372036854.775809", cost.ErrAmountRange, "out of range"},
		{"99999999999999999999999", cost.ErrAmountRange, "out of range"},
	}
	for _, tt := range tests {
		got, err := cost.ParseAmount(tt.in)
		if !errors.Is(err, tt.class) || !strings.Contains(err.Error(), tt.message) {
			t.Errorf("ParseAmount(%q) = %d, %v; want error %v containing %q", tt.in, got, err, tt.class, tt.message)
		}
	}
}

func TestAmountString(t *testing.T) {
	tests := []struct {
		in   cost.Amount
		want string
	}{
		{0, "0"},
		{cost.Micro, "0.000001"},
		{-cost.Micro, "-0.000001"},
		{cost.Unit, "1"},
		{70 * cost.Unit, "70"},
		{-1_500_000, "-1.5"},
		{1_234_560, "1.23456"},
		{math.MaxInt64, "9223372036854.775807"},
		{math.MinInt64, "-9223372036854.775808"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("Amount(%d).String() = %q, want %q", int64(tt.in), got, tt.want)
		}
	}
}

// Every Amount survives String then ParseAmount, and text marshalling.
func TestAmountRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := cost.Amount(rapid.Int64().Draw(t, "a"))
		s := a.String()
		got, err := cost.ParseAmount(s)
		if err != nil || got != a {
			t.Fatalf("ParseAmount(Amount(%d).String() = %q) = %d, %v; want %d", int64(a), s, got, err, int64(a))
		}
		text, _ := a.MarshalText()
		var back cost.Amount
		if err := back.UnmarshalText(text); err != nil || back != a {
			t.Fatalf("UnmarshalText(%q) = %d, %v; want %d", text, back, err, int64(a))
		}
	})
}

func TestAmountFromFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want cost.Amount
	}{
		{0, 0},
		{1, cost.Unit},
		{0.1, 100_000},
		{1.005, 1_005_000}, // 1.005×1e6 = 1004999.9999999999 in float64, rounded
		{-2.5, -2_500_000},
		{1e-6, 1},
		{4e-7, 0},   // rounds to the nearest micro-unit
		{6e-7, 1},   // …up
		{-6e-7, -1}, // …and away from zero
		{9e12, 9e18},
	}
	for _, tt := range tests {
		got, err := cost.AmountFromFloat(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("AmountFromFloat(%v) = %d, %v; want %d, nil", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []struct {
		in    float64
		class error
	}{
		{math.NaN(), cost.ErrAmountSyntax},
		{math.Inf(1), cost.ErrAmountSyntax},
		{math.Inf(-1), cost.ErrAmountSyntax},
		{9.3e12, cost.ErrAmountRange},
		{-9.3e12, cost.ErrAmountRange},
	} {
		if got, err := cost.AmountFromFloat(bad.in); !errors.Is(err, bad.class) {
			t.Errorf("AmountFromFloat(%v) = %d, %v; want error %v", bad.in, got, err, bad.class)
		}
	}
}

func TestAmountFloat64(t *testing.T) {
	tests := []struct {
		in   cost.Amount
		want float64
	}{
		{0, 0},
		{1_500_000, 1.5},
		{-250_000, -0.25},
		{cost.Micro, 1e-6},
	}
	for _, tt := range tests {
		if got := tt.in.Float64(); got != tt.want {
			t.Errorf("Amount(%d).Float64() = %v, want %v", int64(tt.in), got, tt.want)
		}
	}
}

// Amounts read from YAML scenarios and JSON results as decimals, quoted or
// not in YAML, and never through a float.
func TestAmountEncodings(t *testing.T) {
	var y struct {
		A cost.Amount `yaml:"a"`
		B cost.Amount `yaml:"b"`
		C cost.Amount `yaml:"c"`
	}
	if err := yaml.Unmarshal([]byte("a: 0.25\nb: \"12\"\nc: 100\n"), &y); err != nil {
		t.Fatalf("yaml.Unmarshal: %v", err)
	}
	if y.A != 250_000 || y.B != 12*cost.Unit || y.C != 100*cost.Unit {
		t.Errorf("yaml.Unmarshal(a: 0.25, b: \"12\", c: 100) = %d, %d, %d; want 250000, 12000000, 100000000", y.A, y.B, y.C)
	}
	if err := yaml.Unmarshal([]byte("a: 1e3\n"), &y); !errors.Is(err, cost.ErrAmountSyntax) {
		t.Errorf("yaml.Unmarshal(a: 1e3) error = %v, want ErrAmountSyntax", err)
	}

	j, err := json.Marshal(struct{ Spent cost.Amount }{1_500_000})
	if err != nil || string(j) != `{"Spent":"1.5"}` {
		t.Errorf(`json.Marshal({Spent: 1.5}) = %s, %v; want {"Spent":"1.5"}`, j, err)
	}
}

func BenchmarkParseAmount(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cost.ParseAmount("1234.567891"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAddSat: sums inside the range are exact; beyond it they stop at the
// bound they passed, reported, instead of wrapping to the other sign.
func TestAddSat(t *testing.T) {
	for _, c := range []struct {
		a, b, want cost.Amount
		ok         bool
	}{
		{2, 3, 5, true},
		{cost.MaxAmount - 1, 1, cost.MaxAmount, true},
		{cost.MaxAmount, 1, cost.MaxAmount, false},
		{cost.MaxAmount / 2, cost.MaxAmount, cost.MaxAmount, false},
		{-cost.MaxAmount, -1, math.MinInt64, true},
		{-cost.MaxAmount, -2, math.MinInt64, false},
		{cost.MaxAmount, -cost.MaxAmount, 0, true},
	} {
		got, ok := c.a.AddSat(c.b)
		if got != c.want || ok != c.ok {
			t.Errorf("%d.AddSat(%d) = %d, %v; want %d, %v", c.a, c.b, got, ok, c.want, c.ok)
		}
	}
}
