package search

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/budgetsim/budgetsim/internal/provenance"
)

// GridPlanFile is grid.json (and the JSON that plan --minimize cost
// prints): the provenance of the scenario (the overrides every
// configuration shares; each adds its own), then the answer.
type GridPlanFile struct {
	Provenance *provenance.Record `json:"provenance"`
	*GridAnswer
}

// ReadGridPlanFile reads grid.json as simulate plan writes it; name labels
// errors. Candidates it reads have no summaries or replication figures.
func ReadGridPlanFile(r io.Reader, name string) (*GridPlanFile, error) {
	pf := &GridPlanFile{GridAnswer: &GridAnswer{}}
	if err := json.NewDecoder(r).Decode(pf); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(pf.Knobs) == 0 {
		return nil, fmt.Errorf("%s: no knobs: not a grid plan written by simulate plan --minimize cost", name)
	}
	for i, c := range pf.Candidates {
		if len(c.Labels) != len(pf.Knobs) {
			return nil, fmt.Errorf("%s: candidates[%d] has %d labels for %d knobs", name, i, len(c.Labels), len(pf.Knobs))
		}
	}
	for _, i := range append(append([]int{pf.Cheapest}, pf.Ties...), pf.Frontier...) {
		if i >= len(pf.Candidates) || i < -1 || (i == -1 && pf.Found) {
			return nil, fmt.Errorf("%s: candidate index %d out of range", name, i)
		}
	}
	return pf, nil
}

// PlanFile is plan.json (simulate plan --out, and plan's JSON): the
// provenance of the scenario searched (the overrides every probe shares;
// each probe adds its value of the key), then the answer.
type PlanFile struct {
	Provenance *provenance.Record `json:"provenance"`
	*Answer
}
