package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Exponential returns the exponential distribution with the given mean
// (rate 1/mean), the service time of an M/M/1 queue. mean must be finite and
// > 0.
//
// Sample is mean × r.ExpFloat64() (the ziggurat method, about 4× cheaper
// than a logarithm on the simulator's hot path); exponentials are a scale
// family, so common random numbers still couple samples monotonically in
// the mean. Mean returns
// mean exactly and Variance mean^2; Quantile and CDF are gonum's
// distuv.Exponential.
func Exponential(mean float64) (Dist, error) {
	if err := positive("mean", mean); err != nil {
		return nil, err
	}
	return exponential{mean: mean, d: distuv.Exponential{Rate: 1 / mean}}, nil
}

type exponential struct {
	mean float64
	d    distuv.Exponential
}

func (e exponential) Sample(r *rand.Rand) float64 { return e.mean * r.ExpFloat64() }
func (e exponential) Mean() float64               { return e.mean }
func (e exponential) Variance() float64           { return e.mean * e.mean }
func (e exponential) Quantile(p float64) float64  { checkP(p); return e.d.Quantile(p) }
func (e exponential) CDF(x float64) float64       { return e.d.CDF(x) }
func (e exponential) String() string              { return "exponential(mean=" + formatFloat(e.mean) + ")" }

// Constant returns the degenerate distribution that is always value, the
// service time of an M/D/1 queue. value must be finite and >= 0.
//
// Sample returns value without drawing from r. CDF is the step function
// 1{x >= value} and Quantile(p) is value for every p.
func Constant(value float64) (Dist, error) {
	if err := nonNegative("value", value); err != nil {
		return nil, err
	}
	return constant{v: value}, nil
}

type constant struct{ v float64 }

func (c constant) Sample(*rand.Rand) float64  { return c.v }
func (c constant) Mean() float64              { return c.v }
func (c constant) Variance() float64          { return 0 }
func (c constant) Quantile(p float64) float64 { checkP(p); return c.v }
func (c constant) String() string             { return "constant(value=" + formatFloat(c.v) + ")" }
func (c constant) CDF(x float64) float64 {
	if x >= c.v {
		return 1
	}
	return 0
}

// Uniform returns the continuous uniform distribution on [min, max], with
// 0 <= min <= max < +Inf. min == max is allowed and behaves like
// Constant(min).
//
// Sample is inverse transform with one uniform: min + u*(max-min). Mean,
// Variance, Quantile and CDF are gonum's distuv.Uniform (CDF is special-cased
// when min == max).
func Uniform(min, max float64) (Dist, error) {
	if err := nonNegative("min", min); err != nil {
		return nil, err
	}
	if !(max >= min) {
		return nil, &ParamError{Param: "max", Msg: "must be >= min (" + formatFloat(min) + "), got " + formatFloat(max)}
	}
	if math.IsInf(max, 1) {
		return nil, &ParamError{Param: "max", Msg: "must be finite, got " + formatFloat(max)}
	}
	return uniform{d: distuv.Uniform{Min: min, Max: max}}, nil
}

type uniform struct{ d distuv.Uniform }

func (u uniform) Sample(r *rand.Rand) float64 { return u.d.Quantile(r.Float64()) }
func (u uniform) Mean() float64               { return u.d.Mean() }
func (u uniform) Variance() float64           { return u.d.Variance() }
func (u uniform) Quantile(p float64) float64  { checkP(p); return u.d.Quantile(p) }
func (u uniform) CDF(x float64) float64 {
	if x >= u.d.Max { // also covers min == max, where gonum would divide 0 by 0
		return 1
	}
	return u.d.CDF(x)
}
func (u uniform) String() string {
	return "uniform(min=" + formatFloat(u.d.Min) + ", max=" + formatFloat(u.d.Max) + ")"
}

// LogNormal returns the lognormal distribution with the given median
// (= exp(mu)) and shape sigma (the standard deviation of ln X). Both must be
// finite and > 0. Lognormal latencies are the usual model for RPC and LLM
// call times: a few slow calls far above the median.
//
// Sample is inverse transform with one uniform,
// median*exp(sigma*Phi^-1(u)), with Phi^-1 from gonum's
// mathext.NormalQuantile (a rational approximation, AS241). Mean, Variance,
// Quantile and CDF are gonum's distuv.LogNormal.
func LogNormal(median, sigma float64) (Dist, error) {
	if err := positive("median", median); err != nil {
		return nil, err
	}
	if err := positive("sigma", sigma); err != nil {
		return nil, err
	}
	return newLogNormal(median, sigma, 0), nil
}

// LogNormalP99 returns the lognormal distribution with the given median and
// 99th percentile, the two numbers a latency dashboard shows. It requires
// 0 < median < p99 < +Inf and sets
//
//	sigma = ln(p99/median) / z_0.99
//
// where z_0.99 = distuv.UnitNormal.Quantile(0.99) ≈ 2.3263 is the standard
// normal 99th percentile. Its String echoes the parameters as given:
// "lognormal(median=0.04, p99=0.5)".
func LogNormalP99(median, p99 float64) (Dist, error) {
	if err := positive("median", median); err != nil {
		return nil, err
	}
	if !(p99 > median) {
		return nil, &ParamError{Param: "p99", Msg: "must be > median (" + formatFloat(median) + "), got " + formatFloat(p99)}
	}
	if math.IsInf(p99, 1) {
		return nil, &ParamError{Param: "p99", Msg: "must be finite, got " + formatFloat(p99)}
	}
	sigma := math.Log(p99/median) / distuv.UnitNormal.Quantile(0.99)
	if !(sigma > 0) || math.IsInf(sigma, 1) {
		return nil, &ParamError{Param: "p99", Msg: "p99/median = " + formatFloat(p99/median) + " gives no usable sigma"}
	}
	return newLogNormal(median, sigma, p99), nil
}

func newLogNormal(median, sigma, p99 float64) lognormal {
	return lognormal{median: median, p99: p99, d: distuv.LogNormal{Mu: math.Log(median), Sigma: sigma}}
}

type lognormal struct {
	median float64
	p99    float64 // > 0 iff built by LogNormalP99; only used by String
	d      distuv.LogNormal
}

func (l lognormal) Sample(r *rand.Rand) float64 { return l.d.Quantile(r.Float64()) }
func (l lognormal) Mean() float64               { return l.d.Mean() }
func (l lognormal) Variance() float64           { return l.d.Variance() }
func (l lognormal) Quantile(p float64) float64  { checkP(p); return l.d.Quantile(p) }
func (l lognormal) CDF(x float64) float64 {
	if x <= 0 { // gonum would take log of a non-positive number
		return 0
	}
	return l.d.CDF(x)
}
func (l lognormal) String() string {
	if l.p99 > 0 {
		return "lognormal(median=" + formatFloat(l.median) + ", p99=" + formatFloat(l.p99) + ")"
	}
	return "lognormal(median=" + formatFloat(l.median) + ", sigma=" + formatFloat(l.d.Sigma) + ")"
}

// Pareto returns the Pareto (type I) distribution with scale min (the
// smallest value) and tail index alpha, both finite and > 0:
// P(X > x) = (min/x)^alpha for x >= min. The mean is +Inf for alpha <= 1 and
// the variance is +Inf for alpha <= 2.
//
// Sample is inverse transform with one uniform: min*(1-u)^(-1/alpha). Mean,
// Variance, Quantile and CDF are gonum's distuv.Pareto.
func Pareto(min, alpha float64) (Dist, error) {
	if err := positive("min", min); err != nil {
		return nil, err
	}
	if err := positive("alpha", alpha); err != nil {
		return nil, err
	}
	return pareto{d: distuv.Pareto{Xm: min, Alpha: alpha}}, nil
}

type pareto struct{ d distuv.Pareto }

func (p pareto) Sample(r *rand.Rand) float64 { return p.d.Quantile(r.Float64()) }
func (p pareto) Mean() float64               { return p.d.Mean() }
func (p pareto) Variance() float64           { return p.d.Variance() }
func (p pareto) Quantile(q float64) float64  { checkP(q); return p.d.Quantile(q) }
func (p pareto) CDF(x float64) float64       { return p.d.CDF(x) }
func (p pareto) String() string {
	return "pareto(min=" + formatFloat(p.d.Xm) + ", alpha=" + formatFloat(p.d.Alpha) + ")"
}

// Weibull returns the Weibull distribution with the given scale (lambda) and
// shape (k), both finite and > 0: P(X > x) = exp(-(x/scale)^shape). shape 1
// is Exponential(scale); shape < 1 is heavier-tailed.
//
// Sample is inverse transform with one uniform: scale*(-ln(1-u))^(1/shape).
// Mean, Variance, Quantile and CDF are gonum's distuv.Weibull (Variance is
// clamped at 0 against cancellation for very large shapes).
func Weibull(scale, shape float64) (Dist, error) {
	if err := positive("scale", scale); err != nil {
		return nil, err
	}
	if err := positive("shape", shape); err != nil {
		return nil, err
	}
	return weibull{d: distuv.Weibull{K: shape, Lambda: scale}}, nil
}

type weibull struct{ d distuv.Weibull }

func (w weibull) Sample(r *rand.Rand) float64 { return w.d.Quantile(r.Float64()) }
func (w weibull) Mean() float64               { return w.d.Mean() }
func (w weibull) Variance() float64           { return math.Max(0, w.d.Variance()) }
func (w weibull) Quantile(p float64) float64  { checkP(p); return w.d.Quantile(p) }
func (w weibull) CDF(x float64) float64       { return w.d.CDF(x) }
func (w weibull) String() string {
	return "weibull(scale=" + formatFloat(w.d.Lambda) + ", shape=" + formatFloat(w.d.K) + ")"
}

// Gamma returns the gamma distribution with the given mean and coefficient
// of variation cv = sd/mean, both finite and > 0. Its shape is k = 1/cv^2 and
// its rate is k/mean (gonum's distuv.Gamma.Beta is a rate, not a scale).
// cv = 1 is Exponential(mean); cv < 1 is more regular, cv > 1 burstier.
//
// Sample does not use inverse transform (the gamma quantile needs an
// iterative incomplete-gamma inversion, microseconds per draw). It runs
// gonum's distuv.Gamma.Rand with r as its source: Marsaglia & Tsang (2000)
// for k >= 0.2 (boosted by U^(1/k) when k < 1) and Liu, Martin & Syring
// (2017) for k < 0.2. These are rejection samplers: a draw consumes a
// variable number of values from r, and draws are not monotone in the
// parameters. Sample does not allocate (checked by TestSampleAllocs).
//
// Mean returns mean exactly and Variance (cv*mean)^2. CDF is gonum's
// (mathext.GammaIncReg). Quantile is gonum's (mathext.GammaIncRegInv) above
// the median; below it, where GammaIncRegInv is inaccurate for small shapes,
// it is refined by Newton's method on the log-log CDF (see lowerQuantile).
func Gamma(mean, cv float64) (Dist, error) {
	if err := positive("mean", mean); err != nil {
		return nil, err
	}
	if err := positive("cv", cv); err != nil {
		return nil, err
	}
	k := 1 / (cv * cv)
	if !(k > 0) || math.IsInf(k, 1) {
		return nil, &ParamError{Param: "cv", Msg: "gives shape 1/cv^2 = " + formatFloat(k) + ", want finite and > 0"}
	}
	return gamma{mean: mean, cv: cv, d: distuv.Gamma{Alpha: k, Beta: k / mean}}, nil
}

type gamma struct {
	mean, cv float64
	d        distuv.Gamma
}

func (g gamma) Sample(r *rand.Rand) float64 {
	d := g.d
	d.Src = r // *rand.Rand is a rand.Source; gonum's rand.New(Src) stays on the stack
	return d.Rand()
}
func (g gamma) Mean() float64     { return g.mean }
func (g gamma) Variance() float64 { sd := g.cv * g.mean; return sd * sd }
func (g gamma) Quantile(p float64) float64 {
	checkP(p)
	switch {
	case p == 0:
		return 0
	case p == 1:
		return math.Inf(1)
	case p > 0.5:
		return g.d.Quantile(p) // gonum is accurate to ~1e-15 in p here
	}
	return g.lowerQuantile(p)
}

// lowerQuantile solves F(x) = p for 0 < p <= 0.5 by Newton's method on
// h(t) = ln F(e^t) - ln p, t = ln x.
//
// gonum's mathext.GammaIncRegInv is inaccurate in the lower tail for small
// shapes: for k = 1/9 it returns 0 at p = 1e-6 and a value whose CDF is
// 0.0136 at p = 0.01. It is used only as the starting point, replaced by the
// leading term of the series F(x) ≈ (bx)^k/Γ(k+1) when it is 0.
//
// Convergence: ln X has density ∝ exp(k*t - b*e^t), which is log-concave,
// so its CDF is log-concave and h is concave and increasing. Newton's
// tangent then lies above h: every step lands at or left of the root, and
// from the left the iterates increase monotonically to it. Near 0, h is
// almost linear (F ∝ x^k), so a few steps reach full precision.
func (g gamma) lowerQuantile(p float64) float64 {
	k, b := g.d.Alpha, g.d.Beta
	lgk1, _ := math.Lgamma(k + 1)
	lgk, _ := math.Lgamma(k)
	lp := math.Log(p)
	x := g.d.Quantile(p)
	if !(x > 0) || math.IsInf(x, 1) {
		x = math.Exp((lp+lgk1)/k) / b
		if x == 0 {
			return 0 // the quantile is below the smallest float64
		}
	}
	t := math.Log(x)
	for range 100 {
		F := g.d.CDF(x)
		if F <= 0 {
			break
		}
		// d/dt ln F(e^t) = x*f(x)/F(x), with ln f(x) = k ln b - lnΓ(k) + (k-1) ln x - b x.
		lslope := float64(k*math.Log(b)) - lgk + float64(k*t) - float64(b*x) - math.Log(F)
		step := (math.Log(F) - lp) / math.Exp(lslope)
		step = math.Max(-50, math.Min(50, step)) // a far-right start has slope ~0
		t -= step
		x = math.Exp(t)
		if math.Abs(step) <= 1e-15*math.Max(1, math.Abs(t)) {
			break
		}
	}
	return x
}
func (g gamma) CDF(x float64) float64 { return g.d.CDF(x) }
func (g gamma) String() string {
	return "gamma(mean=" + formatFloat(g.mean) + ", cv=" + formatFloat(g.cv) + ")"
}
