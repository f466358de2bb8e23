package charts

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"flag"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/internal/outputs"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.svg from the current output")

// checkGolden renders ch as SVG and compares it with
// testdata/golden/NAME.svg. gonum/plot's output is byte-identical run to
// run; floating-point contraction (FMA) may move coordinates in the last
// digit on other architectures, so there only the text and the number of
// drawn elements are compared.
func checkGolden(t *testing.T, ch *Chart, name string) {
	t.Helper()
	var buf bytes.Buffer
	if err := ch.Render(&buf, "svg"); err != nil {
		t.Fatalf("Render(%s, svg): %v", name, err)
	}
	wellFormed(t, name, buf.Bytes())
	path := filepath.Join("testdata", "golden", name+".svg")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/charts -update to create it)", err)
	}
	got := buf.Bytes()
	if runtime.GOARCH != "amd64" {
		got, want = svgStructure(got), svgStructure(want)
	}
	if !bytes.Equal(got, want) {
		out := filepath.Join(t.TempDir(), name+".svg")
		os.WriteFile(out, buf.Bytes(), 0o644)
		t.Errorf("%s: SVG differs from %s; got written to %s (look at it, then go test -update)", name, path, out)
	}
}

// wellFormed checks that svg parses as XML.
func wellFormed(t *testing.T, name string, svg []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Errorf("%s: SVG is not well-formed XML: %v", name, err)
			return
		}
	}
}

var svgText = regexp.MustCompile(`>([^<>]+)</text>|<(path|text)`)

// svgStructure keeps an SVG's text and element kinds, not coordinates.
func svgStructure(svg []byte) []byte {
	var b bytes.Buffer
	for _, m := range svgText.FindAllSubmatch(svg, -1) {
		b.Write(m[1])
		b.Write(m[2])
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func legendLabels(ch *Chart) string {
	var ls []string
	for _, e := range ch.Legend {
		ls = append(ls, e.Label)
	}
	return strings.Join(ls, " | ")
}

func mustCDF(t *testing.T, name string) []CDF {
	t.Helper()
	d, err := outputs.ReadCDF(open(t, name), name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustSeries(t *testing.T, name string) []Series {
	t.Helper()
	s, err := outputs.ReadSeries(open(t, name), name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCDFChart(t *testing.T) {
	ch, err := CDFChart(mustCDF(t, "mmc/latency_cdf.csv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := readSums(t, "mmc/summary.json")[0]
	wantLegend := "mmc — p50 " + FormatSeconds(sum.Latency.P50) + " · p99 " + FormatSeconds(sum.Latency.P99) + " · p99.9 " + FormatSeconds(sum.Latency.P999)
	if ch.Legend[0].Label != wantLegend {
		t.Errorf("CDFChart(mmc) legend[0] = %q, want %q (the summary's percentiles)", ch.Legend[0].Label, wantLegend)
	}
	if _, ok := ch.Plot.X.Scale.(logScale); !ok || !(ch.Plot.X.Min > 0) {
		t.Errorf("CDFChart(mmc) x axis: scale %T, min %v, want a log scale with min > 0", ch.Plot.X.Scale, ch.Plot.X.Min)
	}
	checkGolden(t, ch, "latency_cdf_mmc")

	ch, err = CDFChart(mustCDF(t, "jitter/latency_cdf.csv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Title != "Completion time of completed runs by retry.backoff.jitter" || !strings.HasPrefix(ch.Legend[0].Label, "none — p50 36.9s") {
		t.Errorf("CDFChart(jitter): title %q, legend %q, want the key in the title and short variant names", ch.Title, legendLabels(ch))
	}
	// 100 runs per variant: the y axis ends one nine past the 99% the
	// data resolves.
	if ch.Plot.Y.Max != 0.999 {
		t.Errorf("CDFChart(jitter) y max = %v, want 0.999", ch.Plot.Y.Max)
	}
	checkGolden(t, ch, "latency_cdf_jitter")
}

// TestCDFChartZeros checks the log axis is never handed a zero: zero
// completion times are dropped with a footnote, and the chart renders.
func TestCDFChartZeros(t *testing.T) {
	in := []CDF{{Variant: "a", Points: []CDFPoint{{Value: 0, Fraction: 0.2}, {Value: 0.1, Fraction: 0.6}, {Value: 0.3, Fraction: 1}}}}
	ch, err := CDFChart(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(ch.Notes, " "), "1 CDF point(s) at 0 s are not drawn") {
		t.Errorf("CDFChart notes = %q, want a note on the zero value", ch.Notes)
	}
	if err := ch.Render(new(bytes.Buffer), "png"); err != nil {
		t.Errorf("Render: %v", err)
	}
	_, err = CDFChart([]CDF{{Variant: "a", Points: []CDFPoint{{Value: 0, Fraction: 1}}}}, nil)
	if !errors.Is(err, ErrNoData) {
		t.Errorf("CDFChart(only zeros) error = %v, want ErrNoData", err)
	}
}

func TestSweepCharts(t *testing.T) {
	ps, err := outputs.ReadSweep(open(t, "sweep.csv"), "sweep.csv")
	if err != nil {
		t.Fatal(err)
	}
	lat, err := SweepLatencyChart(ps, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := lat.Plot.Y.Scale.(plot.LinearScale); !ok {
		t.Errorf("SweepLatencyChart y scale = %T, want linear (p99.9/p50 spans only %.0f×)", lat.Plot.Y.Scale, 7.953125/0.701172)
	}
	checkGolden(t, lat, "sweep_latency")
	suc, err := SweepSuccessChart(ps, nil)
	if err != nil {
		t.Fatal(err)
	}
	if suc.Plot.Y.Min > 0.97213 || suc.Plot.Y.Min < 0.9 {
		t.Errorf("SweepSuccessChart y min = %v, want just below the lowest bound 0.97213", suc.Plot.Y.Min)
	}
	checkGolden(t, suc, "sweep_success")

	// Values spanning 1000×: log x; p99 spanning 100×: log y, and an
	// interval bound ≤ 0 is drawn at the bottom edge with a note.
	wide := []SweepPoint{
		{Parameter: "rate", Value: 1, P50: 0.01, P99: 0.05, P99Lo: -0.01, P99Hi: 0.08, P999: 0.06, Replications: 3},
		{Parameter: "rate", Value: 1000, P50: 1, P99: 5, P99Lo: 4, P99Hi: 6, P999: 6, Replications: 3},
	}
	ch, err := SweepLatencyChart(wide, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, logX := ch.Plot.X.Scale.(logScale)
	_, logY := ch.Plot.Y.Scale.(logScale)
	if !logX || !logY || !strings.Contains(strings.Join(ch.Notes, " "), "bottom edge") {
		t.Errorf("SweepLatencyChart(wide): log x %v, log y %v, notes %q; want both log and a note on the clamped bound", logX, logY, ch.Notes)
	}
	if err := ch.Render(new(bytes.Buffer), "svg"); err != nil {
		t.Errorf("Render: %v", err)
	}
	if _, err := SweepLatencyChart(append(wide, SweepPoint{Parameter: "other"}), nil); err == nil {
		t.Errorf("SweepLatencyChart(two parameters) = nil error, want one")
	}
	if g := SplitSweep(append(wide, SweepPoint{Parameter: "other"})); len(g) != 2 || len(g[0]) != 2 {
		t.Errorf("SplitSweep: %d groups, want 2 (rate ×2, other ×1)", len(g))
	}
}

// seriesOf builds a one-variant series with 1 s bins.
func seriesOf(arrivals, completed []int64) Series {
	s := Series{Variant: "v"}
	for i := range arrivals {
		s.Bins = append(s.Bins, Bin{Start: time.Duration(i) * time.Second, Width: time.Second,
			Arrivals: arrivals[i], Attempts: arrivals[i], Completed: completed[i], Ended: -1, InSystem: nanf()})
	}
	return s
}

func nanf() float64 { var z float64; return z / z }

func TestInSystemLevel(t *testing.T) {
	// A warm-up bin, then 3 arrive, 1 arrives and 2 complete, 2 complete.
	s := seriesOf([]int64{0, 3, 1, 0}, []int64{0, 0, 2, 2})
	from, _ := commonStart([]Series{s})
	xs, ys := inSystemLevel(s, from, false)
	if got, want := strings.Trim(strings.Join(strings.Fields(fmtFloats(xs)+" / "+fmtFloats(ys)), " "), " "), "1 2 3 4 / 0 3 2 0"; got != want {
		t.Errorf("inSystemLevel = %s, want %s (level at each bin's end, from the first arrival)", got, want)
	}
}

func fmtFloats(xs []float64) string {
	var b strings.Builder
	for _, x := range xs {
		b.WriteString(trimNumber(x) + " ")
	}
	return b.String()
}

func TestInSystemChartModes(t *testing.T) {
	withInSystem := seriesOf([]int64{1, 1}, []int64{0, 1})
	withEnded := seriesOf([]int64{1, 1}, []int64{0, 1})
	for i := range withInSystem.Bins {
		withInSystem.Bins[i].InSystem = 0.5
		withEnded.Bins[i].Ended = 1
	}
	failing := Summary{Label: "v"}
	failing.Runs.Failed = 3
	failing.Little.LambdaW = 2
	clean := Summary{Label: "v"}
	clean.Little.LambdaW = 2
	tests := []struct {
		name   string
		series Series
		sums   []Summary
		title  string
		note   string
	}{
		{"in_system column", withInSystem, nil, "Runs in the system", "time-average over each bin"},
		{"ended column", withEnded, []Summary{failing}, "Runs in the system", "runs ended (any outcome)"},
		{"completed, all completed", seriesOf([]int64{1, 1}, []int64{0, 1}), []Summary{clean}, "Runs in the system", "exact at each bin's end"},
		{"completed, no summary", seriesOf([]int64{1, 1}, []int64{0, 1}), nil, "Runs in the system", "an approximation"},
		{"completed, some failed", seriesOf([]int64{1, 1}, []int64{0, 1}), []Summary{failing}, "Arrivals and completions per second", "cannot be derived"},
	}
	for _, tt := range tests {
		ch, err := InSystemChart([]Series{tt.series}, tt.sums)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if ch.Title != tt.title || !strings.Contains(strings.Join(ch.Notes, " "), tt.note) {
			t.Errorf("%s: InSystemChart title %q, notes %q; want %q and a note with %q", tt.name, ch.Title, ch.Notes, tt.title, tt.note)
		}
	}
}

func TestInSystemChartFixtures(t *testing.T) {
	ch, err := InSystemChart(mustSeries(t, "mmc/series.csv"), readSums(t, "mmc/summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := legendLabels(ch); got != "mmc | λW = "+trimNumber(readSums(t, "mmc/summary.json")[0].Little.LambdaW)+" (Little's law)" {
		t.Errorf("InSystemChart(mmc) legend = %q", got)
	}
	checkGolden(t, ch, "in_system_mmc")

	ch, err = InSystemChart(mustSeries(t, "storm/series.csv"), readSums(t, "storm/compare.json"))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Title != "Arrivals and completions per second by retry.attempts" || !strings.HasPrefix(legendLabels(ch), "arrivals/s (all variants) | 1: completions/s") {
		t.Errorf("InSystemChart(storm): title %q, legend %q; want the flow fallback with shared arrivals", ch.Title, legendLabels(ch))
	}
	checkGolden(t, ch, "in_system_storm")
}

func TestAttemptRateChart(t *testing.T) {
	jitter := mustSeries(t, "jitter/series.csv")
	if !sameArrivalCounts(jitter) {
		t.Errorf("sameArrivalCounts(jitter) = false, want true: common random numbers, 100 arrivals at 0 s")
	}
	ch, err := AttemptRateChart(jitter)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(legendLabels(ch), "arrivals/s (all variants) | none: attempts/s") || !strings.Contains(strings.Join(ch.Notes, " "), "Off scale") {
		t.Errorf("AttemptRateChart(jitter): legend %q, notes %q; want shared arrivals and the t=0 burst clipped", legendLabels(ch), ch.Notes)
	}
	checkGolden(t, ch, "attempt_rate_jitter")

	ch, err = AttemptRateChart(mustSeries(t, "storm/series.csv"))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, ch, "attempt_rate_storm")

	other := jitter[1]
	other.Bins = append([]Bin(nil), other.Bins...)
	other.Bins[0].Arrivals--
	if sameArrivalCounts([]Series{jitter[0], other}) {
		t.Errorf("sameArrivalCounts with one arrival fewer = true, want false")
	}
}

func TestRates(t *testing.T) {
	bins := []Bin{
		{Start: 0, Width: time.Second, Attempts: 2},
		{Start: time.Second, Width: time.Second, Attempts: 4},
		{Start: 2 * time.Second, Width: time.Second, Attempts: 6},
	}
	st, en, r := rates(bins, 0, 2*time.Second, func(b Bin) int64 { return b.Attempts })
	// Buckets [0, 2) and [2, 3): the last ends where the series does.
	if fmtFloats(st) != "0 2 " || fmtFloats(en) != "2 3 " || fmtFloats(r) != "3 6 " {
		t.Errorf("rates(…, 2s) = starts %v ends %v rates %v, want [0 2] [2 3] [3 6]", st, en, r)
	}
}

func TestTimelineChart(t *testing.T) {
	tests := []struct {
		file   string
		run    int64
		title  string
		legend string
	}{
		{"seed-plan.jsonl", 0, "Run 0: completed after 161ms (deadline 1s after arrival)",
			"deadline | run ended | attempt: ok | attempt: timeout | lease granted | backoff sleep"},
		{"seed-queue.jsonl", 1, "Run 1: deadline exceeded after 1.2s (deadline 2s after arrival)",
			"deadline | run ended | queue wait | attempt: rate limited | lease granted"},
		{"jitter-none.jsonl", 2, "Run 2: completed after 101s",
			"run ended | attempt: transient | attempt: ok | backoff sleep"},
	}
	for _, tt := range tests {
		tr, err := ReadTrace(open(t, tt.file), tt.file)
		if err != nil {
			t.Fatal(err)
		}
		r, as, err := tr.Run(tt.run)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := TimelineChart(r, as)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Title != tt.title || legendLabels(ch) != tt.legend {
			t.Errorf("TimelineChart(%s, run %d): title %q, legend %q; want %q, %q", tt.file, tt.run, ch.Title, legendLabels(ch), tt.title, tt.legend)
		}
		checkGolden(t, ch, "timeline_"+strings.TrimSuffix(tt.file, ".jsonl"))
	}
	if _, err := TimelineChart(TraceRun{ID: 1}, []TraceAttempt{{Run: 2}}); err == nil {
		t.Errorf("TimelineChart with another run's attempt = nil error, want one")
	}
}

// readTailStages reads a table of tail stages (columns variant, stage,
// seconds) from testdata: the breakdown of a sweep's points by hand.
func readTailStages(t *testing.T, name string) []TailStage {
	t.Helper()
	recs, err := csv.NewReader(open(t, name)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var out []TailStage
	for _, r := range recs[1:] {
		s := TailStage{Stage: r[col["stage"]]}
		if i, ok := col["variant"]; ok {
			s.Variant = r[i]
		}
		if s.Seconds, err = strconv.ParseFloat(r[col["seconds"]], 64); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func TestTailChart(t *testing.T) {
	st := readTailStages(t, "tail.csv")
	ch, err := TailChart(st)
	if err != nil {
		t.Fatal(err)
	}
	if legendLabels(ch) != "queue | search | model | backoff" || ch.Title != "Where the p99 run's time went, by tools.search.rate_limit.rate" {
		t.Errorf("TailChart: title %q, legend %q", ch.Title, legendLabels(ch))
	}
	checkGolden(t, ch, "tail")

	// From the summaries: backoff is all of the tail for full jitter;
	// none and decorrelated had no completed run within 1% of the p99.
	ch, err = TailChart(TailFromSummaries(readSums(t, "jitter/compare.json")))
	if err != nil {
		t.Fatal(err)
	}
	if legendLabels(ch) != "write | backoff" {
		t.Errorf("TailChart(jitter summaries) legend = %q, want write | backoff (zero stages left out)", legendLabels(ch))
	}
	checkGolden(t, ch, "tail_jitter")

	if _, err := TailChart([]TailStage{{Stage: "queue"}}); !errors.Is(err, ErrNoData) {
		t.Errorf("TailChart(all zero) error = %v, want ErrNoData", err)
	}
}

func TestUtilisationChart(t *testing.T) {
	ts, err := outputs.ReadTools(open(t, "tools.csv"), "tools.csv")
	if err != nil {
		t.Fatal(err)
	}
	ch, err := UtilisationChart(ts)
	if err != nil {
		t.Fatal(err)
	}
	if legendLabels(ch) != "1 · backend | 3 · backend | 1 · auth | 3 · auth" {
		t.Errorf("UtilisationChart legend = %q", legendLabels(ch))
	}
	checkGolden(t, ch, "utilisation")
}

func TestRenderPNG(t *testing.T) {
	ch, err := CDFChart(mustCDF(t, "jitter/latency_cdf.csv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := ch.Render(&a, "png"); err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	// 7 in × 4.5 in at 150 DPI.
	if cfg.Width != 1050 || cfg.Height != 675 {
		t.Errorf("PNG size = %d×%d, want 1050×675", cfg.Width, cfg.Height)
	}
	if err := ch.Render(&b, "png"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("two renders of one chart differ")
	}
	if err := ch.Render(&b, "gif"); err == nil || !strings.Contains(err.Error(), `format: must be png or svg, got "gif"`) {
		t.Errorf("Render(gif) error = %v", err)
	}
}

// TestWriteFilesPanic checks that a gonum/plot panic (a value ≤ 0 on
// gonum's own log scale) becomes an error and leaves no file, not even a
// temporary one.
func TestWriteFilesPanic(t *testing.T) {
	p := newPlot("x", "y")
	p.X.Scale = plot.LogScale{}
	line, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 2}})
	p.Add(line)
	ch := &Chart{Name: "bad", Plot: p}
	dir := t.TempDir()
	paths, err := ch.WriteFiles(dir, []string{"png", "svg"})
	if err == nil || !strings.Contains(err.Error(), "charts: drawing bad.png") {
		t.Errorf("WriteFiles(bad) = %v, %v; want a drawing error", paths, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("WriteFiles(bad) left %d file(s) in the directory, want none", len(ents))
	}
}

func TestWriteFiles(t *testing.T) {
	ch, err := TailChart(TailFromSummaries(readSums(t, "jitter/compare.json")))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := ch.WriteFiles(dir, []string{"svg", "png"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "tail.svg"), filepath.Join(dir, "tail.png")}
	if strings.Join(paths, ",") != strings.Join(want, ",") {
		t.Errorf("WriteFiles = %v, want %v", paths, want)
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v, size %d", p, err, st.Size())
		}
	}
}

// TestTimelineHedgeLanes: the overlapping calls of a hedged step get a row
// each, numbered, and a call cancelled when the hedge was won is drawn and
// named as cancelled, not as the timeout its outcome records.
func TestTimelineHedgeLanes(t *testing.T) {
	run := TraceRun{ID: 7, Arrived: 0, Started: 0, Ended: 2 * time.Second, Outcome: "completed", Deadline: -1}
	as := []TraceAttempt{
		{Run: 7, Step: "answer", Tool: "model", Attempt: 1, Start: 0, Granted: 30 * time.Second, Remaining: -1, Outcome: "ok", Latency: 2 * time.Second, Backoff: -1, Decision: "success", Lane: 1},
		{Run: 7, Step: "answer", Tool: "model", Attempt: 2, Start: time.Second, Granted: 30 * time.Second, Remaining: -1, Outcome: "timeout", Latency: time.Second, Backoff: -1, Decision: "cancelled", Lane: 2},
	}
	ch, err := TimelineChart(run, as)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, tk := range ch.Plot.Y.Tick.Marker.(plot.ConstantTicks) {
		rows = append(rows, tk.Label)
	}
	if want := []string{"queue", "answer #1 (model)", "answer #2 (model)"}; !slices.Equal(rows, want) {
		t.Errorf("rows %q, want %q", rows, want)
	}
	if got := legendLabels(ch); !strings.Contains(got, "attempt: cancelled") || strings.Contains(got, "attempt: timeout") {
		t.Errorf("legend %q: want the cancelled call named so, and no timeout", got)
	}
}
