package calibrate

import (
	"bytes"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/budgetsim/budgetsim/calibrate/fitting"
	"github.com/budgetsim/budgetsim/calibrate/ingest"
	"github.com/budgetsim/budgetsim/calibrate/observe"
)

// Scenario is a calibrated scenario: the YAML text and the data files it
// names (empirical distributions), by path relative to the YAML's
// directory.
type Scenario struct {
	YAML  []byte
	Files map[string][]byte
}

// The provenance tags of the scenario's comments.
const (
	Measured = "MEASURED"
	Fitted   = "FITTED"
	Assumed  = "ASSUMED: confirm"
)

// Scenario writes the calibrated scenario. base names its data files
// (base.TOOL.latency.txt); it is usually the YAML file's name without
// its extension.
func (r *Result) Scenario(base string) Scenario {
	w := &writer{files: map[string][]byte{}, base: path.Base(base)}
	o := r.Obs
	first, last := o.Runs[0].Start, o.Runs[len(o.Runs)-1].Start
	w.line("# Calibrated by `simulate calibrate` from %s: %d spans, %d runs, %d calls,", fileList(o), o.Spans, len(o.Runs), o.Calls)
	w.line("# runs starting %s to %s.", time.Unix(0, first).UTC().Format(time.RFC3339), time.Unix(0, last).UTC().Format(time.RFC3339))
	w.line("# Each value says where it came from:")
	w.line("#   %s (n, 95%% interval): counted or averaged from the trace;", Measured)
	w.line("#   %s (family, goodness of fit): a distribution fitted to the trace;", Fitted)
	w.line("#   %s: not in the trace; a default to check against the real system.", Assumed)
	if o.Partial > 0 || o.Skewed > 0 {
		w.line("# Trace quality: %d runs without their root span (partial traces, timed from their calls);", o.Partial)
		w.line("# %d calls outside their run's root (clock skew) moved inside it, %d of them cut to it.", o.Skewed, o.Clamped)
	}
	w.line("name: %s", r.Name)
	w.line("description: %s", strconv.Quote(fmt.Sprintf("calibrated from %d runs of a trace", len(o.Runs))))
	w.line("seed: 1")
	w.linec(fmt.Sprintf("runs: %d", len(o.Runs)), "%s: the runs in the trace", Measured)
	r.arrivals(w)
	w.linec(fmt.Sprintf("workers: %d", max(r.PeakInFlight, 1)), "%s — the most runs in flight at once in the trace (%s); the real limit may be higher", Assumed, Measured)
	w.linec("deadline: "+fmtDur(deadlineOf(r.E2E)), "%s — twice the longest run in the trace (%s), rounded up", Assumed, fmtDur(r.E2E.Sorted[len(r.E2E.Sorted)-1]))
	if r.UseLoop {
		r.loopSteps(w)
		return Scenario{YAML: w.b.Bytes(), Files: w.files}
	}
	seq := r.Modal()
	attempts := 1
	for _, s := range seq.Steps {
		attempts = max(attempts, s.Attempts)
	}
	r.retry(w, attempts)
	w.line("# Steps: the most common step sequence, followed by %d of %d runs (%s).", seq.Share.K, len(o.Runs), pct(seq.Share))
	r.otherSeqs(w)
	if r.Loop != nil {
		w.line("# Not a steps[].loop: %s.", r.LoopWhy)
	}
	w.line("steps:")
	names := stepNames(seq)
	used := map[string]bool{}
	for i, s := range seq.Steps {
		t := r.Tool(s.Tool)
		used[s.Tool] = true
		fields := []string{"name: " + names[i], "tool: " + toolName(s.Tool)}
		note := fmt.Sprintf("%s: at most %d attempt(s) in a run", Measured, s.Attempts)
		if t != nil && t.Errors[ingest.Timeout].K > 0 {
			fields = append(fields, "timeout: "+fmtDur(t.TimeoutAfter.Max))
			note += fmt.Sprintf("; timeout: the longest of the %d calls that timed out (those the run's deadline cut are shorter)", t.Errors[ingest.Timeout].K)
		}
		w.linec("  - {"+strings.Join(fields, ", ")+"}", "%s", note)
	}
	r.tools(w, used, "the most common sequence")
	return Scenario{YAML: w.b.Bytes(), Files: w.files}
}

// retry writes the retry policy when some step took several attempts.
func (r *Result) retry(w *writer, attempts int) {
	if attempts <= 1 {
		return
	}
	w.line("retry:")
	w.linec(fmt.Sprintf("  attempts: %d", attempts), "%s: the most attempts any run made at one step", Measured)
	w.linec("  idempotent: true", "%s — the trace retried these calls, so repeating them is taken to be harmless", Assumed)
	w.linec("  backoff: {base: 50ms, multiplier: 2, cap: 5s, jitter: full}", "%s — the pauses between attempts are not in the trace", Assumed)
	w.linec("  retry_after: honor", "%s", Assumed)
}

// otherSeqs lists the sequences after the most common one.
func (r *Result) otherSeqs(w *writer) {
	for i, s := range r.Seqs[1:min(len(r.Seqs), 6)] {
		w.line("#   other sequence %d: %s — %d runs (%s)", i+2, s.Text, s.Share.K, pct(s.Share))
	}
	if len(r.Seqs) > 6 {
		w.line("#   … and %d more sequences", len(r.Seqs)-6)
	}
}

// tools writes the used tools, and names the others.
func (r *Result) tools(w *writer, used map[string]bool, where string) {
	w.line("tools:")
	for i := range r.Tools {
		t := &r.Tools[i]
		if !used[t.Name] {
			continue
		}
		r.tool(w, t)
	}
	var unused []string
	for _, t := range r.Tools {
		if !used[t.Name] {
			unused = append(unused, fmt.Sprintf("%s (%d calls)", t.Name, t.Calls))
		}
	}
	if len(unused) > 0 {
		w.line("# Tools called only outside %s (not simulated): %s.", where, strings.Join(unused, ", "))
	}
}

// loopSteps writes the run as an agent loop.
func (r *Result) loopSteps(w *writer) {
	l := r.Loop
	tf := &l.Turns
	r.retry(w, l.Attempts)
	w.line("# Steps: an agent loop (%s). The fit reads the %d runs of its shape that", r.LoopWhy, l.Runs)
	w.line("# succeeded; the most common sequence alone, %s, describes %d runs (%s).", r.Modal().Text, r.Modal().Share.K, pct(r.Modal().Share))
	if l.Truncated > 0 {
		w.line("# %d runs made more calls than the %d kept per run, and are left out of the loop's fit.", l.Truncated, observe.DefaultMaxSequence)
	}
	w.line("steps:")
	w.line("  - name: agent")
	w.line("    loop:")
	maxNote := fmt.Sprintf("%s: the most turns a run took", Measured)
	if tf.MaxTurns > tf.Max {
		maxNote = fmt.Sprintf("%s — no run was cut at a limit (the most turns seen: %d); the geometric's 99.9th percentile", Assumed, tf.Max)
	}
	w.linec(fmt.Sprintf("      max_turns: %d", tf.MaxTurns), "%s", maxNote)
	obs := fmt.Sprintf("runs that succeeded took %s turns on average [%s, %s] (n %d)", fmtNum(tf.Mean.Value), fmtNum(tf.Mean.CI.Lo), fmtNum(tf.Mean.CI.Hi), l.Runs)
	switch tf.Rule {
	case "answer", "stop":
		w.linec(fmt.Sprintf("      %s: %s", tf.Rule, fmtNum(tf.P.P)), "%s: geometric turns, p %s [%s, %s], mean turns %s [%s, %s]", Fitted, fmtNum(tf.P.P), fmtNum(tf.P.CI.Lo), fmtNum(tf.P.CI.Hi),
			fmtNum(tf.ImpliedMean.Value), fmtNum(tf.ImpliedMean.CI.Lo), fmtNum(tf.ImpliedMean.CI.Hi))
	default:
		w.linec("      turns: "+weightMixture(tf.Dist, 1), "%s: the turns per run (Kaplan–Meier, runs cut short counted to where they failed)", Measured)
	}
	w.line("      # %s;", tf.Why)
	w.line("      # %s.", obs)
	if tf.Rule == "turns" && tf.Answered > 0 {
		w.line("      # Every turn makes its tool calls here, the last too: %d runs ended with an answer that called none.", tf.Answered)
	}
	if cf := l.Context; cf != nil {
		w.line("      context:")
		if cf.SystemOf > 0 {
			w.linec(fmt.Sprintf("        system: %d", cf.System), "%s: the cached input of %d of the %d first calls that read the prompt cache", Measured, cf.SystemRuns, cf.SystemOf)
		} else {
			w.linec("        system: 0", "%s — no first call read a prompt cache, so the system prompt is not told from the task: start holds both", Assumed)
		}
		w.linec("        start: "+countDist(cf.Start), "%s (the first call's input tokens less system)", countNote(cf.Start))
		w.line("        # MEASURED: each turn's tool results add %s tokens on average [%s, %s] (n %d turns;", fmtNum(cf.Appended.Mean.Value), fmtNum(cf.Appended.Mean.CI.Lo), fmtNum(cf.Appended.Mean.CI.Hi), cf.Appended.N)
		w.line("        # the next input less this one's input and output); each tool's result_tokens below.")
		if cf.Negative > 0 {
			w.line("        # %d turns sent less input than the turn before (a context window cut it?): not fitted; no window is set.", cf.Negative)
		}
	}
	w.line("      steps:")
	model := r.Tool(l.Model)
	think := []string{"name: think", "tool: " + toolName(l.Model)}
	note := fmt.Sprintf("%s: the model call that starts each turn", Measured)
	if model != nil && model.Errors[ingest.Timeout].K > 0 {
		think = append(think, "timeout: "+fmtDur(model.TimeoutAfter.Max))
		note += fmt.Sprintf("; timeout: the longest of the %d calls that timed out (those the run's deadline cut are shorter)", model.Errors[ingest.Timeout].K)
	}
	w.linec("        - {"+strings.Join(think, ", ")+"}", "%s", note)
	used := map[string]bool{l.Model: true}
	if l.Calls.Max > 0 && len(l.Tools) > 0 {
		var timeout float64
		for _, ts := range l.Tools {
			used[ts.Tool] = true
			if t := r.Tool(ts.Tool); t != nil && t.Errors[ingest.Timeout].K > 0 {
				timeout = max(timeout, t.TimeoutAfter.Max)
			}
		}
		w.line("        - name: act")
		cd := &l.Calls
		hist := make([]float64, len(cd.Hist))
		for i, c := range cd.Hist[1:] {
			hist[i+1] = float64(c) // a parallel step launches at least one call
		}
		calls := fmt.Sprintf("          calls: %s", weightMixture(hist, 0))
		w.linec(calls, "%s: tool calls per turn, n %d turns; mean %s [%s, %s]", Measured, cd.Mean.N, fmtNum(cd.Mean.Value), fmtNum(cd.Mean.CI.Lo), fmtNum(cd.Mean.CI.Hi))
		if cd.Hist[0] > 0 {
			w.line("          # %d turns called no tool and did not end the run: a turn here makes at least one call.", cd.Hist[0])
		}
		if timeout > 0 {
			w.linec("          timeout: "+fmtDur(timeout), "%s: the longest call of these tools that timed out", Measured)
		}
		if l.Overlap.N > 0 {
			w.line("          # %s: %d of %d turns with several calls ran them at once (%s)", Measured, l.Overlap.K, l.Overlap.N, pct(l.Overlap))
		}
		var choose []string
		var shares []string
		for _, ts := range l.Tools {
			choose = append(choose, fmt.Sprintf("{tool: %s, weight: %d}", toolName(ts.Tool), ts.Share.K))
			shares = append(shares, fmt.Sprintf("%s %s", ts.Tool, pct(ts.Share)))
		}
		w.line("          # %s: the tools' shares of the %d calls: %s", Measured, l.Tools[0].Share.N, strings.Join(shares, "; "))
		w.line("          parallel:")
		for k := 1; k <= cd.Max; k++ {
			if len(l.Tools) == 1 {
				w.line("            - {name: call%d, tool: %s}", k, toolName(l.Tools[0].Tool))
				continue
			}
			w.line("            - {name: call%d, choose: [%s]}", k, strings.Join(choose, ", "))
		}
	}
	r.tools(w, used, "the loop")
}

// weightMixture writes a distribution of counts (w[i] the weight of the
// value i+offset) as a constant, or a mixture of constants.
func weightMixture(w []float64, offset int) string {
	var parts []string
	one := -1
	for i, c := range w {
		if c > 0 {
			parts = append(parts, fmt.Sprintf("{weight: %s, dist: constant, value: %d}", fmtNum(c), i+offset))
			one = i + offset
		}
	}
	if len(parts) == 1 {
		return fmt.Sprintf("{dist: constant, value: %d}", one)
	}
	return "{dist: mixture, of: [" + strings.Join(parts, ", ") + "]}"
}

func (r *Result) arrivals(w *writer) {
	a := r.Arrivals
	switch a.Process {
	case "renewal":
		w.line("arrivals:")
		w.line("  process: renewal")
		w.linec("  interarrival: "+w.dist(a.Gaps, "interarrival", true), "%s", distNote(a.Gaps))
		w.line("  # %s", a.Why)
		if a.HasMMPP {
			w.line("  # %s", a.MMPPWhy)
		}
		w.line("  # %s: mean rate %s [%s, %s] over %s", Measured, fmtRate(a.Rate.Value), fmtRate(a.Rate.CI.Lo), fmtRate(a.Rate.CI.Hi), a.Span.Round(time.Second))
	case "mmpp":
		m := a.MMPP
		w.line("arrivals:")
		w.line("  process: mmpp")
		w.line("  states:")
		for i, name := range []string{"busy", "quiet"} {
			r, s := m.Rates[i], m.Sojourns[i]
			w.linec(fmt.Sprintf("    - {rate: %s, sojourn: %s}", fmtRate(r.Value), fmtDur(s.Value)), "%s: the %s state: rate [%s, %s], sojourn [%s, %s]", Fitted, name, fmtRate(r.CI.Lo), fmtRate(r.CI.Hi), fmtDur(s.CI.Lo), fmtDur(s.CI.Hi))
		}
		w.line("  # %s: %s;", Fitted, a.Why)
		w.line("  # %s", a.MMPPWhy)
		w.line("  # %s: mean rate %s [%s, %s] over %s", Measured, fmtRate(a.Rate.Value), fmtRate(a.Rate.CI.Lo), fmtRate(a.Rate.CI.Hi), a.Span.Round(time.Second))
	case "schedule":
		w.line("arrivals:")
		w.line("  process: schedule")
		w.line("  # %s: %s", Measured, a.Why)
		w.line("  rates:")
		if a.Daily {
			for h, v := range a.Hourly {
				w.line("    - {at: %dh, rate: %s}", h, fmtRate(v))
			}
			w.linec("  repeat: 24h", "%s: the hourly mean over the trace's days, by time of day (UTC)", Measured)
		} else {
			for i, b := range a.Bins[:len(a.Bins)-1] {
				w.linec(fmt.Sprintf("    - {at: %s, rate: %s}", fmtDur(float64(i)*a.Bin.Seconds()), fmtRate(b.Value)), "%s: n %d, [%s, %s]", Measured, b.N, fmtRate(b.CI.Lo), fmtRate(b.CI.Hi))
			}
		}
	default:
		if math.IsNaN(a.Rate.Value) {
			w.linec("arrivals: {rate: 1/s}", "%s — %s", Assumed, a.Why)
			return
		}
		w.linec("arrivals: {rate: "+fmtRate(a.Rate.Value)+"}", "%s: %d runs over %s, 95%% [%s, %s]; Poisson: %s", Measured, a.N, a.Span.Round(time.Second), fmtRate(a.Rate.CI.Lo), fmtRate(a.Rate.CI.Hi), a.Why)
	}
}

func (r *Result) tool(w *writer, t *fitting.Tool) {
	w.linec("  "+toolName(t.Name)+":", "%s: %d calls (%s)", Measured, t.Calls, t.Op)
	if t.UseTTFT && t.Tokens() {
		w.linec("    ttft: "+w.dist(t.TTFT, t.Name+".ttft", true), "%s", distNote(t.TTFT))
		w.linec("    per_output_token: "+w.dist(t.PerToken, t.Name+".per_output_token", true), "%s", distNote(t.PerToken))
	} else if t.Latency.N == 0 || len(t.Latency.Sorted) == 0 {
		d := 1.0
		if t.TimeoutAfter.N > 0 {
			d = t.TimeoutAfter.Max
		}
		w.linec("    latency: {dist: constant, value: "+fmtDur(d)+"}", "%s — no call succeeded, so the trace has no answer's latency (the longest call that timed out, else 1s)", Assumed)
	} else {
		w.linec("    latency: "+w.dist(t.Latency, t.Name+".latency", true), "%s; successful calls (errors are taken to take as long)", distNote(t.Latency))
	}
	var errs []string
	var notes []string
	for _, c := range []struct {
		class ingest.Class
		key   string
	}{{ingest.ServerError, "transient"}, {ingest.RateLimited, "rate_limited"}, {ingest.OtherError, "permanent"}} {
		e := t.Errors[c.class]
		if e.K == 0 {
			continue
		}
		errs = append(errs, c.key+": "+fmtNum(e.P))
		notes = append(notes, fmt.Sprintf("%s %d/%d [%s, %s]", c.class, e.K, e.N, fmtNum(e.CI.Lo), fmtNum(e.CI.Hi)))
	}
	if len(errs) > 0 {
		w.linec("    errors: {"+strings.Join(errs, ", ")+"}", "%s: %s", Measured, strings.Join(notes, "; "))
	} else {
		w.line("    # %s: no errors in %d calls (rate < %s at 95%%)", Measured, t.Calls, fmtNum(1-t.Errors[ingest.OK].CI.Lo))
	}
	if e := t.Errors[ingest.Timeout]; e.K > 0 {
		w.linec("    hang: "+fmtNum(e.P), "%s: %d/%d calls timed out [%s, %s]; the step's timeout ends them", Measured, e.K, e.N, fmtNum(e.CI.Lo), fmtNum(e.CI.Hi))
	}
	if t.RetryAfter.N > 0 {
		w.linec("    retry_after: "+w.dist(t.RetryAfter, t.Name+".retry_after", true), "%s", distNote(t.RetryAfter))
	}
	inLoop := r.UseLoop && r.Loop.Context != nil
	if t.Tokens() {
		w.line("    tokens:")
		if inLoop && t.Name == r.Loop.Model {
			w.linec("      input: {dist: constant, value: 1}", "the loop's context sets the input; %s", countNote(t.Input))
		} else {
			w.linec("      input: "+countDist(t.Input), "%s", countNote(t.Input))
		}
		w.linec("      output: "+countDist(t.Output), "%s", countNote(t.Output))
		if t.CachedCalls > 0 && inLoop && t.Name == r.Loop.Model {
			minTok := min(1024, t.MinCached)
			w.linec(fmt.Sprintf("    prompt_cache: {ttl: 5m, min_tokens: %d}", minTok), "%s: %d of %d calls read input from the cache, %s of their input tokens; %s: ttl, and min_tokens (the fewest cached tokens a call read, at most 1024)", Measured, t.CachedCalls, t.Cached.N, pctOf(t.CachedShare), Assumed)
		} else if t.CachedCalls > 0 {
			// Outside a loop the simulator caches one shared prefix: its
			// length is the mean cached input per call, so that the share
			// of input read from the cache is the trace's.
			prefix := int64(math.Round(t.Cached.Mean.Value))
			minTok := min(1024, t.MinCached, prefix)
			w.linec(fmt.Sprintf("    prompt_cache: {ttl: 5m, min_tokens: %d, prefix: %d}", minTok, prefix), "%s: %d of %d calls read input from the cache, %s of their input tokens; prefix: the mean cached input per call; %s: ttl, min_tokens", Measured, t.CachedCalls, t.Cached.N, pctOf(t.CachedShare), Assumed)
		} else if t.Cached.N > 0 {
			w.line("    # %s: no call read cached input tokens (n %d): no prompt cache", Measured, t.Cached.N)
		}
	}
	if inLoop {
		cf := r.Loop.Context
		if m, ok := cf.Results[t.Name]; ok {
			w.linec("    result_tokens: "+countDist(m), "%s (tokens one call's result added to the next input, from turns with that one call)", countNote(m))
		} else if e, ok := cf.ResultFallback[t.Name]; ok {
			w.linec(fmt.Sprintf("    result_tokens: {dist: constant, value: %s}", fmtNum(e.Value)), "%s: the mean per call of the tokens added by the %d turns it was called in with other tools (too few alone to fit)", Measured, e.N)
		}
	}
	if lc := t.Latency.LoadCorr; !math.IsNaN(lc.Value) && lc.CI.Lo > 0.1 {
		w.line("    # WARNING: latency rises with load: rank correlation with runs in flight %.2f [%.2f, %.2f];", lc.Value, lc.CI.Lo, lc.CI.Hi)
		w.line("    # a fixed distribution cannot follow it (consider concurrency and a queue for this tool).")
	}
}

// countDist writes a token count's distribution.
func countDist(m fitting.Moments) string {
	p := m.Params
	keys := map[string][]string{"constant": {"value"}, "uniform": {"min", "max"}, "gamma": {"mean", "cv"}, "exponential": {"mean"},
		"lognormal": {"median", "sigma"}, "weibull": {"scale", "shape"}, "pareto": {"min", "alpha"}}[m.Family]
	parts := []string{"dist: " + m.Family}
	for _, k := range keys {
		parts = append(parts, k+": "+fmtNum(p[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// countNote is a token count's provenance.
func countNote(m fitting.Moments) string {
	tag := Fitted
	if m.Family == "constant" {
		tag = Measured
	}
	return fmt.Sprintf("%s: %s; mean %s [%s, %s], cv %s, n %d", tag, m.Why, fmtNum(m.Mean.Value), fmtNum(m.Mean.CI.Lo), fmtNum(m.Mean.CI.Hi), fmtNum(m.CV.Value), m.N)
}

// deadlineOf is twice the longest run, rounded up to a second.
func deadlineOf(e2e fitting.Dist) float64 {
	return math.Ceil(2 * e2e.Sorted[len(e2e.Sorted)-1])
}

func distNote(d fitting.Dist) string {
	switch d.Family {
	case "empirical":
		return fmt.Sprintf("%s: empirical, n %d (%d kept) — %s", Measured, d.N, d.Used, d.Why)
	case "constant":
		return fmt.Sprintf("%s: constant, n %d — %s", Measured, d.N, d.Why)
	}
	return fmt.Sprintf("%s: %s by maximum likelihood, n %d (%d fitted): %s; median %s [%s, %s]", Fitted, d.Family, d.N, d.Used, d.Why, fmtDur(d.P50.Value), fmtDur(d.P50.CI.Lo), fmtDur(d.P50.CI.Hi))
}

// writer accumulates the YAML and its data files.
type writer struct {
	b     bytes.Buffer
	files map[string][]byte
	base  string
}

func (w *writer) line(format string, args ...any) {
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

// linec writes text with a trailing comment.
func (w *writer) linec(text, format string, args ...any) {
	w.b.WriteString(text)
	w.b.WriteString("  # ")
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

// dist writes a fitted distribution of seconds in the scenario syntax;
// an empirical one is written to a data file it names.
func (w *writer) dist(d fitting.Dist, what string, timeValued bool) string {
	p := d.Params
	switch d.Family {
	case "constant":
		return "{dist: constant, value: " + fmtDur(p["value"]) + "}"
	case "exponential":
		return "{dist: exponential, mean: " + fmtDur(p["mean"]) + "}"
	case "lognormal":
		return "{dist: lognormal, median: " + fmtDur(p["median"]) + ", sigma: " + fmtNum(p["sigma"]) + "}"
	case "weibull":
		return "{dist: weibull, scale: " + fmtDur(p["scale"]) + ", shape: " + fmtNum(p["shape"]) + "}"
	case "gamma":
		return "{dist: gamma, mean: " + fmtDur(p["mean"]) + ", cv: " + fmtNum(p["cv"]) + "}"
	case "pareto":
		return "{dist: pareto, min: " + fmtDur(p["min"]) + ", alpha: " + fmtNum(p["alpha"]) + "}"
	}
	name := w.base + "." + toolName(what) + ".txt"
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s: %d of %d observed values (a uniform sample when fewer), one per line\n", what, d.Used, d.N)
	for _, v := range d.Sorted {
		b.WriteString(strconv.FormatFloat(v*1e3, 'f', 6, 64))
		b.WriteString("ms\n")
	}
	w.files[name] = b.Bytes()
	return "{dist: empirical, file: " + name + "}"
}

// toolName makes a trace's tool or model name a scenario name: letters,
// digits, - and _, others replaced by _.
func toolName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "unnamed"
	}
	return string(b)
}

// stepNames names the steps by their tools, numbering repeats.
func stepNames(seq fitting.Sequence) []string {
	seen := map[string]int{}
	out := make([]string, len(seq.Steps))
	for i, s := range seq.Steps {
		n := toolName(s.Tool)
		seen[n]++
		if seen[n] > 1 {
			n += "_" + strconv.Itoa(seen[n])
		}
		out[i] = n
	}
	return out
}

func fileList(o *observe.Observation) string {
	var names []string
	for _, f := range o.Files {
		names = append(names, path.Base(f.Path))
	}
	return strings.Join(names, ", ")
}

func pctOf(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func pct(r fitting.Rate) string {
	return fmt.Sprintf("%.1f%%, 95%% [%.1f%%, %.1f%%]", 100*r.P, 100*r.CI.Lo, 100*r.CI.Hi)
}

// fmtNum prints x with 4 significant digits, without an exponent.
func fmtNum(x float64) string {
	if x == 0 {
		return "0"
	}
	s := strconv.FormatFloat(x, 'g', 4, 64)
	if strings.ContainsAny(s, "e") {
		s = strconv.FormatFloat(x, 'f', -1, 64)
		if f, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64); err == nil {
			s = strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	return s
}

// fmtDur prints seconds as a duration with 4 significant digits in the
// largest unit that keeps the number ≥ 1: 312.4ms, 1.25s, 40us.
func fmtDur(s float64) string {
	switch {
	case s <= 0 || math.IsNaN(s):
		return "0s"
	case s < 1e-6:
		return fmtNum(s*1e9) + "ns"
	case s < 1e-3:
		return fmtNum(s*1e6) + "us"
	case s < 1:
		return fmtNum(s*1e3) + "ms"
	}
	return fmtNum(s) + "s"
}

// fmtRate prints a rate per second, per minute or per hour, whichever
// keeps 4 significant digits readable.
func fmtRate(perSecond float64) string {
	switch {
	case perSecond == 0:
		return "0/s"
	case perSecond < 0.01:
		return fmtNum(perSecond*3600) + "/h"
	case perSecond < 1:
		return fmtNum(perSecond*60) + "/m"
	}
	return fmtNum(perSecond) + "/s"
}

// FormatSeconds prints seconds as the scenario files write durations.
func FormatSeconds(s float64) string { return fmtDur(s) }
