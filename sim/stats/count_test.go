package stats_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/sim/stats"
)

// TestCountMatchesTimeWeighted drives a Count and a TimeWeighted through
// the same random histories (steps before Start, a restart, negative
// instants and levels, long gaps) and requires bit-identical integrals and
// means at every probe: Count is TimeWeighted's arithmetic, rearranged.
func TestCountMatchesTimeWeighted(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 3))
		var c stats.Count
		var tw stats.TimeWeighted
		now := time.Duration(r.Int64N(2e12)) - 1e12 // negative instants too
		level := int64(0)
		step := func() {
			if level > -3 && r.IntN(2) == 0 || level >= 50 {
				c.Dec(now)
				tw.Add(now, -1)
				level--
			} else {
				c.Inc(now)
				tw.Add(now, 1)
				level++
			}
		}
		for range r.IntN(20) { // before Start: only the level moves
			now += time.Duration(r.Int64N(1e9))
			step()
		}
		for round := range 3 {
			now += time.Duration(r.Int64N(1e9))
			c.Start(now, c.Level())
			tw.Start(now, tw.Level())
			for i := range 20_000 {
				switch r.IntN(1000) {
				case 0:
					now += time.Duration(r.Int64N(1 << 50)) // a long gap: large products
				default:
					now += time.Duration(r.Int64N(3e9))
				}
				if r.IntN(10) != 0 { // ties: several steps at one instant
					step()
				}
				if i%997 == 0 || i == 19_999 {
					probe := now + time.Duration(r.Int64N(1e9))
					ci, ti := c.Integral(probe), tw.Integral(probe)
					cm, tm := c.Mean(probe), tw.Mean(probe)
					if math.Float64bits(ci) != math.Float64bits(ti) || math.Float64bits(cm) != math.Float64bits(tm) && !(math.IsNaN(cm) && math.IsNaN(tm)) {
						t.Fatalf("seed %d round %d step %d: Count Integral %v Mean %v, TimeWeighted %v %v", seed, round, i, ci, cm, ti, tm)
					}
				}
			}
			if got, want := c.Level(), level; got != want {
				t.Fatalf("seed %d: Level() = %d, want %d", seed, got, want)
			}
		}
	}
}

// TestCountLittle is TestTimeWeightedLittle's hand-worked trace on a
// Count: runs in system over [1s, 4s] and [2s, 5s], measured over
// [0, 10s], spend 6 s in total; L = 0.6.
func TestCountLittle(t *testing.T) {
	var c stats.Count
	if got := c.Integral(time.Second); got != 0 {
		t.Errorf("Integral before Start = %v, want 0", got)
	}
	if got := c.Mean(time.Second); !math.IsNaN(got) {
		t.Errorf("Mean before Start = %v, want NaN", got)
	}
	c.Start(0, 0)
	if got := c.Mean(0); !math.IsNaN(got) {
		t.Errorf("Mean over an empty window = %v, want NaN", got)
	}
	c.Inc(1 * time.Second)
	c.Inc(2 * time.Second)
	if got, want := c.Mean(3*time.Second), 1.0; got != want {
		t.Errorf("Mean(3s) = %v, want %v", got, want)
	}
	c.Dec(4 * time.Second)
	c.Dec(5 * time.Second)
	if got, want := c.Integral(10*time.Second), float64(6*time.Second); got != want {
		t.Errorf("Integral(10s) = %v, want %v", got, want)
	}
	if got, want := c.Mean(10*time.Second), 0.6; got != want {
		t.Errorf("Mean(10s) = %v, want %v", got, want)
	}
}

// TestCountTimeBackwards checks that a decreasing instant after Start
// panics with a message naming the method, and that before Start
// instants are not checked.
func TestCountTimeBackwards(t *testing.T) {
	var c stats.Count
	c.Inc(5 * time.Second)
	c.Dec(time.Second) // before Start: only the level
	c.Start(10*time.Second, 0)
	c.Inc(11 * time.Second)
	for name, f := range map[string]func(){
		"Inc":      func() { c.Inc(10 * time.Second) },
		"Dec":      func() { c.Dec(10 * time.Second) },
		"Integral": func() { c.Integral(10 * time.Second) },
	} {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, "Count."+name) || !strings.Contains(msg, "backwards") {
					t.Errorf("%s back in time: recovered %q, want a panic naming Count.%s", name, msg, name)
				}
			}()
			f()
		}()
	}
}

func BenchmarkCountIncDec(b *testing.B) {
	var c stats.Count
	c.Start(0, 0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i&1 == 0 {
			c.Inc(time.Duration(i))
		} else {
			c.Dec(time.Duration(i))
		}
	}
}

func ExampleCount() {
	// Busy workers: one from 1s to 4s, another from 2s to 5s; measured
	// over [0, 10s].
	var busy stats.Count
	busy.Start(0, 0)
	busy.Inc(1 * time.Second)
	busy.Inc(2 * time.Second)
	busy.Dec(4 * time.Second)
	busy.Dec(5 * time.Second)
	end := 10 * time.Second
	fmt.Printf("mean busy = %.2f workers, now %d\n", busy.Mean(end), busy.Level())
	fmt.Println("worker time:", time.Duration(busy.Integral(end)))
	// Output:
	// mean busy = 0.60 workers, now 0
	// worker time: 6s
}
