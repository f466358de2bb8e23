package dist

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Mixture returns the finite mixture that draws from comps[i] with
// probability weights[i]/sum(weights), e.g. 95% fast lognormal calls and 5%
// slow retries-inside-the-backend. weights and comps must have the same
// non-zero length; every weight must be finite and > 0 and every component
// non-nil. The slices are copied.
//
// Sample picks a component with one uniform from r, then calls that
// component's Sample with r: it is not an inverse transform, so draws are
// not monotone in the parameters.
//
// Mean is sum w_i*m_i and Variance follows the law of total variance,
// sum w_i*(v_i + (m_i - m)^2); both are +Inf if a component's are. CDF is
// sum w_i*F_i(x). Quantile bisects the mixture CDF inside the bracket
// [min_i Q_i(p), max_i Q_i(p)], which always contains the mixture quantile,
// down to adjacent float64 values; it returns the upper end, so it is the
// generalised inverse inf{x : CDF(x) >= p} up to the components' own
// rounding, and lands exactly on a jump of a Constant component.
func Mixture(weights []float64, comps []Dist) (Dist, error) {
	if len(comps) == 0 {
		return nil, &ParamError{Param: "comps", Msg: "must not be empty"}
	}
	if len(weights) != len(comps) {
		return nil, &ParamError{Param: "weights", Msg: "has " + strconv.Itoa(len(weights)) + " entries, want " + strconv.Itoa(len(comps)) + " (one per component)"}
	}
	sum := 0.0
	for i, w := range weights {
		if err := positive("weights["+strconv.Itoa(i)+"]", w); err != nil {
			return nil, err
		}
		sum += w
	}
	if math.IsInf(sum, 1) {
		return nil, &ParamError{Param: "weights", Msg: "sum overflows float64"}
	}
	for i, c := range comps {
		if c == nil {
			return nil, &ParamError{Param: "comps[" + strconv.Itoa(i) + "]", Msg: "must not be nil"}
		}
	}
	m := mixture{
		w:     make([]float64, len(weights)),
		cum:   make([]float64, len(weights)),
		comps: append([]Dist(nil), comps...),
	}
	acc := 0.0
	for i, w := range weights {
		m.w[i] = w / sum
		acc += m.w[i]
		m.cum[i] = acc
	}
	m.cum[len(m.cum)-1] = 1 // absorb rounding so every u in [0,1) selects a component
	return m, nil
}

type mixture struct {
	w     []float64 // normalised weights, sum 1
	cum   []float64 // cumulative weights, cum[len-1] == 1
	comps []Dist
}

func (m mixture) Sample(r *rand.Rand) float64 {
	u := r.Float64()
	for i, c := range m.cum {
		if u < c {
			return m.comps[i].Sample(r)
		}
	}
	return m.comps[len(m.comps)-1].Sample(r) // unreachable: cum ends at 1 > u
}

func (m mixture) Mean() float64 {
	s := 0.0
	for i, c := range m.comps {
		s += float64(m.w[i] * c.Mean())
	}
	return s
}

func (m mixture) Variance() float64 {
	mean := m.Mean()
	if math.IsInf(mean, 0) {
		return math.Inf(1)
	}
	s := 0.0
	for i, c := range m.comps {
		d := c.Mean() - mean
		s += float64(m.w[i] * (c.Variance() + float64(d*d)))
	}
	return s
}

func (m mixture) CDF(x float64) float64 {
	s := 0.0
	for i, c := range m.comps {
		s += float64(m.w[i] * c.CDF(x))
	}
	return math.Min(1, math.Max(0, s))
}

func (m mixture) Quantile(p float64) float64 {
	checkP(p)
	// If every F_i(x) < p then F(x) < p; if every F_i(x) >= p then F(x) >= p.
	// So the answer lies in [min_i Q_i(p), max_i Q_i(p)].
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range m.comps {
		q := c.Quantile(p)
		lo, hi = math.Min(lo, q), math.Max(hi, q)
	}
	if lo == hi || m.CDF(lo) >= p {
		return lo
	}
	// Invariant: F(lo) < p <= F(hi). Halve until lo and hi are adjacent
	// floats (at most ~1100 steps for the widest finite bracket, ~60 for a
	// bracket within a few orders of magnitude).
	for {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			return hi
		}
		if m.CDF(mid) >= p {
			hi = mid
		} else {
			lo = mid
		}
	}
}

// String returns "mixture(0.9*lognormal(...), 0.1*constant(...))" with the
// normalised weights.
func (m mixture) String() string {
	var b strings.Builder
	b.WriteString("mixture(")
	for i, c := range m.comps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(formatFloat(m.w[i]))
		b.WriteByte('*')
		b.WriteString(c.String())
	}
	b.WriteByte(')')
	return b.String()
}
