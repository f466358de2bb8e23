package recommend

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/backoff"
	"github.com/budgetsim/budgetsim/sim/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// z3 is the two-sided 99.9% standard normal quantile: every statistical
// check below is a 99.9% interval, so with a fixed seed a failure means a
// bug, not bad luck (each check would fail by chance once in 1000 seeds).
const z3 = 3.2905267314919255

// lognormalSample returns n draws of a lognormal with the given median and
// sigma from a fixed seed.
func lognormalSample(n int, median, sigma float64) []float64 {
	d := distuv.LogNormal{Mu: math.Log(median), Sigma: sigma, Src: rand.New(rand.NewPCG(1, 2))}
	x := make([]float64, n)
	for i := range x {
		x[i] = d.Rand()
	}
	return x
}

// orderCI returns the 1-based ranks [lo, hi] of the order statistics that
// bracket the true p-quantile with confidence about 1 − 2Φ(−z): the count
// of samples below the quantile is Binomial(n, p), approximated by a normal
// (David & Nagaraja, Order Statistics, 3rd ed., §7.1).
func orderCI(n int, p, z float64) (lo, hi int) {
	m, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
	lo = max(1, int(math.Floor(m-z*sd)))
	hi = min(n, int(math.Ceil(m+z*sd))+1)
	return lo, hi
}

// TestLogNormalRecovery: on 20 000 lognormal latencies (median 40 ms, sigma
// 0.8) the recommendation reports the sample's nearest-rank percentiles,
// brackets the true quantiles within their order-statistic confidence
// intervals, and the lognormal fit recovers the parameters within their
// asymptotic standard errors.
func TestLogNormalRecovery(t *testing.T) {
	const (
		n      = 20000
		median = 0.040
		sigma  = 0.8
	)
	x := lognormalSample(n, median, sigma)
	r, err := FromSamples(x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	truth := distuv.LogNormal{Mu: math.Log(median), Sigma: sigma}
	for _, c := range []struct {
		name string
		p    float64
		got  float64
	}{
		{"p50", 0.5, r.P50}, {"p90", 0.9, r.P90}, {"p99", 0.99, r.P99}, {"p99.9", 0.999, r.P999},
	} {
		// Nearest rank: the sample of rank ⌈np⌉ (gonum stat.Empirical).
		if want := sorted[int(math.Ceil(float64(n)*c.p-1e-9))-1]; c.got != want {
			t.Errorf("%s = %v, want x_(⌈np⌉) = %v", c.name, c.got, want)
		}
		lo, hi := orderCI(n, c.p, z3)
		if q := truth.Quantile(c.p); q < sorted[lo-1] || q > sorted[hi-1] {
			t.Errorf("%s: true quantile %v outside the 99.9%% order-statistic interval [x_(%d), x_(%d)] = [%v, %v]", c.name, q, lo, hi, sorted[lo-1], sorted[hi-1])
		}
	}
	if want := durationUp(r.P99); r.Ceiling != want {
		t.Errorf("Ceiling = %v, want p99 rounded up = %v", r.Ceiling, want)
	}
	// 20 000 distinct values: exactly n − ⌈0.99n⌉ = 200 lie above the p99,
	// so a new call is slower than it with probability 201/20001.
	if r.CutOff != 201.0/20001 {
		t.Errorf("CutOff = %v, want 201/20001", r.CutOff)
	}
	if want := durationUp(r.P50); r.Floor != want {
		t.Errorf("Floor = %v, want p50 rounded up = %v", r.Floor, want)
	}
	if r.Fit == nil || r.Fit.Dist != "lognormal" {
		t.Fatalf("Fit = %v, want lognormal", r.Fit)
	}
	// Asymptotic standard errors of the lognormal MLE: SE(mu) = sigma/sqrt(n),
	// SE(sigma) = sigma/sqrt(2n) (Fisher information of the normal on ln x).
	mu := math.Log(r.Fit.Params["median"])
	if se := sigma / math.Sqrt(n); math.Abs(mu-math.Log(median)) > z3*se {
		t.Errorf("fitted ln median = %v, want %v ± %v (3.29 SE)", mu, math.Log(median), z3*se)
	}
	if se := sigma / math.Sqrt(2*n); math.Abs(r.Fit.Params["sigma"]-sigma) > z3*se {
		t.Errorf("fitted sigma = %v, want %v ± %v (3.29 SE)", r.Fit.Params["sigma"], sigma, z3*se)
	}
	if r.TailHeavier {
		t.Errorf("TailHeavier = true (ratio %v), want false for lognormal data fitted by a lognormal", r.TailRatio)
	}
	if r.Estimator != EstimatorSamples {
		t.Errorf("Estimator = %q, want %q", r.Estimator, EstimatorSamples)
	}
}

// TestHistogramCensored: a histogram of the same sample reads the same
// percentiles to within the histogram's relative error, and censoring the
// calls slower than 200 ms (the p97.8 of the true distribution) turns the
// p99 ceiling into a flagged lower bound while leaving p50 and p90 exact.
func TestHistogramCensored(t *testing.T) {
	x := lognormalSample(20000, 0.040, 0.8)
	exact, err := FromSamples(x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []float64{math.Inf(1), 0.200} {
		h := stats.NewHistogram()
		var censored int64
		for _, v := range x {
			if v > cut {
				censored++
				continue
			}
			h.Add(v)
		}
		r, err := FromHistogram(h, censored, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Samples != 20000 || r.Censored != censored {
			t.Errorf("cut %v: Samples, Censored = %d, %d, want 20000, %d", cut, r.Samples, r.Censored, censored)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"p50", r.P50, exact.P50}, {"p90", r.P90, exact.P90}} {
			if math.Abs(c.got-c.want) > stats.RelativeError*c.want {
				t.Errorf("cut %v: %s = %v, want %v within %v (histogram relative error)", cut, c.name, c.got, c.want, stats.RelativeError)
			}
		}
		if censored == 0 {
			if math.Abs(r.P99-exact.P99) > stats.RelativeError*exact.P99 || r.CeilingLowerBound {
				t.Errorf("uncensored: P99, lower bound = %v, %v, want %v within 1/256, false", r.P99, r.CeilingLowerBound, exact.P99)
			}
			// The ceiling is its bucket's midpoint, within 1/256 of the
			// exact p99, so the count above it differs from the exact 200
			// by the samples within ±1/256 of the p99: about
			// n·f(x)·x·2/256 = 20000·(φ(2.33)/0.8)·0.0078 ≈ 5. The bound,
			// 20 samples (0.001), is exceeded by a Poisson(5) count with
			// probability about 1e-6.
			if math.Abs(r.CutOff-0.01) > 0.001 {
				t.Errorf("uncensored: CutOff = %v, want 0.01 ± 0.001", r.CutOff)
			}
			continue
		}
		if !r.CeilingLowerBound || r.Ceiling != durationUp(h.Max()) {
			t.Errorf("censored: CeilingLowerBound, Ceiling = %v, %v, want true, %v (the slowest answered call)", r.CeilingLowerBound, r.Ceiling, durationUp(h.Max()))
		}
		if want := float64(censored+1) / 20001; r.CutOff != want {
			t.Errorf("censored: CutOff = %v, want (censored + 1)/(n + 1) = %v", r.CutOff, want)
		}
		if len(r.Warnings) == 0 {
			t.Errorf("censored: no warnings, want the censoring explained")
		}
	}
}

// grid100 returns the latencies 1 ms, 2 ms, …, 100 ms in seconds.
func grid100() []float64 {
	x := make([]float64, 100)
	for i := range x {
		x[i] = float64(i+1) / 1000
	}
	return x
}

// TestRules checks the attempt, deadline and max-attempt arithmetic on 1..100
// ms, whose p99 is 99 ms (one sample above it: a new call is slower with
// probability c = 2/101) and p50 50 ms, against hand computations of the
// package-comment formulas.
func TestRules(t *testing.T) {
	ms := time.Millisecond
	const c = 2.0 / 101 // the p99 ceiling's cut-off
	cases := []struct {
		name        string
		opt         Options
		attempts    int
		success     float64
		met         bool
		backoff     time.Duration
		deadline    time.Duration
		maxAttempts int
	}{
		{
			// q = 1 − 0.9(1 − c) = 0.117822; 1 − q² = 0.986118 < 0.99 ≤
			// 1 − q³. Worst-case full-jitter sleeps 50 ms + 100 ms.
			// deadline = 3·99 + 150 + 50 = 497 ms. In 1 s: 4 attempts need
			// 396 + 350 + 50 = 796 ms, 5 need 495 + 750 + 50 = 1295 ms.
			name: "error rate 10%", opt: Options{ErrorRate: 0.1, Deadline: time.Second},
			attempts: 3, success: 1 - math.Pow(1-0.9*(1-c), 3), met: true,
			backoff: 150 * ms, deadline: 497 * ms, maxAttempts: 4,
		},
		{
			// Full jitter's mean sleeps: 25 ms + 50 ms.
			name: "expected backoff", opt: Options{ErrorRate: 0.1, Bound: Expected},
			attempts: 3, success: 1 - math.Pow(1-0.9*(1-c), 3), met: true,
			backoff: 75 * ms, deadline: 3*99*ms + 75*ms + 50*ms,
		},
		{
			// q = c: one attempt gives 98.02%, short of 99%; two give
			// 1 − c² = 99.96%, after a worst-case 50 ms sleep.
			name: "no errors", opt: Options{},
			attempts: 2, success: 1 - c*c, met: true, backoff: 50 * ms, deadline: 2*99*ms + 50*ms + 50*ms,
		},
		{
			// s = 0.9(1 − c), d = 0.05(1 − c), r = 1 − s − d: P(∞) =
			// s/(1 − r) = 0.9474 < 0.99, so the limit (3) is used:
			// P(3) = s(1 − r³)/(1 − r).
			name: "permanent errors", opt: Options{ErrorRate: 0.05, PermanentRate: 0.05, Reserve: 20 * ms},
			attempts: 3, success: 0.9 * (1 - c) * (1 - math.Pow(1-0.95*(1-c), 3)) / (0.95 * (1 - c)), met: false,
			backoff: 150 * ms, deadline: 497*ms + 20*ms,
		},
		{
			// Constant 100 ms backoff (no jitter, multiplier 1), p90
			// ceiling (90 ms, ten samples above: q = 11/101), 99.9%
			// target: 1 − q³ = 0.99871 falls short, 1 − q⁴ = 0.99986.
			name: "p90 ceiling, constant backoff",
			opt: Options{Percentile: 90, Success: 0.999, AttemptLimit: 5, Deadline: 400 * ms,
				Backoff: backoff.Policy{Base: 100 * ms, Cap: 100 * ms, Multiplier: 1}},
			attempts: 4, success: 1 - math.Pow(11.0/101, 4), met: true, backoff: 300 * ms, deadline: 360*ms + 300*ms + 50*ms,
			maxAttempts: 2, // 2·90 + 100 + 50 = 330 ms; 3 need 520 ms
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := FromSamples(grid100(), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if r.Attempts != c.attempts || r.TargetMet != c.met {
				t.Errorf("Attempts, TargetMet = %d, %v, want %d, %v", r.Attempts, r.TargetMet, c.attempts, c.met)
			}
			if math.Abs(r.Success-c.success) > 1e-12 {
				t.Errorf("Success = %v, want %v", r.Success, c.success)
			}
			if r.Backoff != c.backoff || r.Deadline != c.deadline {
				t.Errorf("Backoff, Deadline = %v, %v, want %v, %v", r.Backoff, r.Deadline, c.backoff, c.deadline)
			}
			if r.MaxAttempts != c.maxAttempts {
				t.Errorf("MaxAttempts = %d, want %d", r.MaxAttempts, c.maxAttempts)
			}
			if c.opt.Deadline > 0 && r.SuccessInDeadline != r.SuccessWithin(r.MaxAttempts) {
				t.Errorf("SuccessInDeadline = %v, want P(%d) = %v", r.SuccessInDeadline, r.MaxAttempts, r.SuccessWithin(r.MaxAttempts))
			}
		})
	}
}

// TestCeilingFloor checks the ceiling and floor percentiles on 1..100 ms.
func TestCeilingFloor(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		percentile, floorPercentile float64
		ceiling, floor              time.Duration
		cutOff                      float64
	}{
		// (samples above the ceiling + 1)/(100 + 1): even the slowest of
		// the samples leaves a new call a 1/101 chance of being slower.
		{0, 0, 99 * ms, 50 * ms, 2.0 / 101},
		{99.9, 10, 100 * ms, 10 * ms, 1.0 / 101},
		{95, 50, 95 * ms, 50 * ms, 6.0 / 101},
		{50.5, 50, 51 * ms, 50 * ms, 50.0 / 101},
	}
	for _, c := range cases {
		r, err := FromSamples(grid100(), Options{Percentile: c.percentile, FloorPercentile: c.floorPercentile})
		if err != nil {
			t.Fatal(err)
		}
		if r.Ceiling != c.ceiling || r.Floor != c.floor || math.Abs(r.CutOff-c.cutOff) > 1e-15 {
			t.Errorf("FromSamples(1..100ms, p%v, floor p%v) = ceiling %v, floor %v, cut-off %v; want %v, %v, %v",
				c.percentile, c.floorPercentile, r.Ceiling, r.Floor, r.CutOff, c.ceiling, c.floor, c.cutOff)
		}
	}
}

// TestSleepBounds pins the worst-case and expected sleep totals per jitter.
func TestSleepBounds(t *testing.T) {
	ms := time.Millisecond
	base := backoff.Policy{Base: 10 * ms, Cap: 40 * ms, Multiplier: 2}
	with := func(j backoff.Jitter) backoff.Policy { p := base; p.Jitter = j; return p }
	cases := []struct {
		p     backoff.Policy
		b     Bound
		total time.Duration // of 4 sleeps
	}{
		{with(backoff.None), Worst, 10*ms + 20*ms + 40*ms + 40*ms},
		{with(backoff.Full), Worst, 110 * ms},
		{with(backoff.Full), Expected, 55 * ms},
		{with(backoff.Equal), Expected, 3 * 110 * ms / 4},
		{with(backoff.Proportional), Worst, 132 * ms}, // 1.2 × 110 ms (gRPC spread 0.2)
		// Decorrelated worst chain: 30, min(40, 90), 40, 40 (Base 10, ×3).
		{with(backoff.Decorrelated), Worst, 150 * ms},
	}
	for _, c := range cases {
		cum := sleepBounds(c.p, c.b, 4)
		if d := cum[4] - c.total; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("sleepBounds(%v jitter, %v, 4)[4] = %v, want %v", c.p.Jitter, c.b, cum[4], c.total)
		}
	}
}

// TestOptionErrors: bad options are errors naming the option and value.
func TestOptionErrors(t *testing.T) {
	cases := []struct {
		opt  Options
		want string
	}{
		{Options{Percentile: 100}, "percentile: must be in (0, 100), got 100"},
		{Options{Percentile: 90, FloorPercentile: 95}, "floor percentile: must be in (0, percentile 90), got 95"},
		{Options{Success: 1}, "success: must be in (0, 1), got 1"},
		{Options{AttemptLimit: -1}, "attempts: must be in [1, 10000], got -1"},
		{Options{ErrorRate: 0.6, PermanentRate: 0.5}, "error rate + permanent rate: must be < 1, got 1.1"},
		{Options{Deadline: -time.Second}, "deadline: must be ≥ 0, got -1s"},
		{Options{Backoff: backoff.Policy{Base: time.Second, Cap: time.Millisecond, Multiplier: 2}}, "backoff: cap: must be 0 (no cap) or ≥ base (1s), got 1ms"},
	}
	for _, c := range cases {
		_, err := FromSamples(grid100(), c.opt)
		if err == nil || err.Error() != c.want {
			t.Errorf("FromSamples(1..100ms, %+v) error = %v, want %q", c.opt, err, c.want)
		}
	}
	zeros := append(make([]float64, 200), 1)
	for _, c := range []struct {
		x    []float64
		want string
	}{
		{[]float64{1}, "samples: need at least 2, got 1"},
		{[]float64{1, -1}, "samples[1]: must be finite and ≥ 0, got -1"},
		{[]float64{1, math.NaN()}, "samples[1]: must be finite and ≥ 0, got NaN"},
		{zeros, "ceiling: the p99 latency is 0 s; nothing to time out"},
	} {
		if _, err := FromSamples(c.x, Options{}); err == nil || err.Error() != c.want {
			t.Errorf("FromSamples(%d samples) error = %v, want %q", len(c.x), err, c.want)
		}
	}
}

// TestZeros: zero latencies count in the percentiles, not in the fit.
func TestZeros(t *testing.T) {
	x := append([]float64{0, 0}, grid100()...)
	r, err := FromSamples(x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Samples != 102 || r.Fit == nil || len(r.Warnings) != 1 {
		t.Errorf("FromSamples(two zeros + 1..100ms) = samples %d, fit %v, warnings %q; want 102, a fit, one warning", r.Samples, r.Fit, r.Warnings)
	}
}

// TestJSON: the JSON form carries the fields the CLI promises, in seconds.
func TestJSON(t *testing.T) {
	r, err := FromSamples(grid100(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"samples", "p50_s", "p90_s", "p99_s", "p999_s", "ceiling_s", "floor_s", "fit", "source", "date", "deadline_s", "attempts", "cut_off_fraction", "tail_heavier"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	if m["ceiling_s"] != 0.099 || m["floor_s"] != 0.05 {
		t.Errorf("JSON ceiling_s, floor_s = %v, %v, want 0.099, 0.05", m["ceiling_s"], m["floor_s"])
	}
	f, _ := m["fit"].(map[string]any)
	for _, k := range []string{"dist", "params", "ks"} {
		if _, ok := f[k]; !ok {
			t.Errorf("JSON fit lacks %q: %s", k, b)
		}
	}
}

// TestNoAllocs: the per-k arithmetic callers loop over does not allocate.
func TestNoAllocs(t *testing.T) {
	r, err := FromSamples(grid100(), Options{ErrorRate: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() {
		_ = r.SuccessWithin(3)
		_ = r.DeadlineFor(3)
	}); a != 0 {
		t.Errorf("SuccessWithin, DeadlineFor: %v allocations per call, want 0", a)
	}
}

func BenchmarkFromSamples(b *testing.B) {
	x := lognormalSample(20000, 0.040, 0.8)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromSamples(x, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFromHistogram(b *testing.B) {
	h := stats.NewHistogram()
	for _, v := range lognormalSample(20000, 0.040, 0.8) {
		h.Add(v)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromHistogram(h, 0, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSuccessWithin(b *testing.B) {
	r, err := FromSamples(grid100(), Options{ErrorRate: 0.1})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = r.SuccessWithin(3)
	}
}
