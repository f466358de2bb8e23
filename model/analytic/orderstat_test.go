package analytic

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/sim/stats"
)

// mcLevel is the confidence level of the Monte Carlo intervals: a correct
// formula falls outside with probability 1e-6 per check.
const mcLevel = 1 - 1e-6

// zLevel is the normal quantile for mcLevel, two-sided.
var zLevel = math.Sqrt2 * math.Erfinv(mcLevel)

// proportionTol returns the half-width of the normal-approximation
// confidence interval at mcLevel for a proportion p estimated from n draws.
func proportionTol(p float64, n int) float64 {
	return zLevel * math.Sqrt(p*(1-p)/float64(n))
}

// sampleKth draws n group latencies T₍ₖ₎ from independent exponentials.
func sampleKth(rng *rand.Rand, rates []float64, k, n int) []float64 {
	out := make([]float64, n)
	xs := make([]float64, len(rates))
	for i := range out {
		for j, r := range rates {
			xs[j] = rng.ExpFloat64() / r
		}
		slices.Sort(xs)
		out[i] = xs[k-1]
	}
	return out
}

func TestExpGroupHandValues(t *testing.T) {
	t.Parallel()
	ok := val(t)
	iid := ExpGroup{Rates: []float64{2, 2, 2}}
	het := ExpGroup{Rates: []float64{1, 2, 3}}
	tests := []struct {
		name      string
		got, want float64
	}{
		// Rényi: E[T₍ₖ₎] = Σ_{j<k} 1/((n−j)λ) with n = 3, λ = 2.
		{"iid any mean = 1/(3·2)", ok(iid.AnyMean()), 1.0 / 6},
		{"iid first-2 mean = (1/3+1/2)/2", ok(iid.KthMean(2)), 5.0 / 12},
		{"iid all mean = H_3/2", ok(iid.AllMean()), 11.0 / 12},
		{"iid all CDF(0.5) = (1−e^{−1})³", ok(iid.AllCDF(0.5)), 0.25258045782764715},
		{"iid any CDF(0.1) = 1−e^{−0.6}", ok(iid.AnyCDF(0.1)), 1 - math.Exp(-0.6)},
		// Inclusion–exclusion over subsets: Σ1/λᵢ − Σ1/(λᵢ+λⱼ) + 1/Σλ = 73/60.
		{"rates 1,2,3 all mean = 73/60", ok(het.AllMean()), 73.0 / 60},
		// Memorylessness: 1/Λ + Σᵢ (λᵢ/Λ)·1/(Λ−λᵢ) = 9/20.
		{"rates 1,2,3 first-2 mean = 9/20", ok(het.KthMean(2)), 9.0 / 20},
		{"rates 1,2,3 any mean = 1/6", ok(het.AnyMean()), 1.0 / 6},
		// Enumeration of the 8 done/not-done patterns at t = 0.4 (Python).
		{"rates 1,2,3 first-2 CDF(0.4)", ok(het.KthCDF(2, 0.4)), 0.5430098934353549},
		{"rates 1,2,3 all CDF(0.4)", ok(het.AllCDF(0.4)), 0.1268648377889947},
		{"CDF at 0", ok(het.AllCDF(0)), 0},
		{"CDF below 0", ok(het.KthCDF(2, -1)), 0},
	}
	for _, tt := range tests {
		if !near(tt.got, tt.want, 1e-12) {
			t.Errorf("%s: got %.16g, want %.16g", tt.name, tt.got, tt.want)
		}
	}
}

// TestExpGroupQuadratureMatchesExact compares the integrated mean (used for
// unequal rates) with the exact sums on rates that differ by a negligible
// amount, so both paths must agree to the quadrature's precision.
func TestExpGroupQuadratureMatchesExact(t *testing.T) {
	t.Parallel()
	ok := val(t)
	for _, n := range []int{2, 5, 20, 100} {
		rates := make([]float64, n)
		for i := range rates {
			rates[i] = 3 * (1 + float64(i)*1e-15)
		}
		g := ExpGroup{Rates: rates}
		for _, k := range []int{2, (n + 1) / 2, n} {
			var exact float64
			for j := range k {
				exact += 1 / (float64(n-j) * 3)
			}
			if got := ok(g.KthMean(k)); !near(got, exact, 1e-10) {
				t.Errorf("n=%d k=%d: KthMean = %.15g, want Rényi sum %.15g", n, k, got, exact)
			}
		}
	}
}

func TestExpGroupQuantile(t *testing.T) {
	t.Parallel()
	ok := val(t)
	g := ExpGroup{Rates: []float64{0.5, 4, 30}}
	for k := 1; k <= 3; k++ {
		for _, p := range []float64{0.01, 0.5, 0.99, 0.999} {
			q := ok(g.KthQuantile(k, p))
			if c := ok(g.KthCDF(k, q)); !near(c, p, 1e-11) {
				t.Errorf("k=%d: KthCDF(KthQuantile(%v) = %v) = %v", k, p, q, c)
			}
		}
	}
	if q := ok(g.KthQuantile(2, 0)); q != 0 {
		t.Errorf("KthQuantile(2, 0) = %v, want 0", q)
	}
}

// TestExpGroupMonteCarlo draws group latencies directly (sort n
// exponentials, take the k-th) and requires the closed-form mean inside the
// sample's confidence interval at level 1−1e-6, and each CDF value within
// the binomial interval of the empirical proportion.
func TestExpGroupMonteCarlo(t *testing.T) {
	t.Parallel()
	ok := val(t)
	rng := rand.New(rand.NewPCG(22, 1))
	const n = 200_000
	for _, rates := range [][]float64{{1, 1, 1, 1, 1}, {0.5, 2, 8}, {10, 1}} {
		g := ExpGroup{Rates: rates}
		for k := 1; k <= len(rates); k++ {
			xs := sampleKth(rng, rates, k, n)
			ci := stats.MeanCI(xs, mcLevel)
			if m := ok(g.KthMean(k)); !ci.Contains(m) {
				t.Errorf("rates %v k=%d: KthMean = %v outside Monte Carlo %v", rates, k, m, ci)
			}
			slices.Sort(xs)
			for _, p := range []float64{0.1, 0.5, 0.9, 0.99} {
				x := ok(g.KthQuantile(k, p))
				emp := float64(sortedCount(xs, x)) / n
				if math.Abs(emp-p) > proportionTol(p, n) {
					t.Errorf("rates %v k=%d: empirical P(T ≤ %v) = %v, want %v ± %v", rates, k, x, emp, p, proportionTol(p, n))
				}
			}
		}
	}
}

// sortedCount returns how many of the sorted xs are ≤ x.
func sortedCount(xs []float64, x float64) int {
	i, found := slices.BinarySearch(xs, x)
	for found && i < len(xs) && xs[i] == x {
		i++
	}
	return i
}

func TestExpGroupErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, field string
		err         error
	}{
		{"empty", "rates:", second(ExpGroup{}.AnyMean())},
		{"zero rate", "rates[1]:", second(ExpGroup{Rates: []float64{1, 0}}.AllMean())},
		{"inf rate", "rates[0]:", second(ExpGroup{Rates: []float64{math.Inf(1)}}.AnyCDF(1))},
		{"k too big", "k:", second(ExpGroup{Rates: []float64{1}}.KthMean(2))},
		{"k zero", "k:", second(ExpGroup{Rates: []float64{1}}.KthCDF(0, 1))},
		{"NaN t", "t:", second(ExpGroup{Rates: []float64{1}}.KthCDF(1, math.NaN()))},
		{"p = 1", "p:", second(ExpGroup{Rates: []float64{1, 2}}.KthQuantile(2, 1))},
	}
	for _, tt := range tests {
		if tt.err == nil || !strings.HasPrefix(tt.err.Error(), tt.field) {
			t.Errorf("%s: err = %v, want one starting %q", tt.name, tt.err, tt.field)
		}
	}
}

func second(_ float64, err error) error { return err }
