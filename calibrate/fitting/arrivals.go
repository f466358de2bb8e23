package fitting

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/budgetsim/budgetsim/calibrate/sample"
	"gonum.org/v1/gonum/stat/distuv"
)

// Arrivals is what the run starts say about the arrival process.
type Arrivals struct {
	// N runs over Span (first to last start).
	N    int64
	Span time.Duration
	// Rate is arrivals per second, (N−1)/Span, with a Poisson interval.
	Rate Estimate
	// CV is the interarrival gaps' coefficient of variation with a
	// bootstrap interval: 1 for Poisson arrivals, above 1 for bursty ones.
	CV Estimate
	// Gaps is the fit of the interarrival gaps.
	Gaps Dist
	// Bins are the arrival rates by hour (Bin wide), from the first
	// start; Dispersion is the χ² statistic of their counts against a
	// constant rate, with its p-value.
	Bin         time.Duration
	Bins        []Estimate
	Dispersion  float64
	DispersionP float64
	// Process is the process chosen: "poisson", "renewal", "mmpp" or
	// "schedule"; Why says why.
	Process string
	Why     string
	// MMPP is the two-state Markov-modulated Poisson process fitted to
	// bursty arrivals (HasMMPP), chosen over the renewal process when its
	// AIC is lower by more than MMPPMinDeltaAIC; MMPPWhy says how they
	// compared.
	MMPP    MMPP
	HasMMPP bool
	MMPPWhy string
	// Daily reports whether the schedule repeats every 24 hours (the
	// trace spans at least two days) and Hourly holds its 24 rates.
	Daily  bool
	Hourly []float64
}

// MMPPMinDeltaAIC is how much lower an MMPP's AIC must be than the
// renewal process's for the MMPP to describe the arrivals: a difference
// above 10 is strong evidence for the model with the lower AIC (Burnham
// and Anderson 2002). The gaps must also be correlated, each with the
// next (a renewal process's are not).
const MMPPMinDeltaAIC = 10

// MinRenewalRuns is the fewest runs from which a renewal process (bursty
// or regular arrivals) is fitted instead of a Poisson one.
const MinRenewalRuns = 100

// FitArrivals fits the arrival process to the sorted run starts (Unix ns).
// Bins are an hour wide when the trace spans at least two hours, else a
// tenth of the span.
func FitArrivals(starts []int64, seed uint64, maxSamples int) Arrivals {
	a := Arrivals{N: int64(len(starts)), Process: "poisson"}
	if len(starts) < 3 {
		a.Why = fmt.Sprintf("%d runs: too few to measure a rate; assumed", len(starts))
		a.Rate = Estimate{Value: math.NaN(), N: a.N}
		return a
	}
	a.Span = time.Duration(starts[len(starts)-1] - starts[0])
	sp := a.Span.Seconds()
	if !(sp > 0) {
		a.Why = "every run started at the same instant"
		a.Rate = Estimate{Value: math.NaN(), N: a.N}
		return a
	}
	k := float64(len(starts) - 1)
	a.Rate = Estimate{Value: k / sp, CI: Interval{poissonLo(k) / sp, poissonHi(k) / sp}, N: a.N}
	res := sample.New(maxSamples, seed, "arrivals\x00gaps")
	gaps := make([]float64, 0, len(starts)-1)
	for i := 1; i < len(starts); i++ {
		g := float64(starts[i]-starts[i-1]) / 1e9
		res.Add(g, 0)
		gaps = append(gaps, g)
	}
	a.CV = bootstrapCV(gaps, seed)
	a.Gaps = FitDist(res)

	// Rate by time of day.
	a.Bin = time.Hour
	if a.Span < 2*time.Hour {
		a.Bin = a.Span / 10
	}
	nb := int(a.Span/a.Bin) + 1
	full := nb - 1 // the last bin is partial; the dispersion test uses full ones
	counts := make([]float64, nb)
	for _, s := range starts {
		counts[min(int(time.Duration(s-starts[0])/a.Bin), nb-1)]++
	}
	bw := a.Bin.Seconds()
	for _, c := range counts {
		a.Bins = append(a.Bins, Estimate{Value: c / bw, CI: Interval{poissonLo(c) / bw, poissonHi(c) / bw}, N: int64(c)})
	}
	if full >= 2 {
		var m float64
		for _, c := range counts[:full] {
			m += c
		}
		m /= float64(full)
		for _, c := range counts[:full] {
			a.Dispersion += (c - m) * (c - m) / m
		}
		a.DispersionP = distuv.ChiSquared{K: float64(full - 1)}.Survival(a.Dispersion)
	} else {
		a.DispersionP = 1
	}
	switch {
	case full >= 3 && a.Span >= 3*time.Hour && a.DispersionP < 0.001:
		a.Process = "schedule"
		a.Why = fmt.Sprintf("the hourly rate varies beyond chance (χ² %.4g on %d df, p %.2g)", a.Dispersion, full-1, a.DispersionP)
		if a.Span >= 48*time.Hour {
			a.Daily = true
			var byHour [24]float64
			var hours [24]float64
			for i, c := range counts[:full] {
				h := time.Unix(0, starts[0]).UTC().Add(time.Duration(i) * time.Hour).Hour()
				byHour[h] += c
				hours[h]++
			}
			for h := range 24 {
				r := 0.0
				if hours[h] > 0 {
					r = byHour[h] / hours[h] / bw
				}
				a.Hourly = append(a.Hourly, r)
			}
		}
	case a.N < MinRenewalRuns:
		a.Why = fmt.Sprintf("%d runs, fewer than %d to tell bursty or regular arrivals from Poisson (interarrival CV %.3g)", a.N, MinRenewalRuns, a.CV.Value)
	case a.CV.CI.Lo > 1 || a.CV.CI.Hi < 1:
		a.Process = "renewal"
		what := "bursty"
		if a.CV.CI.Hi < 1 {
			what = "more regular than Poisson"
		}
		a.Why = fmt.Sprintf("interarrival CV %.3g [%.3g, %.3g] excludes 1 (Poisson): %s", a.CV.Value, a.CV.CI.Lo, a.CV.CI.Hi, what)
		if a.CV.CI.Lo > 1 {
			if m, ok := FitMMPP(gaps); ok {
				m.RenewalAIC = renewalAIC(a.Gaps, m.N)
				a.MMPP, a.HasMMPP = m, true
				// The MMPP must fit better, and successive gaps must be
				// correlated, which no renewal process gives: a two-state
				// MMPP can also mimic independent hyperexponential gaps.
				better := m.Lag1.CI.Lo > 0 && !(m.RenewalAIC-m.AIC <= MMPPMinDeltaAIC)
				a.MMPPWhy = m.why(better)
				if better {
					a.Process = "mmpp"
				}
			}
		}
	default:
		a.Why = fmt.Sprintf("interarrival CV %.3g [%.3g, %.3g] is consistent with 1 (Poisson), and the rate with a constant (χ² p %.2g)", a.CV.Value, a.CV.CI.Lo, a.CV.CI.Hi, a.DispersionP)
	}
	return a
}

// poissonLo and poissonHi bound a Poisson mean from a count k at 95%
// (Wilson–Hilferty's approximation to the exact χ² limits, good to a few
// per mille from k = 1).
func poissonLo(k float64) float64 {
	if k == 0 {
		return 0
	}
	c := 1 - 1/(9*k) - z95/(3*math.Sqrt(k))
	return k * c * c * c
}

func poissonHi(k float64) float64 {
	k1 := k + 1
	c := 1 - 1/(9*k1) + z95/(3*math.Sqrt(k1))
	return k1 * c * c * c
}

// bootstrapCV returns the gaps' CV with a 95% moving-block bootstrap
// percentile interval: 200 resamples of blocks of √n gaps, which keeps
// the short-range dependence a modulated process has.
func bootstrapCV(g []float64, seed uint64) Estimate {
	n := len(g)
	cv := func(get func(i int) float64) float64 {
		var s, ss float64
		for i := range n {
			v := get(i)
			s += v
			ss += float64(v * v)
		}
		m := s / float64(n)
		return math.Sqrt(max(ss/float64(n)-float64(m*m), 0)) / m
	}
	est := Estimate{Value: cv(func(i int) float64 { return g[i] }), N: int64(n)}
	if n < 10 {
		est.CI = Interval{math.NaN(), math.NaN()}
		return est
	}
	// At most 20,000 gaps enter each resample: the interval is then that
	// of the first 20,000, a little wider than the whole trace's.
	m := min(n, 20_000)
	b := max(int(math.Sqrt(float64(m))), 1)
	r := rand.New(rand.NewPCG(seed, 0xc7))
	reps := make([]float64, 200)
	idx := make([]int, m)
	for k := range reps {
		for i := 0; i < m; i += b {
			s := r.IntN(n - b + 1)
			for j := 0; j < b && i+j < m; j++ {
				idx[i+j] = s + j
			}
		}
		var s, ss float64
		for _, i := range idx {
			s += g[i]
			ss += float64(g[i] * g[i])
		}
		mean := s / float64(m)
		reps[k] = math.Sqrt(max(ss/float64(m)-float64(mean*mean), 0)) / mean
	}
	slices.Sort(reps)
	// Centre the bootstrap spread on the full-trace estimate (the basic
	// interval's width, the percentile interval's shape).
	med := reps[100]
	est.CI = Interval{est.Value - (med - reps[5]), est.Value + (reps[194] - med)}
	return est
}
