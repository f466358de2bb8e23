// Package fit fits candidate service-time distributions to observed
// latencies by maximum likelihood, ranks them by the Kolmogorov–Smirnov
// distance, and checks whether the data's tail is heavier than the chosen
// model's.
//
// The candidates are the families of the scenario language, with its
// parameter names:
//
//	exponential {mean}
//	lognormal   {median, sigma}
//	weibull     {scale, shape}
//	gamma       {mean, cv}
//	pareto      {min, alpha}
//
// Time-valued parameters (mean, median, scale, min) are in the unit of the
// samples: seconds when they come from the latencylog package. CDFs and
// quantiles of the fitted models are those of gonum's distuv package.
package fit

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// Names of the candidate families, as spelled in scenario files.
const (
	Exponential = "exponential"
	LogNormal   = "lognormal"
	Weibull     = "weibull"
	Gamma       = "gamma"
	Pareto      = "pareto"
)

// Candidate is one family fitted to the samples by maximum likelihood.
type Candidate struct {
	// Dist is the family name: one of the constants above.
	Dist string `json:"dist"`

	// Params holds the fitted parameters under the scenario language's
	// names (see the package comment). encoding/json writes map keys in
	// sorted order, so JSON output is deterministic; [Candidate.String]
	// sorts them too.
	Params map[string]float64 `json:"params"`

	// KS is the one-sample Kolmogorov–Smirnov statistic
	// D = sup_x |F_n(x) - F(x)| between the samples and the fitted CDF.
	KS float64 `json:"ks"`

	// PValue is the asymptotic Kolmogorov-distribution p-value of KS, with
	// Stephens' small-sample correction (see [KSPValue]). It is only
	// approximate here: the parameters were estimated from the same data,
	// which makes D smaller than the Kolmogorov law assumes, so the
	// p-value is too large (Lilliefors 1967). Use it to rank and to spot
	// gross misfits, not as an exact test.
	PValue float64 `json:"p_value"`

	// LogLik is the maximised log-likelihood, sum of ln f(x_i).
	LogLik float64 `json:"log_lik"`

	// AIC is Akaike's information criterion, 2k - 2 LogLik, with k the
	// number of fitted parameters (1 for exponential, 2 for the others).
	AIC float64 `json:"aic"`

	// Quantile is the fitted model's quantile function (inverse CDF),
	// from gonum distuv. It panics if p is outside [0, 1], as distuv does.
	Quantile func(p float64) float64 `json:"-"`

	// CDF is the fitted model's cumulative distribution function.
	CDF func(x float64) float64 `json:"-"`
}

// String formats the candidate as "lognormal{median: 0.04, sigma: 0.8}",
// parameters in sorted order with 4 significant digits.
func (c Candidate) String() string {
	keys := make([]string, 0, len(c.Params))
	for k := range c.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(c.Dist)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %.4g", k, c.Params[k])
	}
	b.WriteByte('}')
	return b.String()
}

// Report is the outcome of [Fit].
type Report struct {
	// N is the number of samples.
	N int `json:"n"`

	// Candidates holds every family, best first: by increasing KS, ties
	// broken by increasing AIC.
	Candidates []Candidate `json:"candidates"`

	// Best is Candidates[0].
	Best Candidate `json:"best"`

	// TailP is the probability at which the tail is checked: 0.999 when
	// N >= 1000, else 0.99.
	TailP float64 `json:"tail_p"`

	// TailEmpirical is the empirical TailP-quantile, the order statistic
	// x_(ceil(N*TailP)) (the inverse of the empirical CDF).
	TailEmpirical float64 `json:"tail_empirical"`

	// TailLower is a one-sided 97.5% lower confidence bound for the true
	// TailP-quantile: the order statistic x_(r) with
	// r = floor(N p - 1.96 sqrt(N p (1-p))), p = TailP (the normal
	// approximation to the binomial count of samples below a quantile).
	// It is 0 when r < 1 (too few samples to bound the quantile).
	TailLower float64 `json:"tail_lower"`

	// TailRatio is TailEmpirical divided by Best's TailP-quantile: above 1
	// the data's tail is longer than the model's.
	TailRatio float64 `json:"tail_ratio"`

	// TailHeavier reports whether the data's tail is heavier than Best's
	// beyond sampling error: TailLower > Best.Quantile(TailP).
	//
	// Derivation: if q is the true p-quantile, the number of samples <= q
	// is Binomial(N, p), and x_(r) > q exactly when fewer than r samples
	// are <= q. With r as in TailLower that happens with probability about
	// Phi(-1.96) = 2.5%. So when Best is the true model, TailHeavier is a
	// false alarm about 2.5% of the time. The check ignores the estimation
	// error of the fitted quantile, which for these families is several
	// times smaller than the empirical quantile's at p = 0.999.
	TailHeavier bool `json:"tail_heavier"`
}

// tailZ is the one-sided 97.5% standard normal quantile used by TailLower.
const tailZ = 1.959963984540054

// model is what a fitted gonum distribution provides.
type model interface {
	CDF(x float64) float64
	Quantile(p float64) float64
	LogProb(x float64) float64
}

// Fit fits every candidate family to samples by maximum likelihood and
// ranks them. samples need not be sorted and are not modified. Every sample
// must be finite and > 0 (the families live on (0, inf)), there must be at
// least 2, and not all equal.
//
// Estimators (all closed form or one-dimensional Newton, safeguarded by
// bisection):
//
//	exponential: mean = sample mean.
//	lognormal:   mu, sigma = mean and (1/n) standard deviation of ln x;
//	             median = exp(mu).
//	weibull:     shape k solves 1/k + mean(ln x) - sum x^k ln x / sum x^k = 0
//	             (the profile-likelihood equation; Johnson, Kotz &
//	             Balakrishnan, Continuous Univariate Distributions vol. 1,
//	             ch. 21), scale = (mean x^k)^(1/k).
//	gamma:       shape k solves ln k - digamma(k) = ln mean(x) - mean(ln x),
//	             from Minka's initial value (Minka 2002, "Estimating a Gamma
//	             distribution"); mean = sample mean, cv = 1/sqrt(k).
//	pareto:      min = smallest sample, alpha = n / sum ln(x/min).
//
// Fit is safe for concurrent use. It allocates O(n).
func Fit(samples []float64) (Report, error) {
	n := len(samples)
	if n < 2 {
		return Report{}, fmt.Errorf("samples: need at least 2, got %d", n)
	}
	for i, v := range samples {
		if !(v > 0) || math.IsInf(v, 0) {
			return Report{}, fmt.Errorf("samples[%d]: must be finite and > 0, got %v (the fitted families live on (0, inf); drop or floor zero latencies below the clock's resolution)", i, v)
		}
	}
	x := slices.Clone(samples)
	slices.Sort(x)
	if x[0] == x[n-1] {
		return Report{}, fmt.Errorf("samples: all %d equal %v; nothing to fit", n, x[0])
	}
	d := newData(x)

	fits := []struct {
		name string
		fn   func(*data) (model, map[string]float64, error)
		k    int
	}{
		{Exponential, fitExponential, 1},
		{LogNormal, fitLogNormal, 2},
		{Weibull, fitWeibull, 2},
		{Gamma, fitGamma, 2},
		{Pareto, fitPareto, 2},
	}
	r := Report{N: n, Candidates: make([]Candidate, 0, len(fits))}
	for _, f := range fits {
		m, params, err := f.fn(d)
		if err != nil {
			return Report{}, fmt.Errorf("%s: %w", f.name, err)
		}
		ll := 0.0
		for _, v := range x {
			ll += m.LogProb(v)
		}
		ks := ksSorted(x, m.CDF)
		r.Candidates = append(r.Candidates, Candidate{
			Dist:     f.name,
			Params:   params,
			KS:       ks,
			PValue:   KSPValue(ks, n),
			LogLik:   ll,
			AIC:      2*float64(f.k) - 2*ll,
			Quantile: m.Quantile,
			CDF:      m.CDF,
		})
	}
	sort.SliceStable(r.Candidates, func(i, j int) bool {
		a, b := r.Candidates[i], r.Candidates[j]
		if a.KS != b.KS {
			return a.KS < b.KS
		}
		return a.AIC < b.AIC
	})
	r.Best = r.Candidates[0]

	r.setTail(x)
	return r, nil
}

// setTail fills the Tail fields of r from the sorted samples x and the
// quantile function of r.Best.
func (r *Report) setTail(x []float64) {
	n := len(x)
	r.TailP = 0.99
	if n >= 1000 {
		r.TailP = 0.999
	}
	p, nf := r.TailP, float64(n)
	// The 1e-9 keeps float rounding in n*p (999.0000000000001) from
	// moving the rank.
	r.TailEmpirical = x[orderIndex(math.Ceil(float64(nf*p)-1e-9), n)]
	fitted := r.Best.Quantile(p)
	r.TailRatio = r.TailEmpirical / fitted
	r.TailLower, r.TailHeavier = 0, false
	if rank := math.Floor(float64(nf*p) - float64(tailZ*math.Sqrt(nf*p*(1-p)))); rank >= 1 {
		r.TailLower = x[orderIndex(rank, n)]
		r.TailHeavier = r.TailLower > fitted
	}
}

// orderIndex converts a 1-based rank to a 0-based index into n sorted
// samples, clamped to the valid range.
func orderIndex(rank float64, n int) int {
	return min(max(int(rank), 1), n) - 1
}

// data holds the sufficient statistics shared by the fits.
type data struct {
	x       []float64 // sorted ascending
	logx    []float64 // ln x, same order
	mean    float64   // mean of x
	meanLog float64   // mean of ln x
	sdLog   float64   // (1/n) standard deviation of ln x
}

func newData(x []float64) *data {
	n := float64(len(x))
	d := &data{x: x, logx: make([]float64, len(x))}
	var sum, sumLog float64
	for i, v := range x {
		d.logx[i] = math.Log(v)
		sum += v
		sumLog += d.logx[i]
	}
	d.mean, d.meanLog = sum/n, sumLog/n
	var ss float64
	for _, l := range d.logx {
		ss += float64((l - d.meanLog) * (l - d.meanLog))
	}
	d.sdLog = math.Sqrt(ss / n)
	return d
}

func fitExponential(d *data) (model, map[string]float64, error) {
	return distuv.Exponential{Rate: 1 / d.mean}, map[string]float64{"mean": d.mean}, nil
}

func fitLogNormal(d *data) (model, map[string]float64, error) {
	return distuv.LogNormal{Mu: d.meanLog, Sigma: d.sdLog},
		map[string]float64{"median": math.Exp(d.meanLog), "sigma": d.sdLog}, nil
}

func fitWeibull(d *data) (model, map[string]float64, error) {
	// Work with y = x / max(x) so that y^k = exp(k ln y) <= 1 never
	// overflows; the shape is scale-free and the scale rescales back.
	lmax := d.logx[len(d.logx)-1]
	n := float64(len(d.x))
	meanLogY := d.meanLog - lmax
	sums := func(k float64) (b, a, c float64) {
		for _, l := range d.logx {
			ly := l - lmax
			yk := math.Exp(k * ly)
			b += yk
			a += float64(yk * ly)
			c += float64(yk * ly * ly)
		}
		return b, a, c
	}
	// g(k) = 1/k + mean(ln y) - A/B is strictly decreasing (C B >= A^2 by
	// Cauchy–Schwarz), from +inf at 0+ to mean(ln y) - max(ln y) < 0.
	g := func(k float64) (float64, float64) {
		b, a, c := sums(k)
		return 1/k + meanLogY - a/b, -1/float64(k*k) - (float64(c*b)-float64(a*a))/float64(b*b)
	}
	// Initial value: Var(ln X) = pi^2 / (6 k^2) for a Weibull variable.
	k0 := math.Pi / (math.Sqrt(6) * d.sdLog)
	k, err := solveDecreasing(g, k0)
	if err != nil {
		return nil, nil, fmt.Errorf("shape: %w", err)
	}
	b, _, _ := sums(k)
	scale := math.Exp(lmax + math.Log(b/n)/k)
	return distuv.Weibull{K: k, Lambda: scale}, map[string]float64{"scale": scale, "shape": k}, nil
}

func fitGamma(d *data) (model, map[string]float64, error) {
	s := math.Log(d.mean) - d.meanLog // > 0 by Jensen's inequality
	if !(s > 0) {
		return nil, nil, fmt.Errorf("ln(mean) - mean(ln x) = %v: must be > 0 (data too close to constant)", s)
	}
	// Minka (2002), eq. 7: an approximation of the root good to ~1.5%.
	k0 := (3 - s + math.Sqrt(float64((s-3)*(s-3))+float64(24*s))) / (12 * s)
	f := func(k float64) (float64, float64) {
		return math.Log(k) - mathext.Digamma(k) - s, 1/k - trigamma(k)
	}
	k, err := solveDecreasing(f, k0)
	if err != nil {
		return nil, nil, fmt.Errorf("shape: %w", err)
	}
	return distuv.Gamma{Alpha: k, Beta: k / d.mean},
		map[string]float64{"mean": d.mean, "cv": 1 / math.Sqrt(k)}, nil
}

func fitPareto(d *data) (model, map[string]float64, error) {
	xm := d.x[0]
	n := float64(len(d.x))
	var s float64
	lxm := d.logx[0]
	for _, l := range d.logx {
		s += l - lxm
	}
	alpha := n / s
	return distuv.Pareto{Xm: xm, Alpha: alpha}, map[string]float64{"min": xm, "alpha": alpha}, nil
}

// errNoConvergence is returned by solveDecreasing when the iteration limit
// is reached; with bisection as a safeguard it indicates a bad function.
var errNoConvergence = errors.New("root finder did not converge")

// solveDecreasing finds the root in (0, inf) of f, a strictly decreasing
// function returning its value and derivative, starting from k0 > 0. It
// brackets the root by doubling or halving, then takes Newton steps and
// falls back to bisection whenever a step leaves the bracket.
func solveDecreasing(f func(float64) (float64, float64), k0 float64) (float64, error) {
	if !(k0 > 0) || math.IsInf(k0, 0) {
		k0 = 1
	}
	lo, hi := k0, k0
	v0, _ := f(k0)
	if v0 == 0 {
		return k0, nil
	}
	for i := 0; ; i++ {
		if i == 2000 {
			return 0, errNoConvergence
		}
		if v0 > 0 {
			lo, hi = hi, hi*2
			if v, _ := f(hi); v <= 0 {
				break
			}
		} else {
			hi, lo = lo, lo/2
			if v, _ := f(lo); v >= 0 {
				break
			}
		}
	}
	k := min(max(k0, lo), hi)
	for range 200 {
		v, dv := f(k)
		if v == 0 {
			return k, nil
		}
		if v > 0 {
			lo = k
		} else {
			hi = k
		}
		next := k - v/dv
		if !(dv < 0) || !(next > lo && next < hi) {
			next = lo + (hi-lo)/2
		}
		if math.Abs(next-k) <= 1e-13*k || hi-lo <= 1e-13*hi {
			return next, nil
		}
		k = next
	}
	return 0, errNoConvergence
}

// trigamma returns psi'(x), the derivative of the digamma function, for
// x > 0. gonum has no trigamma. It uses the recurrence
// psi'(x) = psi'(x+1) + 1/x^2 (Abramowitz & Stegun 6.4.6) to reach x >= 20,
// then the asymptotic series 1/x + 1/(2x^2) + sum_j B_2j / x^(2j+1)
// (A&S 6.4.12) through B_10, whose first omitted term, B_12/x^13, is below
// 1e-17 there.
func trigamma(x float64) float64 {
	var r float64
	for ; x < 20; x++ {
		r += 1 / float64(x*x)
	}
	z := 1 / (x * x)
	// float64() around each product: no fused multiply-add, the same bits
	// on every CPU.
	p := 1.0/30 - float64(z*5.0/66)
	p = 1.0/42 - float64(z*p)
	p = 1.0/30 - float64(z*p)
	p = 1.0/6 - float64(z*p)
	return r + 1/x + z/2 + float64(z/x*p)
}

// KS returns the one-sample Kolmogorov–Smirnov statistic
// D = sup_x |F_n(x) - F(x)| of samples x against the continuous CDF cdf:
// max over the sorted samples x_(i), i = 1..n, of
// max(i/n - F(x_(i)), F(x_(i)) - (i-1)/n). x need not be sorted and is not
// modified. KS returns 0 for empty x.
func KS(x []float64, cdf func(float64) float64) float64 {
	if slices.IsSorted(x) {
		return ksSorted(x, cdf)
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return ksSorted(s, cdf)
}

func ksSorted(x []float64, cdf func(float64) float64) float64 {
	n := float64(len(x))
	var d float64
	for i, v := range x {
		f := cdf(v)
		d = max(d, float64(i+1)/n-f, f-float64(i)/n)
	}
	return d
}

// KSPValue returns the asymptotic p-value P(D_n >= d) of the one-sample
// Kolmogorov–Smirnov statistic d for n samples against a fully specified
// continuous distribution: Q_KS((sqrt(n) + 0.12 + 0.11/sqrt(n)) d), where
// Q_KS(t) = 2 sum_{j>=1} (-1)^(j-1) exp(-2 j^2 t^2) is the Kolmogorov
// survival function and the factor is Stephens' (1970) correction, as in
// Numerical Recipes (3rd ed., §14.3.3). It is accurate to about 1% in the
// tail for n >= 5; see [Candidate.PValue] for why it is optimistic when the
// distribution was fitted to the same data.
func KSPValue(d float64, n int) float64 {
	if n <= 0 || !(d > 0) {
		return 1
	}
	sn := math.Sqrt(float64(n))
	return kolmogorovQ((sn + 0.12 + 0.11/sn) * d)
}

// kolmogorovQ is the survival function of the Kolmogorov distribution,
// P(K > t). For t < 1.18 it uses the Jacobi-theta form
// 1 - (sqrt(2 pi)/t) sum_{j>=1} exp(-(2j-1)^2 pi^2 / (8 t^2)), which
// converges fast there; above, the alternating series (Numerical Recipes,
// 3rd ed., §6.14.12).
func kolmogorovQ(t float64) float64 {
	switch {
	case t <= 0:
		return 1
	case t < 1.18:
		var sum float64
		c := -math.Pi * math.Pi / (8 * t * t)
		for j := 1; j <= 100; j++ {
			m := float64(2*j - 1)
			term := math.Exp(c * m * m)
			sum += term
			if term < 1e-17*sum {
				break
			}
		}
		return max(0, min(1, 1-float64(math.Sqrt(2*math.Pi)/t*sum)))
	default:
		var sum float64
		sign := 1.0
		for j := 1; j <= 100; j++ {
			term := math.Exp(-2 * float64(j*j) * t * t)
			sum += float64(sign * term)
			if term <= 1e-17*sum {
				break
			}
			sign = -sign
		}
		return max(0, min(1, 2*sum))
	}
}
