package report

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/internal/gridcharts"
	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/internal/render/plans"
	"github.com/budgetsim/budgetsim/plan/search"
)

// hasGrid reports whether dir holds the file of a grid plan (simulate
// plan --minimize cost --out DIR).
func hasGrid(dir string) bool {
	_, err := os.Stat(outputs.GridJSON.Path(dir))
	return !errors.Is(err, fs.ErrNotExist)
}

// gridReport fills r with a grid plan read from grid.json
// (search.ReadGridPlanFile): the cheapest configuration meeting every
// objective with its intervals and the configurations it cannot be told
// from, or why none meets them; every configuration with its figures,
// objectives and place against the frontier; and the cost–latency chart.
func gridReport(r *Report, d *charts.Dir) error {
	f, err := os.Open(outputs.GridJSON.Path(d.Path))
	if err != nil {
		return err
	}
	defer f.Close()
	pf, err := search.ReadGridPlanFile(outputs.Bounded(f, f.Name(), outputs.MaxInputSize), f.Name())
	if err != nil {
		return err
	}
	ans := pf.GridAnswer
	short := search.ShortNames(ans.Knobs)
	unit := ans.CostLabel()
	if p := pf.Provenance; p != nil {
		r.Scenario = p.Scenario
		setSource(r, p, p.Effective, p.SHA256)
	}
	if r.Scenario == "" {
		r.Scenario = "cheapest configuration"
	}
	r.Title = "budgetsim plan · " + r.Scenario
	var knobs []string
	for i, k := range ans.Knobs {
		var ls []string
		for _, s := range k.Settings {
			ls = append(ls, s.Label)
		}
		knobs = append(knobs, short[i]+" ∈ {"+strings.Join(ls, ", ")+"}")
	}
	objText := "none"
	if len(ans.SLOs) > 0 {
		var objs []string
		for _, o := range ans.SLOs {
			objs = append(objs, strings.NewReplacer("<=", " ≤ ", ">=", " ≥ ").Replace(o))
		}
		objText = strings.Join(objs, ", ")
	}
	r.Description = fmt.Sprintf("The cheapest configuration, by cost per successful run in %s, meeting every objective, over %s; and the cost–latency frontier of the same configurations.", unit, strings.Join(knobs, " × "))
	answer := "none: no configuration meets every objective"
	switch {
	case ans.Found:
		answer = ans.Candidates[ans.Cheapest].Name(short)
	case ans.Interrupted:
		answer = "not final: the search was interrupted"
	}
	r.Facts = append(r.Facts, Fact{"answer", answer}, Fact{"objectives", objText},
		Fact{"configurations", strconv.Itoa(len(ans.Candidates))}, Fact{"cost", "per successful run, in " + unit},
		Fact{"confidence", fmt.Sprintf("%g%% in each verdict (%.4g%% intervals per look); %g%% on figures and paired differences", 100*ans.Level, 100*ans.LookLevel, 100*ans.Level)})

	dec := Section{ID: "decision", Title: "Decision", Intro: "Answer: " + answer + "."}
	if ans.Found {
		c := &ans.Candidates[ans.Cheapest]
		dec.Paragraphs = append(dec.Paragraphs, Paragraph{Lead: "Cost:", Text: fmt.Sprintf("%s %s per successful run [%s, %s]; p99 %s [%s, %s]; success %s [%s, %s]; %d replications.",
			plans.Money(float64(c.Cost.Estimate)), unit, plans.Money(float64(c.Cost.CI[0])), plans.Money(float64(c.Cost.CI[1])),
			render.Seconds(float64(c.P99.Estimate)), render.Seconds(float64(c.P99.CI[0])), render.Seconds(float64(c.P99.CI[1])),
			render.Percent(float64(c.Success.Estimate)), render.Percent(float64(c.Success.CI[0])), render.Percent(float64(c.Success.CI[1])), c.Replications)})
		var checks []string
		for _, ch := range c.Checks {
			checks = append(checks, fmt.Sprintf("%s: %s [%s, %s] %s", ch.Name, figText(ch, float64(ch.Estimate)), figText(ch, float64(ch.CI[0])), figText(ch, float64(ch.CI[1])), ch.Verdict))
		}
		if len(checks) > 0 {
			dec.Paragraphs = append(dec.Paragraphs, Paragraph{Lead: "Objectives:", Text: strings.Join(checks, "; ") + "."})
		}
		for _, i := range ans.Ties {
			t := &ans.Candidates[i]
			dec.Paragraphs = append(dec.Paragraphs, Paragraph{Lead: "Not distinguishable:", Text: fmt.Sprintf("#%d %s costs %s %s more per successful run, paired over %d replications: the interval holds 0.",
				i+1, t.Name(short), plans.DifferenceText(t.CostVsCheapest, plans.Money), unit, replicationsOf(t.CostVsCheapest))})
		}
	}
	if ans.Note != "" {
		dec.Paragraphs = append(dec.Paragraphs, Paragraph{Lead: "Why:", Text: ans.Note})
	}
	if ans.Why != "" {
		dec.Paragraphs = append(dec.Paragraphs, Paragraph{Lead: "What stops the objectives:", Text: ans.Why})
	}
	dec.Paragraphs = append(dec.Paragraphs, Paragraph{Lead: "Search:", Text: ans.Method + "."})
	r.Sections = append(r.Sections, dec)
	r.Warnings = append(r.Warnings, ans.Warnings...)

	t := Table{Caption: "Every configuration, cheapest first among those that meet the objectives",
		Header: []string{"#"}}
	t.Header = append(t.Header, short...)
	t.Header = append(t.Header, "replications", "cost/success ("+unit+")", "p99", "success", "objectives", "vs the cheapest", "place")
	for _, i := range gridOrder(ans) {
		c := &ans.Candidates[i]
		cells := []Cell{{Text: "#" + strconv.Itoa(i+1), Plain: true}}
		for _, l := range c.Labels {
			cells = append(cells, Cell{Text: l, Plain: true})
		}
		cells = append(cells, Cell{Text: strconv.Itoa(c.Replications)},
			intervalCell(c.Cost, plans.Money), intervalCell(c.P99, render.Seconds), intervalCell(c.Success, render.Percent))
		obj := Cell{Text: "pass", Plain: true}
		switch {
		case c.NotAnAnswer != "":
			obj = Cell{Text: "not an answer", Plain: true}
		case !c.Feasible:
			var failed []string
			for _, ch := range c.Checks {
				if ch.Verdict != search.Pass {
					failed = append(failed, ch.Name)
				}
			}
			obj = Cell{Text: "fail", Sub: strings.Join(failed, ", "), Plain: true}
		}
		cells = append(cells, obj)
		vs := Cell{Text: "–", Plain: true}
		if d := c.CostVsCheapest; d != nil {
			vs = Cell{Text: plans.DifferenceText(d, plans.Money)}
		}
		cells = append(cells, vs, Cell{Text: plans.Place(ans, i), Plain: true})
		t.Rows = append(t.Rows, Row{Cells: cells, Highlight: ans.Found && i == ans.Cheapest})
	}
	t.Notes = append(t.Notes,
		"The highlighted row is the cheapest configuration meeting every objective. Under each figure: its interval over the replications (sectioning for cost and p99, Student-t for success).",
		"vs the cheapest: this configuration's cost per successful run minus the cheapest's, paired replication by replication (common random numbers); a tie when the interval holds 0.",
		"Place: dominated when another configuration (#n) is cheaper or faster beyond its paired interval and no worse on the other (that interval at or above 0 too); within noise when beaten by the point estimates only; frontier otherwise. A configuration that misses a success objective is not placed: its p99 is over the fewer runs it completes.")
	fig := draw(figure{name: "frontier", title: "Cost per successful run vs p99",
		caption: "Every configuration that can be compared, labelled by its row number; the frontier (dashed) joins the configurations no other beats on both cost and p99.",
		build:   func() (*charts.Chart, error) { return charts.FrontierChart(gridcharts.Points(ans), unit) }})
	if fig.Skipped != "" {
		r.Warnings = append(r.Warnings, "frontier chart not drawn: "+fig.Skipped)
	}
	r.Sections = append(r.Sections, Section{ID: "frontier", Title: "Configurations and the cost–latency frontier", Tables: []Table{t}, Figures: []Figure{fig}})
	return nil
}

// gridOrder lists the candidates as the page shows them: the feasible by
// increasing cost, then the rest by increasing cost (those without one
// last), each in grid order on ties.
func gridOrder(ans *search.GridAnswer) []int {
	var feasible, rest []int
	for i, c := range ans.Candidates {
		if c.Feasible {
			feasible = append(feasible, i)
		} else {
			rest = append(rest, i)
		}
	}
	byCost := func(xs []int) {
		key := func(i int) float64 {
			x := float64(ans.Candidates[i].Cost.Estimate)
			if math.IsNaN(x) {
				return math.Inf(1)
			}
			return x
		}
		for a := 1; a < len(xs); a++ { // insertion sort: stable, and a grid is small
			for b := a; b > 0 && key(xs[b]) < key(xs[b-1]); b-- {
				xs[b], xs[b-1] = xs[b-1], xs[b]
			}
		}
	}
	byCost(feasible)
	byCost(rest)
	return append(feasible, rest...)
}

// intervalCell is a figure with its interval under it.
func intervalCell(iv search.Interval, f func(float64) string) Cell {
	c := Cell{Text: f(float64(iv.Estimate))}
	if lo, hi := float64(iv.CI[0]), float64(iv.CI[1]); !math.IsNaN(lo) && !math.IsNaN(hi) {
		c.Sub = "[" + f(lo) + ", " + f(hi) + "]"
	}
	return c
}

// figText formats a checked figure: a time, or a percentage.
func figText(c search.Check, x float64) string {
	if strings.Contains(c.Name, "<=") {
		return render.Seconds(x)
	}
	return render.Percent(x)
}

func replicationsOf(d *search.Difference) int {
	if d == nil {
		return 0
	}
	return d.Replications
}
