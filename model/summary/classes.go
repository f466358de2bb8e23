package summary

import (
	"slices"
	"strings"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// ClassSummary is one class of work's part of a Summary: its runs'
// outcomes, times, attempts and cost, pooled over the replications like
// the Summary's own figures.
type ClassSummary struct {
	// Share is the class's share of the measured arrivals.
	Share float64 `json:"share"`
	// Runs are the class's totals over all replications.
	Runs system.Counts `json:"runs"`
	// SuccessRate is completed / arrived.
	SuccessRate float64 `json:"success_rate"`
	// Latency is arrival → completion of the class's completed runs;
	// Wait arrival → start of service.
	Latency Percentiles `json:"latency_s"`
	Wait    Percentiles `json:"wait_s"`
	// Attempts and Retries count the class's dialed attempts and the part
	// of them that were retries; PerRun is attempts per arrived run.
	Attempts int64   `json:"attempts"`
	Retries  int64   `json:"retries"`
	PerRun   float64 `json:"attempts_per_run"`
	// WorkerShare is the share of the workers' time over the measured
	// window that the class's runs held (summed over its ended runs); the
	// shares of all classes add up to about the workers' utilisation.
	WorkerShare float64 `json:"worker_share"`
	// Cost is present when any tool is metered.
	Cost *ClassCost `json:"cost,omitempty"`
	// Confidence holds Student-t intervals over replications (nil when
	// there is only one), computed as the Summary's own.
	Confidence *ClassConfidence `json:"confidence,omitempty"`
}

// ClassCost is the money a class's runs spent.
type ClassCost struct {
	// Spent is settled usage; PerRun is spent per arrived run and
	// PerSuccess spent per completed run.
	Spent      float64 `json:"spent"`
	PerRun     float64 `json:"per_run"`
	PerSuccess float64 `json:"per_successful_run"`
}

// ClassConfidence is a class's intervals over replications.
type ClassConfidence struct {
	SuccessRate Interval            `json:"success_rate"`
	Latency     PercentileIntervals `json:"latency_s"`
	Wait        PercentileIntervals `json:"wait_s"`
}

// classPool is one class's figures pooled so far.
type classPool struct {
	runs              system.Counts
	lat, wait         *stats.Histogram
	attempts, retries int64
	cost              float64
	busy              float64              // worker-seconds
	figs              []replicationFigures // success, lat, wait only
}

// newClassPools returns the pools of cfg's classes (nil without classes).
func newClassPools(cfg *system.Config) []classPool {
	if len(cfg.Classes) == 0 {
		return nil
	}
	out := make([]classPool, len(cfg.Classes))
	for i := range out {
		out[i].lat = system.NewHistogram()
		out[i].wait = system.NewHistogram()
	}
	return out
}

// addClasses pools r's per-class results.
func (a *Accumulator) addClasses(r *system.Result) {
	for i := range a.classes {
		if i >= len(r.Classes) {
			break
		}
		p, c := &a.classes[i], &r.Classes[i]
		p.runs.Merge(c.Runs)
		p.lat.Merge(c.Latency)
		p.wait.Merge(c.Wait)
		p.attempts += c.Attempts
		p.retries += c.Retries
		p.cost += c.Cost
		p.busy += c.BusySeconds
		var f replicationFigures
		if c.Runs.Arrived > 0 {
			f.success = float64(c.Runs.Completed) / float64(c.Runs.Arrived)
		}
		f.lat = percentiles(c.Latency)
		f.wait = percentiles(c.Wait)
		p.figs = append(p.figs, f)
	}
}

// classSummaries gives each class's summary, by name; nil without classes.
func (a *Accumulator) classSummaries(s *Summary) map[string]ClassSummary {
	if len(a.classes) == 0 {
		return nil
	}
	out := make(map[string]ClassSummary, len(a.classes))
	for i := range a.classes {
		p := &a.classes[i]
		c := ClassSummary{
			Runs:     p.runs,
			Latency:  percentiles(p.lat),
			Wait:     percentiles(p.wait),
			Attempts: p.attempts,
			Retries:  p.retries,
		}
		if s.Runs.Arrived > 0 {
			c.Share = float64(p.runs.Arrived) / float64(s.Runs.Arrived)
		}
		if w := s.Rates.Window; w > 0 {
			c.WorkerShare = p.busy / float64(float64(a.cfg.Workers)*w)
		}
		if p.runs.Arrived > 0 {
			c.SuccessRate = float64(p.runs.Completed) / float64(p.runs.Arrived)
			c.PerRun = float64(p.attempts) / float64(p.runs.Arrived)
		}
		if s.Cost != nil {
			c.Cost = &ClassCost{Spent: p.cost}
			if p.runs.Arrived > 0 {
				c.Cost.PerRun = p.cost / float64(p.runs.Arrived)
			}
			if p.runs.Completed > 0 {
				c.Cost.PerSuccess = p.cost / float64(p.runs.Completed)
			}
		}
		if len(p.figs) >= 2 {
			// The Summary's own intervals, of the class's figures.
			var view Summary
			view.Latency, view.Wait = c.Latency, c.Wait
			ci := confidence(p.figs, a.level, &view)
			c.Confidence = &ClassConfidence{SuccessRate: ci.SuccessRate, Latency: ci.Latency, Wait: ci.Wait}
		}
		out[a.cfg.Classes[i].Name] = c
	}
	return out
}

// recycleClasses hands the classes' histograms back (Accumulator.Recycle).
func (a *Accumulator) recycleClasses() {
	for i := range a.classes {
		system.RecycleHistogram(a.classes[i].lat)
		system.RecycleHistogram(a.classes[i].wait)
		a.classes[i].lat, a.classes[i].wait = nil, nil
	}
}

// ClassLatencies returns the classes' names, sorted as Summary.ClassNames
// sorts them, and each one's pooled completion histogram (the
// Accumulator's own); nil without classes.
func (a *Accumulator) ClassLatencies() (names []string, hists []*stats.Histogram) {
	order := make([]int, len(a.classes))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return strings.Compare(a.cfg.Classes[i].Name, a.cfg.Classes[j].Name) })
	for _, i := range order {
		names = append(names, a.cfg.Classes[i].Name)
		hists = append(hists, a.classes[i].lat)
	}
	return names, hists
}

// ClassNames returns the names of s's classes, sorted (the order of the
// JSON's classes mapping, and of every table and chart of them); nil
// without classes.
func (s *Summary) ClassNames() []string {
	var out []string
	for name := range s.Classes {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
