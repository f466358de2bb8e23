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

// TenantSummary is one tenant's part of a Summary: the runs of its
// classes, and its shares of the work the workers did, which fair queuing
// divides by the tenants' weights.
type TenantSummary struct {
	// Weight is the tenant's weight under fair queuing
	// (tenants.NAME.weight, 1 if undeclared).
	Weight float64 `json:"weight"`
	// Classes names the tenant's classes, sorted.
	Classes []string `json:"classes"`
	// Arrived, Started and Completed count the tenant's measured runs
	// that arrived, were handed a worker, and completed, over all
	// replications.
	Arrived   int64 `json:"arrived"`
	Started   int64 `json:"started"`
	Completed int64 `json:"completed"`
	// StartedShare and CompletedShare are the tenant's shares of all
	// tenants' runs handed a worker and of their completed runs: under
	// fair queuing, while every tenant has runs waiting, StartedShare is
	// its weight's share.
	StartedShare   float64 `json:"started_share"`
	CompletedShare float64 `json:"completed_share"`
	// WorkerShare is the share of the workers' time the tenant's runs
	// held: the sum of its classes' worker shares.
	WorkerShare float64 `json:"worker_share"`
}

// tenantSummaries groups the class summaries by tenant; nil unless the
// scenario's classes belong to at least two tenants and it declares
// tenants or queues by fair share (otherwise each class is its own
// tenant and the class table says it all).
func tenantSummaries(cfg *system.Config, classes map[string]ClassSummary) map[string]TenantSummary {
	names := cfg.TenantNames()
	fair := cfg.Scheduling.Workers == system.FairShare
	for _, t := range cfg.Tools {
		fair = fair || t.Discipline == system.FairShare
	}
	if len(names) < 2 || len(cfg.Scheduling.Tenants) == 0 && !fair {
		return nil
	}
	weight := make(map[string]float64, len(names))
	for _, t := range cfg.Scheduling.Tenants {
		weight[t.Name] = t.Weight
	}
	out := make(map[string]TenantSummary, len(names))
	var started, completed int64
	for _, c := range cfg.Classes {
		cs := classes[c.Name]
		t := out[c.Tenant]
		t.Classes = append(t.Classes, c.Name)
		t.Arrived += cs.Runs.Arrived
		t.Started += int64(cs.Wait.N)
		t.Completed += cs.Runs.Completed
		t.WorkerShare += cs.WorkerShare
		out[c.Tenant] = t
		started += int64(cs.Wait.N)
		completed += cs.Runs.Completed
	}
	for name, t := range out {
		t.Weight = weight[name]
		if t.Weight == 0 {
			t.Weight = 1
		}
		slices.Sort(t.Classes)
		if started > 0 {
			t.StartedShare = float64(t.Started) / float64(started)
		}
		if completed > 0 {
			t.CompletedShare = float64(t.Completed) / float64(completed)
		}
		out[name] = t
	}
	return out
}

// TenantNames returns the names of s's tenants, sorted; nil when the
// summary has no tenant figures.
func (s *Summary) TenantNames() []string {
	var out []string
	for name := range s.Tenants {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
