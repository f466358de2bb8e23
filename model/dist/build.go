package dist

import (
	"slices"
	"strconv"
	"strings"
)

// Families returns the family names Build accepts, sorted: constant,
// exponential, gamma, lognormal, pareto, uniform, weibull. Mixtures and
// empirical distributions are built with Mixture and Empirical directly.
// The returned slice is fresh; callers may modify it.
func Families() []string {
	return []string{"constant", "exponential", "gamma", "lognormal", "pareto", "uniform", "weibull"}
}

// Params returns the parameter names family accepts, in the order String
// prints them, and whether family is known:
//
//	constant    value
//	exponential mean
//	gamma       mean, cv
//	lognormal   median, sigma, p99 (median and exactly one of sigma, p99)
//	pareto      min, alpha
//	uniform     min, max
//	weibull     scale, shape
//
// Every listed name is required except lognormal's sigma/p99 pair. The
// returned slice is fresh; callers may modify it.
func Params(family string) (allowed []string, ok bool) {
	switch family {
	case "constant":
		return []string{"value"}, true
	case "exponential":
		return []string{"mean"}, true
	case "gamma":
		return []string{"mean", "cv"}, true
	case "lognormal":
		return []string{"median", "sigma", "p99"}, true
	case "pareto":
		return []string{"min", "alpha"}, true
	case "uniform":
		return []string{"min", "max"}, true
	case "weibull":
		return []string{"scale", "shape"}, true
	}
	return nil, false
}

// Build constructs the distribution family with the named params, for the
// scenario loader; values are in the loader's natural units (seconds for
// latencies). It calls the constructor of the same name (lognormal with p99
// calls LogNormalP99), so it validates the same way.
//
// Errors are *ParamError and deterministic, the first of, in order:
//   - unknown family: Param "family", Msg listing Families();
//   - a parameter family does not accept (the lexically first one):
//     Param is its name, Msg lists the allowed ones;
//   - a missing parameter (first in Params order): Msg "required"; for
//     lognormal with neither sigma nor p99 the Param is "sigma" and Msg
//     says "required (exactly one of sigma, p99)", and with both the Param
//     is "p99";
//   - the constructor's own validation error.
func Build(family string, params map[string]float64) (Dist, error) {
	allowed, ok := Params(family)
	if !ok {
		return nil, &ParamError{Param: "family", Msg: "unknown family " + strconv.Quote(family) + "; want one of " + strings.Join(Families(), ", ")}
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return nil, &ParamError{Param: k, Msg: "unknown parameter for " + family + "; allowed: " + strings.Join(allowed, ", ")}
		}
	}
	if family == "lognormal" {
		median, ok := params["median"]
		if !ok {
			return nil, &ParamError{Param: "median", Msg: "required"}
		}
		sigma, hasSigma := params["sigma"]
		p99, hasP99 := params["p99"]
		switch {
		case hasSigma && hasP99:
			return nil, &ParamError{Param: "p99", Msg: "conflicts with sigma; give exactly one of sigma, p99"}
		case hasP99:
			return LogNormalP99(median, p99)
		case hasSigma:
			return LogNormal(median, sigma)
		}
		return nil, &ParamError{Param: "sigma", Msg: "required (exactly one of sigma, p99)"}
	}
	for _, name := range allowed {
		if _, ok := params[name]; !ok {
			return nil, &ParamError{Param: name, Msg: "required"}
		}
	}
	p := func(name string) float64 { return params[name] }
	switch family {
	case "constant":
		return Constant(p("value"))
	case "exponential":
		return Exponential(p("mean"))
	case "gamma":
		return Gamma(p("mean"), p("cv"))
	case "pareto":
		return Pareto(p("min"), p("alpha"))
	case "uniform":
		return Uniform(p("min"), p("max"))
	case "weibull":
		return Weibull(p("scale"), p("shape"))
	}
	panic("dist: Build: family " + strconv.Quote(family) + " listed by Params but not built") // programmer mistake
}
