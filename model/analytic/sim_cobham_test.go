package analytic_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/analytic"
	"github.com/budgetsim/budgetsim/model/sched"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// level is the confidence level of the Monte Carlo checks: a closed form
// must lie in the 99.9% Student t interval of the replication means.
const level = 0.999

// seconds converts float seconds to a time.Duration, rounding to the
// nanosecond.
func seconds(s float64) time.Duration { return time.Duration(s*1e9 + 0.5) }

// TestCobhamMonteCarlo drives model/sched's Priority queue with one
// server and three Poisson classes (exponential, deterministic and
// exponential service) and checks each class's mean wait against Cobham's
// formula, within the confidence interval of 20 independent replications.
func TestCobhamMonteCarlo(t *testing.T) {
	classes := []analytic.PriorityClass{
		{Lambda: 0.2, MeanService: 1, SecondMoment: 2},        // exponential
		{Lambda: 0.3, MeanService: 0.5, SecondMoment: 0.25},   // deterministic
		{Lambda: 0.4, MeanService: 0.75, SecondMoment: 1.125}, // exponential
	}
	want, err := analytic.PriorityMG1{Classes: classes}.MeanWaits()
	if err != nil {
		t.Fatal(err)
	}
	const reps, customers, warmup = 20, 40000, 2000
	means := make([][]float64, len(classes))
	for r := range reps {
		rng := rand.New(rand.NewPCG(23, uint64(r)))
		var total float64
		for _, c := range classes {
			total += c.Lambda
		}
		service := func(k int) time.Duration {
			if k == 1 {
				return seconds(classes[k].MeanService)
			}
			return seconds(rng.ExpFloat64() * classes[k].MeanService)
		}
		q, err := sched.NewPriority[int](nil)
		if err != nil {
			t.Fatal(err)
		}
		sum := make([]float64, len(classes))
		cnt := make([]int, len(classes))
		nextArr := seconds(rng.ExpFloat64() / total)
		var freeAt time.Duration
		busy := false
		started := 0
		start := func(now time.Duration) {
			it, ok := q.Pop(now)
			if !ok {
				busy = false
				return
			}
			if started >= warmup {
				sum[it.Value] += (now - it.Enqueued).Seconds()
				cnt[it.Value]++
			}
			started++
			busy, freeAt = true, now+service(it.Value)
		}
		for started < customers {
			if busy && freeAt <= nextArr {
				now := freeAt
				_ = q.Done(now, "")
				start(now)
				continue
			}
			now := nextArr
			u := rng.Float64() * total
			k := 0
			for acc := classes[0].Lambda; u >= acc && k < len(classes)-1; {
				k++
				acc += classes[k].Lambda
			}
			_ = q.Push(now, sched.Item[int]{Priority: k, Value: k})
			nextArr = now + seconds(rng.ExpFloat64()/total)
			if !busy {
				start(now)
			}
		}
		for k := range classes {
			means[k] = append(means[k], sum[k]/float64(cnt[k]))
		}
	}
	for k := range classes {
		ci := stats.MeanCI(means[k], level)
		t.Logf("class %d: simulated %v, Cobham %.4f", k, ci, want[k])
		if !ci.Contains(want[k]) {
			t.Errorf("class %d: simulated mean wait %v, Cobham %v", k, ci, want[k])
		}
		if ci.RelativeHalfWidth() > 0.05 {
			t.Errorf("class %d: interval %v too wide to test anything", k, ci)
		}
	}
}
