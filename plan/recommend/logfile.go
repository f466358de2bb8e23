package recommend

import (
	"fmt"

	"github.com/budgetsim/budgetsim/model/latencylog"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// FromLogFile recommends settings for the latency log at path, read as lo
// says (column, unit; FromLogFile sets lo.Sample itself), in memory that
// does not grow with the log: the first maxSamples samples (at least 2)
// are kept exactly and recommended from as FromLog does; past them, every
// sample goes into a log-linear histogram and the kept ones are dropped,
// and the recommendation comes from the histogram (FromHistogram) with a
// warning that says so. maxSamples is the command line's --max-samples,
// which the warning names. Errors name the file.
func FromLogFile(path string, lo latencylog.Options, maxSamples int, opt Options) (*Recommendation, error) {
	var kept []float64
	var h *stats.Histogram
	lo.Sample = func(v float64) {
		if h != nil {
			h.Add(v)
			return
		}
		if len(kept) < maxSamples {
			kept = append(kept, v)
			return
		}
		h = stats.NewHistogram()
		for _, x := range kept {
			h.Add(x)
		}
		kept = nil
		h.Add(v)
	}
	log, err := latencylog.ReadFile(path, lo)
	if err != nil {
		return nil, err
	}
	if h == nil {
		log.Samples = kept
		return FromLog(log, opt)
	}
	r, err := FromHistogram(h, 0, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", log.File, err)
	}
	r.File, r.Source, r.Date = log.File, log.Source, log.Date
	r.Warnings = append(r.Warnings, fmt.Sprintf("%d samples, more than --max-samples %d: percentiles from a log-linear histogram of them all (relative error ≤ 1/256), the fit from at most 200000 of its quantiles", log.Count, maxSamples))
	return r, nil
}
