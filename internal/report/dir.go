package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/internal/render/comparison"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/plan/compare"
	"github.com/budgetsim/budgetsim/plan/search"
)

// FromDir builds the report of a results directory that `simulate compare
// --out` or `simulate plan --out` wrote (read by charts.ReadDir): for a
// comparison, a table of the variants (by name) and every chart the
// directory supports; for a plan, the answer, the objectives, the probes
// and the sweep charts with the objectives and the answer drawn. version
// and date are shown as given ("" for none), so the page is a function of
// the directory alone.
func FromDir(d *charts.Dir, version, date string) (*Report, error) {
	if version == "" {
		version = "devel"
	}
	r := &Report{Version: version, File: d.Path,
		Source: "This results directory records no scenario text (it was written without provenance): see the scenario the command that wrote it named."}
	switch {
	case hasGrid(d.Path):
		if err := gridReport(r, d); err != nil {
			return nil, err
		}
	case d.Target != nil && d.Has(outputs.SweepCSV):
		if err := planReport(r, d); err != nil {
			return nil, err
		}
	case d.Has(outputs.SweepCSV) && !d.Has(outputs.PlanJSON) && !d.Compare && len(d.Sweep) > 0:
		sweepReport(r, d)
	case d.Compare:
		if err := compareReport(r, d); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New(d.Path + ": neither a comparison (compare.json), a plan (plan.json and sweep.csv) nor a sweep (sweep.csv), nor a cheapest-configuration plan (" + outputs.GridJSON.Name + "): give a scenario to simulate one, or the directory 'simulate compare|plan|sweep --out' wrote")
	}
	if d.VariantsOmitted > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("The per-variant charts draw the first %d variants; the other %d are left out of them (memory and legibility).", charts.MaxSeriesVariants, d.VariantsOmitted))
	}
	if date != "" {
		r.Facts = append(r.Facts, Fact{"date", date})
	}
	r.Facts = append(r.Facts, Fact{"results", d.Path}, Fact{"budgetsim", version})
	var figs []Figure
	builds := d.Builds()
	// Each outage also zoomed in, as plot draws it: on the whole run's
	// axis an outage and the retries it causes are a sliver.
	ws := charts.OutageWindows(d.Outages)
	for i, w := range ws {
		suffix := "_outage"
		if len(ws) > 1 {
			suffix += strconv.Itoa(i + 1)
		}
		builds = append(builds, d.WindowBuilds(w, suffix)...)
	}
	for _, b := range builds {
		f := draw(figure{name: "chart", title: b.From, build: b.Build})
		if f.Skipped != "" {
			r.Warnings = append(r.Warnings, fmt.Sprintf("chart from %s not drawn: %s", b.From, f.Skipped))
			continue
		}
		figs = append(figs, f)
	}
	if len(figs) > 0 || !hasGrid(d.Path) { // a grid plan draws its chart in its own section
		r.Sections = append(r.Sections, Section{ID: "charts", Title: "Charts", Figures: figs})
	}
	return r, nil
}

// compareReport fills r with a comparison's header, verdict, variants,
// paired differences and scenario: every figure compare prints, read from
// compare.json as compare wrote it (plan/compare.Summary), the first
// charts.MaxSeriesVariants variants of it (readVariants).
func compareReport(r *Report, d *charts.Dir) error {
	out, total, err := readVariants(d.Path, charts.MaxSeriesVariants)
	if err != nil {
		return err
	}
	if omitted := total - len(out); omitted > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("The verdict, the tables and the scenario show the first %d of the %d variants; the other %d are left out of the page (memory and legibility): compare fewer variants, or read compare.json.", len(out), total, omitted))
	}
	r.Scenario = d.Scenario
	r.Title = "budgetsim comparison · " + d.Scenario
	r.Description = fmt.Sprintf("%d variants of %s on common random numbers: every variant's replication i sees the same arrivals and draws, so differences come from the variants, not luck.", total, d.Scenario)
	if len(out) == 0 {
		return nil
	}
	r.Facts = append(r.Facts,
		Fact{"seed", strconv.FormatUint(out[0].Seed, 10)},
		Fact{"replications", strconv.Itoa(out[0].Replications) + " per variant"},
		Fact{"baseline", out[0].Name + " (the first variant: every difference below is against it, or against the variant before it)"})
	level := 0.0
	if c := out[0].Confidence; c != nil {
		level = c.Level
		r.Facts = append(r.Facts, Fact{"confidence", strconv.FormatFloat(100*level, 'f', -1, 64) + "% Student-t intervals over replications; differences paired replication by replication"})
	}
	for _, v := range out {
		for _, w := range v.Warnings {
			r.Warnings = append(r.Warnings, v.Name+": "+w)
		}
	}
	if vs := comparison.Verdicts(out); len(vs) > 0 {
		sec := Section{ID: "verdict", Title: "Verdict",
			Intro: "Each variant against the one before it, figure by figure: the paired difference and its interval. An interval that holds 0 is no measurable difference."}
		for _, v := range vs {
			sec.Paragraphs = append(sec.Paragraphs, Paragraph{Lead: v.Figure + ":", Text: v.Text})
		}
		r.Sections = append(r.Sections, sec)
	} else {
		r.Sections = append(r.Sections, Section{ID: "verdict", Title: "Verdict",
			Intro: "No verdict: with one replication per variant there are no paired intervals to decide by. Run compare with --replications 4 or more."})
	}
	r.Sections = append(r.Sections, Section{ID: "variants", Title: "Variants", Tables: []Table{variantsTable(out)}})
	if t, ok := differencesTable(out, level); ok {
		r.Sections = append(r.Sections, Section{ID: "differences", Title: "Differences from " + out[0].Name, Tables: []Table{t}})
	}
	compareSource(r, out)
	return nil
}

// readVariants reads the first max variants of the directory's
// compare.json (as compare wrote them, plan/compare.Summary) and counts
// them all. The file is decoded one variant at a time, so memory holds
// the variants kept and one more, however many it lists.
func readVariants(dir string, max int) (kept []compare.Summary, total int, err error) {
	read := func(r io.Reader, name string) (int, error) {
		return outputs.ReadArray(r, name, func(dec *json.Decoder, i int) error {
			if i >= max {
				return dec.Decode(&struct{}{})
			}
			var v compare.Summary
			if err := dec.Decode(&v); err != nil {
				return err
			}
			kept = append(kept, v)
			return nil
		})
	}
	total, found, err := outputs.ReadFile(dir, outputs.CompareJSON, read)
	if err == nil && !found {
		err = fmt.Errorf("%s: %w", outputs.CompareJSON.Path(dir), fs.ErrNotExist)
	}
	return kept, total, err
}

// variantsTable is every variant's own figures, with their intervals.
func variantsTable(out []compare.Summary) Table {
	t := Table{Caption: "Variants, in the order compared",
		Header: []string{"variant", "success", "p50", "p99", "p99.9", "attempts/run", "peak attempt rate", "not completed", "bottleneck"}}
	withRecovery, withCost := false, false
	for _, v := range out {
		withRecovery = withRecovery || v.Recovery != nil
		withCost = withCost || v.Cost != nil
	}
	if withRecovery {
		t.Header = append(t.Header, "recovery after outage")
	}
	if withCost {
		t.Header = append(t.Header, "cost/successful run")
	}
	tokens := tokenNames(out)
	for _, n := range tokens {
		t.Header = append(t.Header, n+": binding limit")
	}
	best := -1.0
	for _, v := range out {
		best = max(best, v.SuccessRate)
	}
	for _, v := range out {
		s := v.Summary
		success := Cell{Text: render.Percent(s.SuccessRate)}
		p99 := Cell{Text: render.Seconds(s.Latency.P99)}
		perRun := Cell{Text: render.Number(s.Attempts.PerRun)}
		peak := Cell{Text: perSecond(s.Attempts.PeakRate), Sub: "highest of one replication"}
		if c := s.Confidence; c != nil {
			success = withCI(s.SuccessRate, &c.SuccessRate, render.Percent)
			if s.Latency.N > 0 {
				p99 = withCI(s.Latency.P99, &c.Latency.P99, render.Seconds)
			}
			perRun = withCI(s.Attempts.PerRun, &c.AttemptsPerRun, render.Number)
			p := c.PerReplication.PeakAttemptRate
			peak = Cell{Text: perSecond(p.Mean), Sub: "per replication [" + perSecond(p.Lo) + ", " + perSecond(p.Hi) + "]"}
		}
		runs := s.Runs
		notDone := runs.DeadlineExceeded + runs.Failed + runs.Refused + runs.Expired + runs.Rejected
		bottleneck := s.Bottleneck
		if bottleneck == "" {
			bottleneck = "–"
		}
		row := Row{Cells: []Cell{{Text: v.Name}, success,
			{Text: render.Seconds(s.Latency.P50)}, p99, {Text: render.Seconds(s.Latency.P999)},
			perRun, peak, {Text: render.Number(float64(notDone))}, {Text: bottleneck}},
			Highlight: s.SuccessRate == best}
		if withRecovery {
			rec := Cell{Text: "–"}
			if s.Recovery != nil {
				rec = Cell{Text: "never", Sub: "goodput did not come back"}
				if s.Recovery.Recovered {
					rec = Cell{Text: render.Seconds(s.Recovery.After), Sub: "pooled replications"}
				}
			}
			row.Cells = append(row.Cells, rec)
		}
		if withCost {
			cost := Cell{Text: "–"}
			if s.Cost != nil {
				cost = Cell{Text: render.Number(s.Cost.PerSuccess)}
				if c := s.Confidence; c != nil && c.CostPerSuccess != nil {
					cost = withCI(s.Cost.PerSuccess, c.CostPerSuccess, render.Number)
				}
			}
			row.Cells = append(row.Cells, cost)
		}
		for _, n := range tokens {
			row.Cells = append(row.Cells, bindingLimit(s.Tools, n))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = append(t.Notes, "The highlighted row has the highest success rate. Completion times are those of completed runs: read them with the success rate beside them.")
	if out[0].Confidence != nil {
		t.Notes = append(t.Notes, fmt.Sprintf("Under a value: its %g%% Student-t interval over the replications (the p99's and the cost's by sectioning, centred on the pooled figure).", 100*out[0].Confidence.Level))
	}
	if withRecovery {
		t.Notes = append(t.Notes, "Recovery after outage: how long after the last outage ended goodput came back, on the replications pooled (docs/outputs.md); the differences below pair it replication by replication.")
	}
	return t
}

// tokenNames are the tools with tokens of any variant, in order.
func tokenNames(out []compare.Summary) []string {
	var names []string
	for _, v := range out {
		for _, t := range v.Tools {
			if t.Tokens != nil && !slices.Contains(names, t.Name) {
				names = append(names, t.Name)
			}
		}
	}
	return names
}

// bindingLimit is a model API's binding per-minute limit and its use.
func bindingLimit(tools []summary.ToolSummary, name string) Cell {
	for _, t := range tools {
		if t.Name != name || t.Tokens == nil {
			continue
		}
		for _, l := range t.Tokens.Limits {
			if l.Limit == t.Tokens.Binding {
				return Cell{Text: render.Percent(l.Utilisation), Sub: fmt.Sprintf("of %s %s/min", l.Limit, render.Number(float64(l.PerMinute)))}
			}
		}
		return Cell{Text: "no limit"}
	}
	return Cell{Text: "–"}
}

// differencesTable is every variant's paired difference from the first,
// each figure with its interval; ok is false without any.
func differencesTable(out []compare.Summary, level float64) (Table, bool) {
	cols := comparison.PairedColumns(out)
	if cols == nil {
		return Table{}, false
	}
	t := Table{Caption: "Minus " + out[0].Name + ", paired replication by replication", Header: []string{"variant"}}
	for _, c := range cols {
		t.Header = append(t.Header, "Δ "+c.Name)
	}
	for i, v := range out[1:] {
		for _, row := range []struct {
			d     *compare.PairedDifference
			label string
		}{{v.Difference, v.Name}, {compare.Previous(out, i+1), v.Name + " − " + out[i].Name}} {
			if row.d == nil || (i == 0 && row.label != v.Name) {
				continue
			}
			cells := []Cell{{Text: row.label}}
			for _, c := range cols {
				iv := c.Get(row.d)
				if iv == nil {
					cells = append(cells, Cell{Text: "–"})
					continue
				}
				cell := Cell{Text: comparison.Signed(iv.Mean, c.Format), Sub: "[" + comparison.Signed(iv.Lo, c.Format) + ", " + comparison.Signed(iv.Hi, c.Format) + "]"}
				if c.Name == "recovery after outage" && row.d.RecoveryUnpaired > 0 {
					cell.Sub += fmt.Sprintf(" · %d rep. never recovered", row.d.RecoveryUnpaired)
				}
				cells = append(cells, cell)
			}
			t.Rows = append(t.Rows, Row{Cells: cells})
		}
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("Under a difference: its %g%% Student-t interval over the replications' differences (common random numbers make it far narrower than two separate intervals); the p99's by sectioning.", 100*level),
		"A row \"b − a\" is variant b against the variant before it, a: what that step adds.")
	return t, true
}

// planReport fills r with a plan's decision and its evidence, read from
// plan.json (outputs.ReadJSON into plan/search.PlanFile) as plan wrote it: the answer, why
// (the confidence note, or what stops the objectives when nothing meets
// them), and every probe with its offered load, bottleneck and each
// objective's interval and verdict.
func planReport(r *Report, d *charts.Dir) error {
	pf, found, err := outputs.ReadFile(d.Path, outputs.PlanJSON, outputs.ReadJSON[search.PlanFile])
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("%s: %w", outputs.PlanJSON.Path(d.Path), fs.ErrNotExist)
	}
	if pf.Answer == nil {
		return fmt.Errorf("%s: no answer in it: not a plan.json simulate plan wrote", outputs.PlanJSON.Path(d.Path))
	}
	ans := pf.Answer
	param := ans.Parameter
	if param == "" {
		param = "the parameter"
	}
	r.Scenario = d.Scenario
	if p := pf.Provenance; p != nil {
		r.Scenario = p.Scenario
		setSource(r, p, p.Effective, p.SHA256)
	}
	if r.Scenario == "" {
		r.Scenario = "capacity plan of " + param
	}
	r.Title = "budgetsim plan · " + r.Scenario
	var objs []string
	for _, o := range ans.SLOs {
		objs = append(objs, strings.NewReplacer("<=", " ≤ ", ">=", " ≥ ").Replace(o))
	}
	objText := "none"
	if len(objs) > 0 {
		objText = strings.Join(objs, ", ")
	}
	best := "smallest"
	if ans.Maximize {
		best = "largest"
	}
	answer := "none: no value in the range met every objective"
	switch {
	case ans.Interrupted:
		answer = "not final: the search was interrupted"
	case ans.Found:
		answer = param + " = " + render.Number(float64(ans.Value))
	}
	r.Description = fmt.Sprintf("The %s %s meeting every objective, found by probing values of it in %s.", best, param, ans.Range)
	r.Facts = append(r.Facts, Fact{"answer", answer}, Fact{"objectives", objText}, Fact{"probes", strconv.Itoa(len(ans.Probes))})
	if ans.Confidence.Level > 0 {
		r.Facts = append(r.Facts, Fact{"confidence", fmt.Sprintf("%g%% in each verdict (%.4g%% intervals, for the repeated looks at a probe)", 100*ans.Confidence.Level, 100*ans.Confidence.LookLevel)})
	}
	if ans.Bottleneck != "" {
		r.Facts = append(r.Facts, Fact{"binding constraint", ans.Bottleneck})
	}
	dec := Section{ID: "decision", Title: "Decision", Intro: "Answer: " + answer + "."}
	if ans.Confidence.Note != "" {
		dec.Paragraphs = append(dec.Paragraphs, Paragraph{Lead: "Why:", Text: ans.Confidence.Note})
	}
	if ans.Why != "" {
		dec.Paragraphs = append(dec.Paragraphs, Paragraph{Lead: "What stops the objectives:", Text: ans.Why})
	}
	if ans.Analytic != nil {
		dec.Paragraphs = append(dec.Paragraphs, Paragraph{Lead: "Start:", Text: fmt.Sprintf("%s = %s from %s.", param, render.Number(ans.Analytic.Value), ans.Analytic.Method)})
	}
	r.Sections = append(r.Sections, dec)
	r.Warnings = append(r.Warnings, ans.Warnings...)

	t := Table{Caption: "Evidence: every value probed, by " + param,
		Header: []string{param, "replications", "peak offered load", "bottleneck (load)", "success", "p99"}}
	for _, o := range ans.SLOs {
		t.Header = append(t.Header, o)
	}
	t.Header = append(t.Header, "verdict")
	var below float64 = math.NaN()
	if b := ans.Confidence.Below; b != nil {
		below = b.Value
	}
	for _, p := range ans.Probes {
		peak := Cell{Text: "–"}
		if !math.IsNaN(float64(p.Peak)) {
			peak = Cell{Text: render.Number(float64(p.Peak)), Sub: p.PeakAt}
		}
		bottleneck := Cell{Text: "–", Plain: true}
		if p.Bottleneck != "" {
			bottleneck = Cell{Text: p.Bottleneck, Sub: render.Percent(float64(p.Load)), Plain: true}
		}
		p99 := Cell{Text: render.Seconds(float64(p.P99))}
		if lo, hi := float64(p.CI[0]), float64(p.CI[1]); !math.IsNaN(lo) && !math.IsNaN(hi) {
			p99.Sub = "[" + render.Seconds(lo) + ", " + render.Seconds(hi) + "]"
		}
		cells := []Cell{{Text: render.Number(p.Value)}, {Text: strconv.Itoa(p.Replications)}, peak, bottleneck,
			{Text: render.Percent(float64(p.Success))}, p99}
		for _, o := range ans.SLOs {
			c := Cell{Text: "–"}
			for _, ch := range p.Checks {
				if ch.Name == o {
					c = checkCell(ch)
				}
			}
			cells = append(cells, c)
		}
		verdict := p.Verdict.String()
		switch {
		case p.NotAnAnswer != "":
			verdict = "not an answer"
		case !p.Resolved:
			verdict += " (unresolved)"
		}
		vc := Cell{Text: verdict, Plain: true}
		switch {
		case ans.Found && p.Value == float64(ans.Value):
			vc.Sub = "the answer"
		case p.Value == below:
			vc.Sub = "the evidence beside it"
		}
		cells = append(cells, vc)
		t.Rows = append(t.Rows, Row{Cells: cells, Highlight: ans.Found && p.Value == float64(ans.Value)})
	}
	t.Notes = append(t.Notes, "The highlighted row is the answer. Under an objective's figure: its interval at the level of each look; a verdict is pass or fail when the interval lies wholly on one side of the threshold.",
		"Peak offered load: the highest offered utilisation among the workers, tools and limits at that value, and where; bottleneck: the most loaded resource the simulations measured.")
	r.Sections = append(r.Sections, Section{ID: "plan", Title: "Evidence", Tables: []Table{t}})
	return nil
}

// checkCell is an objective's figure at a probe with its interval.
func checkCell(c search.Check) Cell {
	f := render.Percent
	if strings.Contains(c.Name, "<=") {
		f = render.Seconds
	}
	return Cell{Text: f(float64(c.Estimate)), Sub: "[" + f(float64(c.CI[0])) + ", " + f(float64(c.CI[1])) + "] " + c.Verdict.String()}
}

// sweepReport fills r with a sweep's evidence table, read from sweep.csv
// as sweep wrote it, and a decision paragraph: the point with the best
// success, and among the points whose success interval overlaps its own
// (no measurable difference), the one with the lowest p99 and the one with
// the lowest cost per successful run.
func sweepReport(r *Report, d *charts.Dir) {
	label := func(p charts.SweepPoint) string {
		if math.IsNaN(p.Value) {
			return p.Parameter
		}
		return p.Parameter + " = " + render.Number(p.Value)
	}
	pts := d.Sweep
	r.Scenario = d.Scenario
	// The scenario as the first point simulated it: sweep.json records
	// each point's provenance.
	if p, found, err := outputs.ReadFile(d.Path, outputs.SweepJSON, outputs.ReadSweepProvenance); found && err == nil && p != nil {
		r.Scenario = p.Scenario
		setSource(r, p, p.Effective, p.SHA256)
		r.SourceLabel = "The scenario as the first point, " + label(pts[0]) + ", simulated it (SHA-256 " + p.SHA256 + "); the other points differ only by the swept key."
		var shared []string
		for _, o := range p.Overrides {
			if !strings.HasPrefix(o, pts[0].Parameter+"=") {
				shared = append(shared, o)
			}
		}
		r.Overrides = shared
	}
	if r.Scenario == "" {
		r.Scenario = "sweep of " + pts[0].Parameter
	}
	r.Title = "budgetsim sweep · " + r.Scenario
	r.Description = fmt.Sprintf("%d points of %s on common random numbers.", len(pts), pts[0].Parameter)
	best := 0
	for i, p := range pts {
		if p.SuccessRate > pts[best].SuccessRate {
			best = i
		}
	}
	fast, cheap := -1, -1
	for i, p := range pts {
		if p.SuccessHi < pts[best].SuccessLo {
			continue // measurably below the best
		}
		if fast < 0 || p.P99 < pts[fast].P99 {
			fast = i
		}
		if !math.IsNaN(p.CostPerSuccess) && (cheap < 0 || p.CostPerSuccess < pts[cheap].CostPerSuccess) {
			cheap = i
		}
	}
	dec := Section{ID: "decision", Title: "Decision"}
	b := pts[best]
	dec.Paragraphs = append(dec.Paragraphs, Paragraph{Lead: "Success:", Text: fmt.Sprintf("highest at %s, %s [%s, %s]; the points whose success interval overlaps it are no measurably worse.",
		label(b), render.Percent(b.SuccessRate), render.Percent(b.SuccessLo), render.Percent(b.SuccessHi))})
	if fast >= 0 {
		f := pts[fast]
		dec.Paragraphs = append(dec.Paragraphs, Paragraph{Lead: "Latency:", Text: fmt.Sprintf("among those, the lowest p99 is at %s: %s [%s, %s].",
			label(f), render.Seconds(f.P99), render.Seconds(f.P99Lo), render.Seconds(f.P99Hi))})
	}
	if cheap >= 0 {
		c := pts[cheap]
		text := fmt.Sprintf("among those, the lowest cost per successful run is at %s: %s", label(c), render.Number(c.CostPerSuccess))
		if !math.IsNaN(c.CostLo) {
			text += " [" + render.Number(c.CostLo) + ", " + render.Number(c.CostHi) + "]"
		}
		dec.Paragraphs = append(dec.Paragraphs, Paragraph{Lead: "Cost:", Text: text + "."})
	}
	r.Sections = append(r.Sections, dec)
	t := Table{Caption: "Evidence: every point", Header: []string{"point", "replications", "success", "p50", "p99", "p99.9", "attempts/run", "bottleneck (load)"}}
	withLimits, withCost := false, false
	for _, p := range pts {
		withLimits = withLimits || p.BindingLimit != ""
		withCost = withCost || !math.IsNaN(p.CostPerSuccess)
	}
	if withLimits {
		t.Header = append(t.Header, "limit use")
	}
	if withCost {
		t.Header = append(t.Header, "cost/successful run")
	}
	for i, p := range pts {
		bottleneck := Cell{Text: "–", Plain: true}
		if !math.IsNaN(p.PeakLoad) {
			bottleneck.Sub = "most loaded: " + render.Percent(p.PeakLoad)
		}
		if p.Bottleneck != "" {
			bottleneck.Text = p.Bottleneck
		}
		cells := []Cell{{Text: label(p), Plain: true}, {Text: strconv.FormatInt(p.Replications, 10)},
			{Text: render.Percent(p.SuccessRate), Sub: "[" + render.Percent(p.SuccessLo) + ", " + render.Percent(p.SuccessHi) + "]"},
			{Text: render.Seconds(p.P50)},
			{Text: render.Seconds(p.P99), Sub: "[" + render.Seconds(p.P99Lo) + ", " + render.Seconds(p.P99Hi) + "]"},
			{Text: render.Seconds(p.P999)}, {Text: render.Number(p.AttemptsPerRun)}, bottleneck}
		if withLimits {
			c := Cell{Text: "–"}
			if p.BindingLimit != "" {
				c = Cell{Text: render.Percent(p.LimitUse), Sub: p.BindingLimit}
			}
			cells = append(cells, c)
		}
		if withCost {
			c := Cell{Text: "–"}
			if !math.IsNaN(p.CostPerSuccess) {
				c = Cell{Text: render.Number(p.CostPerSuccess)}
				if !math.IsNaN(p.CostLo) {
					c.Sub = "[" + render.Number(p.CostLo) + ", " + render.Number(p.CostHi) + "]"
				}
			}
			cells = append(cells, c)
		}
		t.Rows = append(t.Rows, Row{Cells: cells, Highlight: i == best})
	}
	t.Notes = append(t.Notes, "The highlighted row has the highest success rate. Under a value: its confidence interval from sweep.csv (none with one replication).")
	r.Sections = append(r.Sections, Section{ID: "sweep", Title: "Evidence", Tables: []Table{t}})
}

// setSource shows provenance p in r's Scenario section: where the scenario
// was read from, its format, the overrides, and text with its SHA-256.
func setSource(r *Report, p *provenance.Record, text, sha string) {
	r.File = p.File
	r.FormatVersion = p.FormatVersion
	r.Overrides = p.Overrides
	r.Source, r.SHA256 = text, sha
}

// compareSource shows the scenario once, as the first variant (the
// baseline) simulated it, and what each variant changes: its own
// overrides and the SHA-256 of its text. Nothing when the summaries carry
// no provenance.
func compareSource(r *Report, out []compare.Summary) {
	if len(out) == 0 {
		return
	}
	first := out[0].Provenance
	if first.SHA256 == "" {
		return
	}
	var shared []string
	for i, o := range first.Overrides {
		all := true
		for _, s := range out[1:] {
			if p := s.Provenance.Overrides; i >= len(p) || p[i] != o {
				all = false
			}
		}
		if !all {
			break
		}
		shared = append(shared, o)
	}
	t := Table{Caption: "What each variant changes", Header: []string{"variant", "overrides of its own", "SHA-256 as simulated"}}
	for _, s := range out {
		own := "none"
		if o := s.Provenance.Overrides[min(len(shared), len(s.Provenance.Overrides)):]; len(o) > 0 {
			own = "--set " + strings.Join(o, " --set ")
		}
		if len(s.Unset) > 0 {
			own += " · removes " + strings.Join(s.Unset, ", ")
		}
		t.Rows = append(t.Rows, Row{Cells: []Cell{{Text: s.Name}, {Text: own, Plain: true}, {Text: s.Provenance.SHA256[:min(12, len(s.Provenance.SHA256))], Plain: true}}})
	}
	p := first
	p.Overrides = append(slices.Clip(shared), first.Overrides[len(shared):]...)
	setSource(r, &p, p.Effective, p.SHA256)
	r.Overrides = shared
	r.SourceTables = []Table{t}
	r.SourceLabel = "The scenario as the baseline, " + out[0].Name + ", simulated it (SHA-256 " + p.SHA256 + "); the other variants differ only by their own overrides, above."
}
