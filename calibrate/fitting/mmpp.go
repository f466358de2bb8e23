package fitting

import (
	"fmt"
	"math"
	"slices"

	"github.com/budgetsim/budgetsim/plan/fit"
	"gonum.org/v1/gonum/mat"
)

// MMPP is a two-state Markov-modulated Poisson process fitted to the gaps
// between arrivals by maximum likelihood: arrivals at Rates[i] per second
// while the hidden chain is in state i, which it leaves after an
// exponential time of mean Sojourns[i] seconds. State 0 is the busier.
type MMPP struct {
	Rates, Sojourns [2]Estimate
	// N is the gaps fitted: the first ones of the trace, in order (an
	// MMPP's gaps are not independent, so a sample would not do).
	N int
	// LogLik and AIC are the fit's; RenewalAIC is that of the best
	// renewal family on the same gaps (its per-gap log-likelihood on the
	// sample plan/fit ranked, times N), NaN when none was fitted.
	LogLik, AIC, RenewalAIC float64
	// KS and KSP compare the gaps with the interarrival distribution the
	// fitted process gives (optimistic: the parameters come from them).
	KS, KSP float64
	// Lag1 is the rank correlation of each gap with the next: 0 for a
	// renewal process, above 0 when bursts last several arrivals.
	Lag1 Estimate
}

// MaxMMPPGaps bounds the gaps an MMPP is fitted to.
const MaxMMPPGaps = 50_000

// mmppLogLik is the log-likelihood of the gaps g (seconds) under a
// two-state MMPP with rates l0, l1 and switching rates r0, r1 (per
// second), its chain stationary at the first arrival. It runs the forward
// recursion v ← v·exp((Q−Λ)t)·Λ, rescaled at each gap.
func mmppLogLik(g []float64, l0, l1, r0, r1 float64) float64 {
	a, b, c, d := -(r0 + l0), r0, r1, -(r1 + l1)
	half := float64((a - d) / 2)
	s := math.Sqrt(float64(half*half) + float64(b*c))
	mid := float64((a + d) / 2)
	m1, m2 := mid+s, mid-s
	// Stationary at arrivals: π Λ normalised, π ∝ (r1, r0).
	v0, v1 := float64(r1*l0), float64(r0*l1)
	tot := v0 + v1
	v0, v1 = v0/tot, v1/tot
	var ll float64
	for _, t := range g {
		// exp(At) = e^{m1 t}·[(A − m2 I) − e^{(m2−m1)t}(A − m1 I)]/(m1 − m2)
		e := math.Exp((m2 - m1) * t)
		x00 := (a - m2) - float64(e*(a-m1))
		x01 := b - float64(e*b)
		x10 := c - float64(e*c)
		x11 := (d - m2) - float64(e*(d-m1))
		w0 := float64(float64(float64(v0*x00)+float64(v1*x10)) * l0)
		w1 := float64(float64(float64(v0*x01)+float64(v1*x11)) * l1)
		sum := w0 + w1
		if !(sum > 0) {
			return math.Inf(-1)
		}
		ll += float64(m1*t) + math.Log(sum/(2*s))
		v0, v1 = w0/sum, w1/sum
	}
	return ll
}

// mmppCDF is the distribution of a gap of the stationary process:
// 1 − π_a·exp((Q−Λ)t)·1.
func mmppCDF(l0, l1, r0, r1 float64) func(float64) float64 {
	a, b, c, d := -(r0 + l0), r0, r1, -(r1 + l1)
	half := float64((a - d) / 2)
	s := math.Sqrt(float64(half*half) + float64(b*c))
	mid := float64((a + d) / 2)
	m1, m2 := mid+s, mid-s
	p0, p1 := float64(r1*l0), float64(r0*l1)
	tot := p0 + p1
	p0, p1 = p0/tot, p1/tot
	return func(t float64) float64 {
		if t <= 0 {
			return 0
		}
		e1, e2 := math.Exp(m1*t), math.Exp(m2*t)
		x00 := float64(e1*(a-m2)) - float64(e2*(a-m1))
		x01 := float64(e1*b) - float64(e2*b)
		x10 := float64(e1*c) - float64(e2*c)
		x11 := float64(e1*(d-m2)) - float64(e2*(d-m1))
		surv := (float64(p0*(x00+x01)) + float64(p1*(x10+x11))) / (2 * s)
		return min(max(1-surv, 0), 1)
	}
}

// FitMMPP fits a two-state MMPP to the gaps (seconds, in order of
// arrival; at most MaxMMPPGaps of the first are used), starting from the
// bursts the gaps show: gaps shorter than the mean belong to the busy
// state, and runs of them to its visits. ok is false when the fit fails
// (too few gaps, or no burst to start from).
func FitMMPP(gaps []float64) (m MMPP, ok bool) {
	g := gaps[:min(len(gaps), MaxMMPPGaps)]
	m.N = len(g)
	if len(g) < MinRenewalRuns {
		return m, false
	}
	var mean float64
	for _, x := range g {
		mean += x
	}
	mean /= float64(len(g))
	// Starting point: short gaps (below the mean) are the busy state's.
	var sShort, sLong float64
	var nShort, nLong, visits [2]float64
	prev := -1
	for _, x := range g {
		st := 1
		if x < mean {
			st = 0
			sShort += x
			nShort[0]++
		} else {
			sLong += x
			nLong[0]++
		}
		if st != prev {
			visits[st]++
			prev = st
		}
	}
	if nShort[0] == 0 || nLong[0] == 0 || visits[0] == 0 || visits[1] == 0 {
		return m, false
	}
	l0, l1 := nShort[0]/sShort, nLong[0]/sLong
	soj0, soj1 := sShort/visits[0], sLong/visits[1]
	x0 := []float64{math.Log(l0), math.Log(l1), math.Log(1 / soj0), math.Log(1 / soj1)}
	nll := func(x []float64) float64 {
		for _, v := range x {
			if v < -40 || v > 40 {
				return math.Inf(1)
			}
		}
		ll := mmppLogLik(g, math.Exp(x[0]), math.Exp(x[1]), math.Exp(x[2]), math.Exp(x[3]))
		if math.IsNaN(ll) || math.IsInf(ll, 0) {
			return math.Inf(1)
		}
		return -ll
	}
	x, fx := nelderMead(nll, x0, 0.5, 3000)
	if math.IsInf(fx, 0) {
		return m, false
	}
	if x[0] < x[1] { // state 0 is the busier
		x[0], x[1], x[2], x[3] = x[1], x[0], x[3], x[2]
	}
	m.LogLik = -fx
	m.AIC = 8 - 2*m.LogLik
	// Intervals from the observed information in log-parameters: the
	// inverse of the negative log-likelihood's Hessian (central
	// differences).
	se := [4]float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	h := mat.NewSymDense(4, nil)
	const eps = 1e-3
	f0 := nll(x)
	at := func(i, j int, di, dj float64) float64 {
		y := slices.Clone(x)
		y[i] += di
		y[j] += dj
		return nll(y)
	}
	for i := range 4 {
		for j := i; j < 4; j++ {
			var v float64
			if i == j {
				v = (at(i, i, eps, 0) - 2*f0 + at(i, i, -eps, 0)) / (eps * eps)
			} else {
				v = (at(i, j, eps, eps) - at(i, j, eps, -eps) - at(i, j, -eps, eps) + at(i, j, -eps, -eps)) / (4 * eps * eps)
			}
			h.SetSym(i, j, v)
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(h); err == nil {
		for i := range 4 {
			if v := inv.At(i, i); v > 0 {
				se[i] = math.Sqrt(v)
			}
		}
	}
	est := func(lx, se float64, invert bool) Estimate {
		v, lo, hi := math.Exp(lx), math.Exp(lx-float64(z95*se)), math.Exp(lx+float64(z95*se))
		if invert {
			v, lo, hi = 1/v, 1/hi, 1/lo
		}
		if math.IsNaN(se) {
			lo, hi = math.NaN(), math.NaN()
		}
		return Estimate{Value: v, CI: Interval{lo, hi}, N: int64(len(g))}
	}
	m.Rates = [2]Estimate{est(x[0], se[0], false), est(x[1], se[1], false)}
	m.Sojourns = [2]Estimate{est(x[2], se[2], true), est(x[3], se[3], true)}
	sorted := slices.Clone(g)
	slices.Sort(sorted)
	m.KS = fit.KS(sorted, mmppCDF(math.Exp(x[0]), math.Exp(x[1]), math.Exp(x[2]), math.Exp(x[3])))
	m.KSP = fit.KSPValue(m.KS, len(sorted))
	m.Lag1 = spearman(g[:len(g)-1], g[1:])
	return m, true
}

// renewalAIC is the AIC of the best renewal family of the gaps' fit
// (by AIC), scaled to n gaps; NaN when plan/fit ranked none.
func renewalAIC(d Dist, n int) float64 {
	if d.Report == nil || len(d.Report.Candidates) == 0 || d.Report.N == 0 {
		return math.NaN()
	}
	best := d.Report.Candidates[0]
	for _, c := range d.Report.Candidates[1:] {
		if c.AIC < best.AIC {
			best = c
		}
	}
	k := float64((best.AIC + float64(2*best.LogLik)) / 2) // the family's parameters
	ll := float64(best.LogLik / float64(d.Report.N) * float64(n))
	return float64(2*k) - float64(2*ll)
}

// mmppWhy says why the MMPP was chosen or not.
func (m MMPP) why(chosen bool) string {
	cmp := fmt.Sprintf("AIC %.6g against the best renewal's %.6g", m.AIC, m.RenewalAIC)
	if math.IsNaN(m.RenewalAIC) {
		cmp = "no renewal family to compare with"
	}
	s := fmt.Sprintf("a two-state MMPP by maximum likelihood on the first %d gaps: %s; gaps KS %.3g (p %.2g); each gap's rank correlation with the next %.3f [%.3f, %.3f] (0 for a renewal process)",
		m.N, cmp, m.KS, m.KSP, m.Lag1.Value, m.Lag1.CI.Lo, m.Lag1.CI.Hi)
	if chosen {
		return s
	}
	return "kept the renewal process: " + s
}

// nelderMead minimises f from x0 (initial simplex steps of size step)
// with the Nelder–Mead simplex method (standard coefficients: reflection
// 1, expansion 2, contraction ½, shrink ½), for at most maxEval
// evaluations or until the simplex's values agree to 1e-9 relative.
func nelderMead(f func([]float64) float64, x0 []float64, step float64, maxEval int) ([]float64, float64) {
	n := len(x0)
	pts := make([][]float64, n+1)
	vals := make([]float64, n+1)
	for i := range pts {
		pts[i] = slices.Clone(x0)
		if i > 0 {
			pts[i][i-1] += step
		}
		vals[i] = f(pts[i])
	}
	evals := n + 1
	idx := make([]int, n+1)
	point := func(c []float64, w float64, p []float64) []float64 {
		out := make([]float64, n)
		for k := range out {
			out[k] = c[k] + float64(w*(p[k]-c[k]))
		}
		return out
	}
	for evals < maxEval {
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmpFloat(vals[a], vals[b]) })
		best, worst, second := idx[0], idx[n], idx[n-1]
		if math.Abs(vals[worst]-vals[best]) <= 1e-9*(math.Abs(vals[best])+1e-9) {
			break
		}
		c := make([]float64, n)
		for _, i := range idx[:n] {
			for k := range c {
				c[k] += pts[i][k] / float64(n)
			}
		}
		r := point(c, -1, pts[worst])
		fr := f(r)
		evals++
		switch {
		case fr < vals[best]:
			e := point(c, -2, pts[worst])
			fe := f(e)
			evals++
			if fe < fr {
				pts[worst], vals[worst] = e, fe
			} else {
				pts[worst], vals[worst] = r, fr
			}
		case fr < vals[second]:
			pts[worst], vals[worst] = r, fr
		default:
			k := point(c, 0.5, pts[worst])
			if fr < vals[worst] {
				k = point(c, -0.5, pts[worst])
			}
			fk := f(k)
			evals++
			if fk < min(fr, vals[worst]) {
				pts[worst], vals[worst] = k, fk
				continue
			}
			for _, i := range idx[1:] {
				pts[i] = point(pts[best], 0.5, pts[i])
				vals[i] = f(pts[i])
				evals++
			}
		}
	}
	b := 0
	for i := range vals {
		if vals[i] < vals[b] {
			b = i
		}
	}
	return pts[b], vals[b]
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
