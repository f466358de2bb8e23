package validate

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/budgetsim/budgetsim/model/analytic"
	"github.com/budgetsim/budgetsim/model/system"
)

// groupModels are the parallel-step and hedging cases: fan-out and
// hedging reduced by overrides to calls without queueing (unlimited
// tools, no errors), where a group's latency is an order statistic of
// independent exponentials (analytic.ExpGroup) and a hedged call's is
// min(X₁, d + X₂) (analytic.HedgedLognormal).
func groupModels() []model {
	members := "[{name: p1, tool: web}, {name: p2, tool: web}, {name: p3, tool: web}, {name: p4, tool: web}, {name: p5, tool: web}]"
	fan := func(wait string) []string {
		return []string{
			"steps=[{name: fetch, wait: " + wait + ", parallel: " + members + "}]",
			"tools.web={latency: {dist: exponential, mean: 400ms}}",
			"deadline=0", "workers=1000",
		}
	}
	return []model{
		{"parallel-any", "5 exponential calls at once, wait for any", groupFigures(1), "fan-out", fan("any")},
		{"parallel-first3", "5 exponential calls at once, wait for the first 3", groupFigures(3), "fan-out", fan("{first: 3}")},
		{"parallel-all", "5 exponential calls at once, wait for all", groupFigures(5), "fan-out", fan("all")},
		{"hedged-lognormal", "a lognormal call hedged once at 600 ms", hedgeFigures(), "hedging", []string{
			"tools.model={latency: {dist: lognormal, median: 400ms, sigma: 0.8}}",
			"steps.answer.hedge={delay: 600ms, max_attempts: 2}", "workers=1000",
		}},
	}
}

// expGroup is the order-statistic model of a scenario's first group: each
// member's exponential rate, and how many must succeed.
func expGroup(c *system.Config) (analytic.ExpGroup, int, error) {
	if len(c.Groups) == 0 {
		return analytic.ExpGroup{}, 0, fmt.Errorf("the scenario has no parallel step")
	}
	g := c.Groups[0]
	var rates []float64
	for j := range g.Members {
		rates = append(rates, 1/c.Tools[c.Steps[g.First+j].Tool].Latency.Mean())
	}
	return analytic.ExpGroup{Rates: rates}, g.K, nil
}

func groupMean(r *system.Result) float64 { return r.Groups[0].Latency.Mean() }
func groupP99(r *system.Result) float64  { return r.Groups[0].Latency.Quantile(0.99) }

func groupFigures(k int) []figure {
	formula := map[int]string{
		1: "min of exponentials: Exp(Σλᵢ)",
		5: "max of exponentials: Πᵢ(1 − e^{−λᵢt})",
	}[k]
	if formula == "" {
		formula = fmt.Sprintf("order statistic %d of %d exponentials (Rényi)", k, 5)
	}
	return []figure{
		{name: "mean group latency (s)", formula: formula,
			analytic: func(c *system.Config) (float64, error) {
				g, k, err := expGroup(c)
				if err != nil {
					return 0, err
				}
				return g.KthMean(k)
			}, estimate: groupMean},
		{name: "p99 group latency (s)", formula: formula + ", inverted", percentile: true,
			analytic: func(c *system.Config) (float64, error) {
				g, k, err := expGroup(c)
				if err != nil {
					return 0, err
				}
				return g.KthQuantile(k, 0.99)
			}, estimate: groupP99},
	}
}

// hedged is the hedging model of a scenario's first group: its step's
// lognormal latency (μ and σ read back from the distribution's median and
// its quantile at Φ(1)), the delay and the attempts.
func hedged(c *system.Config) (analytic.HedgedLognormal, error) {
	if len(c.Groups) == 0 || c.Groups[0].Hedge == nil {
		return analytic.HedgedLognormal{}, fmt.Errorf("the scenario has no hedged step")
	}
	g := c.Groups[0]
	lat := c.Tools[c.Steps[g.First].Tool].Latency
	mu := math.Log(lat.Quantile(0.5))
	sigma := math.Log(lat.Quantile(distuv.UnitNormal.CDF(1))) - mu
	return analytic.HedgedLognormal{Mu: mu, Sigma: sigma, Delay: g.Hedge.Delay.Seconds(), Attempts: g.Hedge.MaxAttempts}, nil
}

func hedgeFigures() []figure {
	const formula = "hedged lognormal: P(T > t) = S(t)·S(t − d)"
	return []figure{
		{name: "mean latency of the hedged step (s)", formula: formula + ", integrated",
			analytic: func(c *system.Config) (float64, error) {
				h, err := hedged(c)
				if err != nil {
					return 0, err
				}
				return h.Mean()
			}, estimate: groupMean},
		{name: "p99 latency of the hedged step (s)", formula: formula + ", inverted", percentile: true,
			analytic: func(c *system.Config) (float64, error) {
				h, err := hedged(c)
				if err != nil {
					return 0, err
				}
				return h.Quantile(0.99)
			}, estimate: groupP99},
	}
}
