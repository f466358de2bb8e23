// Package recommend turns observed latencies into the settings of a
// deadline-budgeted caller: the per-attempt timeout (ceiling), the smallest
// lease worth dialing (floor), the number of attempts and the run deadline
// that meet a success target, and the number of attempts a given deadline
// affords. It is the capacity planner behind "simulate recommend".
//
// The observations are either raw latencies (a latency log, [FromSamples],
// [FromLog]) or the per-step histograms of a simulated scenario
// ([FromHistogram], [FromResults]), in which attempts that timed out are
// right-censored: their latency is only known to exceed their lease.
//
// # Rules
//
// Each rule has a documented default and an [Options] field to change it.
//
// Ceiling. ceiling = the Percentile-th percentile of the latency of good
// calls (calls that answer; default p99). A good call slower than the
// ceiling would be cut off by it; [Recommendation.CutOff] is the chance
// that a new good call is, (#{x > ceiling} + 1)/(n + 1): a new call is as
// likely to fall in any of the n + 1 gaps the samples leave, whatever the
// distribution, so even the slowest of 20 samples leaves it 1/21 (a
// plain #{x > ceiling}/n would say 0). Marc Brooker's
// "Timeouts, retries, and backoff with jitter" (Amazon Builders' Library,
// 2019) argues for choosing an acceptable rate of false timeouts, e.g. 0.1%,
// and setting the timeout at the matching downstream percentile, p99.9.
//
// Floor. floor = the FloorPercentile-th percentile (default p50, the
// median). A call granted a lease ℓ answers in time with probability F(ℓ),
// the latency CDF; for a lease below the median that is below 50%: the call
// more likely burns an attempt than answers. So a lease below the floor is
// refused before dialing: in scenario terms the floor is min_lease.
//
// Attempts. Attempts are taken as independent. Each ends in success with
// probability s = (1 − e − d)(1 − c), fails for good (a non-retryable
// error answered in time) with probability d(1 − c), and fails retryably
// otherwise, with probability r = 1 − s − d(1 − c); c is the cut-off
// fraction, e the retryable error rate (transient, rate-limited, hangs) and d
// the permanent error rate. Success within k attempts is
//
//	P(k) = s (1 − r^k) / (1 − r),
//
// which is 1 − q^k for q = r when d = 0. The recommended attempt count is
// the smallest k ≤ the attempt limit with P(k) ≥ the success target.
//
// Deadline. The run deadline needed for k attempts is
//
//	deadline = k × ceiling + Σ_{i=1}^{k−1} sleep_i + floor + reserve,
//
// where sleep_i bounds the i-th backoff sleep (see [Bound]; by default the
// worst case, which for full jitter is the exponential cap
// min(Cap, Base × Multiplier^(i−1))), floor is the recommended floor, added
// as slack so that up to a floor of queue wait or scheduling delay does not
// shorten the last lease, and reserve is the time the deadline holds back at
// its end (the scenario's floor key; 0 for a latency log). With the worst
// case bound and that deadline, k attempts that all time out at the ceiling
// still fit: no run is cut short by the deadline, so P(k) is the predicted
// success rate.
//
// Max attempts. Given a deadline D, [Recommendation.MaxAttempts] is the
// largest k whose deadline, as above, is ≤ D.
//
// # Estimators
//
// Percentiles of raw samples are nearest-rank: the sample of rank ⌈p·n⌉, the
// inverse of the empirical CDF, as gonum's stat.Quantile with stat.Empirical
// computes it. Percentiles of a histogram use the same rank, read from
// [stats.Histogram.Quantile] to within its relative error 1/256. The fits
// are plan/fit's maximum-likelihood fits ranked by Kolmogorov–Smirnov
// distance.
//
// # Text
//
// WriteLog and WritePlan write a recommendation as "simulate recommend"
// prints it: each figure in a table with the reasoning behind it.
package recommend

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/budgetsim/budgetsim/model/backoff"
	"github.com/budgetsim/budgetsim/model/latencylog"
	"github.com/budgetsim/budgetsim/plan/fit"
	"github.com/budgetsim/budgetsim/sim/stats"
	"gonum.org/v1/gonum/stat"
)

// Defaults of [Options].
const (
	// DefaultPercentile is the ceiling percentile: p99.
	DefaultPercentile = 99.0
	// DefaultFloorPercentile is the floor percentile: p50, the median.
	DefaultFloorPercentile = 50.0
	// DefaultSuccess is the success target: 99% of runs.
	DefaultSuccess = 0.99
	// DefaultAttemptLimit is the attempt limit for a latency log: 3, the
	// AWS SDKs' standard-mode max attempts (AWS SDKs and Tools Reference
	// Guide, "Retry behavior").
	DefaultAttemptLimit = 3
	// MaxAttemptLimit bounds every attempt count here, as the scenario
	// language bounds retry.attempts.
	MaxAttemptLimit = 10_000
)

// DefaultBackoff returns the backoff used when [Options.Backoff] is zero:
// the scenario language's default, base 50 ms, multiplier 2, cap 5 s, full
// jitter.
func DefaultBackoff() backoff.Policy {
	return backoff.Policy{Base: 50 * time.Millisecond, Multiplier: 2, Cap: 5 * time.Second, Jitter: backoff.Full}
}

// Estimator names, as reported in [Recommendation.Estimator].
const (
	EstimatorSamples   = "nearest rank (inverse empirical CDF: gonum stat.Quantile with stat.Empirical)"
	EstimatorHistogram = "nearest rank from a log-linear histogram (relative error ≤ 1/256)"
)

// Bound selects how a backoff sleep enters the deadline arithmetic. The
// zero value is Worst.
type Bound int

// The bounds.
const (
	// Worst takes the largest sleep the jitter can draw: the ceiling
	// c_i = min(Cap, Base·Multiplier^(i−1)) for none, full and equal
	// jitter, c_i·(1+Spread) for proportional, and for decorrelated the
	// chain min(Cap, 3·prev). A deadline built on it fits every draw.
	Worst Bound = iota
	// Expected takes the mean sleep: c_i/2 for full jitter (Brooker 2015),
	// 3c_i/4 for equal, c_i for none and proportional; for decorrelated,
	// the chain of midpoints, an upper bound on the mean (the cap is
	// concave, Jensen). A deadline built on it is cut short for runs
	// whose sleeps draw above the mean.
	Expected
)

// String returns "worst" or "expected".
func (b Bound) String() string {
	switch b {
	case Worst:
		return "worst"
	case Expected:
		return "expected"
	}
	return fmt.Sprintf("Bound(%d)", int(b))
}

// ParseBound returns the Bound named s: "worst" or "expected".
func ParseBound(s string) (Bound, error) {
	switch s {
	case "worst":
		return Worst, nil
	case "expected":
		return Expected, nil
	}
	return 0, fmt.Errorf("backoff bound: want worst or expected, got %q", s)
}

// Options are the planner's choices. The zero value takes every default.
// An Options is a plain value, safe to share.
type Options struct {
	// Percentile of good calls' latency that sets the ceiling, in
	// (0, 100); 0 means DefaultPercentile (99).
	Percentile float64
	// FloorPercentile sets the floor, in (0, Percentile); 0 means
	// DefaultFloorPercentile (50).
	FloorPercentile float64
	// Success is the target probability that a call succeeds within its
	// attempts, in (0, 1); 0 means DefaultSuccess (0.99).
	Success float64
	// AttemptLimit is the most attempts (first included) the search for
	// the attempt count considers, in [1, MaxAttemptLimit]; 0 means
	// DefaultAttemptLimit for samples, the step's retry.attempts for a
	// scenario.
	AttemptLimit int
	// Backoff is the retry backoff. The zero value means DefaultBackoff
	// for samples, the step's retry.backoff for a scenario.
	Backoff backoff.Policy
	// Bound selects worst-case or expected backoff sleeps.
	Bound Bound
	// ErrorRate is the probability that an attempt fails retryably for a
	// reason other than the ceiling (a 5xx, a 429, a hang), in [0, 1).
	// For a scenario it must be 0: the rates come from the tools.
	ErrorRate float64
	// PermanentRate is the probability that an attempt fails for good (a
	// non-retryable error), in [0, 1); ErrorRate + PermanentRate < 1. For a
	// scenario it must be 0.
	PermanentRate float64
	// Deadline, when > 0, is the run deadline for which MaxAttempts is
	// computed. For a scenario 0 means the scenario's deadline.
	Deadline time.Duration
	// Reserve is held back at the end of the deadline (the scenario's
	// floor key), ≥ 0. For a scenario 0 means the scenario's floor.
	Reserve time.Duration
}

// withDefaults fills zero fields with the sample defaults and validates.
func (o Options) withDefaults() (Options, error) {
	if o.Percentile == 0 {
		o.Percentile = DefaultPercentile
	}
	if o.FloorPercentile == 0 {
		o.FloorPercentile = DefaultFloorPercentile
	}
	if o.Success == 0 {
		o.Success = DefaultSuccess
	}
	if o.AttemptLimit == 0 {
		o.AttemptLimit = DefaultAttemptLimit
	}
	if o.Backoff == (backoff.Policy{}) {
		o.Backoff = DefaultBackoff()
	}
	switch {
	case !(o.Percentile > 0 && o.Percentile < 100):
		return o, fmt.Errorf("percentile: must be in (0, 100), got %v", o.Percentile)
	case !(o.FloorPercentile > 0 && o.FloorPercentile < o.Percentile):
		return o, fmt.Errorf("floor percentile: must be in (0, percentile %v), got %v", o.Percentile, o.FloorPercentile)
	case !(o.Success > 0 && o.Success < 1):
		return o, fmt.Errorf("success: must be in (0, 1), got %v", o.Success)
	case o.AttemptLimit < 1 || o.AttemptLimit > MaxAttemptLimit:
		return o, fmt.Errorf("attempts: must be in [1, %d], got %d", MaxAttemptLimit, o.AttemptLimit)
	case o.Bound != Worst && o.Bound != Expected:
		return o, fmt.Errorf("bound: unknown value %d", int(o.Bound))
	case !(o.ErrorRate >= 0 && o.ErrorRate < 1):
		return o, fmt.Errorf("error rate: must be in [0, 1), got %v", o.ErrorRate)
	case !(o.PermanentRate >= 0 && o.PermanentRate < 1):
		return o, fmt.Errorf("permanent rate: must be in [0, 1), got %v", o.PermanentRate)
	case !(o.ErrorRate+o.PermanentRate < 1):
		return o, fmt.Errorf("error rate + permanent rate: must be < 1, got %v", o.ErrorRate+o.PermanentRate)
	case o.Deadline < 0:
		return o, fmt.Errorf("deadline: must be ≥ 0, got %v", o.Deadline)
	case o.Reserve < 0:
		return o, fmt.Errorf("reserve: must be ≥ 0, got %v", o.Reserve)
	}
	if err := o.Backoff.Validate(); err != nil {
		return o, fmt.Errorf("backoff: %w", err)
	}
	return o, nil
}

// Recommendation is the planner's answer for one endpoint (a latency log or
// a scenario step). Latency statistics are float64 seconds; the settings to
// apply (Ceiling, Floor, Backoff, Reserve, Deadline, GivenDeadline) are
// exact time.Durations. It marshals to JSON with every time in seconds
// (fields ending in _s).
type Recommendation struct {
	// Step and Tool name the scenario step and its tool; empty for a log.
	Step, Tool string
	// File, Source and Date label the data (latencylog.Log's File, Source
	// and Date): provider behaviour drifts, so a recommendation says which
	// data it came from.
	File, Source, Date string

	// Samples is the number of good calls observed, censored ones
	// included; Censored the number known only to exceed their lease (a
	// simulated step's timeouts, hangs excluded).
	Samples, Censored int64
	// Estimator names the percentile estimator.
	Estimator string
	// P50, P90, P99, P999 and Max are latency percentiles in seconds. A
	// percentile whose rank falls among the censored calls is a lower
	// bound: the largest answered latency (see Censored).
	P50, P90, P99, P999, Max float64

	// Percentile is the ceiling percentile used, in (0, 100).
	Percentile float64
	// Ceiling is the recommended per-attempt timeout, rounded up to the
	// nanosecond.
	Ceiling time.Duration
	// CeilingLowerBound reports that the ceiling percentile falls among
	// censored calls: the ceiling is only a lower bound (raise the step's
	// timeout and simulate again).
	CeilingLowerBound bool
	// CutOff is the chance that a new good call is slower than Ceiling,
	// (#{x > Ceiling} + 1)/(n + 1).
	CutOff float64
	// FloorPercentile is the floor percentile used.
	FloorPercentile float64
	// Floor is the recommended smallest lease worth dialing (min_lease),
	// rounded up to the nanosecond.
	Floor time.Duration

	// ErrorRate and PermanentRate are the per-attempt error rates used.
	ErrorRate, PermanentRate float64
	// AttemptFailure is 1 − s: the probability that one attempt does not
	// succeed (cut off, or an error).
	AttemptFailure float64
	// SuccessTarget is the target P(k) ≥ SuccessTarget.
	SuccessTarget float64
	// AttemptLimit is the most attempts considered.
	AttemptLimit int
	// Attempts is the smallest k ≤ AttemptLimit meeting the target, or
	// AttemptLimit when none does (TargetMet is then false).
	Attempts int
	// Success is P(Attempts), the predicted success probability;
	// TargetMet reports whether it reaches SuccessTarget.
	Success   float64
	TargetMet bool

	// BackoffPolicy is the backoff used and Bound how its sleeps are
	// bounded; Backoff is the total bound of the Attempts−1 sleeps.
	BackoffPolicy backoff.Policy
	Bound         Bound
	Backoff       time.Duration
	// Reserve is the time held back at the end of the deadline.
	Reserve time.Duration
	// Deadline is the run deadline needed: Attempts × Ceiling + Backoff +
	// Floor + Reserve.
	Deadline time.Duration

	// GivenDeadline is Options.Deadline (0: none); MaxAttempts is the most
	// attempts that fit in it (0 when not even one does, or no deadline)
	// and SuccessInDeadline is P(MaxAttempts).
	GivenDeadline     time.Duration
	MaxAttempts       int
	SuccessInDeadline float64

	// Fit is the fitted model that best matches the data (plan/fit's
	// Report.Best), nil if no fit was possible (see Warnings).
	Fit *fit.Candidate
	// TailP, TailRatio and TailHeavier come from plan/fit's Report: the
	// empirical TailP-quantile over the model's, and whether the data's
	// tail is heavier than the model's beyond sampling error.
	TailP, TailRatio float64
	TailHeavier      bool

	// Warnings are footnotes: censoring, unreachable targets, ignored
	// zero latencies, unmodelled retry features.
	Warnings []string

	// success holds s and r for P(k); cum holds the cumulative sleep
	// bounds: cum[i] is the total of the first i sleeps.
	s, d, r float64
	cum     []time.Duration
}

// FromLog recommends settings for the latencies of a latency log, keeping
// its File, Source and Date labels.
func FromLog(log *latencylog.Log, opt Options) (*Recommendation, error) {
	r, err := FromSamples(log.Samples, opt)
	if err != nil {
		if log.File != "" {
			return nil, fmt.Errorf("%s: %w", log.File, err)
		}
		return nil, err
	}
	r.File, r.Source, r.Date = log.File, log.Source, log.Date
	return r, nil
}

// FromSamples recommends settings for raw latencies in seconds, each finite
// and ≥ 0 (at least 2). samples is not modified. Zero latencies count in
// the percentiles but not in the fit (the fitted families live on (0, ∞)).
// It allocates O(n) and is safe for concurrent use.
func FromSamples(samples []float64, opt Options) (*Recommendation, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	if len(samples) < 2 {
		return nil, fmt.Errorf("samples: need at least 2, got %d", len(samples))
	}
	x := slices.Clone(samples)
	for i, v := range x {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("samples[%d]: must be finite and ≥ 0, got %v", i, v)
		}
	}
	slices.Sort(x)
	d := &sampleData{x: x}
	zeros := sort.Search(len(x), func(i int) bool { return x[i] > 0 })
	r, err := recommend(d, x[zeros:], opt)
	if err != nil {
		return nil, err
	}
	if zeros > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d zero latencies are counted in the percentiles but left out of the fit", zeros))
	}
	return r, nil
}

// FromHistogram recommends settings for the answered latencies in h
// (seconds) plus censored calls known only to be slower than their lease,
// which are ranked above every answered call. h is not modified. The fit
// uses the answered calls only, at most 200 000 of them (a quantile grid
// of h when there are more), and so understates the tail when calls are
// censored.
func FromHistogram(h *stats.Histogram, censored int64, opt Options) (*Recommendation, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	if censored < 0 {
		return nil, fmt.Errorf("censored: must be ≥ 0, got %d", censored)
	}
	if h.Count() < 2 {
		return nil, fmt.Errorf("samples: need at least 2 answered calls, got %d", h.Count())
	}
	d := newHistData(h, censored)
	r, err := recommend(d, d.grid(maxFitSamples), opt)
	if err != nil {
		return nil, err
	}
	if censored > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("timed-out calls are censored: %d of %d (%.2f%%); percentiles above p%.4g are lower bounds, and the fit sees only the answered calls",
			censored, d.n(), 100*float64(censored)/float64(d.n()), 100*float64(h.Count())/float64(d.n())))
	}
	return r, nil
}

// maxFitSamples bounds the points FromHistogram fits.
const maxFitSamples = 200_000

// observed is a sample of good calls' latencies, some possibly censored.
type observed interface {
	// n is the number of good calls, censored ones included.
	n() int64
	// censored is the number of censored calls.
	censored() int64
	// quantile returns the nearest-rank p-quantile and whether its rank is
	// censored (the value is then a lower bound).
	quantile(p float64) (float64, bool)
	// above returns the number of good calls slower than x.
	above(x float64) int64
	// max returns the largest answered latency.
	max() float64
	estimator() string
}

// sampleData is a sorted sample.
type sampleData struct{ x []float64 }

func (d *sampleData) n() int64        { return int64(len(d.x)) }
func (d *sampleData) censored() int64 { return 0 }
func (d *sampleData) quantile(p float64) (float64, bool) {
	return stat.Quantile(p, stat.Empirical, d.x, nil), false
}
func (d *sampleData) above(x float64) int64 {
	return int64(len(d.x) - sort.Search(len(d.x), func(i int) bool { return d.x[i] > x }))
}
func (d *sampleData) max() float64      { return d.x[len(d.x)-1] }
func (d *sampleData) estimator() string { return EstimatorSamples }

// histData is a histogram of answered calls plus censored ones.
type histData struct {
	h      *stats.Histogram
	cens   int64
	points []stats.CDFPoint
}

func newHistData(h *stats.Histogram, censored int64) *histData {
	return &histData{h: h, cens: censored, points: h.CDFPoints(nil)}
}

func (d *histData) n() int64        { return int64(d.h.Count()) + d.cens }
func (d *histData) censored() int64 { return d.cens }
func (d *histData) max() float64    { return d.h.Max() }
func (d *histData) estimator() string {
	return EstimatorHistogram
}

func (d *histData) quantile(p float64) (float64, bool) {
	answered := int64(d.h.Count())
	rank := nearestRank(p, d.n())
	if rank > answered {
		return d.h.Max(), true
	}
	return d.h.Quantile(float64(rank) / float64(answered)), false
}

func (d *histData) above(x float64) int64 {
	answered := int64(d.h.Count())
	// The answered calls at or below x are those in buckets whose
	// representative is ≤ x (the values Quantile reports).
	i := sort.Search(len(d.points), func(i int) bool { return d.points[i].Value > x })
	var le int64
	if i > 0 {
		le = int64(math.Round(d.points[i-1].Fraction * float64(answered)))
	}
	return answered - le + d.cens
}

// grid returns at most m positive latencies spread like the answered calls:
// the nearest-rank quantiles at (i − 1/2)/m, i = 1..m. With m equal to the
// count it is every recorded value (to the histogram's resolution).
func (d *histData) grid(m int) []float64 {
	answered := int64(d.h.Count())
	m = int(min(int64(m), answered))
	out := make([]float64, 0, m)
	j := 0
	for i := range m {
		rank := int64(math.Ceil((float64(i) + 0.5) / float64(m) * float64(answered)))
		for j < len(d.points)-1 && int64(math.Round(d.points[j].Fraction*float64(answered))) < rank {
			j++
		}
		if v := d.points[j].Value; v > 0 {
			out = append(out, v)
		}
	}
	return out
}

// nearestRank returns ⌈p·n⌉ (at least 1), forgiving float64 rounding that
// puts p·n just above an integer, as stats.Histogram.Quantile does.
func nearestRank(p float64, n int64) int64 {
	r := p * float64(n)
	f := math.Floor(r)
	if r-f <= r*0x1p-50 {
		return max(int64(f), 1)
	}
	return max(int64(math.Ceil(r)), 1)
}

// recommend applies the rules of the package comment to d; fitX are the
// positive latencies to fit.
func recommend(d observed, fitX []float64, opt Options) (*Recommendation, error) {
	r := &Recommendation{
		Samples:         d.n(),
		Censored:        d.censored(),
		Estimator:       d.estimator(),
		Percentile:      opt.Percentile,
		FloorPercentile: opt.FloorPercentile,
		ErrorRate:       opt.ErrorRate,
		PermanentRate:   opt.PermanentRate,
		SuccessTarget:   opt.Success,
		AttemptLimit:    opt.AttemptLimit,
		BackoffPolicy:   opt.Backoff,
		Bound:           opt.Bound,
		Reserve:         opt.Reserve,
		GivenDeadline:   opt.Deadline,
	}
	r.P50, _ = d.quantile(0.5)
	r.P90, _ = d.quantile(0.9)
	r.P99, _ = d.quantile(0.99)
	r.P999, _ = d.quantile(0.999)
	r.Max = d.max()

	ceil, cens := d.quantile(opt.Percentile / 100)
	if !(ceil > 0) {
		return nil, fmt.Errorf("ceiling: the p%s latency is %v s; nothing to time out", trimFloat(opt.Percentile), ceil)
	}
	r.Ceiling = durationUp(ceil)
	r.CeilingLowerBound = cens
	if cens {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the p%s is censored: more than %.2f%% of calls timed out, so the ceiling is only a lower bound (the slowest answered call); raise the timeout and measure again",
			trimFloat(opt.Percentile), 100-opt.Percentile))
	}
	// The share of future calls slower than the ceiling: for a ceiling
	// with a of the n samples above it, (a+1)/(n+1) whatever the
	// distribution (a new call is as likely to fall in each of the n+1
	// gaps the samples leave), not a/n, which is 0 at the slowest of a few
	// samples.
	r.CutOff = float64(d.above(r.Ceiling.Seconds())+1) / float64(d.n()+1)
	if n := d.n(); !cens && nearestRank(opt.Percentile/100, n) >= n {
		// Rule of three (Hanley & Lippman-Hand 1983): 0 events in n
		// trials bound the rate by 3/n with 95% confidence.
		r.Warnings = append(r.Warnings, fmt.Sprintf("too few samples for a p%s: the ceiling is the slowest of %d calls, and the share of calls slower than it may be up to %s (rule of three, 95%%); collect at least %d",
			trimFloat(opt.Percentile), n, pct(min(1, 3/float64(n))), int(math.Ceil(3/(1-opt.Percentile/100)))))
	}
	floor, _ := d.quantile(opt.FloorPercentile / 100)
	r.Floor = durationUp(floor)

	c := r.CutOff
	r.s = float64((1 - opt.ErrorRate - opt.PermanentRate) * (1 - c))
	r.d = float64(opt.PermanentRate * (1 - c))
	r.r = max(0, 1-r.s-r.d)
	r.AttemptFailure = 1 - r.s
	r.cum = sleepBounds(opt.Backoff, opt.Bound, opt.AttemptLimit-1)

	r.Attempts = opt.AttemptLimit
	for k := 1; k <= opt.AttemptLimit; k++ {
		if r.SuccessWithin(k) >= opt.Success {
			r.Attempts, r.TargetMet = k, true
			break
		}
	}
	r.Success = r.SuccessWithin(r.Attempts)
	if !r.TargetMet {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the success target %s is not reached within %d attempts (%s); the most any number of attempts reaches is %s",
			pct(opt.Success), opt.AttemptLimit, pct(r.Success), pct(r.successLimit())))
	}
	r.Backoff = r.cum[r.Attempts-1]
	r.Deadline = r.DeadlineFor(r.Attempts)
	r.setMaxAttempts(opt.Deadline)

	rep, err := fit.Fit(fitX)
	if err != nil {
		r.Warnings = append(r.Warnings, "no fit: "+err.Error())
		return r, nil
	}
	best := rep.Best
	r.Fit = &best
	r.TailP, r.TailRatio, r.TailHeavier = rep.TailP, rep.TailRatio, rep.TailHeavier
	return r, nil
}

// SuccessWithin returns P(k), the probability that a call succeeds within k
// attempts under the package's independence model, for k ≥ 0.
func (r *Recommendation) SuccessWithin(k int) float64 {
	if k <= 0 {
		return 0
	}
	if r.r >= 1 {
		return 0
	}
	if r.r == 0 {
		return r.s
	}
	// s(1 − r^k)/(1 − r), with 1 − r^k = −expm1(k ln r) accurate for r^k
	// near 1.
	return min(1, r.s*-math.Expm1(float64(k)*math.Log(r.r))/(1-r.r))
}

// successLimit is P(∞) = s/(1 − r).
func (r *Recommendation) successLimit() float64 {
	if r.r >= 1 {
		return 0
	}
	return min(1, r.s/(1-r.r))
}

// BackoffFor returns the bound on the total backoff sleep of k attempts:
// the sum of the first k−1 sleep bounds of BackoffPolicy under Bound (0 for
// k ≤ 1).
func (r *Recommendation) BackoffFor(k int) time.Duration {
	if k <= 1 {
		return 0
	}
	if k-1 < len(r.cum) {
		return r.cum[k-1]
	}
	return sleepBounds(r.BackoffPolicy, r.Bound, k-1)[k-1]
}

// BudgetFor returns k × Ceiling + BackoffFor(k): the time k attempts that
// all time out at the ceiling spend, sleeps included, saturating at the
// largest Duration.
func (r *Recommendation) BudgetFor(k int) time.Duration {
	return satAdd(satMul(r.Ceiling, k), r.BackoffFor(k))
}

// DeadlineFor returns the run deadline k attempts need: BudgetFor(k) +
// Floor + Reserve.
func (r *Recommendation) DeadlineFor(k int) time.Duration {
	return satAdd(satAdd(r.BudgetFor(k), r.Floor), r.Reserve)
}

// setMaxAttempts fills GivenDeadline, MaxAttempts and SuccessInDeadline
// for a step that has available of the deadline to itself (0: no deadline).
func (r *Recommendation) setMaxAttempts(available time.Duration) {
	r.MaxAttempts, r.SuccessInDeadline = 0, 0
	if available <= 0 {
		return
	}
	lo := 0
	// The deadline grows with k; the ceiling is > 0, so at most
	// available/ceiling attempts fit.
	hi := int(min(int64(MaxAttemptLimit), int64(available/r.Ceiling)))
	cum := sleepBounds(r.BackoffPolicy, r.Bound, max(hi-1, 0))
	for k := 1; k <= hi; k++ {
		need := satAdd(satAdd(satAdd(satMul(r.Ceiling, k), cum[k-1]), r.Floor), r.Reserve)
		if need > available {
			break
		}
		lo = k
	}
	r.MaxAttempts = lo
	r.SuccessInDeadline = r.SuccessWithin(lo)
}

// sleepBounds returns cum with cum[i] the total bound of the first i
// sleeps, i = 0..n.
func sleepBounds(p backoff.Policy, b Bound, n int) []time.Duration {
	u := math.Nextafter(1, 0) // the largest draw: Delay's upper end
	if b == Expected {
		u = 0.5 // Delay is affine in u: the midpoint is the mean
	}
	cum := make([]time.Duration, n+1)
	var prev time.Duration
	for i := 1; i <= n; i++ {
		s := p.Delay(i, prev, u)
		prev = s
		cum[i] = satAdd(cum[i-1], s)
	}
	return cum
}

// durationUp converts seconds to a Duration, rounding up to the nanosecond
// so that a latency equal to the value is not cut off by it.
func durationUp(s float64) time.Duration {
	ns := math.Ceil(s * 1e9)
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

func satAdd(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(a time.Duration, k int) time.Duration {
	if k > 0 && a > math.MaxInt64/time.Duration(k) {
		return math.MaxInt64
	}
	return a * time.Duration(k)
}

// trimFloat formats a percentile without trailing zeros: 99, 99.9.
func trimFloat(x float64) string { return fmt.Sprintf("%g", x) }

// pct formats a probability as a percentage with up to 4 decimals.
func pct(x float64) string { return fmt.Sprintf("%.4g%%", 100*x) }

// jsonRecommendation is the JSON form of a Recommendation.
type jsonRecommendation struct {
	Step              string         `json:"step,omitempty"`
	Tool              string         `json:"tool,omitempty"`
	File              string         `json:"file,omitempty"`
	Source            string         `json:"source"`
	Date              string         `json:"date"`
	Samples           int64          `json:"samples"`
	Censored          int64          `json:"censored"`
	Estimator         string         `json:"quantile_estimator"`
	P50               float64        `json:"p50_s"`
	P90               float64        `json:"p90_s"`
	P99               float64        `json:"p99_s"`
	P999              float64        `json:"p999_s"`
	Max               float64        `json:"max_s"`
	Percentile        float64        `json:"percentile"`
	Ceiling           float64        `json:"ceiling_s"`
	CeilingLowerBound bool           `json:"ceiling_lower_bound"`
	CutOff            float64        `json:"cut_off_fraction"`
	FloorPercentile   float64        `json:"floor_percentile"`
	Floor             float64        `json:"floor_s"`
	ErrorRate         float64        `json:"error_rate"`
	PermanentRate     float64        `json:"permanent_rate"`
	AttemptFailure    float64        `json:"attempt_failure"`
	SuccessTarget     float64        `json:"success_target"`
	AttemptLimit      int            `json:"attempt_limit"`
	Attempts          int            `json:"attempts"`
	Success           float64        `json:"success"`
	TargetMet         bool           `json:"target_met"`
	Backoff           jsonBackoff    `json:"backoff"`
	BackoffTotal      float64        `json:"backoff_s"`
	Reserve           float64        `json:"reserve_s"`
	Deadline          float64        `json:"deadline_s"`
	GivenDeadline     float64        `json:"given_deadline_s"`
	MaxAttempts       int            `json:"max_attempts"`
	SuccessInDeadline float64        `json:"success_in_deadline"`
	Fit               *fit.Candidate `json:"fit"`
	TailP             float64        `json:"tail_p"`
	TailRatio         float64        `json:"tail_ratio"`
	TailHeavier       bool           `json:"tail_heavier"`
	Warnings          []string       `json:"warnings"`
}

type jsonBackoff struct {
	Base       float64 `json:"base_s"`
	Cap        float64 `json:"cap_s"`
	Multiplier float64 `json:"multiplier"`
	Jitter     string  `json:"jitter"`
	Bound      string  `json:"bound"`
}

// MarshalJSON writes the recommendation with times in seconds; non-finite
// numbers (a tail ratio against a degenerate fit) are written as 0.
func (r Recommendation) MarshalJSON() ([]byte, error) {
	warnings := r.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	j := jsonRecommendation{
		Step: r.Step, Tool: r.Tool, File: r.File, Source: r.Source, Date: r.Date,
		Samples: r.Samples, Censored: r.Censored, Estimator: r.Estimator,
		P50: finite(r.P50), P90: finite(r.P90), P99: finite(r.P99), P999: finite(r.P999), Max: finite(r.Max),
		Percentile: r.Percentile, Ceiling: r.Ceiling.Seconds(), CeilingLowerBound: r.CeilingLowerBound,
		CutOff: r.CutOff, FloorPercentile: r.FloorPercentile, Floor: r.Floor.Seconds(),
		ErrorRate: r.ErrorRate, PermanentRate: r.PermanentRate, AttemptFailure: r.AttemptFailure,
		SuccessTarget: r.SuccessTarget, AttemptLimit: r.AttemptLimit, Attempts: r.Attempts,
		Success: r.Success, TargetMet: r.TargetMet,
		Backoff: jsonBackoff{
			Base: r.BackoffPolicy.Base.Seconds(), Cap: r.BackoffPolicy.Cap.Seconds(),
			Multiplier: r.BackoffPolicy.Multiplier, Jitter: r.BackoffPolicy.Jitter.String(), Bound: r.Bound.String(),
		},
		BackoffTotal: r.Backoff.Seconds(), Reserve: r.Reserve.Seconds(), Deadline: r.Deadline.Seconds(),
		GivenDeadline: r.GivenDeadline.Seconds(), MaxAttempts: r.MaxAttempts, SuccessInDeadline: r.SuccessInDeadline,
		Fit: r.Fit, TailP: r.TailP, TailRatio: finite(r.TailRatio), TailHeavier: r.TailHeavier,
		Warnings: warnings,
	}
	if j.Fit != nil {
		c := *j.Fit
		c.PValue, c.LogLik, c.AIC = finite(c.PValue), finite(c.LogLik), finite(c.AIC)
		j.Fit = &c
	}
	return json.Marshal(j)
}

func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// errNoSteps is returned by FromResults for a configuration without steps.
var errNoSteps = errors.New("steps: the scenario has none")
