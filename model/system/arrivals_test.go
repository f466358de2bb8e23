package system_test

import (
	"math"
	"testing"

	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// TestClosedPopulationThroughput: N agents that think Z between runs,
// served by enough workers that nobody queues, cycle every Z + E[S]; by
// Little's law on the loop the throughput is N/(Z + E[S]) (the
// machine-repairman model with unlimited repairmen).
func TestClosedPopulationThroughput(t *testing.T) {
	cfg := load(t, "agent-fleet", "workers=100000", "horizon=4h", "warmup=10m", "deadline=0",
		"steps=[{name: s, tool: model}]", "tools.model.latency={dist: exponential, mean: 2s}")
	res := replicate.All(cfg, 8, 0, system.Options{})
	xs := make([]float64, len(res))
	for i, r := range res {
		xs[i] = float64(r.Runs.Completed) / r.Window.Seconds()
	}
	iv := stats.MeanCI(xs, 0.999)
	want := 200.0 / (30 + 2)
	// The window ends after the last run drains (≤ one service time past
	// the horizon): allow that edge on top of the interval.
	edge := want * 10 / res[0].Window.Seconds()
	if want < iv.Lo-edge || want > iv.Hi+edge {
		t.Fatalf("closed throughput %v, want N/(Z+E[S]) = %.4f/s", iv, want)
	}
}

// TestScheduleArrivals: a piecewise rate schedule delivers, per segment,
// the expected Poisson count within 4.5 standard deviations (√Λ).
func TestScheduleArrivals(t *testing.T) {
	cfg := load(t, "launch-day", "warmup=0")
	perHour := hourCounter{}
	system.New(cfg, system.Options{Tracer: perHour, TraceRuns: 1 << 40}).Run()
	for h := 0; h < 48; h++ {
		rate := 2.0
		switch hd := h % 24; {
		case hd >= 18:
			rate = 4
		case hd >= 9:
			rate = 8
		}
		want := rate * 3600
		if got := float64(perHour[h]); math.Abs(got-want) > 4.5*math.Sqrt(want) {
			t.Errorf("hour %d: %v arrivals, want %v ± %.0f", h, got, want, 4.5*math.Sqrt(want))
		}
	}
}

// hourCounter counts traced runs by the hour they arrived in.
type hourCounter map[int]int64

func (h hourCounter) Attempt(*system.AttemptRecord) {}
func (h hourCounter) Run(r system.RunRecord)        { h[int(r.Arrived.Hours())]++ }
