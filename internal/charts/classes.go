package charts

import (
	"strings"

	"github.com/budgetsim/budgetsim/model/summary"
)

// ClassCDFChart draws each class of work's completion-time distribution
// side by side, as CDFChart draws variants: cdfs are class_latency_cdf.csv's
// (labelled by class, or "VARIANT · CLASS" in a comparison), and each
// line's legend starts with its class's success rate from sums (the
// summaries' classes block; compare tells a comparison's).
func ClassCDFChart(cdfs []CDF, sums []Summary, compare bool) (*Chart, error) {
	var classSums []Summary
	for _, s := range sums {
		for _, name := range s.ClassNames() {
			label := name
			if compare {
				label = s.Label + " · " + name
			}
			classSums = append(classSums, Summary{Label: label, Summary: summary.Summary{SuccessRate: s.Classes[name].SuccessRate}})
		}
	}
	ch, err := CDFChart(cdfs, classSums)
	if err != nil {
		return nil, err
	}
	for i, n := range ch.Notes {
		ch.Notes[i] = strings.Replace(n, "a variant that completes few runs", "a class that completes few runs", 1)
	}
	ch.Name = "class_latency_cdf"
	ch.Title = strings.Replace(ch.Title, "Completion time of completed runs by ", "Completion time of completed runs, per class of work and ", 1)
	if !strings.Contains(ch.Title, "per class of work") {
		ch.Title = strings.Replace(ch.Title, "Completion time of completed runs", "Completion time of completed runs, per class of work", 1)
	}
	return ch, nil
}
