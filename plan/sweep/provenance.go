package sweep

import (
	"fmt"

	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/scenarios"
)

// PointFile is an element of sweep.json: a point's summary after the
// provenance of the scenario it simulated (the sweep's overrides, then
// the point's values).
type PointFile struct {
	Provenance provenance.Record `json:"provenance"`
	PointSummary
}

// Provenance returns the provenance of the sweep's scenario (with the
// overrides every point shares) and each summarised point with its own
// (Spec.PointSets), parsed from one reading of the scenario's file.
func Provenance(spec Spec, sums []PointSummary) (provenance.Record, []PointFile, error) {
	var v scenarios.Variants
	base, err := v.Load(spec.Scenario, spec.Sets)
	if err != nil {
		return provenance.Record{}, nil, err
	}
	grid := spec.Points()
	points := make([]PointFile, len(sums))
	for i, p := range sums {
		sc, err := v.Load(spec.Scenario, spec.PointSets(grid[p.Index]))
		if err != nil {
			return provenance.Record{}, nil, fmt.Errorf("point %s: %w", p.Label, err)
		}
		points[i] = PointFile{provenance.Of(sc), p}
	}
	return provenance.Of(base), points, nil
}
