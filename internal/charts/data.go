package charts

import "github.com/budgetsim/budgetsim/internal/outputs"

// The data the charts draw, as package outputs reads it from the files of
// a results directory (its contract: names, columns, readers).
type (
	CDF           = outputs.CDF
	CDFPoint      = outputs.CDFPoint
	Series        = outputs.Series
	Bin           = outputs.Bin
	SweepPoint    = outputs.SweepPoint
	ToolSample    = outputs.ToolSample
	Outage        = outputs.Outage
	BreakerSample = outputs.BreakerSample
	LimitSample   = outputs.LimitSample
	Summary       = outputs.Summary
)

// MaxSeriesVariants is how many variants ReadDir keeps of each
// per-variant file (outputs.MaxSeriesVariants).
const MaxSeriesVariants = outputs.MaxSeriesVariants

// MaxInputSize bounds each file ReadDir reads (outputs.MaxInputSize).
const MaxInputSize = outputs.MaxInputSize

// matchSummaries maps each variant label of a CSV file to its summary:
// by equal labels first, else by position when the counts agree
// (cmd/simulate writes compare.json and the CSV files from one slice, in
// the same order, but labels the CSV rows in --vary order).
func matchSummaries(variants []string, sums []Summary) map[string]*Summary {
	m := map[string]*Summary{}
	byLabel := map[string]*Summary{}
	for i := range sums {
		byLabel[sums[i].Label] = &sums[i]
	}
	all := true
	for _, v := range variants {
		if s, ok := byLabel[v]; ok {
			m[v] = s
		} else {
			all = false
		}
	}
	if !all && len(variants) == len(sums) {
		for i, v := range variants {
			m[v] = &sums[i]
		}
	}
	return m
}
