package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// fixture is testdata/review.yaml: a metered, capacity-limited tool with an
// outage, transient errors, a deadline and a floor, so that every table
// and chart of the report has data.
const fixture = "testdata/review.yaml"

func load(t *testing.T, name string, sets ...string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Load(name, sets)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// writeReport simulates sc and returns the report and its HTML.
func writeReport(t *testing.T, sc *scenarios.Scenario, opt Options, date string) (*Report, []byte) {
	t.Helper()
	in, err := Simulate(sc, opt)
	if err != nil {
		t.Fatalf("Simulate(%s, %+v) = %v", sc.Config.Name, opt, err)
	}
	in.Version, in.Date = "v1.2.3-test", date
	r, err := New(in)
	if err != nil {
		t.Fatalf("New(%s) = %v", sc.Config.Name, err)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatalf("WriteHTML = %v", err)
	}
	return r, buf.Bytes()
}

func figuresOf(r *Report) []Figure {
	var fs []Figure
	for _, s := range r.Sections {
		fs = append(fs, s.Figures...)
	}
	return fs
}

func TestWriteHTML(t *testing.T) {
	r, html := writeReport(t, load(t, fixture), Options{Replications: 3}, "2025-01-31")
	doc := string(html)

	// Every table of the summary, the recommendation and the charts.
	for _, want := range []string{
		"<caption>Runs by outcome</caption>",
		"<caption>Completion and wait time</caption>",
		"<caption>Little&#39;s law, L = λW</caption>",
		"<caption>Attempts</caption>",
		"<caption>Capacity</caption>",
		"<caption>Where the p99 run spent its time (p99 = ",
		"<caption>Cost</caption>",
		"<caption>Recovery after the last outage</caption>",
		"<caption>Per step: timeout (ceiling), floor and attempts</caption>",
		"<caption>Run (2 steps)</caption>",
		`<tr class="hl"><th scope="row">workers<small>bottleneck</small></th>`,
		"<pre class=\"code\"><code>simulate run testdata/review.yaml --set steps.search.timeout=",
		"<dt>seed</dt><dd>3 (each replication draws its own random numbers",
		"<dt>replications</dt><dd>3</dd>",
		"<dt>date</dt><dd>2025-01-31</dd>",
		"<dt>budgetsim</dt><dd>v1.2.3-test</dd>",
		"95% Student-t",
		`<li id="note-1">only `, // the summary's warning, as a footnote
		"<pre class=\"source\">name: review\n",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("report does not contain %q", want)
		}
	}
	// The description and the YAML are escaped, never markup.
	if strings.Contains(doc, "<model>") {
		t.Errorf("report contains the description's <model> unescaped")
	}
	if want := "search → &lt;model&gt; &amp; &#34;pay&#34;"; !strings.Contains(doc, want) {
		t.Errorf("report does not contain the escaped description %q", want)
	}

	figs := figuresOf(r)
	wantFigs := []string{"latency_cdf", "attempt_rate", "in_system", "utilisation", "timeline", "tail"}
	if len(figs) != len(wantFigs) {
		t.Fatalf("len(figures) = %d, want %d", len(figs), len(wantFigs))
	}
	for i, f := range figs {
		if f.Skipped != "" || !strings.HasPrefix(f.Name, wantFigs[i]) {
			t.Errorf("figure %d = %s (skipped %q), want %s drawn", i, f.Name, f.Skipped, wantFigs[i])
		}
	}
	if n := strings.Count(doc, "<svg "); n != len(wantFigs) {
		t.Errorf("inline <svg> elements = %d, want %d", n, len(wantFigs))
	}
	if n := strings.Count(doc, "</svg>"); n != len(wantFigs) {
		t.Errorf("</svg> = %d, want %d", n, len(wantFigs))
	}
	if strings.Contains(doc, "<?xml") || strings.Contains(doc, "<!--") {
		t.Errorf("report contains an XML prolog or comment (not allowed inline in HTML)")
	}
	if n := strings.Count(doc, `<svg role="img" aria-label="`); n != len(wantFigs) {
		t.Errorf("labelled <svg> elements = %d, want %d", n, len(wantFigs))
	}
	for _, p := range wellFormed(doc) {
		t.Errorf("report is not well formed: %s", p)
	}
	for _, p := range external(doc) {
		t.Errorf("report is not self-contained: %s", p)
	}
	// The check above saw the fixture's address, in the text.
	if !strings.Contains(doc, "loads: https://example.com/not-loaded") {
		t.Errorf("the fixture's address in a YAML comment is missing from the source section")
	}
}

// wellFormed returns what is wrong with doc's structure: elements not
// closed in order (void elements and self-closing SVG elements aside),
// duplicate ids, and in-page links to no id. The report writes text
// through html/template, so a '<' in text is always escaped and a regular
// expression finds every tag.
func wellFormed(doc string) []string {
	var problems []string
	if !strings.HasPrefix(doc, "<!DOCTYPE html>\n") {
		problems = append(problems, "does not start with <!DOCTYPE html>")
	}
	void := map[string]bool{"meta": true, "br": true, "hr": true, "img": true, "input": true, "link": true, "wbr": true}
	tag := regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:[^>"]|"[^"]*")*)>`)
	var stack []string
	for _, m := range tag.FindAllStringSubmatch(doc, -1) {
		closing, name, attrs := m[1] == "/", strings.ToLower(m[2]), m[3]
		switch {
		case closing:
			if len(stack) == 0 || stack[len(stack)-1] != name {
				return append(problems, fmt.Sprintf("</%s> closes %v", name, stack))
			}
			stack = stack[:len(stack)-1]
		case void[name] || strings.HasSuffix(strings.TrimSpace(attrs), "/"):
		default:
			stack = append(stack, name)
		}
	}
	if len(stack) != 0 {
		problems = append(problems, fmt.Sprintf("elements left open: %v", stack))
	}
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]*)"`).FindAllStringSubmatch(doc, -1) {
		if seen[m[1]] {
			problems = append(problems, fmt.Sprintf("id %q appears twice", m[1]))
		}
		seen[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`href="#([^"]*)"`).FindAllStringSubmatch(doc, -1) {
		if !seen[m[1]] {
			problems = append(problems, fmt.Sprintf("link to #%s: no element has that id", m[1]))
		}
	}
	return problems
}

// external returns what in doc would load something: a script, an
// element that fetches, a CSS import or url(), an http(s) address in any
// tag but the SVG namespace declarations, a link out of the page.
// Addresses in text (the fixture's YAML has one in a comment) are words,
// not resources.
func external(doc string) []string {
	var problems []string
	lower := strings.ToLower(doc)
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "<object", "<embed", "<image", "<use", "@import", "url(", " src=", "xlink:href", "@font-face"} {
		if strings.Contains(lower, bad) {
			problems = append(problems, "contains "+bad)
		}
	}
	namespaces := map[string]bool{`xmlns="http://www.w3.org/2000/svg"`: true, `xmlns:xlink="http://www.w3.org/1999/xlink"`: true}
	tag := regexp.MustCompile(`<[a-zA-Z](?:[^>"]|"[^"]*")*>`)
	attr := regexp.MustCompile(`[a-zA-Z:-]+="[^"]*https?://[^"]*"`)
	for _, m := range tag.FindAllString(doc, -1) {
		for _, a := range attr.FindAllString(m, -1) {
			if !namespaces[a] {
				problems = append(problems, fmt.Sprintf("tag %.60q refers to %s", m, a))
			}
		}
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(doc, -1) {
		if !strings.HasPrefix(m[1], "#") {
			problems = append(problems, fmt.Sprintf("link to %q leaves the page", m[1]))
		}
	}
	return problems
}

// TestCheckers: the structure and self-containment checks catch what they
// are for, so that their silence on the report means something.
func TestCheckers(t *testing.T) {
	const head = "<!DOCTYPE html>\n"
	ok := head + `<html><body><p id="a">x<br><svg xmlns="http://www.w3.org/2000/svg"><path d="M0,0"/></svg> see https://example.com <a href="#a">a</a></p></body></html>`
	if p := wellFormed(ok); p != nil {
		t.Errorf("wellFormed(ok) = %v, want none", p)
	}
	if p := external(ok); p != nil {
		t.Errorf("external(ok) = %v, want none", p)
	}
	for _, bad := range []string{
		head + "<html><body><p>x</body></html>",
		head + "<html><p></html>",
		head + `<html><p id="a"></p><p id="a"></p></html>`,
		head + `<html><a href="#nowhere">x</a></html>`,
		"<html></html>",
	} {
		if wellFormed(bad) == nil {
			t.Errorf("wellFormed(%q) = none, want a problem", bad)
		}
	}
	for _, bad := range []string{
		`<script>1</script>`,
		`<img src="x.png">`,
		`<link rel="stylesheet" href="s.css">`,
		`<style>@import "x.css";</style>`,
		`<p style="background:url(x.png)">`,
		`<a href="https://example.com">x</a>`,
		`<svg xmlns="http://evil.example/ns">`,
		`<div data-x="http://example.com/a">`,
	} {
		if external(bad) == nil {
			t.Errorf("external(%q) = none, want a problem", bad)
		}
	}
}

// TestDeterministic: the same scenario and seed give the same bytes,
// whatever the parallelism; another seed does not.
func TestDeterministic(t *testing.T) {
	_, a := writeReport(t, load(t, "retry-storm", "horizon=100s"), Options{Replications: 2, Parallel: 1}, "")
	_, b := writeReport(t, load(t, "retry-storm", "horizon=100s"), Options{Replications: 2, Parallel: 2}, "")
	if !bytes.Equal(a, b) {
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		t.Fatalf("two reports of retry-storm differ at byte %d: %q vs %q", i, a[i:min(i+80, len(a))], b[i:min(i+80, len(b))])
	}
	_, c := writeReport(t, load(t, "retry-storm", "horizon=100s", "seed=2"), Options{Replications: 2}, "")
	if bytes.Equal(a, c) {
		t.Errorf("reports of retry-storm with seeds 1 and 2 are identical")
	}
}

// TestPlanError: a recommendation that fails is a warning, not a failure.
func TestPlanError(t *testing.T) {
	sc := load(t, "seed-plan")
	in, err := Simulate(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	in.Plan, in.PlanErr = nil, errors.New("steps.fetch: <censored> & more")
	r, err := New(in)
	if err != nil {
		t.Fatalf("New with a plan error = %v, want a report", err)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<p>No recommendation: steps.fetch: &lt;censored&gt; &amp; more.</p>",
		">recommendations: steps.fetch: &lt;censored&gt; &amp; more</li>",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report does not contain %q", want)
		}
	}
}

// TestSkippedCharts: a chart without data is a note in its place and a
// warning, not a failure. With a 10 ms deadline below what seed-plan's
// steps need, its one run is refused before any call: nothing completes.
func TestSkippedCharts(t *testing.T) {
	r, html := writeReport(t, load(t, "seed-plan", "deadline=10ms"), Options{}, "")
	var skipped []string
	for _, f := range figuresOf(r) {
		if f.Skipped != "" {
			skipped = append(skipped, f.Name)
			if !strings.Contains(f.Skipped, charts.ErrNoData.Error()) {
				t.Errorf("figure %s skipped: %q, want it to say %q", f.Name, f.Skipped, charts.ErrNoData)
			}
		}
	}
	if got, want := strings.Join(skipped, ","), "latency_cdf,tail"; got != want {
		t.Errorf("skipped figures = %s, want %s", got, want)
	}
	for _, f := range figuresOf(r) {
		if f.Name == "utilisation" {
			t.Errorf("a utilisation chart for seed-plan, whose tools have neither a concurrency nor a rate limit")
		}
	}
	doc := string(html)
	if n := strings.Count(doc, `<div class="skipped">`); n != 2 {
		t.Errorf("report has %d skipped-chart notes, want 2", n)
	}
	if !strings.Contains(doc, `>chart &#34;Completion time of completed runs&#34; not drawn: latency CDF: no data to draw`) {
		t.Errorf("report does not list the skipped CDF among its warnings")
	}
	for _, p := range wellFormed(doc) {
		t.Errorf("report is not well formed: %s", p)
	}
}

func TestNewErrors(t *testing.T) {
	sc := load(t, "seed-plan")
	cases := []struct {
		name string
		in   *Input
		want string
	}{
		{"nil", nil, "input: no scenario"},
		{"no scenario", &Input{First: &system.Result{}}, "input: no scenario"},
		{"no results", &Input{Scenario: sc}, "input: results: need at least 1 replication, got 0"},
		{"nothing pooled", &Input{Scenario: sc, Pooled: summary.NewAccumulator(sc.Config, 0.95), First: &system.Result{}}, "input: results: need at least 1 replication, got 0"},
	}
	for _, c := range cases {
		if _, err := New(c.in); err == nil || err.Error() != c.want {
			t.Errorf("New(%s) = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestSimulateErrors(t *testing.T) {
	sc := load(t, "seed-plan")
	cases := []struct {
		opt  Options
		want string
	}{
		{Options{Replications: -1}, "replications: must be ≥ 1, got -1"},
		{Options{Level: 1}, "level: must be in (0, 1), got 1"},
		{Options{Parallel: -2}, "parallel: must be ≥ 0, got -2"},
	}
	for _, c := range cases {
		if _, err := Simulate(sc, c.opt); err == nil || err.Error() != c.want {
			t.Errorf("Simulate(seed-plan, %+v) = %v, want %q", c.opt, err, c.want)
		}
	}
}

// TestSlowestRun feeds interleaved runs: the tracer keeps the one with
// the longest time in system (lowest id on ties) with its own attempts,
// converting the lease and the remaining time as charts.ReadTrace does.
func TestSlowestRun(t *testing.T) {
	ms := time.Millisecond
	att := func(run int64, n int, start time.Duration, deadline bool) *system.AttemptRecord {
		return &system.AttemptRecord{Run: run, Step: "s", Tool: "t", Attempt: n, Start: start, Granted: 1 << 62,
			Remaining: 900 * ms, HasDeadline: deadline, Outcome: retry.Timeout, Latency: 5 * ms, Backoff: -1}
	}
	end := func(run int64, arrived, ended time.Duration) system.RunRecord {
		return system.RunRecord{Run: run, Arrived: arrived, Started: arrived, Ended: ended, Outcome: system.Failed, Deadline: -1}
	}
	var tr SlowestRun
	if _, _, ok := tr.Slowest(); ok {
		t.Fatalf("zero SlowestRun.Slowest() ok = true, want false")
	}
	tr.Attempt(att(1, 1, 0, true))
	tr.Attempt(att(2, 1, 10*ms, false))
	tr.Attempt(att(1, 2, 20*ms, true))
	tr.Run(end(2, 10*ms, 40*ms)) // 30 ms
	tr.Attempt(att(3, 1, 50*ms, false))
	tr.Run(end(1, 0, 50*ms))       // 50 ms: the slowest
	tr.Run(end(3, 50*ms, 100*ms))  // 50 ms: a tie, higher id
	tr.Run(end(4, 100*ms, 110*ms)) // no attempts
	run, as, ok := tr.Slowest()
	if !ok || run.ID != 1 || run.Ended-run.Arrived != 50*ms || run.Outcome != "failed" {
		t.Fatalf("Slowest() = %+v, %v, want run 1, 50ms, failed", run, ok)
	}
	if len(as) != 2 || as[0].Attempt != 1 || as[1].Attempt != 2 || as[0].Run != 1 {
		t.Fatalf("Slowest() attempts = %+v, want run 1's attempts 1 and 2", as)
	}
	if as[0].Granted != charts.Unlimited || as[0].Remaining != 900*ms || as[0].Outcome != "timeout" || as[0].Backoff != -1 {
		t.Errorf("attempt = %+v, want Granted Unlimited, Remaining 900ms, timeout, Backoff -1", as[0])
	}
	if got := tr.Runs(); got != 4 {
		t.Errorf("Runs() = %d, want 4", got)
	}
	// Without a deadline Remaining is -1, as in a trace's null.
	tr.Attempt(att(5, 1, 0, false))
	tr.Run(end(5, 0, time.Second))
	if _, as, _ := tr.Slowest(); len(as) != 1 || as[0].Remaining != -1 {
		t.Errorf("Slowest() attempts = %+v, want one with Remaining -1", as)
	}
	// The timeline chart accepts what the tracer keeps.
	run, as, _ = tr.Slowest()
	if _, err := charts.TimelineChart(run, as); err != nil {
		t.Errorf("charts.TimelineChart(slowest) = %v", err)
	}
}

func TestInlineSVG(t *testing.T) {
	doc := []byte("<?xml version=\"1.0\"?>\n<!-- Generated by SVGo -->\n<svg width=\"504pt\" viewBox=\"0 0 504 324\">\n<g/>\n</svg>\n")
	got, err := inlineSVG(doc, `p99 < 1s & "fast"`)
	if err != nil {
		t.Fatal(err)
	}
	want := `<svg role="img" aria-label="p99 &lt; 1s &amp; &#34;fast&#34;" width="504pt" viewBox="0 0 504 324">` + "\n<g/>\n</svg>"
	if string(got) != want {
		t.Errorf("inlineSVG = %q, want %q", got, want)
	}
	if _, err := inlineSVG([]byte("<g/>"), "x"); err == nil {
		t.Errorf("inlineSVG(no <svg>) = nil error, want one")
	}
}

// TestReportShowsWhatRan: with overrides, the Scenario section shows the
// text as simulated (workers: 19, and a retry budget only an override
// added), names the overrides, and the header gives the SHA-256 and the
// scenario format.
func TestReportShowsWhatRan(t *testing.T) {
	sc := load(t, "mmc", "runs=20000", "workers=19", "retry.budget.kind=ratio", "retry.budget.ratio=0.1")
	r, page := writeReport(t, sc, Options{Replications: 1}, "")
	doc := string(page)
	section := doc[strings.Index(doc, `<section id="scenario">`):]
	for _, want := range []string{"\nworkers: 19\n", "budget:", "ratio: 0.1", "<code>--set workers=19</code>", "<code>--set retry.budget.ratio=0.1</code>", sc.SHA256(), "scenario format 1"} {
		if !strings.Contains(section, want) {
			t.Errorf("Scenario section lacks %q:\n%s", want, section)
		}
	}
	if strings.Contains(section, "workers: 10") {
		t.Errorf("Scenario section shows the file's workers: 10:\n%s", section)
	}
	facts := map[string]string{}
	for _, f := range r.Facts {
		facts[f.Label] = f.Value
	}
	if facts["scenario"] != sc.File+" --set runs=20000 --set workers=19 --set retry.budget.kind=ratio --set retry.budget.ratio=0.1" ||
		facts["scenario SHA-256"] != sc.SHA256() || facts["scenario format"] != "1" {
		t.Errorf("Facts = %q", r.Facts)
	}
}

func ExampleNew() {
	sc, err := scenarios.Load("seed-plan", nil)
	if err != nil {
		panic(err)
	}
	in, err := Simulate(sc, Options{Replications: 1})
	if err != nil {
		panic(err)
	}
	in.Version = "devel"
	r, err := New(in)
	if err != nil {
		panic(err)
	}
	for _, s := range r.Sections {
		fmt.Printf("%s: %d tables, %d charts\n", s.Title, len(s.Tables), len(s.Figures))
	}
	for _, w := range r.Warnings {
		fmt.Println("warning:", w)
	}
	// Output:
	// Outcomes and completion time: 2 tables, 0 charts
	// Charts: 0 tables, 5 charts
	// Little's law and attempts: 3 tables, 0 charts
	// Capacity, tail, cost and recovery: 2 tables, 0 charts
	// Recommendations: 0 tables, 0 charts
	// warning: only 1 completed run: p99.9 rests on fewer than 10 samples above it; simulate ≥ 10000 completions
	// warning: recommendations: steps.search: samples: need at least 2 answered calls, got 1 over 1 replication(s): simulate more calls (more runs, or --replications)
}

// slowestCycle traces one run of three attempts that is not the slowest.
func slowestCycle(tr *SlowestRun, rec *system.AttemptRecord, id int64) {
	rec.Run = id
	for k := 1; k <= 3; k++ {
		rec.Attempt = k
		tr.Attempt(rec)
	}
	tr.Run(system.RunRecord{Run: id, Arrived: 0, Started: 0, Ended: time.Millisecond, Deadline: -1})
}

// TestSlowestRunAllocs: once warm, tracing a run allocates nothing (the
// tracer sees every attempt of replication 0).
func TestSlowestRunAllocs(t *testing.T) {
	var tr SlowestRun
	rec := &system.AttemptRecord{Step: "s", Tool: "t", Backoff: -1}
	tr.Attempt(&system.AttemptRecord{Run: -1})
	tr.Run(system.RunRecord{Run: -1, Ended: time.Hour}) // the slowest: later runs are dropped
	id := int64(0)
	for range 100 {
		slowestCycle(&tr, rec, id)
		id++
	}
	if n := testing.AllocsPerRun(1000, func() { slowestCycle(&tr, rec, id); id++ }); n != 0 {
		t.Errorf("allocations per traced run = %v, want 0", n)
	}
}

func BenchmarkSlowestRun(b *testing.B) {
	var tr SlowestRun
	rec := &system.AttemptRecord{Step: "s", Tool: "t", Backoff: -1}
	b.ReportAllocs()
	id := int64(0)
	for b.Loop() {
		slowestCycle(&tr, rec, id)
		id++
	}
}

func BenchmarkReport(b *testing.B) {
	sc, err := scenarios.Load(fixture, nil)
	if err != nil {
		b.Fatal(err)
	}
	in, err := Simulate(sc, Options{Replications: 3})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := New(in)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.WriteHTML(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSimulateMemory: a report of 200 replications keeps replication 0 and
// the pooled figures, not every replication (each ~800 KB here: all 200
// would hold 160 MB), and says how many it pooled.
func TestSimulateMemory(t *testing.T) {
	sc := load(t, "mmc", "runs=2000", "warmup=100")
	in, err := Simulate(sc, Options{Replications: 200, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > 40<<20 {
		t.Errorf("heap holds %d MB after simulating 200 replications: results are kept", m.HeapAlloc>>20)
	}
	if n := in.Pooled.Replications(); n != 200 || in.Summary.Replications != 200 {
		t.Errorf("pooled %d replications, summary says %d; want 200", n, in.Summary.Replications)
	}
	if got, want := in.Pooled.Latency().Count(), in.Summary.Runs.Completed; int64(got) != want {
		t.Errorf("pooled latency histogram has %d runs, the summary %d completed", got, want)
	}
	runtime.KeepAlive(in)
}

// TestBreakers: a scenario with a circuit breaker gets the breakers' table
// and the chart of its state, drawn.
func TestBreakers(t *testing.T) {
	r, html := writeReport(t, load(t, "circuit-breaker"), Options{Replications: 1}, "2025-01-31")
	if doc := string(html); !strings.Contains(doc, "<caption>Circuit breakers</caption>") || !strings.Contains(doc, "would have succeeded (cost)") {
		t.Errorf("report lacks the circuit breakers' table")
	}
	found := false
	for _, f := range figuresOf(r) {
		if f.Name == "breakers" {
			found = true
			if f.Skipped != "" {
				t.Errorf("breakers chart skipped: %s", f.Skipped)
			}
		}
	}
	if !found {
		t.Errorf("report has no breakers chart")
	}
}
