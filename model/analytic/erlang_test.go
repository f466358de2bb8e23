package analytic

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// Hand computation of the table value C(c=3, A=2) by the Erlang B
// recursion B(k) = A B(k-1) / (k + A B(k-1)):
//
//	B(0) = 1
//	B(1) = 2·1 / (1 + 2)         = 2/3
//	B(2) = 2·(2/3) / (2 + 4/3)   = (4/3)/(10/3) = 2/5
//	B(3) = 2·(2/5) / (3 + 4/5)   = (4/5)/(19/5) = 4/19
//	C    = B / (1 - rho (1 - B)) with rho = 2/3
//	     = (4/19) / (1 - (2/3)(15/19)) = (4/19)/(9/19) = 4/9 = 0.4444…
//
// which is the tabulated Erlang C value for 2 Erlangs on 3 servers.
var erlangTests = []struct {
	a     float64
	c     int
	wantB float64
	wantC float64 // 0 when unstable (a >= c)
}{
	// Hand-computed above.
	{a: 2, c: 3, wantB: 4.0 / 19, wantC: 4.0 / 9},
	// B(1) = 1/2, B(2) = (1/2)/(2 + 1/2) = 1/5; C = (1/5)/(1 - (1/2)(4/5)) = 1/3.
	{a: 1, c: 2, wantB: 1.0 / 5, wantC: 1.0 / 3},
	// M/M/1: B(1, A) = A/(1+A) and C(1, A) = A = rho.
	{a: 0.25, c: 1, wantB: 0.2, wantC: 0.25},
	// Exact rationals from the textbook sums (Python fractions):
	// B = (A^c/c!) / sum_{k<=c} A^k/k!,
	// C = (A^c/c! · c/(c-A)) / (sum_{k<c} A^k/k! + A^c/c! · c/(c-A)).
	{a: 9, c: 10, wantB: 43046721.0 / 256286581, wantC: 43046721.0 / 64370707}, // C = 0.668731524107697
	{a: 5, c: 7, wantB: 15625.0 / 129648, wantC: 15625.0 / 48203},              // C = 0.324149949173288
	// Erlang B is defined at any load; B(3, A=3) = (27/6)/(1+3+9/2+27/6) = 9/26.
	{a: 3, c: 3, wantB: 9.0 / 26},
}

func TestErlang(t *testing.T) {
	t.Parallel()
	for _, tt := range erlangTests {
		b, err := ErlangB(tt.a, tt.c)
		if err != nil || !near(b, tt.wantB, 1e-12) {
			t.Errorf("ErlangB(%v, %d) = %.15g, %v, want %.15g", tt.a, tt.c, b, err, tt.wantB)
		}
		c, err := ErlangC(tt.a, tt.c)
		if tt.wantC == 0 {
			if err == nil {
				t.Errorf("ErlangC(%v, %d) = %v, nil, want ErrUnstable", tt.a, tt.c, c)
			}
			continue
		}
		if err != nil || !near(c, tt.wantC, 1e-13) {
			t.Errorf("ErlangC(%v, %d) = %.15g, %v, want %.15g", tt.a, tt.c, c, err, tt.wantC)
		}
		mc := MMc{Lambda: tt.a * 2, Mu: 2, C: tt.c}
		if got := val(t)(mc.ErlangC()); !near(got, tt.wantC, 1e-13) {
			t.Errorf("%+v.ErlangC() = %.15g, want %.15g", mc, got, tt.wantC)
		}
	}
}

// TestErlangLarge checks that the recursion survives loads where the
// textbook sum overflows float64 (A^c/c! with c = 4970), against the same
// sum evaluated by mpmath at 60 digits: C(4970, 4900) =
// 0.22536099393081255637. As a sanity check it sits near the
// square-root-staffing limit for c = A + beta sqrt(A), beta = 1,
// [1 + beta Phi(beta)/phi(beta)]^-1 = 0.22336 (Halfin & Whitt, Operations
// Research 29(3), 1981), which is only exact as A grows.
func TestErlangLarge(t *testing.T) {
	t.Parallel()
	got := val(t)(ErlangC(4900, 4970))
	const want = 0.22536099393081255637 // mpmath, 60 digits
	if !near(got, want, 1e-12) {
		t.Errorf("ErlangC(4900, 4970) = %.17g, want %.17g", got, want)
	}
}

// TestErlangProperties checks that C(c, A) is a probability, is at least
// B(c, A) (waiting is likelier than blocking would be), and falls as
// servers are added.
func TestErlangProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		a := rapid.Float64Range(1e-3, 500).Draw(rt, "a")
		c := int(math.Floor(a)) + 1 + rapid.IntRange(0, 60).Draw(rt, "extra")
		pc, err := ErlangC(a, c)
		if err != nil {
			rt.Fatalf("ErlangC(%v, %d) error = %v", a, c, err)
		}
		if !(pc >= 0 && pc <= 1) {
			rt.Fatalf("ErlangC(%v, %d) = %v, want in [0, 1]", a, c, pc)
		}
		pb := val(rt)(ErlangB(a, c))
		if pc < pb {
			rt.Fatalf("ErlangC(%v, %d) = %v < ErlangB = %v", a, c, pc, pb)
		}
		next := val(rt)(ErlangC(a, c+1))
		if !(next <= pc) {
			rt.Fatalf("ErlangC(%v, %d) = %v > ErlangC(%v, %d) = %v, want decreasing in c", a, c+1, next, a, c, pc)
		}
	})
}

func TestOfferedLoad(t *testing.T) {
	t.Parallel()
	if got := val(t)(OfferedLoad(9, 0.5)); got != 18 {
		t.Errorf("OfferedLoad(9, 0.5) = %v, want 18", got)
	}
}
