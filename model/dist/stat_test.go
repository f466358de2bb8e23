package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// zTol is the number of standard errors a statistical check allows. Under
// the normal approximation a two-sided |Z| > 4.5 has probability 6.8e-6, so
// across the ~100 checks below a correct sampler fails with probability
// under 1e-3 for a random seed. The seeds are fixed, so the tests are
// deterministic; the tolerance is derived, not tuned to pass.
const zTol = 4.5

// nDraws is the sample size of the statistical checks: large enough that the
// normal approximation to Binomial(n, 0.99) holds (n*p*(1-p) = 1980) and
// fast (about 5 ms per family).
const nDraws = 200_000

// TestSampleMatchesDistribution draws nDraws values from every family and
// compares them with the analytic distribution:
//
//   - Mean: by the central limit theorem the sample mean is approximately
//     N(m, sd^2/n), so |mean - m| <= zTol*sd/sqrt(n). Every case below has
//     a finite variance (Pareto alpha = 3.5 > 2).
//   - Quantiles: for q = Quantile(p), the count #{X_i <= q} is exactly
//     Binomial(n, F) with F = CDF(q) (= p for a continuous family, larger at
//     a jump of a discrete one), so |count/n - F| <= zTol*sqrt(F(1-F)/n).
//     This tests Sample against Quantile/CDF without binning.
func TestSampleMatchesDistribution(t *testing.T) {
	for i, c := range allDists(t) {
		r := rand.New(rand.NewPCG(1, uint64(i)+2))
		xs := make([]float64, nDraws)
		sum := 0.0
		for j := range xs {
			xs[j] = c.d.Sample(r)
			sum += xs[j]
		}
		slices.Sort(xs)
		n := float64(nDraws)

		mean, m, sd := sum/n, c.d.Mean(), math.Sqrt(c.d.Variance())
		// The floor absorbs rounding in the running sum, up to n*eps = 4.4e-11
		// relative (it matters only for Constant, whose sd is 0).
		if tol := math.Max(zTol*sd/math.Sqrt(n), 1e-10*m); math.Abs(mean-m) > tol {
			t.Errorf("%s: mean of %d draws = %.6g, want %.6g ± %.3g", c.d, nDraws, mean, m, tol)
		}
		for _, p := range []float64{0.1, 0.5, 0.9, 0.99} {
			q := c.d.Quantile(p)
			f := c.d.CDF(q)
			count := countLE(xs, q)
			if tol := zTol * math.Sqrt(f*(1-f)/n); math.Abs(count/n-f) > tol {
				t.Errorf("%s: fraction of draws <= Quantile(%v) = %v is %.5f, want CDF = %.5f ± %.2g",
					c.d, p, q, count/n, f, tol)
			}
		}
	}
}

// countLE returns #{x in sorted : x <= q} as a float64.
func countLE(sorted []float64, q float64) float64 {
	i, found := slices.BinarySearch(sorted, q)
	for found && i < len(sorted) && sorted[i] == q {
		i++
	}
	return float64(i)
}

// TestQuantileCDFRoundTrip checks CDF(Quantile(p)) = p for the continuous
// families (everything but constant and empirical, whose CDF jumps).
func TestQuantileCDFRoundTrip(t *testing.T) {
	for _, c := range allDists(t) {
		if c.name == "constant" || c.name == "empirical" {
			continue
		}
		for _, p := range []float64{1e-6, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999999} {
			q := c.d.Quantile(p)
			if got := c.d.CDF(q); math.Abs(got-p) > 1e-9*math.Max(p, 1e-3) {
				t.Errorf("%s: CDF(Quantile(%v) = %v) = %v, want %v", c.d, p, q, got, p)
			}
		}
	}
}

// TestAnalyticValues checks Mean, Variance, Quantile and CDF against closed
// forms; the source of each reference value is in its comment.
func TestAnalyticValues(t *testing.T) {
	ln2, ln100 := math.Ln2, math.Log(100)
	type check struct {
		what      string
		got, want float64
	}
	exp2 := must(t)(Exponential(2))
	uni := must(t)(Uniform(1, 3))
	lgn := must(t)(LogNormal(0.04, 1.2))
	par := must(t)(Pareto(1, 3))
	wei := must(t)(Weibull(1, 2))
	con := must(t)(Constant(0.5))
	checks := []check{
		// Exponential(mean): Q(p) = -mean*ln(1-p), F(x) = 1-exp(-x/mean).
		{"Exponential(2).Mean()", exp2.Mean(), 2},
		{"Exponential(2).Variance()", exp2.Variance(), 4},
		{"Exponential(2).Quantile(0.5)", exp2.Quantile(0.5), 2 * ln2},
		{"Exponential(2).Quantile(0.99)", exp2.Quantile(0.99), 2 * ln100},
		{"Exponential(2).CDF(2)", exp2.CDF(2), 1 - math.Exp(-1)},
		// Uniform(a, b): mean (a+b)/2, variance (b-a)^2/12.
		{"Uniform(1, 3).Mean()", uni.Mean(), 2},
		{"Uniform(1, 3).Variance()", uni.Variance(), 4.0 / 12},
		{"Uniform(1, 3).Quantile(0.25)", uni.Quantile(0.25), 1.5},
		{"Uniform(1, 3).CDF(2.5)", uni.CDF(2.5), 0.75},
		// LogNormal(median, sigma): mean = median*exp(sigma^2/2),
		// variance = (exp(sigma^2)-1)*median^2*exp(sigma^2), Q(p) = median*exp(sigma*z_p)
		// with z_0.99 = 2.3263478740408408 (scipy.stats.norm.ppf(0.99)).
		{"LogNormal(0.04, 1.2).Mean()", lgn.Mean(), 0.04 * math.Exp(0.72)},
		{"LogNormal(0.04, 1.2).Variance()", lgn.Variance(), (math.Exp(1.44) - 1) * 0.0016 * math.Exp(1.44)},
		{"LogNormal(0.04, 1.2).Quantile(0.5)", lgn.Quantile(0.5), 0.04},
		{"LogNormal(0.04, 1.2).Quantile(0.99)", lgn.Quantile(0.99), 0.04 * math.Exp(1.2*2.3263478740408408)},
		{"LogNormal(0.04, 1.2).CDF(0.04)", lgn.CDF(0.04), 0.5},
		// Pareto(xm, alpha): mean alpha*xm/(alpha-1), variance
		// xm^2*alpha/((alpha-1)^2*(alpha-2)), Q(p) = xm*(1-p)^(-1/alpha).
		{"Pareto(1, 3).Mean()", par.Mean(), 1.5},
		{"Pareto(1, 3).Variance()", par.Variance(), 0.75},
		{"Pareto(1, 3).Quantile(0.5)", par.Quantile(0.5), math.Cbrt(2)},
		{"Pareto(1, 3).CDF(2)", par.CDF(2), 1 - 1.0/8},
		// Weibull(1, 2) is the Rayleigh with sigma = 1/sqrt(2): mean
		// Gamma(3/2) = sqrt(pi)/2, variance 1-pi/4, median sqrt(ln 2).
		{"Weibull(1, 2).Mean()", wei.Mean(), math.Sqrt(math.Pi) / 2},
		{"Weibull(1, 2).Variance()", wei.Variance(), 1 - math.Pi/4},
		{"Weibull(1, 2).Quantile(0.5)", wei.Quantile(0.5), math.Sqrt(ln2)},
		{"Weibull(1, 2).CDF(1)", wei.CDF(1), 1 - math.Exp(-1)},
		// Constant: a point mass.
		{"Constant(0.5).Quantile(0)", con.Quantile(0), 0.5},
		{"Constant(0.5).CDF(0.4999)", con.CDF(0.4999), 0},
		{"Constant(0.5).CDF(0.5)", con.CDF(0.5), 1},
		{"Constant(0.5).Variance()", con.Variance(), 0},
	}
	for _, c := range checks {
		if !closeRel(c.got, c.want, 1e-12) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}

	// Heavy tails report infinite moments.
	if got := must(t)(Pareto(1, 2)).Variance(); !math.IsInf(got, 1) {
		t.Errorf("Pareto(1, 2).Variance() = %v, want +Inf", got)
	}
	if got := must(t)(Pareto(1, 1)).Mean(); !math.IsInf(got, 1) {
		t.Errorf("Pareto(1, 1).Mean() = %v, want +Inf", got)
	}
	// Degenerate uniform behaves like a constant.
	deg := must(t)(Uniform(2, 2))
	if got := []float64{deg.CDF(1.9), deg.CDF(2), deg.Quantile(0.3), deg.Variance()}; !slices.Equal(got, []float64{0, 1, 2, 0}) {
		t.Errorf("Uniform(2, 2): CDF(1.9), CDF(2), Quantile(0.3), Variance() = %v, want [0 1 2 0]", got)
	}
}

func TestLogNormalP99(t *testing.T) {
	for _, tt := range []struct{ median, p99 float64 }{
		{0.04, 0.5}, {1, 1.0001}, {0.2, 30}, {1e-3, 1e3},
	} {
		d := must(t)(LogNormalP99(tt.median, tt.p99))
		if got := d.Quantile(0.5); !closeRel(got, tt.median, 1e-9) {
			t.Errorf("LogNormalP99(%v, %v).Quantile(0.5) = %v, want %v", tt.median, tt.p99, got, tt.median)
		}
		if got := d.Quantile(0.99); !closeRel(got, tt.p99, 1e-9) {
			t.Errorf("LogNormalP99(%v, %v).Quantile(0.99) = %v, want %v", tt.median, tt.p99, got, tt.p99)
		}
	}
	// sigma = ln(p99/median)/z_0.99, z_0.99 = 2.3263478740408408
	// (scipy.stats.norm.ppf(0.99)); compare with the sigma form.
	a := must(t)(LogNormalP99(0.04, 0.5))
	b := must(t)(LogNormal(0.04, math.Log(12.5)/2.3263478740408408))
	if !closeRel(a.Mean(), b.Mean(), 1e-12) || !closeRel(a.Variance(), b.Variance(), 1e-12) {
		t.Errorf("LogNormalP99(0.04, 0.5) mean, variance = %v, %v; want %v, %v (from sigma = ln(12.5)/z_0.99)",
			a.Mean(), a.Variance(), b.Mean(), b.Variance())
	}
}

// TestGamma checks the (mean, cv) parametrisation against the Erlang
// closed form (integer shape k): F(x) = 1 - exp(-bx)*sum_{j<k} (bx)^j/j!,
// with b the RATE k/mean. If gonum's Beta were a scale this would be off
// by a factor of b^2.
func TestGamma(t *testing.T) {
	g := must(t)(Gamma(2, 0.5)) // k = 4, rate 2
	erlang := func(x float64) float64 {
		bx := 2 * x
		term, s := 1.0, 0.0
		for j := range 4 {
			if j > 0 {
				term *= bx / float64(j)
			}
			s += term
		}
		return 1 - math.Exp(-bx)*s
	}
	for _, x := range []float64{0.5, 1, 2, 3, 6} {
		if got, want := g.CDF(x), erlang(x); !closeRel(got, want, 1e-12) {
			t.Errorf("Gamma(2, 0.5).CDF(%v) = %v, want %v (Erlang-4, rate 2)", x, got, want)
		}
		if got := g.Quantile(erlang(x)); !closeRel(got, x, 1e-9) {
			t.Errorf("Gamma(2, 0.5).Quantile(%v) = %v, want %v", erlang(x), got, x)
		}
	}
	// Lower tail at small shapes, where gonum's GammaIncRegInv alone returns
	// 0 (k = 1/9, p = 1e-6) or is 36% off in p (k = 1/9, p = 0.01): the
	// polished quantile must satisfy CDF(Quantile(p)) = p. The cases keep
	// the quantile above the float64 underflow limit: near 0,
	// F(x) ≈ (bx)^k/Γ(k+1), so for k = 0.01, p = 0.01 it is ~6e-201.
	for _, tt := range []struct{ cv, p float64 }{
		{10, 0.01}, {10, 0.3}, {3, 1e-12}, {3, 1e-6}, {3, 0.01}, {1.5, 1e-12}, {1.5, 1e-6},
		{0.5, 1e-12}, {0.1, 1e-12}, {0.1, 0.2}, {0.001, 1e-9},
	} {
		d := must(t)(Gamma(1, tt.cv))
		q := d.Quantile(tt.p)
		if got := d.CDF(q); !(q > 0) || !closeRel(got, tt.p, 1e-12) {
			t.Errorf("Gamma(1, %v): CDF(Quantile(%v) = %v) = %v, want %v", tt.cv, tt.p, q, got, tt.p)
		}
	}

	// cv = 1 is the exponential with the same mean.
	g1, e := must(t)(Gamma(0.3, 1)), must(t)(Exponential(0.3))
	for _, p := range []float64{0.1, 0.5, 0.99} {
		if got, want := g1.Quantile(p), e.Quantile(p); !closeRel(got, want, 1e-9) {
			t.Errorf("Gamma(0.3, 1).Quantile(%v) = %v, want %v (Exponential(0.3))", p, got, want)
		}
	}

	// Mean and cv, analytically and from samples. The sample variance s^2
	// has standard error sigma^2*sqrt((2 + kappa)/n) with excess kurtosis
	// kappa = 6/k for the gamma (normal approximation for the variance of
	// s^2: (mu_4 - sigma^4)/n).
	for i, tt := range []struct{ mean, cv float64 }{{2, 0.5}, {0.05, 1.5}, {1, 3}} {
		d := must(t)(Gamma(tt.mean, tt.cv))
		if got := math.Sqrt(d.Variance()) / d.Mean(); !closeRel(d.Mean(), tt.mean, 0) || !closeRel(got, tt.cv, 1e-15) {
			t.Errorf("Gamma(%v, %v): Mean() = %v, cv = %v; want %v, %v", tt.mean, tt.cv, d.Mean(), got, tt.mean, tt.cv)
		}
		r := rand.New(rand.NewPCG(3, uint64(i)))
		var s, s2 float64
		for range nDraws {
			x := d.Sample(r)
			s += x
			s2 += x * x
		}
		n := float64(nDraws)
		m := s / n
		v := (s2 - n*m*m) / (n - 1)
		sigma2 := d.Variance()
		k := 1 / (tt.cv * tt.cv)
		if tol := zTol * sigma2 * math.Sqrt((2+6/k)/n); math.Abs(v-sigma2) > tol {
			t.Errorf("Gamma(%v, %v): sample variance = %.6g, want %.6g ± %.3g", tt.mean, tt.cv, v, sigma2, tol)
		}
	}
}

func TestMixture(t *testing.T) {
	c1 := must(t)(Constant(1))
	u02 := must(t)(Uniform(0, 2))
	// 0.5*Constant(1) + 0.5*Uniform(0, 2): CDF(x) = x/4 for x < 1,
	// 0.5 + x/4 for 1 <= x < 2. Variance by total variance: both means are 1,
	// so 0.5*0 + 0.5*(4/12) = 1/6.
	m := must(t)(Mixture([]float64{2, 2}, []Dist{c1, u02}))
	for _, tt := range []struct {
		what      string
		got, want float64
	}{
		{"Mean()", m.Mean(), 1},
		{"Variance()", m.Variance(), 1.0 / 6},
		{"CDF(0.5)", m.CDF(0.5), 0.125},
		{"CDF(1)", m.CDF(1), 0.75},
		{"CDF(1.5)", m.CDF(1.5), 0.875},
		{"Quantile(0)", m.Quantile(0), 0},
		{"Quantile(0.2)", m.Quantile(0.2), 0.8},
		{"Quantile(0.25)", m.Quantile(0.25), 1}, // the jump starts at F = 0.25
		{"Quantile(0.5)", m.Quantile(0.5), 1},   // inside the jump
		{"Quantile(0.75)", m.Quantile(0.75), 1}, // top of the jump
		{"Quantile(0.8)", m.Quantile(0.8), 1.2},
		{"Quantile(1)", m.Quantile(1), 2},
	} {
		if !closeRel(tt.got, tt.want, 1e-12) {
			t.Errorf("%v.%s = %v, want %v", m, tt.what, tt.got, tt.want)
		}
	}

	// Mean is the weighted mean; Variance the law of total variance.
	ln := must(t)(LogNormal(0.04, 1))
	ex := must(t)(Exponential(2))
	g := must(t)(Gamma(0.5, 0.5))
	w := []float64{0.7, 0.2, 0.1}
	mix := must(t)(Mixture(w, []Dist{ln, ex, g}))
	wantMean := 0.7*ln.Mean() + 0.2*ex.Mean() + 0.1*g.Mean()
	wantVar := 0.7*SecondMoment(ln) + 0.2*SecondMoment(ex) + 0.1*SecondMoment(g) - wantMean*wantMean
	if !closeRel(mix.Mean(), wantMean, 1e-12) || !closeRel(mix.Variance(), wantVar, 1e-12) {
		t.Errorf("%v: Mean(), Variance() = %v, %v; want %v, %v", mix, mix.Mean(), mix.Variance(), wantMean, wantVar)
	}
	// Quantile/CDF round trip across many decades.
	for _, p := range []float64{1e-9, 0.001, 0.05, 0.3, 0.5, 0.69, 0.7, 0.71, 0.9, 0.99, 0.999999} {
		q := mix.Quantile(p)
		if got := mix.CDF(q); math.Abs(got-p) > 1e-12 {
			t.Errorf("%v: CDF(Quantile(%v) = %v) = %v, want %v", mix, p, q, got, p)
		}
	}
	// Weights are normalised: {2, 1, 1} prints as {0.5, 0.25, 0.25} (these
	// normalise exactly; in general the result is w_i/sum to within rounding).
	a := must(t)(Mixture([]float64{2, 1, 1}, []Dist{ln, ex, g}))
	b := must(t)(Mixture([]float64{0.5, 0.25, 0.25}, []Dist{ln, ex, g}))
	if a.String() != b.String() {
		t.Errorf("Mixture({2,1,1}) = %v, want %v", a, b)
	}
	// The slices are copied.
	w[0] = 100
	if got := mix.Mean(); !closeRel(got, wantMean, 1e-12) {
		t.Errorf("after mutating weights, Mean() = %v, want %v", got, wantMean)
	}
	// Infinite component moments propagate.
	heavy := must(t)(Mixture([]float64{1, 1}, []Dist{ex, must(t)(Pareto(1, 1.5))}))
	if v := heavy.Variance(); !math.IsInf(v, 1) {
		t.Errorf("%v.Variance() = %v, want +Inf", heavy, v)
	}
	heavier := must(t)(Mixture([]float64{1, 1}, []Dist{ex, must(t)(Pareto(1, 0.8))}))
	if m, v := heavier.Mean(), heavier.Variance(); !math.IsInf(m, 1) || !math.IsInf(v, 1) {
		t.Errorf("%v: Mean(), Variance() = %v, %v; want +Inf, +Inf", heavier, m, v)
	}
	if q := heavier.Quantile(1); !math.IsInf(q, 1) {
		t.Errorf("%v.Quantile(1) = %v, want +Inf", heavier, q)
	}
}

func TestEmpirical(t *testing.T) {
	in := []float64{5, 1, 4, 2, 3}
	d := must(t)(Empirical(in))
	in[0] = 100 // the constructor copied
	// Reference quantiles: numpy.percentile([1,2,3,4,5], [0,10,25,50,90,100])
	// = [1, 1.4, 2, 3, 4.6, 5] (method "linear", Hyndman & Fan type 7).
	// Mean 3; population variance (1+4+0+1+4)... = sum (x-3)^2 / 5 = 2.
	for _, tt := range []struct {
		what      string
		got, want float64
	}{
		{"Quantile(0)", d.Quantile(0), 1},
		{"Quantile(0.1)", d.Quantile(0.1), 1.4},
		{"Quantile(0.25)", d.Quantile(0.25), 2},
		{"Quantile(0.5)", d.Quantile(0.5), 3},
		{"Quantile(0.9)", d.Quantile(0.9), 4.6},
		{"Quantile(1)", d.Quantile(1), 5},
		{"Mean()", d.Mean(), 3},
		{"Variance()", d.Variance(), 2},
		{"CDF(0.5)", d.CDF(0.5), 0},
		{"CDF(1)", d.CDF(1), 0.2},
		{"CDF(2.5)", d.CDF(2.5), 0.4},
		{"CDF(3)", d.CDF(3), 0.6},
		{"CDF(5)", d.CDF(5), 1},
	} {
		if !closeRel(tt.got, tt.want, 1e-12) {
			t.Errorf("Empirical([5 1 4 2 3]).%s = %v, want %v", tt.what, tt.got, tt.want)
		}
	}

	// Ties and an even count: numpy.percentile([0.1,0.1,0.2,0.7], [50, 75])
	// = [0.15, 0.325]; CDF(0.1) = 2/4.
	dup := must(t)(Empirical([]float64{0.7, 0.1, 0.2, 0.1}))
	if got := []float64{dup.Quantile(0.5), dup.Quantile(0.75), dup.CDF(0.1)}; !closeRel(got[0], 0.15, 1e-12) ||
		!closeRel(got[1], 0.325, 1e-12) || got[2] != 0.5 {
		t.Errorf("Empirical([0.7 0.1 0.2 0.1]): Quantile(0.5), Quantile(0.75), CDF(0.1) = %v, want [0.15 0.325 0.5]", got)
	}

	// A single sample is a constant.
	one := must(t)(Empirical([]float64{0.25}))
	if got := []float64{one.Quantile(0), one.Quantile(0.7), one.Quantile(1), one.Variance()}; !slices.Equal(got, []float64{0.25, 0.25, 0.25, 0}) {
		t.Errorf("Empirical([0.25]): Quantile(0, 0.7, 1), Variance() = %v, want [0.25 0.25 0.25 0]", got)
	}

	// Bootstrap: each of the 5 values is drawn with probability 1/5; the
	// count of each is Binomial(n, 0.2), so within zTol*sqrt(n*0.2*0.8).
	r := rand.New(rand.NewPCG(1, 2))
	counts := map[float64]float64{}
	for range nDraws {
		counts[d.Sample(r)]++
	}
	n := float64(nDraws)
	tol := zTol * math.Sqrt(n*0.2*0.8)
	for _, v := range []float64{1, 2, 3, 4, 5} {
		if math.Abs(counts[v]-n/5) > tol {
			t.Errorf("Empirical([1..5]): %v drawn %v times in %v, want %v ± %.0f", v, counts[v], n, n/5, tol)
		}
	}
	if len(counts) != 5 {
		t.Errorf("Empirical([1..5]) drew %d distinct values, want 5: %v", len(counts), counts)
	}
}
