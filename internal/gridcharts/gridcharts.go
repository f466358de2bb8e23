// Package gridcharts draws the chart of a cheapest-configuration plan
// (simulate plan --minimize cost --out DIR): it reads the directory's
// grid.json (plan/outputs.GridJSON.Name) and turns its configurations into the
// points of charts.FrontierChart, for cmd/plot and the report page.
package gridcharts

import (
	"errors"
	"io/fs"
	"os"
	"strconv"

	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/plan/search"
)

// Grid is a directory's grid.json, read.
type Grid struct {
	// Path is the file's path.
	Path string
	File *search.GridPlanFile
}

// Read reads dir's grid.json; nil and no error when the directory has
// none.
func Read(dir string) (*Grid, error) {
	path := outputs.GridJSON.Path(dir)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pf, err := search.ReadGridPlanFile(outputs.Bounded(f, path, outputs.MaxInputSize), path)
	if err != nil {
		return nil, err
	}
	return &Grid{Path: path, File: pf}, nil
}

// Builds lists the chart the file supports: cost per successful run
// against p99 with the frontier (none for a nil Grid).
func (g *Grid) Builds() []charts.Build {
	if g == nil {
		return nil
	}
	ans := g.File.GridAnswer
	return []charts.Build{{From: g.Path, Build: func() (*charts.Chart, error) {
		return charts.FrontierChart(Points(ans), ans.CostLabel())
	}}}
}

// Points are the answer's configurations as chart points, labelled by
// their row number ("#3"), leaving out those that cannot be compared
// (search.OffFrontier: the chart's note counts them).
func Points(ans *search.GridAnswer) []charts.FrontierPoint {
	var pts []charts.FrontierPoint
	for i, c := range ans.Candidates {
		if c.Frontier == search.OffFrontier {
			continue
		}
		pts = append(pts, charts.FrontierPoint{Label: "#" + strconv.Itoa(i+1),
			Cost: float64(c.Cost.Estimate), CostLo: float64(c.Cost.CI[0]), CostHi: float64(c.Cost.CI[1]),
			P99: float64(c.P99.Estimate), P99Lo: float64(c.P99.CI[0]), P99Hi: float64(c.P99.CI[1]),
			State: c.Frontier, Feasible: c.Feasible, Cheapest: ans.Found && i == ans.Cheapest})
	}
	return pts
}
