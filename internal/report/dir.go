package report

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/internal/render"
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
	case d.Target != nil && d.Has("sweep.csv"):
		planReport(r, d)
	case d.Compare:
		compareReport(r, d)
	default:
		return nil, errors.New(d.Path + ": neither a comparison (compare.json) nor a plan (plan.json and sweep.csv): give a scenario to simulate one, or the directory 'simulate compare|plan --out' wrote")
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
	r.Sections = append(r.Sections, Section{ID: "charts", Title: "Charts", Figures: figs})
	return r, nil
}

// compareReport fills r with a comparison's header and variants table.
func compareReport(r *Report, d *charts.Dir) {
	sums := d.Summaries
	r.Scenario = d.Scenario
	r.Title = "budgetsim comparison · " + d.Scenario
	r.Description = fmt.Sprintf("%d variants of %s on common random numbers: every variant's replication i sees the same arrivals and draws, so differences come from the variants, not luck.", len(sums), d.Scenario)
	if len(sums) > 0 {
		r.Facts = append(r.Facts,
			Fact{"seed", strconv.FormatUint(sums[0].Seed, 10)},
			Fact{"replications", strconv.Itoa(sums[0].Replications) + " per variant"})
	}
	t := Table{Caption: "Variants, in the order compared",
		Header: []string{"variant", "success", "p50", "p99", "p99.9", "attempts/run", "not completed", "bottleneck"}}
	best := -1.0
	for _, s := range sums {
		best = max(best, s.SuccessRate)
	}
	for _, s := range sums {
		success := Cell{Text: render.Percent(s.SuccessRate)}
		p99 := Cell{Text: render.Seconds(s.Latency.P99)}
		if c := s.Confidence; c != nil {
			success = withCI(s.SuccessRate, &c.SuccessRate, render.Percent)
			if s.Latency.N > 0 {
				p99 = withCI(s.Latency.P99, &c.Latency.P99, render.Seconds)
			}
		}
		runs := s.Runs
		notDone := runs.DeadlineExceeded + runs.Failed + runs.Refused + runs.Expired + runs.Rejected
		bottleneck := s.Bottleneck
		if bottleneck == "" {
			bottleneck = "–"
		}
		t.Rows = append(t.Rows, Row{Cells: []Cell{{Text: s.Label}, success,
			{Text: render.Seconds(s.Latency.P50)}, p99, {Text: render.Seconds(s.Latency.P999)},
			{Text: render.Number(s.Attempts.PerRun)}, {Text: render.Number(float64(notDone))}, {Text: bottleneck}},
			Highlight: s.SuccessRate == best})
		for _, w := range s.Warnings {
			r.Warnings = append(r.Warnings, s.Label+": "+w)
		}
	}
	compareSource(r, sums)
	t.Notes = append(t.Notes, "The highlighted row has the highest success rate. Completion times are those of completed runs: read them with the success rate beside them.")
	if len(sums) > 0 && sums[0].Confidence != nil {
		t.Notes = append(t.Notes, fmt.Sprintf("Under a value: its %g%% Student-t interval over the replications (the p99's by sectioning).", 100*sums[0].Confidence.Level))
	}
	r.Sections = append(r.Sections, Section{ID: "variants", Title: "Variants", Tables: []Table{t}})
}

// planReport fills r with a plan's header, answer and probes.
func planReport(r *Report, d *charts.Dir) {
	param := "the parameter"
	if len(d.Sweep) > 0 {
		param = d.Sweep[0].Parameter
	}
	r.Scenario = d.Scenario
	if p := d.Target.Provenance; p != nil {
		r.Scenario = p.Scenario
		setSource(r, p, p.Effective, p.SHA256)
	}
	if r.Scenario == "" {
		r.Scenario = "capacity plan of " + param
	}
	r.Title = "budgetsim plan · " + r.Scenario
	tg := d.Target
	var objs []string
	for _, o := range tg.Objectives {
		objs = append(objs, strings.NewReplacer("<=", " ≤ ", ">=", " ≥ ").Replace(o.Text))
	}
	objText := "none"
	if len(objs) > 0 {
		objText = strings.Join(objs, ", ")
	}
	answer := "none: no value in the range met every objective"
	if tg.Found {
		answer = param + " = " + render.Number(tg.Answer)
	}
	r.Description = fmt.Sprintf("The smallest %s meeting every objective, found by probing values of it.", param)
	r.Facts = append(r.Facts, Fact{"answer", answer}, Fact{"objectives", objText}, Fact{"probes", strconv.Itoa(len(d.Sweep))})
	t := Table{Caption: "Probes, by " + param, Header: []string{param, "replications", "success", "p50", "p99", "p99.9"}}
	for _, p := range d.Sweep {
		t.Rows = append(t.Rows, Row{Cells: []Cell{{Text: render.Number(p.Value)}, {Text: strconv.FormatInt(p.Replications, 10)},
			{Text: render.Percent(p.SuccessRate), Sub: "[" + render.Percent(p.SuccessLo) + ", " + render.Percent(p.SuccessHi) + "]"},
			{Text: render.Seconds(p.P50)},
			{Text: render.Seconds(p.P99), Sub: "[" + render.Seconds(p.P99Lo) + ", " + render.Seconds(p.P99Hi) + "]"},
			{Text: render.Seconds(p.P999)}},
			Highlight: tg.Found && p.Value == tg.Answer})
	}
	t.Notes = append(t.Notes, "The highlighted row is the answer. Under a value: its confidence interval from sweep.csv.")
	r.Sections = append(r.Sections, Section{ID: "plan", Title: "Plan", Tables: []Table{t}})
}

// setSource shows provenance p in r's Scenario section: where the scenario
// was read from, its format, the overrides, and text with its SHA-256.
func setSource(r *Report, p *provenance.Record, text, sha string) {
	r.File = p.File
	r.FormatVersion = p.FormatVersion
	r.Overrides = p.Overrides
	r.Source, r.SHA256 = text, sha
}

// compareSource shows what each variant simulated: the overrides all
// variants share in the section's header, then each variant's scenario
// text as simulated, under a comment naming the variant, its own
// overrides and its SHA-256. Nothing when the summaries carry no
// provenance.
func compareSource(r *Report, sums []charts.Summary) {
	if len(sums) == 0 {
		return
	}
	for _, s := range sums {
		if s.Provenance == nil {
			return
		}
	}
	first := sums[0].Provenance
	var shared []string
	for i, o := range first.Overrides {
		all := true
		for _, s := range sums[1:] {
			if p := s.Provenance.Overrides; i >= len(p) || p[i] != o {
				all = false
			}
		}
		if !all {
			break
		}
		shared = append(shared, o)
	}
	var b strings.Builder
	for i, s := range sums {
		if i > 0 {
			b.WriteString("\n")
		}
		own := s.Provenance.Overrides[len(shared):]
		fmt.Fprintf(&b, "# variant %s: --set %s · SHA-256 %s\n", s.Label, strings.Join(own, " --set "), s.Provenance.SHA256)
		b.WriteString(s.Provenance.Effective)
		if !strings.HasSuffix(s.Provenance.Effective, "\n") {
			b.WriteString("\n")
		}
	}
	p := *first
	p.Overrides = shared
	setSource(r, &p, b.String(), "")
}
