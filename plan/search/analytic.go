package search

import (
	"fmt"
	"math"
	"strings"

	"github.com/budgetsim/budgetsim/model/analytic"
	"github.com/budgetsim/budgetsim/model/system"
)

// MMcParams returns λ and μ (per second) when cfg is an M/M/c queue:
// Poisson arrivals, one step calling one tool with exponential latency, no
// per-attempt timeout, no retries, no deadline, an unbounded queue, and a
// tool without errors, outages, scripts, contention, capacity limits, rate
// limits or caches. ok is false otherwise.
func MMcParams(cfg *system.Config) (lambda, mu float64, ok bool) {
	if cfg.Arrivals.Process != system.Poisson || cfg.Arrivals.Rate <= 0 || len(cfg.Steps) != 1 || len(cfg.PlanSteps()) != 1 || len(cfg.Tools) != 1 {
		return 0, 0, false
	}
	st, t := cfg.Steps[0], cfg.Tools[0]
	if st.Timeout != 0 || st.Retry.Attempts > 1 || st.Budget != nil || cfg.Deadline != 0 || cfg.QueueCapacity != system.Unbounded ||
		cfg.RunBudget != 0 || cfg.ScenarioBudget != 0 {
		return 0, 0, false
	}
	if t.Latency == nil || !strings.HasPrefix(t.Latency.String(), "exponential(") || t.Errors != (system.Errors{}) ||
		len(t.Outages) != 0 || len(t.Script) != 0 || t.Contention || t.Concurrency != 0 || t.RateLimit != nil || t.Cache != nil ||
		t.TokenLimit != nil || t.Tokens != nil && t.Tokens.PerOutputToken != nil {
		return 0, 0, false
	}
	mean := t.Latency.Mean()
	if !(mean > 0) || math.IsInf(mean, 0) {
		return 0, 0, false
	}
	return cfg.Arrivals.Rate, 1 / mean, true
}

// maxAnalyticServers bounds the scans of AnalyticStart (each step costs
// O(c) for the Erlang B recursion).
const maxAnalyticServers = 10000

// AnalyticStart returns the smallest number of workers at which an M/M/c
// scenario meets every objective, by queueing theory (Erlang C; Gross et
// al., Fundamentals of Queueing Theory, 4th ed., §2.3), as a starting point
// for Search: wait percentiles via analytic.MinServersForWait, the mean
// wait via analytic.MinServersForMeanWait, completion-time percentiles and
// the mean by scanning analytic.MMc's SojournQuantile and MeanSojourn, and
// success (always 1 with an unbounded queue and no deadline) by stability
// alone. ok is false unless key is "workers" and MMcParams recognises cfg.
// The value is a hint: Search confirms it by simulation.
func AnalyticStart(cfg *system.Config, key string, slos []SLO) (*Analytic, bool) {
	if key != "workers" {
		return nil, false
	}
	lambda, mu, ok := MMcParams(cfg)
	if !ok {
		return nil, false
	}
	best := math.Floor(lambda/mu) + 1 // the smallest stable c
	var methods []string
	for _, o := range slos {
		var c int
		var err error
		q, isQ := o.Figure.Quantile()
		switch {
		case o.Figure == Success:
			continue
		case o.Figure == WaitMean:
			c, err = analytic.MinServersForMeanWait(lambda, mu, o.Threshold)
			methods = appendOnce(methods, "the mean wait's closed form")
		case o.Figure >= WaitP50 && isQ:
			c, err = analytic.MinServersForWait(lambda, mu, q, o.Threshold)
			methods = appendOnce(methods, "the wait quantile's closed form")
		default:
			c, err = scanSojourn(lambda, mu, o.Figure, o.Threshold, int(best))
			methods = appendOnce(methods, "the time in system's closed form, each c in turn")
		}
		if err != nil {
			return nil, false
		}
		best = math.Max(best, float64(c))
	}
	return &Analytic{Value: best, Method: fmt.Sprintf("Erlang C, M/M/c with λ = %g/s, μ = %g/s (%s)", lambda, mu, strings.Join(append(methods, "stability: ρ < 1"), "; "))}, true
}

// scanSojourn returns the smallest c ≥ from whose completion-time figure
// meets the threshold. The time in system is at least the service time, so
// a threshold below the service time's own figure (its p-quantile
// −ln(1−p)/μ, or its mean 1/μ) is refused at once; otherwise the scan
// stops after maxAnalyticServers values.
func scanSojourn(lambda, mu float64, f Figure, threshold float64, from int) (int, error) {
	floor := 1 / mu
	if p, ok := f.Quantile(); ok {
		floor = -math.Log1p(-p) / mu
	}
	if threshold <= floor {
		return 0, fmt.Errorf("%s ≤ %g s is below the service time's own %s", f, threshold, f)
	}
	for c := max(from, 1); c <= from+maxAnalyticServers; c++ {
		q := analytic.MMc{Lambda: lambda, Mu: mu, C: c}
		var x float64
		var err error
		if p, ok := f.Quantile(); ok {
			x, err = q.SojournQuantile(p)
		} else {
			x, err = q.MeanSojourn()
		}
		if err != nil {
			continue // not yet stable
		}
		if x <= threshold {
			return c, nil
		}
	}
	return 0, fmt.Errorf("no server count up to %d meets %s", from+maxAnalyticServers, f)
}

func appendOnce(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
