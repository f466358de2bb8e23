package charts

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/internal/outputs"
	"gonum.org/v1/plot/vg"
)

// longLabel is a variant label as compare writes it for a whole retry
// policy pasted into --vary, i times longer.
func longLabel(i int) string {
	return fmt.Sprintf("retry={idempotent: true, attempts: %d, budget: {kind: token_bucket, ratio: 0.1}, backoff: {base: 50ms, multiplier: 2, cap: 1s, jitter: full}}", i) +
		strings.Repeat(" tools.backend.deadline_aware=false", i%3) + strings.Repeat("x", 10*i)
}

// TestLegendNeverRunsOff: with twelve long labels (one a single word
// wider than the page), every legend line fits the width, and the figure
// grows so that the data area keeps its least height.
func TestLegendNeverRunsOff(t *testing.T) {
	var cdfs []CDF
	for i := range 12 {
		cdfs = append(cdfs, CDF{Variant: longLabel(i), Points: []CDFPoint{{Value: 0.1 * float64(i+1), Fraction: 0.5}, {Value: 0.2 * float64(i+1), Fraction: 1}}})
	}
	cdfs[11].Variant = strings.Repeat("W", 300)
	ch, err := CDFChart(cdfs, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, h := ch.size()
	inner := w - 2*margin
	items, legendH := ch.layoutLegend(inner)
	sty := legendStyle()
	for i, it := range items {
		for _, l := range it.lines {
			if right := it.dx + legendThumb + 4 + sty.Width(l); right > inner+0.01 {
				t.Errorf("legend entry %d line %q ends at %v, past the width %v", i, l, right, inner)
			}
		}
	}
	if h <= DefaultHeight {
		t.Errorf("height %v: want the figure grown past %v for a %v-tall legend", h, DefaultHeight, legendH)
	}
	if plotH := h - 2*margin - ch.chromeHeight(inner); plotH < minPlotHeight-0.01 {
		t.Errorf("data area %v tall, want at least %v", plotH, minPlotHeight)
	}
	for _, f := range []string{"png", "svg"} {
		if err := ch.Render(&strings.Builder{}, f); err != nil {
			t.Errorf("Render %s: %v", f, err)
		}
	}
	// A title wider than the page wraps: the chrome grows by its lines.
	before := ch.chromeHeight(inner)
	ch.Title = strings.Repeat("a-long-scenario-name · Completion time by tools.backend.deadline_aware ", 3)
	if lines := len(wrap(boldStyle(13), ch.Title, inner)); lines < 3 || ch.chromeHeight(inner) <= before {
		t.Errorf("long title: %d lines, chrome %v (was %v); want it wrapped and counted", lines, ch.chromeHeight(inner), before)
	}
}

// TestWrap: lines break at spaces, and a word wider than the width breaks
// between characters; nothing is lost.
func TestWrap(t *testing.T) {
	sty := legendStyle()
	w := vg.Length(100)
	s := "short words then " + strings.Repeat("x", 80) + " end"
	lines := wrap(sty, s, w)
	for _, l := range lines {
		if sty.Width(l) > w {
			t.Errorf("line %q is %v wide, more than %v", l, sty.Width(l), w)
		}
	}
	if got := strings.ReplaceAll(strings.Join(lines, ""), " ", ""); got != strings.ReplaceAll(s, " ", "") {
		t.Errorf("wrapped text %q lost characters of %q", got, s)
	}
}

// TestTailKeysLongLabels: long variant labels on the tail chart's axis
// become V1, V2, … with a footnote spelling them out; short ones stay.
func TestTailKeysLongLabels(t *testing.T) {
	stages := []TailStage{{Variant: longLabel(1), Stage: "queue", Seconds: 1}, {Variant: longLabel(2), Stage: "queue", Seconds: 2}}
	ch, err := TailChart(stages)
	if err != nil {
		t.Fatal(err)
	}
	ticks := ch.Plot.Y.Tick.Marker.Ticks(0, 1)
	if ticks[0].Label != "V1" || ticks[1].Label != "V2" {
		t.Errorf("axis labels %q, %q; want V1, V2", ticks[0].Label, ticks[1].Label)
	}
	if last := ch.Notes[len(ch.Notes)-1]; !strings.HasPrefix(last, "Variants: V1 = "+longLabel(1)+"; V2 = ") {
		t.Errorf("key note %q", last)
	}
	ch, _ = TailChart([]TailStage{{Variant: "naive", Stage: "queue", Seconds: 1}, {Variant: "budgeted", Stage: "queue", Seconds: 2}})
	if l := ch.Plot.Y.Tick.Marker.Ticks(0, 1)[0].Label; l != "naive" {
		t.Errorf("short label became %q", l)
	}
}

// TestCDFSuccessRate: with the summaries, each legend entry says how many
// runs succeeded (floored, never overstated), and a note says why.
func TestCDFSuccessRate(t *testing.T) {
	cdfs := []CDF{{Variant: "naive", Points: []CDFPoint{{Value: 0.1, Fraction: 1}}}, {Variant: "budgeted", Points: []CDFPoint{{Value: 0.5, Fraction: 1}}}}
	var sums []Summary
	for _, s := range []struct {
		name string
		rate float64
	}{{"naive", 0.14999}, {"budgeted", 0.9999}} {
		var sum Summary
		sum.Label, sum.SuccessRate = s.name, s.rate
		sums = append(sums, sum)
	}
	ch, err := CDFChart(cdfs, sums)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ch.Legend[0].Label, "naive · 14.9% succeeded — p50") || !strings.HasPrefix(ch.Legend[1].Label, "budgeted · 99.9% succeeded") {
		t.Errorf("legend %q", legendLabels(ch))
	}
	if !strings.Contains(strings.Join(ch.Notes, " "), "completed runs only") {
		t.Errorf("notes %q lack the completed-runs caveat", ch.Notes)
	}
}

// TestSweepTarget: a plan's objectives are lines at their thresholds on
// the chart of their figure (the axis widened to show them), its answer a
// vertical line; objectives of other figures are not drawn; a plan that
// found nothing says so.
func TestSweepTarget(t *testing.T) {
	ps, err := outputs.ReadSweep(open(t, "sweep.csv"), "sweep.csv")
	if err != nil {
		t.Fatal(err)
	}
	target := &Target{Objectives: []Objective{
		{Text: "p99<=20s", Figure: "p99", Threshold: 20},
		{Text: "wait_p99<=1s", Figure: "wait_p99", Threshold: 1},
		{Text: "success>=0.5", Figure: "success", Threshold: 0.5},
	}, Plan: true, Answer: ps[1].Value, Found: true}
	lat, err := SweepLatencyChart(ps, target)
	if err != nil {
		t.Fatal(err)
	}
	legend := legendLabels(lat)
	if !strings.Contains(legend, "objective p99 ≤ 20s") || strings.Contains(legend, "wait_p99") || strings.Contains(legend, "success") ||
		!strings.Contains(legend, fmt.Sprintf("answer: %s = %s", ps[0].Parameter, trimNumber(ps[1].Value))) {
		t.Errorf("latency legend %q", legend)
	}
	if lat.Plot.Y.Max < 20 {
		t.Errorf("latency y max %v: the 20s objective is off the chart", lat.Plot.Y.Max)
	}
	suc, err := SweepSuccessChart(ps, target)
	if err != nil {
		t.Fatal(err)
	}
	if legend := legendLabels(suc); !strings.Contains(legend, "objective success ≥ 0.5") || strings.Contains(legend, "p99") {
		t.Errorf("success legend %q", legend)
	}
	if suc.Plot.Y.Min > 0.5 {
		t.Errorf("success y min %v: the 50%% objective is off the chart", suc.Plot.Y.Min)
	}
	target.Found = false
	lat, _ = SweepLatencyChart(ps, target)
	if strings.Contains(legendLabels(lat), "answer") || !strings.Contains(strings.Join(lat.Notes, " "), "No value in the range met every objective") {
		t.Errorf("no answer: legend %q, notes %q", legendLabels(lat), lat.Notes)
	}
	// A plain sweep's objectives (no plan): the points meeting them at
	// their estimates are circled; an objective sweep.csv cannot judge
	// marks nothing and says so.
	p99s := make([]float64, len(ps))
	for i, q := range ps {
		p99s[i] = q.P99
	}
	slices.Sort(p99s)
	sweepTarget := &Target{Objectives: []Objective{{Text: "p99<=x", Figure: "p99", Threshold: p99s[1]}}}
	lat, _ = SweepLatencyChart(ps, sweepTarget)
	if !strings.Contains(legendLabels(lat), "meets every objective (point estimates)") || strings.Contains(strings.Join(lat.Notes, " "), "No value") {
		t.Errorf("sweep target: legend %q, notes %q", legendLabels(lat), lat.Notes)
	}
	met := 0
	for _, q := range ps {
		if m, _ := sweepTarget.meets(q); m {
			met++
		}
	}
	if met != 2 {
		t.Errorf("%d points meet p99 ≤ the second smallest p99, want 2", met)
	}
	sweepTarget.Objectives = append(sweepTarget.Objectives, Objective{Text: "mean<=1s", Figure: "mean", Threshold: 1})
	lat, _ = SweepLatencyChart(ps, sweepTarget)
	if strings.Contains(legendLabels(lat), "meets every") || !strings.Contains(strings.Join(lat.Notes, " "), "not marked") {
		t.Errorf("unknown figure: legend %q, notes %q", legendLabels(lat), lat.Notes)
	}
}

// TestShadeTimeSeries: the warm-up (before the first measured activity)
// and each distinct outage window are shaded with a legend entry; the axis
// starts at 0 to show the warm-up; windows off the axis are left out.
func TestShadeTimeSeries(t *testing.T) {
	bins := func(from int) []Bin {
		var bs []Bin
		for i := range 10 {
			b := Bin{Start: time.Duration(i) * time.Second, Width: time.Second, InSystem: math.NaN(), Ended: -1}
			if i >= from {
				b.Arrivals, b.Attempts = 5, 6
			}
			bs = append(bs, b)
		}
		return bs
	}
	series := []Series{{Variant: "a", Bins: bins(3)}, {Variant: "b", Bins: bins(3)}}
	ch, err := AttemptRateChart(series)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Plot.X.Min != 3 {
		t.Fatalf("attempt-rate x min %v, want 3 (the warm-up cut)", ch.Plot.X.Min)
	}
	outages := []Outage{
		{Variant: "a", Tool: "api", Start: 5 * time.Second, End: 6 * time.Second, Mode: "stall"},
		{Variant: "b", Tool: "api", Start: 5 * time.Second, End: 6 * time.Second, Mode: "stall"},     // the same window
		{Variant: "a", Tool: "api", Start: 50 * time.Second, End: 60 * time.Second, Mode: "timeout"}, // off the axis
	}
	ShadeTimeSeries(ch, series, outages)
	legend := legendLabels(ch)
	if ch.Plot.X.Min != 0 || !strings.Contains(legend, "warm-up (not measured)") || strings.Count(legend, "outage:") != 1 ||
		!strings.Contains(legend, "outage: api stall, 5s–6s") {
		t.Errorf("x min %v, legend %q; want 0, the warm-up and one outage", ch.Plot.X.Min, legend)
	}
	if err := ch.Render(&strings.Builder{}, "svg"); err != nil {
		t.Error(err)
	}
	// No warm-up, no outage: nothing added.
	ch, _ = AttemptRateChart([]Series{{Variant: "a", Bins: bins(0)}})
	before := len(ch.Legend)
	ShadeTimeSeries(ch, []Series{{Variant: "a", Bins: bins(0)}}, nil)
	if len(ch.Legend) != before {
		t.Errorf("legend grew to %q with nothing to shade", legendLabels(ch))
	}
}

// TestReadOutages: outages.csv parses; a window that ends before it starts
// is an error naming the line and the column.
func TestReadOutages(t *testing.T) {
	os, err := outputs.ReadOutages(strings.NewReader("variant,tool,start_s,end_s,mode\nv,api,60,70,stall\n"), "outages.csv")
	if err != nil || len(os) != 1 || os[0] != (Outage{Variant: "v", Tool: "api", Start: 60 * time.Second, End: 70 * time.Second, Mode: "stall"}) {
		t.Errorf("ReadOutages = %+v, %v", os, err)
	}
	_, err = outputs.ReadOutages(strings.NewReader("variant,tool,start_s,end_s,mode\nv,api,60,50,stall\n"), "outages.csv")
	if err == nil || !strings.Contains(err.Error(), "outages.csv:2") || !strings.Contains(err.Error(), "end_s") {
		t.Errorf("backwards window: %v", err)
	}
}

// TestTailSuccessRates: with the summaries, each bar's total is followed
// by the variant's success rate, so a fast p99 run of a variant that
// completes few runs is read as such.
func TestTailSuccessRates(t *testing.T) {
	var sums []Summary
	for _, s := range []struct {
		name string
		rate float64
	}{{"naive", 0.145}, {"budgeted", 0.654}} {
		var sum Summary
		sum.Label, sum.SuccessRate = s.name, s.rate
		sums = append(sums, sum)
	}
	ch, err := TailChart([]TailStage{{Variant: "naive", Stage: "queue", Seconds: 0.5}, {Variant: "budgeted", Stage: "queue", Seconds: 0.9}}, sums...)
	if err != nil {
		t.Fatal(err)
	}
	var svg strings.Builder
	if err := ch.Render(&svg, "svg"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"500ms · 14.5% succeeded", "900ms · 65.4% succeeded"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("tail chart lacks %q", want)
		}
	}
}
