package system_test

import (
	"math"
	"testing"

	"github.com/budgetsim/budgetsim/model/analytic"
	"github.com/budgetsim/budgetsim/model/system"
)

// twoClasses has a chat class of one step and a research class of three,
// at a tool that always answers: every run completes, and each class's
// attempts are its runs times its steps.
const twoClasses = `name: two
seed: 11
runs: 40000
arrivals: {rate: 10/s}
workers: 1000
steps:
  - {name: answer, tool: api}
classes:
  - {name: chat, weight: 3}
  - name: research
    weight: 1
    steps:
      - {name: plan, tool: api}
      - {name: search, tool: api}
      - {name: write, tool: api}
tools:
  api: {latency: {dist: constant, value: 1ms}}
`

// z999 is the two-sided 99.9% quantile of the standard normal.
const z999 = 3.2905

// TestClassSharesByWeight: each run's class is an independent draw with
// P(chat) = 3/4, whether the classes share one Poisson process by weight
// or each has a Poisson process of its own (3/s and 1/s: in their
// superposition each arrival is chat with probability 3/4, independently).
// The pooled share of chat over n runs must lie within the 99.9% binomial
// confidence interval around 3/4.
func TestClassSharesByWeight(t *testing.T) {
	for name, sets := range map[string][]string{
		"weights":      nil,
		"own-arrivals": {"!arrivals", "classes.chat.arrivals={rate: 3/s}", "!classes.chat.weight", "classes.research.arrivals={rate: 1/s}", "!classes.research.weight"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := scenarioFile(t, twoClasses, sets...)
			var chat, all int64
			for rep := range 4 {
				r := system.New(cfg, system.Options{Replication: rep}).Run()
				if len(r.Classes) != 2 {
					t.Fatalf("%d classes in the result, want 2", len(r.Classes))
				}
				c, s := r.Classes[0], r.Classes[1]
				if c.Runs.Arrived+s.Runs.Arrived != r.Runs.Arrived {
					t.Errorf("classes' arrivals %d + %d, pooled %d", c.Runs.Arrived, s.Runs.Arrived, r.Runs.Arrived)
				}
				if c.Attempts != c.Runs.Arrived || s.Attempts != 3*s.Runs.Arrived {
					t.Errorf("attempts chat %d of %d runs (1 step), research %d of %d runs (3 steps)", c.Attempts, c.Runs.Arrived, s.Attempts, s.Runs.Arrived)
				}
				if c.Runs.Completed != c.Runs.Arrived || s.Runs.Completed != s.Runs.Arrived {
					t.Errorf("completed chat %d/%d, research %d/%d", c.Runs.Completed, c.Runs.Arrived, s.Runs.Completed, s.Runs.Arrived)
				}
				chat += c.Runs.Arrived
				all += r.Runs.Arrived
			}
			p := 0.75
			got := float64(chat) / float64(all)
			tol := z999 * math.Sqrt(p*(1-p)/float64(all))
			if math.Abs(got-p) > tol {
				t.Errorf("chat's share %.5f of %d runs, want %.2f ± %.5f (99.9%% CI)", got, all, p, tol)
			}
		})
	}
}

// mmcClasses is an M/M/6 at load 2/3 whose runs are split into two
// identical classes.
const mmcClasses = `name: mmc-classes
seed: 5
runs: 20000
warmup: 2000
arrivals: {rate: 4/s}
workers: 6
steps:
  - {name: serve, tool: server}
classes:
  - {name: a, weight: 1}
  - {name: b, weight: 1}
tools:
  server: {latency: {dist: exponential, mean: 1s}}
`

// t999df19 is the two-sided 99.9% quantile of Student's t with 19 degrees
// of freedom.
const t999df19 = 3.8834

// TestClassesOfAnMMc: a class of identical runs sees the queue the pooled
// runs see, so each class's mean time in system is the M/M/c's
// closed-form mean sojourn. The tolerance is the 99.9% confidence interval
// of the mean over 20 independent replications.
func TestClassesOfAnMMc(t *testing.T) {
	cfg := scenarioFile(t, mmcClasses)
	want, err := analytic.MMc{Lambda: 4, Mu: 1, C: 6}.MeanSojourn()
	if err != nil {
		t.Fatal(err)
	}
	const reps = 20
	var means [2][reps]float64
	for rep := range reps {
		r := system.New(cfg, system.Options{Replication: rep}).Run()
		for k := range 2 {
			c := r.Classes[k]
			means[k][rep] = c.SojournSum / float64(c.Runs.Ended())
		}
	}
	for k, name := range []string{"a", "b"} {
		m, sd := meanSD(means[k][:])
		half := t999df19 * sd / math.Sqrt(reps)
		if math.Abs(m-want) > half {
			t.Errorf("class %s: mean sojourn %.4fs, want M/M/6's %.4fs ± %.4fs (99.9%% CI over %d replications)", name, m, want, half, reps)
		}
	}
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}
