package fitting

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/budgetsim/budgetsim/calibrate/observe"
	"github.com/budgetsim/budgetsim/calibrate/sample"
	"gonum.org/v1/gonum/stat/distuv"
)

// An agent loop in a trace: a run whose first call is a model call, and
// whose later calls are turns, each a model call followed by the tool
// calls it asked for. A turn without tool calls at the end of a run is the
// model's answer. FitLoop reads the turns of every run of that shape (a
// run that failed counts up to where it failed), and fits what a
// scenario's steps[].loop needs: the rule that ends the loop
// (a chance that the model answers each turn, a chance to stop after each
// turn, or a distribution of turns), the tool calls per turn and which
// tools they call, and the context: the tokens every call starts with and
// the tokens each tool result appends, from the growth of the model's
// input tokens from one turn to the next.

// Loop is the fit of an agent loop to the runs.
type Loop struct {
	// Model is the model called at the start of each turn.
	Model string
	// Shape is the share of all runs whose first call is a model call of
	// Model and whose model calls are all Model's: the runs a loop of
	// Model describes.
	Shape Rate
	// Runs is how many of them succeeded without losing calls to the
	// sequence limit (observe.Options.MaxSequence); runs that failed are
	// fitted up to where they failed.
	Runs int64
	// Truncated counts the runs of the shape left out because they made
	// more calls than the sequence limit keeps.
	Truncated int64
	// Turns is the fit of the turns per run.
	Turns TurnFit
	// Calls is the tool calls per turn, over the turns whose calls are
	// known in full: followed by another turn, or last in a run that
	// succeeded (and did not answer), or last in a run that failed with
	// its calls launched together.
	Calls CallsFit
	// Tools are the tools the turns call, with their share of the calls
	// (choose weights), most called first.
	Tools []ToolShare
	// Overlap is the share of turns with several tool calls whose calls
	// overlapped in time (parallel tool calls).
	Overlap Rate
	// Attempts is the most attempts any fitted run made at one call.
	Attempts int
	// Context is the fit of the model's input tokens turn by turn; nil
	// when the model calls carry no token counts.
	Context *ContextFit
}

// TurnFit is the fit of the turns per run.
type TurnFit struct {
	// Hist[n−1] counts the runs of n turns, over the runs that succeeded
	// (Mean is their mean: runs that failed are cut short, so this
	// undercounts when long runs fail more).
	Hist []int64
	Mean Estimate
	// Max is the most turns a run took; Capped reports that some run
	// that succeeded took Max turns without the model answering (a
	// max_turns).
	Max    int
	Capped bool
	// Answered counts the runs that succeeded and whose last turn called
	// no tool.
	Answered int64
	// Rule is how the loop ends: "answer" (the model answers each turn
	// with probability P: its last turn calls no tool), "stop" (the loop
	// stops after each full turn with probability P) or "turns" (the
	// distribution Dist, when no constant chance fits).
	Rule string
	// P is the answer or stop probability: ends over the turns at risk
	// (every turn whose outcome the trace shows, in runs that failed too:
	// a run cut short is censored, not shorter), the maximum-likelihood
	// estimate of a geometric number of turns, with a Wilson interval.
	// AtRisk[n−1] and Ends[n−1] are the turns at risk and ends at turn n.
	P            Rate
	AtRisk, Ends []int64
	// ImpliedMean is the mean turns the fitted rule gives under
	// MaxTurns, with the interval P's interval gives.
	ImpliedMean Estimate
	// MaxTurns is the scenario's max_turns: Max, or, when no run was cut
	// at a limit, the geometric's 99.9th percentile if larger.
	MaxTurns int
	// ChiSq, DF and PValue test that the chance is the same at every
	// turn: Pearson's χ² of the ends at each turn against P × the turns at
	// risk (turns merged to at least 5 expected ends and non-ends); DF 0
	// when there are too few turns to test.
	ChiSq  float64
	DF     int
	PValue float64
	// Dist[n−1] is the probability of n turns (rule "turns"): the
	// Kaplan–Meier estimate from the ends at each turn, so that runs cut
	// short count for the turns they took.
	Dist []float64
	// Why says why the rule was chosen.
	Why string
}

// CallsFit is the tool calls per turn.
type CallsFit struct {
	// Hist[k] counts the turns with k tool calls.
	Hist []int64
	Mean Estimate
	Max  int
}

// ToolShare is a tool's share of a loop's tool calls.
type ToolShare struct {
	Tool  string
	Share Rate
}

// ContextFit is the fit of a loop's context: every model call sends the
// system prompt, the run's start, and every earlier output and tool
// result of the run.
type ContextFit struct {
	// System is the tokens every run's first call starts with: the most
	// common number of cached input tokens of first calls that read the
	// prompt cache (SystemRuns of SystemOf first calls read exactly it),
	// or 0 when none did (SystemOf 0): the trace then cannot tell the
	// system prompt from the task, and Start holds both.
	System               int64
	SystemRuns, SystemOf int64
	// Start is the first call's input tokens less System.
	Start Moments
	// Appended is the tokens a turn's tool results added to the next
	// turn's input (its input less the previous turn's input and
	// output), over the turns followed by another.
	Appended Moments
	// Results holds, per tool, the tokens one call's result appended,
	// from the turns that made exactly one call; tools never called
	// alone get the mean per call of the turns they were called in
	// (ResultFallback).
	Results        map[string]Moments
	ResultFallback map[string]Estimate
	// Negative counts turns whose input shrank (a window cut the context,
	// or the trace is not one conversation): not fitted.
	Negative int64
}

// FitLoop fits an agent loop to the runs, or returns nil when no run's
// first call is a model call.
func FitLoop(runs []observe.Run, seed uint64, maxSamples int) *Loop {
	firsts := map[string]int64{}
	for i := range runs {
		if s := runs[i].Steps; len(s) > 0 && s[0].Chat {
			firsts[s[0].Tool]++
		}
	}
	if len(firsts) == 0 {
		return nil
	}
	l := &Loop{}
	var best int64
	for m, n := range firsts {
		if n > best || n == best && m < l.Model {
			l.Model, best = m, n
		}
	}
	res := func(what string) *sample.Reservoir { return sample.New(maxSamples, seed, "loop\x00"+what) }
	start, appended := res("start"), res("appended")
	results := map[string]*sample.Reservoir{}
	sumApp, sumCalls := map[string]float64{}, map[string]float64{}
	toolCalls := map[string]int64{}
	var shape, multi, overlap, allCalls int64
	var withTokens, firstCached, negative int64
	cachedFirst := map[int64]int64{}
	var firstInputs []int64
	type turn struct {
		chat  observe.Step
		tools []observe.Step
	}
	var turns []turn
	var turnsOf []int
	// Per turn index: answer trials and answers, stop trials and stops.
	var ansRisk, ansEnds, stopRisk, stopEnds []int64
	grow := func(x []int64, n int) []int64 {
		for len(x) < n {
			x = append(x, 0)
		}
		return x
	}
	for i := range runs {
		r := &runs[i]
		if len(r.Steps) == 0 || !r.Steps[0].Chat || r.Steps[0].Tool != l.Model {
			continue
		}
		turns = turns[:0]
		ok := true
		for _, s := range r.Steps {
			if s.Chat {
				if s.Tool != l.Model {
					ok = false
					break
				}
				turns = append(turns, turn{chat: s})
				continue
			}
			t := &turns[len(turns)-1]
			t.tools = append(t.tools, s)
		}
		if !ok {
			continue
		}
		shape++
		if r.Truncated {
			l.Truncated++
			continue
		}
		complete := r.OK
		for _, s := range r.Steps {
			complete = complete && !s.Failed
		}
		n := len(turns)
		for _, s := range r.Steps {
			l.Attempts = max(l.Attempts, s.Attempts)
		}
		if complete {
			l.Runs++
			turnsOf = append(turnsOf, n)
			if len(turns[n-1].tools) == 0 {
				l.Turns.Answered++
			}
		}
		ansRisk, ansEnds = grow(ansRisk, n), grow(ansEnds, n)
		stopRisk, stopEnds = grow(stopRisk, n), grow(stopEnds, n)
		tokens := true
		for k, t := range turns {
			last := k == n-1
			tokens = tokens && t.chat.Input >= 0 && t.chat.Output >= 0 && !t.chat.Failed
			if t.chat.Failed {
				break // the run failed here: nothing after it is known
			}
			// Did the model answer at this turn? Known when it called
			// tools (no), or when the run succeeded with this turn last
			// and no tools (yes).
			switch {
			case len(t.tools) > 0 || !last:
				ansRisk[k]++
			case complete:
				ansRisk[k]++
				ansEnds[k]++
			}
			// Did the loop stop after this full turn? Known when another
			// turn followed (no), or the run succeeded with it last.
			switch {
			case !last:
				stopRisk[k]++
			case complete && len(t.tools) > 0:
				stopRisk[k]++
				stopEnds[k]++
			}
			// The tool calls of a turn are known in full when another
			// turn followed, or the run succeeded, or, in the turn where a
			// run failed, when they were launched together (each started
			// before any ended): the turns where runs fail are those with
			// slow or failing tools, and leaving them out would make those
			// tools look rarer than they are.
			if last && (len(t.tools) == 0 || !complete && !launchedTogether(t.tools)) {
				continue
			}
			c := len(t.tools)
			for len(l.Calls.Hist) <= c {
				l.Calls.Hist = append(l.Calls.Hist, 0)
			}
			l.Calls.Hist[c]++
			allCalls += int64(c)
			for _, s := range t.tools {
				toolCalls[s.Tool]++
			}
			if c > 1 {
				multi++
				ends := t.tools[0].End
				for _, s := range t.tools[1:] {
					if s.Start < ends {
						overlap++
						break
					}
					ends = max(ends, s.End)
				}
			}
		}
		if !tokens {
			continue
		}
		withTokens++
		first := turns[0].chat
		firstInputs = append(firstInputs, first.Input)
		if first.Cached > 0 {
			firstCached++
			cachedFirst[first.Cached]++
		}
		for k := 0; k+1 < n; k++ {
			a := turns[k+1].chat.Input - turns[k].chat.Input - turns[k].chat.Output
			if a < 0 {
				negative++
				continue
			}
			appended.Add(float64(a), 0)
			tl := turns[k].tools
			if len(tl) == 1 {
				rr := results[tl[0].Tool]
				if rr == nil {
					rr = res("result\x00" + tl[0].Tool)
					results[tl[0].Tool] = rr
				}
				rr.Add(float64(a), 0)
			}
			for _, s := range tl {
				sumApp[s.Tool] += float64(a) / float64(len(tl))
				sumCalls[s.Tool]++
			}
		}
	}
	l.Shape = Wilson(shape, int64(len(runs)))
	if l.Runs == 0 {
		return l
	}
	tf0 := &l.Turns
	tf0.Rule = "answer"
	tf0.AtRisk, tf0.Ends = ansRisk, ansEnds
	if 2*tf0.Answered < l.Runs {
		tf0.Rule = "stop"
		tf0.AtRisk, tf0.Ends = stopRisk, stopEnds
	}
	// Turns per run.
	tf := &l.Turns
	tf.Max = len(ansRisk) // the most turns any run took, cut short or not
	for _, n := range turnsOf {
		tf.Max = max(tf.Max, n)
	}
	tf.Hist = make([]int64, tf.Max)
	xs := make([]float64, len(turnsOf))
	for i, n := range turnsOf {
		tf.Hist[n-1]++
		xs[i] = float64(n)
	}
	tf.Mean = meanEstimate(xs, int64(len(xs)))
	l.fitTurns()
	// Calls per turn.
	cx := make([]float64, 0)
	for k, c := range l.Calls.Hist {
		for range c {
			cx = append(cx, float64(k))
		}
		if c > 0 {
			l.Calls.Max = k
		}
	}
	l.Calls.Mean = meanEstimate(cx, int64(len(cx)))
	for t, c := range toolCalls {
		l.Tools = append(l.Tools, ToolShare{Tool: t, Share: Wilson(c, allCalls)})
	}
	slices.SortFunc(l.Tools, func(a, b ToolShare) int {
		return cmp.Or(cmp.Compare(b.Share.K, a.Share.K), strings.Compare(a.Tool, b.Tool))
	})
	l.Overlap = Wilson(overlap, multi)
	// Context.
	if withTokens == 0 {
		l.Context = nil
		return l
	}
	l.Context = &ContextFit{Negative: negative}
	cf := l.Context
	cf.SystemOf = firstCached
	for v, k := range cachedFirst {
		if k > cf.SystemRuns || k == cf.SystemRuns && v < cf.System {
			cf.System, cf.SystemRuns = v, k
		}
	}
	for _, in := range firstInputs {
		start.Add(float64(max(in-cf.System, 0)), 0)
	}
	cf.Start = FitMoments(start)
	cf.Appended = FitMoments(appended)
	cf.Results = map[string]Moments{}
	cf.ResultFallback = map[string]Estimate{}
	for _, ts := range l.Tools {
		if rr := results[ts.Tool]; rr != nil && rr.N() >= MinFitSamples {
			cf.Results[ts.Tool] = FitMoments(rr)
		} else if sumCalls[ts.Tool] > 0 {
			cf.ResultFallback[ts.Tool] = Estimate{Value: sumApp[ts.Tool] / sumCalls[ts.Tool], N: int64(sumCalls[ts.Tool]), CI: Interval{math.NaN(), math.NaN()}}
		}
	}
	return l
}

// fitTurns estimates the chance that the loop ends at each turn, tests
// that it is the same at every turn, and falls back to the Kaplan–Meier
// distribution of turns when it is not.
func (l *Loop) fitTurns() {
	tf := &l.Turns
	for len(tf.AtRisk) < tf.Max {
		tf.AtRisk, tf.Ends = append(tf.AtRisk, 0), append(tf.Ends, 0)
	}
	tf.AtRisk, tf.Ends = tf.AtRisk[:tf.Max], tf.Ends[:tf.Max]
	// Under "stop", every run that reaches the last turn seen ends there,
	// by a cap or because none went further: those turns say nothing
	// about the chance to stop, and are left out.
	var lastRisk, lastEnds int64
	if tf.Rule == "stop" {
		lastRisk, lastEnds = tf.AtRisk[tf.Max-1], tf.Ends[tf.Max-1]
		tf.AtRisk[tf.Max-1], tf.Ends[tf.Max-1] = 0, 0
	}
	var trials, ends int64
	for n := range tf.Max {
		trials += tf.AtRisk[n]
		ends += tf.Ends[n]
	}
	if tf.Rule == "answer" {
		// A run that succeeded after Max turns whose last one called tools
		// was cut by a limit.
		tf.Capped = tf.Hist[tf.Max-1] > 0 && tf.Ends[tf.Max-1] < tf.Hist[tf.Max-1]
	}
	tf.P = Wilson(ends, trials)
	p := tf.P.P
	if tf.Rule == "stop" {
		// A cap: many more runs end at the last turn than the chance to
		// stop explains.
		tf.Capped = lastEnds >= 5 && float64(lastEnds) > 3*float64(p*float64(lastRisk))
		if tf.Max == 1 {
			tf.AtRisk[0], tf.Ends[0] = lastRisk, lastEnds
		}
	}
	tf.MaxTurns = tf.Max
	if !tf.Capped && p > 0 && p < 1 {
		tf.MaxTurns = max(tf.Max, int(math.Ceil(math.Log(0.001)/math.Log(1-p))))
	}
	mean := func(p float64) float64 {
		if p <= 0 {
			return float64(tf.MaxTurns)
		}
		return (1 - math.Pow(1-p, float64(tf.MaxTurns))) / p
	}
	tf.ImpliedMean = Estimate{Value: mean(p), CI: Interval{mean(tf.P.CI.Hi), mean(tf.P.CI.Lo)}, N: trials}
	what := map[string]string{"answer": "the model answers", "stop": "the loop stops"}[tf.Rule]
	ended := fmt.Sprintf("%d of %d runs that succeeded ended with a turn that called no tool", tf.Answered, l.Runs)
	est := fmt.Sprintf("%s each turn with probability %.4g (%d ends in %d turns at risk, runs that failed included up to where they failed)", what, p, ends, trials)
	if tf.Hist[tf.Max-1] == l.Runs && tf.Ends[tf.Max-1] == 0 {
		tf.Rule = "turns"
		tf.Dist = make([]float64, tf.Max)
		tf.Dist[tf.Max-1] = 1
		tf.Why = fmt.Sprintf("every run that succeeded took %d turns", tf.Max)
		return
	}
	// Merge turns until each bin expects at least 5 ends and 5 non-ends.
	var binR, binE []float64
	var r, e float64
	for n := range tf.Max {
		r += float64(tf.AtRisk[n])
		e += float64(tf.Ends[n])
		if float64(p*r) >= 5 && float64((1-p)*r) >= 5 {
			binR, binE = append(binR, r), append(binE, e)
			r, e = 0, 0
		}
	}
	if len(binR) > 0 {
		binR[len(binR)-1] += r
		binE[len(binE)-1] += e
	}
	tf.DF = len(binR) - 1
	if p <= 0 || p >= 1 || tf.DF < 1 {
		tf.DF, tf.PValue = 0, math.NaN()
		tf.Why = fmt.Sprintf("%s, so %s; too few turns to test that the chance is the same at every turn", ended, est)
		return
	}
	for i := range binR {
		d := binE[i] - float64(p*binR[i])
		tf.ChiSq += d * d / float64(p*(1-p)*binR[i])
	}
	tf.PValue = distuv.ChiSquared{K: float64(tf.DF)}.Survival(tf.ChiSq)
	if tf.PValue >= MinPValue {
		tf.Why = fmt.Sprintf("%s, so %s; the same chance at every turn fits (χ² %.3g on %d df, p %.2g): geometric turns", ended, est, tf.ChiSq, tf.DF, tf.PValue)
		return
	}
	tf.Why = fmt.Sprintf("%s, but the chance that %s is not the same at every turn (χ² %.3g on %d df, p %.2g < %g): the Kaplan–Meier distribution of turns", ended, what, tf.ChiSq, tf.DF, tf.PValue, MinPValue)
	tf.Rule = "turns"
	tf.MaxTurns = tf.Max
	tf.Dist = make([]float64, tf.Max)
	surv := 1.0
	for n := range tf.Max {
		h := 1.0
		if n < tf.Max-1 && tf.AtRisk[n] > 0 {
			h = float64(tf.Ends[n]) / float64(tf.AtRisk[n])
		}
		tf.Dist[n] = float64(surv * h)
		surv -= tf.Dist[n]
	}
}

// launchedTogether reports whether every call started before the first
// of them ended.
func launchedTogether(calls []observe.Step) bool {
	end := calls[0].End
	for _, c := range calls {
		end = min(end, c.End)
	}
	for _, c := range calls {
		if c.Start >= end && len(calls) > 1 {
			return false
		}
	}
	return true
}
