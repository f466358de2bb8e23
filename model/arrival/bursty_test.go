package arrival

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/dist"
)

// meanSE returns the mean of xs and its standard error (sample standard
// deviation over √n).
func meanSE(xs []float64) (mean, se float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss/float64(len(xs)-1)) / math.Sqrt(float64(len(xs)))
}

// A renewal process with exponential gaps is a Poisson process: the count
// in a window is Poisson, so its mean is λT and its variance λT too (index
// of dispersion 1).
func TestRenewalExponentialIsPoisson(t *testing.T) {
	const rate, window, reps = 5.0, 20 * time.Second, 400
	ex, _ := dist.Exponential(1 / rate)
	p, err := Renewal(ex)
	if err != nil {
		t.Fatal(err)
	}
	if p.MeanRate() != rate {
		t.Fatalf("MeanRate %v, want %v", p.MeanRate(), rate)
	}
	r := newRand()
	counts := make([]float64, reps)
	total := 0
	for i := range counts {
		c := len(generate(t, p, r, window))
		counts[i] = float64(c)
		total += c
	}
	mu := rate * window.Seconds()
	// The total of reps independent Poisson(mu) counts is Poisson(reps·mu).
	checkPoissonCount(t, "total count", total, reps*mu)
	m, _ := meanSE(counts)
	var ss float64
	for _, c := range counts {
		ss += (c - m) * (c - m)
	}
	// For Poisson counts (reps−1)·s²/mu is about χ²(reps−1): mean reps−1,
	// sd √(2(reps−1)); 4 sd either way.
	stat, df := ss/mu, float64(reps-1)
	if math.Abs(stat-df) > 4*math.Sqrt(2*df) {
		t.Errorf("dispersion χ² = %.1f on %v df: the counts are not Poisson", stat, df)
	}
}

// The interarrival CV of a renewal process is its gap distribution's. For
// a two-phase hyperexponential (weight p at rate λ1, else λ2):
// E[X] = p/λ1 + (1−p)/λ2, E[X²] = 2(p/λ1² + (1−p)/λ2²), CV² = E[X²]/E[X]² − 1.
func TestRenewalHyperexponentialCV(t *testing.T) {
	const p, l1, l2 = 0.9, 20.0, 0.5
	a, _ := dist.Exponential(1 / l1)
	b, _ := dist.Exponential(1 / l2)
	h, err := dist.Mixture([]float64{p, 1 - p}, []dist.Dist{a, b})
	if err != nil {
		t.Fatal(err)
	}
	proc, err := Renewal(h)
	if err != nil {
		t.Fatal(err)
	}
	m1 := p/l1 + (1-p)/l2
	m2 := 2 * (p/(l1*l1) + (1-p)/(l2*l2))
	want := math.Sqrt(m2/(m1*m1) - 1)
	if got := proc.MeanRate(); math.Abs(got-1/m1) > 1e-12 {
		t.Fatalf("MeanRate %v, want %v", got, 1/m1)
	}
	// Each replication's CV from 5000 gaps; the replications' CVs are
	// independent, so their mean's interval is mean ± 4 se.
	r := newRand()
	cvs := make([]float64, 100)
	for i := range cvs {
		prev := time.Duration(0)
		var s, ss float64
		const gaps = 5000
		for n := range int64(gaps) {
			at, ok := proc.Next(n, prev, r)
			if !ok {
				t.Fatal("renewal ended")
			}
			g := (at - prev).Seconds()
			s += g
			ss += g * g
			prev = at
		}
		mean := s / gaps
		cvs[i] = math.Sqrt(ss/gaps-mean*mean) / mean
	}
	got, se := meanSE(cvs)
	if math.Abs(got-want) > 4*se {
		t.Errorf("interarrival CV %.4f ± %.4f, want %.4f", got, 4*se, want)
	}
	if want < 2 {
		t.Fatalf("the case is not bursty: CV %v", want)
	}
}

// The long-run rate of an MMPP is Σ π_i λ_i with π_i = s_i/Σ s_j.
func TestMMPPLongRunRate(t *testing.T) {
	states := []State{{Rate: 20, Sojourn: 2 * time.Second}, {Rate: 0, Sojourn: 6 * time.Second}, {Rate: 4, Sojourn: 4 * time.Second}}
	p, err := MMPP(states)
	if err != nil {
		t.Fatal(err)
	}
	want := (20*2.0 + 0*6 + 4*4) / 12
	if math.Abs(p.MeanRate()-want) > 1e-12 {
		t.Fatalf("MeanRate %v, want %v", p.MeanRate(), want)
	}
	if got := p.Expected(time.Second, 11*time.Second); math.Abs(got-10*want) > 1e-9 {
		t.Fatalf("Expected over 10s = %v, want %v", got, 10*want)
	}
	const window = 600 * time.Second
	rates := make([]float64, 200)
	r := newRand()
	for i := range rates {
		inst := Instance(p)
		rates[i] = float64(len(generate(t, inst, r, window))) / window.Seconds()
	}
	got, se := meanSE(rates)
	if math.Abs(got-want) > 4*se {
		t.Errorf("long-run rate %.4f ± %.4f, want %.4f", got, 4*se, want)
	}
}

// An on–off MMPP is bursty: its counts are overdispersed, unlike Poisson.
func TestMMPPOverdispersed(t *testing.T) {
	p, err := MMPP([]State{{Rate: 50, Sojourn: time.Second}, {Rate: 0, Sojourn: 4 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	r := newRand()
	counts := make([]float64, 300)
	for i := range counts {
		counts[i] = float64(len(generate(t, Instance(p), r, 10*time.Second)))
	}
	m, _ := meanSE(counts)
	var ss float64
	for _, c := range counts {
		ss += (c - m) * (c - m)
	}
	df := float64(len(counts) - 1)
	if stat := ss / m; stat < df+4*math.Sqrt(2*df) {
		t.Errorf("dispersion χ² = %.1f on %v df: an on–off source should be far above Poisson's", stat, df)
	}
}

// Instances are independent: the same seed gives the same arrivals
// whichever instance draws them, and Instance of a stateless process is
// the process itself.
func TestMMPPInstances(t *testing.T) {
	p, _ := MMPP([]State{{Rate: 5, Sojourn: time.Second}, {Rate: 1, Sojourn: time.Second}})
	a := generate(t, Instance(p), rand.New(rand.NewPCG(3, 4)), time.Minute)
	_ = generate(t, Instance(p), newRand(), 30*time.Second)
	b := generate(t, Instance(p), rand.New(rand.NewPCG(3, 4)), time.Minute)
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d vs %d arrivals", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("arrival %d: %v vs %v", i, a[i], b[i])
		}
	}
	q, _ := Poisson(1)
	if Instance(q) != q {
		t.Fatal("Instance of a stateless process is not the process")
	}
}

func TestBurstyParamErrors(t *testing.T) {
	c, _ := dist.Constant(0)
	for _, tc := range []struct {
		err  error
		want string
	}{
		{func() error { _, err := Renewal(nil); return err }(), "interarrival: must be given"},
		{func() error { _, err := Renewal(c); return err }(), "interarrival: must have a finite mean > 0"},
		{func() error { _, err := MMPP([]State{{Rate: 1, Sojourn: time.Second}}); return err }(), "states: must have at least 2 states"},
		{func() error { _, err := MMPP([]State{{Rate: 1, Sojourn: 0}, {Rate: 1, Sojourn: 1}}); return err }(), "states[0].sojourn: must be > 0"},
		{func() error { _, err := MMPP([]State{{Rate: -1, Sojourn: 1}, {Rate: 1, Sojourn: 1}}); return err }(), "states[0].rate: must be ≥ 0"},
		{func() error { _, err := MMPP([]State{{Rate: 0, Sojourn: 1}, {Rate: 0, Sojourn: 1}}); return err }(), "states: every rate is 0"},
	} {
		if tc.err == nil || len(tc.err.Error()) < len(tc.want) || tc.err.Error()[:len(tc.want)] != tc.want {
			t.Errorf("error %v, want prefix %q", tc.err, tc.want)
		}
	}
}
