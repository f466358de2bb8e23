package system_test

import (
	"testing"

	"github.com/budgetsim/budgetsim/model/analytic"
	"github.com/budgetsim/budgetsim/model/replicate"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// TestAgentFleetFollowsTheLoopLaw: on the whole loop of a closed
// population, Little's law gives N = X (Z + R): N agents, throughput X of
// ended runs, think time Z, mean time in system R. agent-fleet at its
// bundled length must satisfy it: the relative gap X (Z + R)/N − 1 of each
// replication must have a 99.9% interval that holds 0. A window that
// includes the population's wind-down (agents retiring once the runs are
// booked) puts X a few per cent low.
func TestAgentFleetFollowsTheLoopLaw(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates agent-fleet 8 times")
	}
	cfg := load(t, "agent-fleet")
	n, z := float64(cfg.Arrivals.Users), cfg.Arrivals.Think.Mean()
	res := replicate.All(cfg, 8, 0, system.Options{})
	gaps := make([]float64, len(res))
	for i, r := range res {
		ended := float64(r.Runs.Ended())
		x := ended / r.Window.Seconds()
		gaps[i] = x*(z+r.SojournSum/ended)/n - 1
	}
	if iv := stats.MeanCI(gaps, 0.999); !iv.Contains(0) {
		t.Fatalf("X(Z + R)/N − 1 = %v: throughput is not N/(Z + R)", iv)
	}
}

// TestAgentFleetThroughputIsMVAs: agent-fleet's workers are not a
// product-form station (lognormal and gamma calls, retries, a deadline),
// so exact MVA with the runs' measured mean worker time D is an
// approximation there; throughput is the figure it is known to get right
// (X hardly depends on the service distribution beyond its mean for a
// closed population with a long think time, unlike R). The relative gap
// X/X_MVA(D) − 1 of each replication must have a 99.9% interval that holds 0.
func TestAgentFleetThroughputIsMVAs(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates agent-fleet 8 times")
	}
	cfg := load(t, "agent-fleet")
	res := replicate.All(cfg, 8, 0, system.Options{})
	gaps := make([]float64, len(res))
	for i, r := range res {
		x := float64(r.Runs.Ended()) / r.Window.Seconds()
		d := r.WorkerUtilisation * float64(cfg.Workers) / x // the utilisation law: D = U c / X
		m, err := analytic.Closed{N: cfg.Arrivals.Users, Think: cfg.Arrivals.Think.Mean(),
			Stations: []analytic.Station{{Demand: d, Servers: cfg.Workers}}}.MVA()
		if err != nil {
			t.Fatal(err)
		}
		gaps[i] = x/m.Throughput - 1
	}
	iv := stats.MeanCI(gaps, 0.999)
	if !iv.Contains(0) {
		t.Fatalf("X/X_MVA − 1 = %v", iv)
	}
}
