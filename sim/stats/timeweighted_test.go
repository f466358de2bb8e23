package stats_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/sim/stats"
)

// TestTimeWeightedLittle checks a hand-worked trace against Little's law
// (L = λW over a window that starts and ends empty): two runs in system
// over [1s, 4s] and [2s, 5s] spend 6 s in total, so over [0, 10s] the
// integral is 6 s and the time-average number in system is 6/10 = 0.6.
func TestTimeWeightedLittle(t *testing.T) {
	var tw stats.TimeWeighted
	tw.Start(0, 0)
	tw.Add(1*time.Second, +1)
	tw.Add(2*time.Second, +1)
	// Mean up to an instant inside the open segment counts it:
	// (0·1s + 1·1s + 2·1s)/3s = 1.
	if got, want := tw.Mean(3*time.Second), 1.0; got != want {
		t.Errorf("Mean(3s) = %v, want %v", got, want)
	}
	tw.Add(4*time.Second, -1)
	tw.Add(5*time.Second, -1)
	now := 10 * time.Second
	if got, want := tw.Integral(now), float64(6*time.Second); got != want {
		t.Errorf("Integral(%v) = %v, want %v (total sojourn, ns)", now, got, want)
	}
	if got, want := tw.Mean(now), 0.6; got != want {
		t.Errorf("Mean(%v) = %v, want %v", now, got, want)
	}
	if got, want := tw.Max(), 2.0; got != want {
		t.Errorf("Max() = %v, want %v", got, want)
	}
	if got, want := tw.Level(), 0.0; got != want {
		t.Errorf("Level() = %v, want %v", got, want)
	}
}

// TestTimeWeightedTable checks Mean, Integral and Max on traces with a
// warm-up before Start, fractional and negative levels.
func TestTimeWeightedTable(t *testing.T) {
	type step struct {
		at    time.Duration
		set   bool // Set(level) if true, else Add(delta)
		value float64
	}
	tests := []struct {
		name     string
		before   []step // before Start
		start    time.Duration
		startLvl float64 // negative: keep Level()
		after    []step
		now      time.Duration
		integral float64 // level·ns
		max      float64
	}{
		{
			name:   "warm-up discarded, level kept",
			before: []step{{0, false, 5}, {10, false, -2}}, // level 3 at start
			start:  100, startLvl: -1,
			after:    []step{{150, true, 1}},
			now:      200,
			integral: 3*50 + 1*50,
			max:      3,
		},
		{
			name:  "fractional levels",
			start: 0, startLvl: 0.5,
			after:    []step{{4, true, 0.25}, {8, false, 1.5}},
			now:      16,
			integral: 0.5*4 + 0.25*4 + 1.75*8,
			max:      1.75,
		},
		{
			name:  "negative levels",
			start: 1000, startLvl: 0,
			after:    []step{{1010, true, -4}, {1020, false, 1}},
			now:      1030,
			integral: -4*10 - 3*10,
			max:      0,
		},
		{
			name:  "changes at the same instant",
			start: 0, startLvl: 0,
			after:    []step{{5, true, 100}, {5, true, 1}, {5, false, 1}},
			now:      10,
			integral: 2 * 5,
			max:      100,
		},
	}
	for _, tt := range tests {
		var tw stats.TimeWeighted
		apply := func(steps []step) {
			for _, s := range steps {
				if s.set {
					tw.Set(s.at, s.value)
				} else {
					tw.Add(s.at, s.value)
				}
			}
		}
		apply(tt.before)
		lvl := tt.startLvl
		if lvl < 0 {
			lvl = tw.Level()
		}
		tw.Start(tt.start, lvl)
		apply(tt.after)
		if got := tw.Integral(tt.now); got != tt.integral {
			t.Errorf("%s: Integral(%v) = %v, want %v", tt.name, tt.now, got, tt.integral)
		}
		if got, want := tw.Mean(tt.now), tt.integral/float64(tt.now-tt.start); got != want {
			t.Errorf("%s: Mean(%v) = %v, want %v", tt.name, tt.now, got, want)
		}
		if got := tw.Max(); got != tt.max {
			t.Errorf("%s: Max() = %v, want %v", tt.name, got, tt.max)
		}
	}
}

// TestTimeWeightedNotStarted checks the documented values before Start and
// for an empty window.
func TestTimeWeightedNotStarted(t *testing.T) {
	var tw stats.TimeWeighted
	tw.Add(5, 2)
	if got := tw.Level(); got != 2 {
		t.Errorf("Level() before Start = %v, want 2", got)
	}
	if got := tw.Mean(10); !math.IsNaN(got) {
		t.Errorf("Mean(10) before Start = %v, want NaN", got)
	}
	if got := tw.Max(); !math.IsNaN(got) {
		t.Errorf("Max() before Start = %v, want NaN", got)
	}
	if got := tw.Integral(10); got != 0 {
		t.Errorf("Integral(10) before Start = %v, want 0", got)
	}
	tw.Start(10, tw.Level())
	if got := tw.Mean(10); !math.IsNaN(got) {
		t.Errorf("Mean(10) over an empty window = %v, want NaN", got)
	}
}

// TestTimeWeightedExact checks that integer levels integrate exactly over
// long, finely changing traces where float64 accumulation would drift: the
// reference is the math/big sum of level*dt, rounded once.
func TestTimeWeightedExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tw stats.TimeWeighted
	now := time.Duration(1 << 40)
	tw.Start(now, 7)
	want := new(big.Int)
	level := int64(7)
	var naive float64
	for range 20000 {
		dt := time.Duration(rng.Int64N(1 << 45)) // up to ~9.8 hours
		want.Add(want, new(big.Int).Mul(big.NewInt(level), big.NewInt(int64(dt))))
		naive += float64(level) * float64(dt)
		now += dt
		level = rng.Int64N(1 << 20)
		tw.Set(now, float64(level))
	}
	wf, _ := new(big.Float).SetInt(want).Float64()
	if naive == wf {
		t.Fatalf("test data: naive float64 accumulation %v already exact", naive)
	}
	if got := tw.Integral(now); got != wf {
		t.Errorf("Integral = %v, want exact %v (naive float64 sum: %v)", got, wf, naive)
	}
}

// TestTimeWeightedPanics checks that programmer errors panic.
func TestTimeWeightedPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func(tw *stats.TimeWeighted)
	}{
		{"Set back in time", func(tw *stats.TimeWeighted) { tw.Set(5, 1) }},
		{"Add back in time", func(tw *stats.TimeWeighted) { tw.Add(5, 1) }},
		{"Mean back in time", func(tw *stats.TimeWeighted) { tw.Mean(5) }},
		{"Set NaN", func(tw *stats.TimeWeighted) { tw.Set(20, math.NaN()) }},
		{"Start +Inf", func(tw *stats.TimeWeighted) { tw.Start(20, math.Inf(1)) }},
	}
	for _, tt := range tests {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", tt.name)
				}
			}()
			var tw stats.TimeWeighted
			tw.Start(0, 0)
			tw.Set(10, 1)
			tt.f(&tw)
		}()
	}
}

// TestTimeWeightedAllocs checks that the methods do not allocate.
func TestTimeWeightedAllocs(t *testing.T) {
	var tw stats.TimeWeighted
	tw.Start(0, 0)
	now := time.Duration(0)
	f := func() {
		now += 3
		tw.Add(now, 1)
		tw.Set(now, 0.5)
		_ = tw.Mean(now)
	}
	if a := testing.AllocsPerRun(1000, f); a != 0 {
		t.Errorf("TimeWeighted Add/Set/Mean: AllocsPerRun = %v, want 0", a)
	}
}

func BenchmarkTimeWeightedAdd(b *testing.B) {
	var tw stats.TimeWeighted
	tw.Start(0, 0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		tw.Add(time.Duration(i), float64(1-2*(i&1)))
	}
}

func ExampleTimeWeighted() {
	// Runs in system: one arrives at 1s and leaves at 4s, another is in
	// system from 2s to 5s. Measure over [0, 10s].
	var inSystem stats.TimeWeighted
	inSystem.Start(0, 0)
	inSystem.Add(1*time.Second, +1)
	inSystem.Add(2*time.Second, +1)
	inSystem.Add(4*time.Second, -1)
	inSystem.Add(5*time.Second, -1)
	end := 10 * time.Second
	fmt.Printf("L = %.2f runs (max %g)\n", inSystem.Mean(end), inSystem.Max())
	fmt.Println("total time in system:", time.Duration(inSystem.Integral(end)))
	// Output:
	// L = 0.60 runs (max 2)
	// total time in system: 6s
}

// TestAddMatchesSet checks Add's integer fast path against Set: the same
// changes through either give bit-identical integrals, means and maxima,
// across integer and fractional levels.
func TestAddMatchesSet(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	var viaAdd, viaSet stats.TimeWeighted
	viaAdd.Start(0, 0)
	viaSet.Start(0, 0)
	now := time.Duration(0)
	for i := range 100_000 {
		now += time.Duration(r.IntN(1000))
		var d float64
		switch r.IntN(100) {
		case 0:
			d = r.Float64() - 0.5 // a fractional level for a while
		case 1, 2, 3, 4, 5:
			d = -viaSet.Level() + float64(r.IntN(5)) // back to an integer
		default:
			d = float64(r.IntN(3) - 1)
		}
		viaAdd.Add(now, d)
		viaSet.Set(now, viaSet.Level()+d)
		if i%997 == 0 {
			if a, s := viaAdd.Integral(now), viaSet.Integral(now); a != s {
				t.Fatalf("step %d: Integral via Add = %v, via Set = %v", i, a, s)
			}
			if a, s := viaAdd.Max(), viaSet.Max(); a != s {
				t.Fatalf("step %d: Max via Add = %v, via Set = %v", i, a, s)
			}
		}
	}
	if viaAdd.Mean(now) != viaSet.Mean(now) || viaAdd.Max() != viaSet.Max() || viaAdd.Level() != viaSet.Level() {
		t.Fatalf("Add and Set differ: mean %v/%v, max %v/%v, level %v/%v",
			viaAdd.Mean(now), viaSet.Mean(now), viaAdd.Max(), viaSet.Max(), viaAdd.Level(), viaSet.Level())
	}
}
