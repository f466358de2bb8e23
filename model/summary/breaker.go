package summary

import "github.com/budgetsim/budgetsim/model/system"

// BreakerSummary is a tool's circuit breaker's figures pooled over the
// replications (sums; the times are summed over the measured windows).
type BreakerSummary struct {
	Tool string `json:"tool"`
	system.BreakerStats
}

// poolBreakers adds one replication's breaker figures to the pooled ones.
func poolBreakers(pooled, r []system.BreakerStats) []system.BreakerStats {
	if r == nil {
		return pooled
	}
	if pooled == nil {
		pooled = make([]system.BreakerStats, len(r))
	}
	for i := range r {
		pooled[i].Merge(r[i])
	}
	return pooled
}

// breakerSummaries names the pooled figures of the tools with a breaker.
func breakerSummaries(cfg *system.Config, pooled []system.BreakerStats) []BreakerSummary {
	var out []BreakerSummary
	for i, t := range cfg.Tools {
		if t.CircuitBreaker != nil && i < len(pooled) {
			out = append(out, BreakerSummary{Tool: t.Name, BreakerStats: pooled[i]})
		}
	}
	return out
}
