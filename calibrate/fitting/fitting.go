// Package fitting fits what a scenario needs to an [observe.Observation]:
// per tool, a latency distribution (the family plan/fit ranks best when it
// passes the goodness-of-fit and tail checks, the empirical distribution
// otherwise), times to first token and per output token for model calls,
// error rates by class with Wilson intervals, Retry-After values and token
// counts; per run, the step sequences, or an agent loop's turns, calls
// per turn and growing context (FitLoop); and the arrivals' rate by time
// of day and burstiness, with a two-state Markov-modulated Poisson process
// for bursts that last (FitMMPP).
//
// Every estimate carries what a reader needs to judge it: the number of
// observations and a 95% interval.
package fitting

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/budgetsim/budgetsim/calibrate/ingest"
	"github.com/budgetsim/budgetsim/calibrate/observe"
	"github.com/budgetsim/budgetsim/calibrate/sample"
	"github.com/budgetsim/budgetsim/plan/fit"
)

// z95 is the two-sided 95% standard normal quantile.
const z95 = 1.959963984540054

// MinPValue is the Kolmogorov–Smirnov p-value below which a family is
// rejected. plan/fit's p-value is optimistic (the parameters come from the
// same data), so a family rejected at this level misfits clearly.
const MinPValue = 0.01

// MinFitSamples is the fewest samples a family is fitted to; with fewer,
// the empirical distribution is used as it is.
const MinFitSamples = 20

// Interval is a 95% confidence interval.
type Interval struct{ Lo, Hi float64 }

// Estimate is a measured value with its interval and sample size.
type Estimate struct {
	Value float64
	CI    Interval
	N     int64
}

// Rate is a proportion K/N with its Wilson score interval.
type Rate struct {
	K, N int64
	P    float64
	CI   Interval
}

// Wilson returns k/n with its 95% Wilson score interval (Wilson 1927),
// which keeps its coverage near 0 and 1, where error rates live.
func Wilson(k, n int64) Rate {
	if n == 0 {
		return Rate{CI: Interval{0, 1}}
	}
	nf, p := float64(n), float64(k)/float64(n)
	z2 := z95 * z95
	den := 1 + z2/nf
	c := (p + z2/(2*nf)) / den
	h := z95 * math.Sqrt(float64(p*(1-p))/nf+z2/float64(4*nf*nf)) / den
	return Rate{K: k, N: n, P: p, CI: Interval{max(0, c-h), min(1, c+h)}}
}

// Dist is a fitted distribution of one quantity (seconds, or tokens).
type Dist struct {
	// N is the number of observations; Used the samples fitted (a
	// uniform sample of them when N is large).
	N    int64
	Used int
	// Report is plan/fit's ranking; nil when no family was fitted.
	Report *fit.Report
	// Family is the chosen family ("empirical" when none fits, "constant"
	// when every sample is equal) and Params its parameters.
	Family string
	Params map[string]float64
	// Why says why the family was chosen or every family rejected.
	Why string
	// Quantiles are the empirical p50, p90 and p99 with order-statistic
	// intervals.
	P50, P90, P99 Estimate
	// Mean is the sample mean with its normal-approximation interval.
	Mean Estimate
	// Sorted are the samples fitted, ascending (for the empirical
	// distribution and the QQ plot).
	Sorted []float64
	// LoadCorr is Spearman's rank correlation between each sample and
	// the runs in flight when it was taken, with a Fisher-z interval; NaN
	// when there is no companion.
	LoadCorr Estimate
}

// Quantile returns the order-statistic estimate of the p-quantile of the
// sorted samples x with its 95% interval: x_(ceil(np)) between the ranks
// np ∓ z·sqrt(np(1−p)) (the binomial count of samples below a quantile).
func Quantile(x []float64, p float64, n int64) Estimate {
	m := len(x)
	if m == 0 {
		return Estimate{Value: math.NaN(), CI: Interval{math.NaN(), math.NaN()}}
	}
	mf := float64(m)
	at := func(rank float64) float64 { return x[min(max(int(rank), 1), m)-1] }
	np := float64(mf * p)
	h := float64(z95 * math.Sqrt(float64(np*(1-p))))
	lo, hi := np-h, np+h
	return Estimate{Value: at(math.Ceil(np - 1e-9)), CI: Interval{at(math.Floor(lo)), at(math.Ceil(hi) + 1)}, N: n}
}

// FitDist fits the reservoir's samples. positive says the quantity lives
// on (0, ∞) (a latency): the families are fitted to the samples > 0.
func FitDist(r *sample.Reservoir) Dist {
	d := Dist{N: r.N(), Used: len(r.Values()), Params: map[string]float64{}}
	x := slices.Clone(r.Values())
	aux := r.Aux()
	slices.Sort(x)
	d.Sorted = x
	d.P50, d.P90, d.P99 = Quantile(x, 0.5, d.N), Quantile(x, 0.9, d.N), Quantile(x, 0.99, d.N)
	d.Mean = meanEstimate(x, d.N)
	d.LoadCorr = spearman(r.Values(), aux)
	if len(x) == 0 {
		d.Family, d.Why = "", "no samples"
		return d
	}
	if x[len(x)-1]-x[0] <= 1e-6*math.Abs(x[len(x)-1]) {
		// Equal to the clock's resolution (a per-token time computed from
		// nanosecond timestamps): a constant.
		d.Family, d.Params["value"], d.Why = "constant", d.Mean.Value, "every sample equal (to 1 part in 10⁶)"
		return d
	}
	if len(x) < MinFitSamples || x[0] <= 0 {
		d.Family = "empirical"
		if x[0] <= 0 {
			d.Why = "samples of 0: the families live on (0, ∞)"
		} else {
			d.Why = fmt.Sprintf("%d samples, fewer than %d to fit a family to", len(x), MinFitSamples)
		}
		return d
	}
	rep, err := fit.Fit(x)
	if err != nil {
		d.Family, d.Why = "empirical", "no family could be fitted: "+err.Error()
		return d
	}
	d.Report = &rep
	best := rep.Best
	switch {
	case best.PValue < MinPValue:
		d.Family = "empirical"
		d.Why = fmt.Sprintf("every family rejected: the best, %s, has KS %.3g (p %.2g < %g)", best.Dist, best.KS, best.PValue, MinPValue)
	case rep.TailHeavier:
		d.Family = "empirical"
		d.Why = fmt.Sprintf("%s fits the body (KS %.3g, p %.2g) but the data's tail is heavier: p%g %.4gs vs %.4gs fitted", best.Dist, best.KS, best.PValue, rep.TailP*100, rep.TailEmpirical, best.Quantile(rep.TailP))
	default:
		d.Family, d.Params = best.Dist, best.Params
		d.Why = fmt.Sprintf("KS %.3g (p %.2g), tail p%g ratio %.3g", best.KS, best.PValue, rep.TailP*100, rep.TailRatio)
	}
	return d
}

func meanEstimate(x []float64, n int64) Estimate {
	m := len(x)
	if m == 0 {
		return Estimate{Value: math.NaN()}
	}
	var s, ss float64
	for _, v := range x {
		s += v
	}
	mean := s / float64(m)
	for _, v := range x {
		ss += float64((v - mean) * (v - mean))
	}
	se := 0.0
	if m > 1 {
		se = math.Sqrt(ss/float64(m-1)) / math.Sqrt(float64(m))
	}
	return Estimate{Value: mean, CI: Interval{mean - float64(z95*se), mean + float64(z95*se)}, N: n}
}

// spearman returns the rank correlation of x and y with a Fisher-z 95%
// interval (standard error 1.03/sqrt(n−3), Fieller et al. 1957).
func spearman(x, y []float64) Estimate {
	n := len(x)
	if n < 10 || len(y) != n {
		return Estimate{Value: math.NaN(), CI: Interval{math.NaN(), math.NaN()}}
	}
	rx, ry := ranks(x), ranks(y)
	var mx, my float64
	for i := range rx {
		mx += rx[i]
		my += ry[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxy, sxx, syy float64
	for i := range rx {
		a, b := rx[i]-mx, ry[i]-my
		sxy += float64(a * b)
		sxx += float64(a * a)
		syy += float64(b * b)
	}
	if sxx == 0 || syy == 0 {
		return Estimate{Value: 0, CI: Interval{0, 0}, N: int64(n)}
	}
	rho := sxy / math.Sqrt(float64(sxx*syy))
	rho = min(max(rho, -0.999999), 0.999999)
	z, se := math.Atanh(rho), 1.03/math.Sqrt(float64(n-3))
	return Estimate{Value: rho, CI: Interval{math.Tanh(z - float64(z95*se)), math.Tanh(z + float64(z95*se))}, N: int64(n)}
}

// ranks returns the average ranks of x (ties share their mean rank).
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		avg := float64(float64(i+j)/2) + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}

// Moments summarises a count (tokens): mean and coefficient of variation
// with intervals, the inputs of a gamma by the method of moments.
type Moments struct {
	N        int64
	Mean, CV Estimate
	P50, P99 Estimate
	Max      float64
	// Family and Params are the distribution chosen, Why says why.
	Family string
	Params map[string]float64
	Why    string
}

// FitMoments summarises a reservoir of counts, and fits a family to them:
// uniform or one of plan/fit's when one passes the Kolmogorov–Smirnov
// check (p ≥ MinPValue), else a gamma with the measured mean and cv.
func FitMoments(r *sample.Reservoir) Moments {
	x := slices.Clone(r.Values())
	slices.Sort(x)
	m := Moments{N: r.N(), Mean: meanEstimate(x, r.N()), P50: Quantile(x, 0.5, r.N()), P99: Quantile(x, 0.99, r.N()), Max: r.Max()}
	m.CV = cvEstimate(x, r.N())
	m.Family, m.Params = "gamma", map[string]float64{"mean": m.Mean.Value, "cv": m.CV.Value}
	m.Why = "no family fits: a gamma with the measured mean and cv"
	switch {
	case len(x) == 0:
		m.Family, m.Why = "", "no samples"
		return m
	case x[0] == x[len(x)-1]:
		m.Family, m.Params, m.Why = "constant", map[string]float64{"value": x[0]}, "every count equal"
		return m
	case len(x) < MinFitSamples:
		m.Why = fmt.Sprintf("%d samples, fewer than %d to fit a family to: a gamma with their mean and cv", len(x), MinFitSamples)
		return m
	}
	// Uniform on [min, max], widened by one count each way (the counts are
	// whole numbers), against the family ranked best by plan/fit.
	lo, hi := x[0], x[len(x)-1]+1
	uks := fit.KS(x, func(v float64) float64 { return min(max((v-lo)/(hi-lo), 0), 1) })
	best, bestKS, bestP := "", math.Inf(1), 0.0
	var params map[string]float64
	if x[0] > 0 {
		if rep, err := fit.Fit(x); err == nil {
			best, bestKS, bestP, params = rep.Best.Dist, rep.Best.KS, rep.Best.PValue, rep.Best.Params
		}
	}
	if up := fit.KSPValue(uks, len(x)); up >= MinPValue && uks <= bestKS {
		m.Family, m.Params = "uniform", map[string]float64{"min": lo, "max": hi}
		m.Why = fmt.Sprintf("KS %.3g (p %.2g)", uks, up)
	} else if best != "" && bestP >= MinPValue {
		m.Family, m.Params = best, params
		m.Why = fmt.Sprintf("%s by maximum likelihood, KS %.3g (p %.2g)", best, bestKS, bestP)
	}
	return m
}

// cvEstimate is the sample coefficient of variation with a delta-method
// interval under normality, se ≈ cv·sqrt(1/(2(n−1)) + cv²/n) (McKay 1932);
// for heavy tails it is optimistic.
func cvEstimate(x []float64, n int64) Estimate {
	m := len(x)
	if m < 2 {
		return Estimate{Value: math.NaN(), CI: Interval{math.NaN(), math.NaN()}, N: n}
	}
	mean := meanEstimate(x, n).Value
	var ss float64
	for _, v := range x {
		ss += float64((v - mean) * (v - mean))
	}
	cv := math.Sqrt(ss/float64(m-1)) / mean
	se := cv * math.Sqrt(1/float64(2*(m-1))+float64(cv*cv)/float64(m))
	return Estimate{Value: cv, CI: Interval{max(0, cv-float64(z95*se)), cv + float64(z95*se)}, N: n}
}

// Tool is the fit of one tool.
type Tool struct {
	Name string
	Op   ingest.Op
	// Calls is every call; Errors holds the rate of each error class
	// (index by ingest.Class; OK is the success rate).
	Calls  int64
	Errors [ingest.NumClasses]Rate
	// Latency is the successful calls' time; TTFT and PerToken are set
	// for model calls whose spans carry a time to first token.
	Latency, TTFT, PerToken Dist
	// UseTTFT reports whether the scenario describes the tool by its time
	// to first token and per output token (most successful calls carry
	// both).
	UseTTFT bool
	// TimeoutAfter is the duration of the calls that timed out: the
	// client's timeout.
	TimeoutAfter Moments
	// RetryAfter is the Retry-After values sent.
	RetryAfter Dist
	// Input, Output and Cached are token counts.
	Input, Output, Cached Moments
	// CachedCalls counts the calls that read input tokens from a prompt
	// cache, MinCached the fewest they read; CachedShare is the share of
	// input tokens read from it (NaN when no call carries both counts).
	CachedCalls, MinCached int64
	CachedShare            float64
}

// Tokens reports whether the tool's calls carry token counts.
func (t *Tool) Tokens() bool { return t.Input.N > 0 && t.Output.N > 0 }

// FitTool fits one tool.
func FitTool(o *observe.Tool) Tool {
	t := Tool{Name: o.Name, Op: o.Op, Calls: o.Calls}
	for c := range ingest.NumClasses {
		t.Errors[c] = Wilson(o.ByClass[c], o.Calls)
	}
	t.Latency = FitDist(o.Latency)
	if o.Op == ingest.OpChat && o.TTFT.N() > 0 && o.PerToken.N()*2 >= o.Latency.N() {
		t.UseTTFT = true
		t.TTFT = FitDist(o.TTFT)
		t.PerToken = FitDist(o.PerToken)
	}
	t.TimeoutAfter = FitMoments(o.TimeoutAfter)
	t.RetryAfter = FitDist(o.RetryAfter)
	t.Input, t.Output, t.Cached = FitMoments(o.Input), FitMoments(o.Output), FitMoments(o.Cached)
	t.CachedCalls, t.MinCached, t.CachedShare = o.CachedCalls, o.MinCached, math.NaN()
	if o.InputSum > 0 {
		t.CachedShare = float64(o.CachedSum) / float64(o.InputSum)
	}
	return t
}

// Sequence is one step sequence and how many runs followed it.
type Sequence struct {
	Steps []observe.Step // attempts: the most any run made at that step
	Text  string
	Share Rate
}

// Sequences returns the runs' distinct step sequences, most common first
// (ties by text), with each step's largest attempt count.
func Sequences(runs []observe.Run) []Sequence {
	idx := map[string]int{}
	var out []Sequence
	for i := range runs {
		txt := runs[i].Sequence()
		j, ok := idx[txt]
		if !ok {
			j = len(out)
			idx[txt] = j
			out = append(out, Sequence{Text: txt, Steps: slices.Clone(runs[i].Steps)})
		}
		out[j].Share.K++
		for k, s := range runs[i].Steps {
			out[j].Steps[k].Attempts = max(out[j].Steps[k].Attempts, s.Attempts)
		}
	}
	n := int64(len(runs))
	for i := range out {
		out[i].Share = Wilson(out[i].Share.K, n)
	}
	slices.SortFunc(out, func(a, b Sequence) int {
		return cmp.Or(cmp.Compare(b.Share.K, a.Share.K), strings.Compare(a.Text, b.Text))
	})
	return out
}
