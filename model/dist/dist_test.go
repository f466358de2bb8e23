package dist

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// must unwraps a constructor result, as in must(t)(LogNormal(0.04, 1.2)); a
// constructor error here is a broken test.
func must(t testing.TB) func(Dist, error) Dist {
	return func(d Dist, err error) Dist {
		t.Helper()
		if err != nil {
			t.Fatalf("constructor: %v", err)
		}
		return d
	}
}

type namedDist struct {
	name string
	d    Dist
}

// allDists returns one or more instances of every family, including the
// gamma sampler's three code paths (k >= 1, 0.2 <= k < 1, k < 0.2).
func allDists(t testing.TB) []namedDist {
	t.Helper()
	ln := must(t)(LogNormal(0.04, 0.8))
	ex := must(t)(Exponential(0.25))
	return []namedDist{
		{"exponential", ex},
		{"constant", must(t)(Constant(0.3))},
		{"uniform", must(t)(Uniform(0.1, 0.5))},
		{"lognormal", ln},
		{"lognormal_p99", must(t)(LogNormalP99(0.04, 0.5))},
		{"pareto", must(t)(Pareto(0.01, 3.5))},
		{"weibull_k0.7", must(t)(Weibull(1.5, 0.7))},
		{"weibull_k3", must(t)(Weibull(2, 3))},
		{"gamma_k4", must(t)(Gamma(2, 0.5))},
		{"gamma_k0.44", must(t)(Gamma(1, 1.5))},
		{"gamma_k0.11", must(t)(Gamma(1, 3))},
		{"mixture", must(t)(Mixture([]float64{0.9, 0.1}, []Dist{ln, ex}))},
		{"empirical", must(t)(Empirical([]float64{0.5, 0.01, 0.2, 0.2, 0.07, 1.3, 0.04}))},
	}
}

func TestConstructorErrors(t *testing.T) {
	ok := must(t)(Constant(1))
	tests := []struct {
		call string
		f    func() (Dist, error)
		want string // full Error() text; Param is the part before ": "
	}{
		{"Exponential(0)", func() (Dist, error) { return Exponential(0) }, "mean: must be > 0, got 0"},
		{"Exponential(-1)", func() (Dist, error) { return Exponential(-1) }, "mean: must be > 0, got -1"},
		{"Exponential(NaN)", func() (Dist, error) { return Exponential(math.NaN()) }, "mean: must be > 0, got NaN"},
		{"Exponential(+Inf)", func() (Dist, error) { return Exponential(math.Inf(1)) }, "mean: must be finite, got +Inf"},
		{"Constant(-0.5)", func() (Dist, error) { return Constant(-0.5) }, "value: must be >= 0, got -0.5"},
		{"Constant(+Inf)", func() (Dist, error) { return Constant(math.Inf(1)) }, "value: must be finite, got +Inf"},
		{"Uniform(-1, 1)", func() (Dist, error) { return Uniform(-1, 1) }, "min: must be >= 0, got -1"},
		{"Uniform(2, 1)", func() (Dist, error) { return Uniform(2, 1) }, "max: must be >= min (2), got 1"},
		{"Uniform(0, NaN)", func() (Dist, error) { return Uniform(0, math.NaN()) }, "max: must be >= min (0), got NaN"},
		{"Uniform(0, +Inf)", func() (Dist, error) { return Uniform(0, math.Inf(1)) }, "max: must be finite, got +Inf"},
		{"LogNormal(0, 1)", func() (Dist, error) { return LogNormal(0, 1) }, "median: must be > 0, got 0"},
		{"LogNormal(1, -1)", func() (Dist, error) { return LogNormal(1, -1) }, "sigma: must be > 0, got -1"},
		{"LogNormal(1, 0)", func() (Dist, error) { return LogNormal(1, 0) }, "sigma: must be > 0, got 0"},
		{"LogNormalP99(-1, 2)", func() (Dist, error) { return LogNormalP99(-1, 2) }, "median: must be > 0, got -1"},
		{"LogNormalP99(0.04, 0.03)", func() (Dist, error) { return LogNormalP99(0.04, 0.03) }, "p99: must be > median (0.04), got 0.03"},
		{"LogNormalP99(0.04, 0.04)", func() (Dist, error) { return LogNormalP99(0.04, 0.04) }, "p99: must be > median (0.04), got 0.04"},
		{"LogNormalP99(1, +Inf)", func() (Dist, error) { return LogNormalP99(1, math.Inf(1)) }, "p99: must be finite, got +Inf"},
		{"Pareto(0, 2)", func() (Dist, error) { return Pareto(0, 2) }, "min: must be > 0, got 0"},
		{"Pareto(1, -2)", func() (Dist, error) { return Pareto(1, -2) }, "alpha: must be > 0, got -2"},
		{"Weibull(-1, 1)", func() (Dist, error) { return Weibull(-1, 1) }, "scale: must be > 0, got -1"},
		{"Weibull(1, 0)", func() (Dist, error) { return Weibull(1, 0) }, "shape: must be > 0, got 0"},
		{"Gamma(0, 1)", func() (Dist, error) { return Gamma(0, 1) }, "mean: must be > 0, got 0"},
		{"Gamma(1, -0.5)", func() (Dist, error) { return Gamma(1, -0.5) }, "cv: must be > 0, got -0.5"},
		{"Gamma(1, 1e-200)", func() (Dist, error) { return Gamma(1, 1e-200) }, "cv: gives shape 1/cv^2 = +Inf, want finite and > 0"},
		{"Mixture(nil, nil)", func() (Dist, error) { return Mixture(nil, nil) }, "comps: must not be empty"},
		{"Mixture([1], [a b])", func() (Dist, error) { return Mixture([]float64{1}, []Dist{ok, ok}) }, "weights: has 1 entries, want 2 (one per component)"},
		{"Mixture([1 0], [a b])", func() (Dist, error) { return Mixture([]float64{1, 0}, []Dist{ok, ok}) }, "weights[1]: must be > 0, got 0"},
		{"Mixture([1 -2], [a b])", func() (Dist, error) { return Mixture([]float64{1, -2}, []Dist{ok, ok}) }, "weights[1]: must be > 0, got -2"},
		{"Mixture([1 1], [a nil])", func() (Dist, error) { return Mixture([]float64{1, 1}, []Dist{ok, nil}) }, "comps[1]: must not be nil"},
		{"Mixture([max max], [a b])", func() (Dist, error) {
			return Mixture([]float64{math.MaxFloat64, math.MaxFloat64}, []Dist{ok, ok})
		}, "weights: sum overflows float64"},
		{"Empirical(nil)", func() (Dist, error) { return Empirical(nil) }, "samples: must not be empty"},
		{"Empirical([1 2 3 -1])", func() (Dist, error) { return Empirical([]float64{1, 2, 3, -1}) }, "samples[3]: must be >= 0, got -1"},
		{"Empirical([1 NaN])", func() (Dist, error) { return Empirical([]float64{1, math.NaN()}) }, "samples[1]: must be >= 0, got NaN"},
		{"Empirical([+Inf])", func() (Dist, error) { return Empirical([]float64{math.Inf(1)}) }, "samples[0]: must be finite, got +Inf"},
	}
	for _, tt := range tests {
		d, err := tt.f()
		if err == nil {
			t.Errorf("%s = %v, nil; want error %q", tt.call, d, tt.want)
			continue
		}
		if d != nil {
			t.Errorf("%s returned non-nil Dist %v with error", tt.call, d)
		}
		var pe *ParamError
		if !errors.As(err, &pe) {
			t.Errorf("%s error = %T %v, want *ParamError", tt.call, err, err)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("%s error = %q, want %q", tt.call, got, tt.want)
		}
		if wantParam, _, _ := strings.Cut(tt.want, ": "); pe.Param != wantParam {
			t.Errorf("%s error Param = %q, want %q", tt.call, pe.Param, wantParam)
		}
	}
}

func TestString(t *testing.T) {
	ex := must(t)(Exponential(0.1))
	c := must(t)(Constant(30))
	tests := []struct {
		d    Dist
		want string
	}{
		{ex, "exponential(mean=0.1)"},
		{c, "constant(value=30)"},
		{must(t)(Uniform(0, 1e-05)), "uniform(min=0, max=1e-05)"},
		{must(t)(LogNormal(0.04, 1.2)), "lognormal(median=0.04, sigma=1.2)"},
		{must(t)(LogNormalP99(0.04, 0.5)), "lognormal(median=0.04, p99=0.5)"},
		{must(t)(Pareto(0.01, 1.5)), "pareto(min=0.01, alpha=1.5)"},
		{must(t)(Weibull(2, 0.5)), "weibull(scale=2, shape=0.5)"},
		{must(t)(Gamma(0.2, 0.7)), "gamma(mean=0.2, cv=0.7)"},
		{must(t)(Mixture([]float64{3, 1}, []Dist{ex, c})), "mixture(0.75*exponential(mean=0.1), 0.25*constant(value=30))"},
		{must(t)(Empirical([]float64{3, 1, 2})), "empirical(n=3, min=1, mean=2, max=3)"},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

// TestSampleAllocs checks the hot-path contract: Sample never allocates.
// This matters most for Gamma, which relies on the compiler keeping gonum's
// internal rand.New(Src) on the stack.
func TestSampleAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range allDists(t) {
		var sink float64
		got := testing.AllocsPerRun(1000, func() { sink += c.d.Sample(r) })
		if got != 0 {
			t.Errorf("%s: AllocsPerRun(%v.Sample) = %v, want 0", c.name, c.d, got)
		}
	}
}

// TestSampleNoCachedState reseeds the source between draws, as a caller
// using common random numbers does, and requires the draw to repeat exactly.
// A sampler that cached state (say, the second of a Box–Muller pair) would
// return a different value the second time.
func TestSampleNoCachedState(t *testing.T) {
	src := rand.NewPCG(0, 0)
	r := rand.New(src)
	for _, c := range allDists(t) {
		for seed := uint64(1); seed <= 50; seed++ {
			src.Seed(seed, 7)
			first := c.d.Sample(r)
			_ = c.d.Sample(r) // would fill a cache, if there were one
			src.Seed(seed, 7)
			if again := c.d.Sample(r); again != first {
				t.Errorf("%s: Sample after reseed(%d) = %v, want %v", c.name, seed, again, first)
				break
			}
		}
	}
}

// TestSampleMonotoneCRN checks the point of inverse-transform sampling: with
// the same random stream, a distribution that is larger in the usual
// stochastic order gives a draw at least as large, draw by draw.
func TestSampleMonotoneCRN(t *testing.T) {
	pairs := []struct {
		name         string
		small, large Dist
	}{
		{"exponential mean", must(t)(Exponential(0.1)), must(t)(Exponential(0.2))},
		{"uniform max", must(t)(Uniform(0.1, 0.5)), must(t)(Uniform(0.1, 0.9))},
		{"lognormal median", must(t)(LogNormal(0.04, 1)), must(t)(LogNormal(0.05, 1))},
		// Raising p99 alone widens sigma, which also lowers draws below the
		// median, so scale median and p99 together.
		{"lognormal p99", must(t)(LogNormalP99(0.04, 0.5)), must(t)(LogNormalP99(0.05, 0.625))},
		{"pareto min", must(t)(Pareto(1, 2)), must(t)(Pareto(1.5, 2))},
		{"weibull scale", must(t)(Weibull(1, 0.8)), must(t)(Weibull(1.2, 0.8))},
		{"empirical shift", must(t)(Empirical([]float64{1, 2, 3, 4})), must(t)(Empirical([]float64{1.5, 2, 3.5, 4}))},
	}
	for _, p := range pairs {
		rs := rand.New(rand.NewPCG(1, 2))
		rl := rand.New(rand.NewPCG(1, 2))
		for i := range 10000 {
			if s, l := p.small.Sample(rs), p.large.Sample(rl); s > l {
				t.Errorf("%s: draw %d: %v.Sample = %v > %v.Sample = %v", p.name, i, p.small, s, p.large, l)
				break
			}
		}
	}
}

func TestQuantilePanicsOutsideUnitInterval(t *testing.T) {
	for _, c := range allDists(t) {
		for _, p := range []float64{-0.01, 1.01, math.NaN()} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: Quantile(%v) did not panic", c.name, p)
					}
				}()
				c.d.Quantile(p)
			}()
		}
	}
}

// TestEdges checks the ends of the support for every family: nothing below
// 0, Quantile(0) is the lower end, Quantile(1) the upper end (+Inf when
// unbounded) and CDF(Quantile(1)) = 1.
func TestEdges(t *testing.T) {
	for _, c := range allDists(t) {
		if got := c.d.CDF(-1); got != 0 {
			t.Errorf("%s: CDF(-1) = %v, want 0", c.name, got)
		}
		if got := c.d.CDF(math.Inf(1)); got != 1 {
			t.Errorf("%s: CDF(+Inf) = %v, want 1", c.name, got)
		}
		q0, q1 := c.d.Quantile(0), c.d.Quantile(1)
		if !(q0 >= 0) || math.IsInf(q0, 0) {
			t.Errorf("%s: Quantile(0) = %v, want finite >= 0", c.name, q0)
		}
		if !(q1 >= q0) {
			t.Errorf("%s: Quantile(1) = %v, want >= Quantile(0) = %v", c.name, q1, q0)
		}
		if got := c.d.CDF(q1); got != 1 {
			t.Errorf("%s: CDF(Quantile(1) = %v) = %v, want 1", c.name, q1, got)
		}
		if !(c.d.Mean() >= 0) || !(c.d.Variance() >= 0) {
			t.Errorf("%s: Mean, Variance = %v, %v; want both >= 0", c.name, c.d.Mean(), c.d.Variance())
		}
	}
}

func TestSecondMoment(t *testing.T) {
	tests := []struct {
		d    Dist
		want float64 // source in the comment
	}{
		{must(t)(Exponential(2)), 8},           // E[X^2] = 2*mean^2 for the exponential
		{must(t)(Constant(3)), 9},              // value^2
		{must(t)(Uniform(0, 3)), 3},            // (b^3-a^3)/(3(b-a)) = 27/9
		{must(t)(Pareto(1, 3)), 3},             // alpha*xm^2/(alpha-2)
		{must(t)(Pareto(1, 1.5)), math.Inf(1)}, // alpha <= 2: infinite variance
		{must(t)(Pareto(1, 0.5)), math.Inf(1)}, // alpha <= 1: infinite mean
		{must(t)(Gamma(2, 0.5)), 5},            // mean^2*(1+cv^2) = 4*1.25
	}
	for _, tt := range tests {
		if got := SecondMoment(tt.d); !closeRel(got, tt.want, 1e-12) {
			t.Errorf("SecondMoment(%v) = %v, want %v", tt.d, got, tt.want)
		}
	}
}

func TestFamiliesAndParams(t *testing.T) {
	fams := Families()
	if !slices.IsSorted(fams) || len(fams) != 7 {
		t.Errorf("Families() = %v, want 7 sorted names", fams)
	}
	fams[0] = "mutated"
	if got := Families()[0]; got != "constant" {
		t.Errorf("Families()[0] after mutating an earlier result = %q, want %q", got, "constant")
	}
	for _, f := range Families() {
		if p, ok := Params(f); !ok || len(p) == 0 {
			t.Errorf("Params(%q) = %v, %v; want names, true", f, p, ok)
		}
	}
	for _, f := range []string{"mixture", "empirical", "Exponential", ""} {
		if p, ok := Params(f); ok {
			t.Errorf("Params(%q) = %v, true; want false", f, p)
		}
	}
	if got, _ := Params("lognormal"); !slices.Equal(got, []string{"median", "sigma", "p99"}) {
		t.Errorf(`Params("lognormal") = %v, want [median sigma p99]`, got)
	}
}

func TestBuild(t *testing.T) {
	type m = map[string]float64
	tests := []struct {
		family string
		params m
		want   string // String() of the result
	}{
		{"exponential", m{"mean": 0.1}, "exponential(mean=0.1)"},
		{"constant", m{"value": 0}, "constant(value=0)"},
		{"uniform", m{"min": 1, "max": 2}, "uniform(min=1, max=2)"},
		{"lognormal", m{"median": 0.04, "sigma": 1.2}, "lognormal(median=0.04, sigma=1.2)"},
		{"lognormal", m{"median": 0.04, "p99": 0.5}, "lognormal(median=0.04, p99=0.5)"},
		{"pareto", m{"min": 0.01, "alpha": 2.5}, "pareto(min=0.01, alpha=2.5)"},
		{"weibull", m{"scale": 1, "shape": 0.5}, "weibull(scale=1, shape=0.5)"},
		{"gamma", m{"mean": 0.3, "cv": 2}, "gamma(mean=0.3, cv=2)"},
	}
	for _, tt := range tests {
		d, err := Build(tt.family, tt.params)
		if err != nil {
			t.Errorf("Build(%q, %v) error = %v, want nil", tt.family, tt.params, err)
			continue
		}
		if got := d.String(); got != tt.want {
			t.Errorf("Build(%q, %v) = %s, want %s", tt.family, tt.params, got, tt.want)
		}
	}
	// p99 form: same distribution as LogNormalP99.
	d, _ := Build("lognormal", m{"median": 0.04, "p99": 0.5})
	if got := d.Quantile(0.99); !closeRel(got, 0.5, 1e-9) {
		t.Errorf(`Build("lognormal", {median 0.04, p99 0.5}).Quantile(0.99) = %v, want 0.5`, got)
	}
}

func TestBuildErrors(t *testing.T) {
	type m = map[string]float64
	tests := []struct {
		family string
		params m
		want   string
	}{
		{"normal", m{"mean": 1}, `family: unknown family "normal"; want one of constant, exponential, gamma, lognormal, pareto, uniform, weibull`},
		{"mixture", nil, `family: unknown family "mixture"; want one of constant, exponential, gamma, lognormal, pareto, uniform, weibull`},
		{"exponential", m{"mean": 1, "rate": 2, "beta": 3}, "beta: unknown parameter for exponential; allowed: mean"},
		{"exponential", nil, "mean: required"},
		{"uniform", m{"max": 1}, "min: required"},
		{"uniform", m{"min": 1}, "max: required"},
		{"gamma", m{"mean": 1}, "cv: required"},
		{"weibull", m{"shape": 1}, "scale: required"},
		{"pareto", m{"min": 1}, "alpha: required"},
		{"constant", m{}, "value: required"},
		{"lognormal", m{"sigma": 1}, "median: required"},
		{"lognormal", m{"median": 1}, "sigma: required (exactly one of sigma, p99)"},
		{"lognormal", m{"median": 1, "sigma": 1, "p99": 3}, "p99: conflicts with sigma; give exactly one of sigma, p99"},
		{"lognormal", m{"median": 1, "p99": 0.5}, "p99: must be > median (1), got 0.5"},
		{"gamma", m{"mean": 1, "cv": 0}, "cv: must be > 0, got 0"},
		{"uniform", m{"min": 3, "max": 1}, "max: must be >= min (3), got 1"},
	}
	for _, tt := range tests {
		d, err := Build(tt.family, tt.params)
		if err == nil {
			t.Errorf("Build(%q, %v) = %v, nil; want error %q", tt.family, tt.params, d, tt.want)
			continue
		}
		var pe *ParamError
		if !errors.As(err, &pe) {
			t.Errorf("Build(%q, %v) error = %T, want *ParamError", tt.family, tt.params, err)
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("Build(%q, %v) error = %q, want %q", tt.family, tt.params, got, tt.want)
		}
	}
}

// closeRel reports whether got is within rel (relative) of want; equal
// infinities count as close.
func closeRel(got, want, rel float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}
