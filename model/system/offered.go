package system

import "math"

// ToolOffer is the load the arrivals alone offer one tool, from the
// scenario's own numbers (one call per step that names the tool, cache
// hits left out; retries only add to it), for tools that have a capacity.
type ToolOffer struct {
	// Tool indexes Config.Tools.
	Tool int
	// CallRate is the calls per second the arrivals need.
	CallRate float64
	// Utilisation is CallRate × mean latency / concurrency for a tool with
	// server-side concurrency, else 0.
	Utilisation float64
	// RateLimited reports whether a client-side rate limit allows fewer
	// calls per second than CallRate.
	RateLimited bool
}

// OfferedToolLoads returns the offered load of each tool with server-side
// concurrency or a rate limit (enforced by either side), in Config.Tools order; nil when
// the arrival process has no rate (batches, closed populations).
func OfferedToolLoads(cfg *Config) []ToolOffer {
	if cfg.Arrivals.Process == Batch || cfg.Arrivals.Process == Closed || cfg.Arrivals.Rate <= 0 {
		return nil
	}
	var out []ToolOffer
	steps, shares := cfg.PlanSteps(), cfg.stepShares()
	for i := range cfg.Tools {
		t := &cfg.Tools[i]
		calls := 0.0
		for j, st := range steps {
			if st.Tool == i {
				calls += shares[j]
			}
		}
		if t.Cache != nil {
			calls *= 1 - t.Cache.HitRatio
		}
		o := ToolOffer{Tool: i, CallRate: cfg.Arrivals.Rate * calls}
		if o.CallRate <= 0 {
			continue
		}
		if t.Concurrency > 0 {
			o.Utilisation = o.CallRate * t.MeanLatency() / float64(t.Concurrency)
		}
		rl := t.RateLimit
		o.RateLimited = rl != nil && rl.Client && o.CallRate > rl.Rate
		if t.Concurrency > 0 || rl != nil {
			out = append(out, o)
		}
	}
	return out
}

// OfferedUtilisation estimates ρ = λ·E[service per run]/workers from the
// scenario's own numbers, counting one attempt per step (retries only add to
// it). ok is false when the arrival process has no rate.
func OfferedUtilisation(cfg *Config) (rho float64, ok bool) {
	if cfg.Arrivals.Process == Batch || cfg.Arrivals.Process == Closed || cfg.Arrivals.Rate <= 0 {
		return 0, false
	}
	var service float64
	shares := cfg.stepShares()
	for j, st := range cfg.PlanSteps() {
		mean := cfg.Tools[st.Tool].Latency.Mean()
		if st.Timeout > 0 {
			mean = math.Min(mean, st.Timeout.Seconds())
		}
		service += float64(shares[j] * mean)
	}
	return cfg.Arrivals.Rate * service / float64(cfg.Workers), true
}
