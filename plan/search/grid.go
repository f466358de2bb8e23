package search

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// MaxConfigurations bounds a grid: every configuration is simulated, so a
// grid of thousands would run for hours.
const MaxConfigurations = 512

// Grid is a question over several knobs at once: of every combination of
// the knobs' settings, the cheapest (by cost per successful run) at which
// every objective holds, and the cost–latency frontier.
//
// The search is exhaustive: every configuration of the grid is simulated,
// nothing is pruned, so the answer does not rest on any knob being
// monotone.
type Grid struct {
	SLOs  []SLO
	Knobs []Knob
	// Replications, MaxReplications and Level are those of Problem: a
	// configuration whose objective interval straddles its threshold is
	// re-run with doubled replications up to MaxReplications, and its
	// verdicts use LookLevel intervals.
	Replications    int
	MaxReplications int
	Level           float64
	// Currency labels costs ("units" when empty).
	Currency string
}

// problem is the single-key Problem with g's settings, for the
// replication defaults, the look level and the probe judge.
func (g Grid) problem() Problem {
	return Problem{SLOs: g.SLOs, Replications: g.Replications, MaxReplications: g.MaxReplications, Level: g.Level}.WithDefaults()
}

// Size is the number of configurations in the grid.
func (g Grid) Size() int {
	n := 1
	for _, k := range g.Knobs {
		n *= len(k.Settings)
		if n > MaxConfigurations {
			return n
		}
	}
	return n
}

// Configurations returns every combination of the knobs' settings, the
// first knob varying slowest, each with its overrides in knob order.
func (g Grid) Configurations() []Configuration {
	out := []Configuration{{}}
	for _, k := range g.Knobs {
		var next []Configuration
		for _, c := range out {
			for j, st := range k.Settings {
				n := Configuration{Labels: append(append([]string(nil), c.Labels...), st.Label),
					Sets:      append(append([]string(nil), c.Sets...), st.Sets...),
					Positions: append(append([]int(nil), c.Positions...), j)}
				next = append(next, n)
			}
		}
		out = next
	}
	for i := range out {
		out[i].Index = i
	}
	return out
}

// Configuration is one point of the grid.
type Configuration struct {
	// Index is its place in Grid.Configurations.
	Index int `json:"index"`
	// Labels are its setting of each knob, in knob order.
	Labels []string `json:"labels"`
	// Sets are the overrides it applies to the scenario.
	Sets []string `json:"sets"`
	// Positions are the place of each label among its knob's settings.
	Positions []int `json:"positions"`
}

// Name is "concurrency=16, ttl=1h" with the knobs' short names.
func (c Configuration) Name(short []string) string {
	parts := make([]string, len(c.Labels))
	for i, l := range c.Labels {
		parts[i] = short[i] + "=" + l
	}
	return strings.Join(parts, ", ")
}

// Evaluation is what an Evaluator returns for n replications of one
// configuration: the pooled summary, each replication's figures in
// replication order (replication i uses the same seed in every
// configuration: common random numbers), and what the configuration
// offers its capacities.
type Evaluation struct {
	Summary *summary.Summary
	Figures []summary.ReplicationFigure
	Offered Offered
}

// Evaluator simulates replications 0 … n−1 of configuration c. Like a
// Prober, it is called with growing n for one configuration and does not
// come back to one it has left.
type Evaluator func(c Configuration, n int) (Evaluation, error)

// Interval is a figure's estimate and its confidence interval.
type Interval struct {
	Estimate Number    `json:"estimate"`
	CI       [2]Number `json:"ci"`
}

// Difference is a paired difference, b − a, over the replications both
// ran: its mean (for the p99, the difference of the pooled p99s) and its
// interval at the grid's level.
type Difference struct {
	Mean         Number    `json:"mean"`
	CI           [2]Number `json:"ci"`
	Replications int       `json:"replications"`
}

// Above reports whether the whole interval is above 0 (b is larger
// beyond the noise).
func (d *Difference) Above() bool { return d != nil && float64(d.CI[0]) > 0 }

// NotBelow reports whether the whole interval is at or above 0 (b is no
// smaller: an interval of exactly [0, 0] is two configurations with the
// same figure in every replication).
func (d *Difference) NotBelow() bool { return d != nil && float64(d.CI[0]) >= 0 }

// Below reports whether the whole interval is below 0.
func (d *Difference) Below() bool { return d != nil && float64(d.CI[1]) < 0 }

// Frontier states of a candidate (Candidate.Frontier).
const (
	// OnFrontier: no other candidate is both cheaper and faster, even by
	// the point estimates.
	OnFrontier = "frontier"
	// WithinNoise: another candidate's point estimates are both cheaper
	// and faster, but not beyond the paired intervals on both.
	WithinNoise = "within noise"
	// Dominated: another candidate is cheaper or faster beyond its paired
	// interval, and no worse on the other: that interval lies wholly at
	// or above 0 too.
	Dominated = "dominated"
	// OffFrontier: the candidate's figures cannot be compared (not an
	// answer: overloaded, stopped, runs in flight; or no cost or p99).
	OffFrontier = "not compared"
	// MissesSuccess: the candidate misses a success objective, so it is
	// not placed: its p99 is over the fewer runs it completed, and it
	// would "beat" configurations that complete the runs it fails.
	MissesSuccess = "misses success"
)

// Candidate is one configuration evaluated.
type Candidate struct {
	Configuration
	Replications int `json:"replications"`
	// Cost is the cost per successful run (pooled: spent / completed), its
	// interval by sectioning over the replications at the grid's level;
	// P99 the completion-time p99 and Success the success rate, the same.
	Cost    Interval `json:"cost_per_successful_run"`
	P99     Interval `json:"p99_s"`
	Success Interval `json:"success"`
	// Checks are the objectives checked at the look level, Verdict and
	// Resolved as a Probe's, and Feasible whether it meets every objective
	// (Probe.Answers).
	Checks   []Check `json:"slos"`
	Verdict  Verdict `json:"verdict"`
	Resolved bool    `json:"resolved"`
	Feasible bool    `json:"feasible"`
	Deciding Check   `json:"deciding"`
	// NotAnAnswer is Probe.NotAnAnswer.
	NotAnAnswer string `json:"not_an_answer,omitempty"`
	// Bottleneck is the most loaded resource measured ("" below 85%).
	Bottleneck string `json:"bottleneck"`
	// CostVsCheapest is this feasible candidate's cost minus the
	// cheapest's, paired; nil for the cheapest and the infeasible.
	CostVsCheapest *Difference `json:"cost_vs_cheapest,omitempty"`
	// Frontier is OnFrontier, WithinNoise, Dominated or OffFrontier;
	// DominatedBy names (by index) a candidate that dominates it, with the
	// paired differences of cost and p99 (this minus that) that show it.
	Frontier    string      `json:"frontier"`
	DominatedBy *int        `json:"dominated_by,omitempty"`
	CostDiff    *Difference `json:"cost_difference,omitempty"`
	P99Diff     *Difference `json:"p99_difference,omitempty"`
	Warnings    []string    `json:"warnings"`

	summary *summary.Summary
	figs    []summary.ReplicationFigure
}

// GridAnswer is the outcome of SearchGrid.
type GridAnswer struct {
	Knobs    []Knob   `json:"knobs"`
	SLOs     []string `json:"slos"`
	Minimize string   `json:"minimize"`
	Currency string   `json:"currency"`
	// Level is the confidence of the verdicts and of the cost, p99 and
	// success intervals and paired differences; LookLevel that of the
	// intervals each verdict judged (Problem.LookLevel).
	Level     float64 `json:"level"`
	LookLevel float64 `json:"look_level"`
	// Replications and MaxReplications bound each configuration's.
	Replications    int `json:"replications"`
	MaxReplications int `json:"max_replications"`
	// Method says how the grid was searched.
	Method     string      `json:"method"`
	Candidates []Candidate `json:"candidates"`
	// Found is set when a candidate meets every objective; Cheapest is
	// then its index, and Ties the feasible candidates whose cost is not
	// distinguishable from it (their paired cost difference's interval
	// holds 0).
	Found    bool  `json:"found"`
	Cheapest int   `json:"cheapest"`
	Ties     []int `json:"ties"`
	// Frontier lists the candidates on the cost–p99 frontier (OnFrontier),
	// by increasing p99.
	Frontier []int `json:"frontier"`
	// Why says, when no candidate meets every objective, which objective
	// cannot be met, the best it reaches, whether it has levelled off, and
	// what caps it.
	Why         string   `json:"why,omitempty"`
	Note        string   `json:"note"`
	Interrupted bool     `json:"interrupted"`
	Warnings    []string `json:"warnings"`
}

// CostLabel is the unit of cost: the scenario's currency, or "units".
func (a *GridAnswer) CostLabel() string {
	if a.Currency == "" {
		return "units"
	}
	return a.Currency
}

// SearchGrid evaluates every configuration of g (exhaustively, in
// Configurations order) and returns the cheapest meeting every objective,
// with the configurations its cost cannot be told from, and the
// cost–latency frontier. Each configuration runs g.Replications
// replications, doubled while an objective's interval straddles its
// threshold, up to g.MaxReplications; replication i has the same seed in
// every configuration, so differences between configurations are paired
// replication by replication (over the replications both ran).
//
// The cheapest is the feasible configuration with the lowest pooled cost
// per successful run (of equal costs, the lowest p99). Candidate B is dominated by A when the paired
// differences B − A of cost and p99 lie wholly at or above 0 and one of
// them wholly above 0 (worse on one beyond its interval, and not better
// on the other within its interval); a candidate beaten only by the point
// estimates is "within noise", and stays off the frontier line but is not
// called dominated. A candidate that misses a success objective is not
// placed and dominates nothing.
func SearchGrid(g Grid, eval Evaluator) (*GridAnswer, error) {
	p := g.problem()
	switch {
	case len(g.Knobs) == 0:
		return nil, fmt.Errorf("knobs: give at least one knob to vary")
	case p.Replications < 2:
		return nil, fmt.Errorf("replications: need at least 2 for a confidence interval, got %d", p.Replications)
	case p.MaxReplications < p.Replications:
		return nil, fmt.Errorf("max_replications: must be ≥ replications (%d), got %d", p.Replications, p.MaxReplications)
	case g.Size() > MaxConfigurations:
		return nil, fmt.Errorf("the grid has %d configurations, more than %d: give fewer values", g.Size(), MaxConfigurations)
	}
	if err := checkKnobs(g.Knobs); err != nil {
		return nil, err
	}
	s := &searcher{p: p}
	ans := &GridAnswer{Knobs: g.Knobs, Minimize: "cost per successful run", Currency: g.Currency, Level: p.Level, LookLevel: p.LookLevel(),
		Replications: p.Replications, MaxReplications: p.MaxReplications, Cheapest: -1, Ties: []int{}, Frontier: []int{}, Warnings: []string{}}
	for _, o := range g.SLOs {
		ans.SLOs = append(ans.SLOs, o.String())
	}
	confs := g.Configurations()
	ans.Method = fmt.Sprintf("exhaustive: each of the %d configurations simulated (nothing pruned), with %d replications, doubled up to %d while an objective's interval straddles its threshold; replication i uses the same seed in every configuration (common random numbers)",
		len(confs), p.Replications, p.MaxReplications)
	var err error
	for _, c := range confs {
		var cand *Candidate
		cand, err = s.evaluate(c, eval)
		if err != nil {
			break
		}
		ans.Candidates = append(ans.Candidates, *cand)
	}
	interrupted := errors.Is(err, ErrInterrupted)
	if err != nil && !interrupted {
		return nil, err
	}
	ans.Interrupted = interrupted
	short := ShortNames(g.Knobs)
	if len(ans.Candidates) == 0 {
		ans.Note = "interrupted before any configuration was evaluated: rerun to finish"
		return ans, err
	}
	cheapest(ans, short)
	frontier(ans)
	if !ans.Found {
		ans.Why = gridWhy(ans, g.SLOs, short)
	}
	for _, c := range ans.Candidates {
		if c.NotAnAnswer != "" {
			ans.Warnings = append(ans.Warnings, fmt.Sprintf("%s is not an answer: %s", c.Name(short), c.NotAnAnswer))
		}
	}
	if ans.Found {
		for _, w := range ans.Candidates[ans.Cheapest].Warnings {
			ans.Warnings = append(ans.Warnings, fmt.Sprintf("at %s: %s", ans.Candidates[ans.Cheapest].Name(short), w))
		}
	}
	if interrupted {
		ans.Note = fmt.Sprintf("interrupted after %d of %d configurations: the answer covers those only; rerun to finish. %s", len(ans.Candidates), len(confs), ans.Note)
	}
	return ans, err
}

// evaluate runs configuration c, doubling its replications while an
// objective's interval straddles its threshold.
func (s *searcher) evaluate(c Configuration, eval Evaluator) (*Candidate, error) {
	n := s.p.Replications
	for {
		ev, err := eval(c, n)
		if err != nil {
			return nil, err
		}
		pr := &Probe{Verdict: Pass, Resolved: true}
		if len(s.p.SLOs) > 0 {
			pr = s.judge(float64(c.Index), n, ev.Summary)
		}
		pr.NotAnAnswer = s.notAnAnswer(ev.Offered, ev.Summary)
		if pr.Verdict == Unresolved && pr.NotAnAnswer == "" && n < s.p.MaxReplications {
			n = min(2*n, s.p.MaxReplications)
			continue
		}
		if pr.Verdict == Unresolved {
			pr.Verdict = Pass
			for _, ch := range pr.Checks {
				if ch.Margin < 0 {
					pr.Verdict = Fail
				}
			}
		}
		sum := ev.Summary
		cand := &Candidate{Configuration: c, Replications: n, Checks: pr.Checks, Verdict: pr.Verdict, Resolved: pr.Resolved,
			Feasible: pr.Answers(), Deciding: pr.Deciding, NotAnAnswer: pr.NotAnAnswer, Bottleneck: sum.Bottleneck,
			Warnings: append([]string{}, sum.Warnings...), summary: sum, figs: ev.Figures}
		level := s.p.Level
		cost := math.NaN()
		if sum.Cost != nil {
			cost = sum.Cost.PerSuccess
		}
		cand.Cost = sectioned(ev.Figures, func(f summary.ReplicationFigure) float64 { return f.CostPerSuccess }, cost, level)
		p99 := math.NaN()
		if sum.Latency.N > 0 {
			p99 = sum.Latency.P99
		}
		cand.P99 = sectioned(ev.Figures, func(f summary.ReplicationFigure) float64 {
			if f.Completed == 0 {
				return math.NaN()
			}
			return f.LatencyP99
		}, p99, level)
		var xs []float64
		for _, f := range ev.Figures {
			xs = append(xs, f.SuccessRate)
		}
		iv := stats.MeanCI(xs, level)
		cand.Success = Interval{Estimate: Number(sum.SuccessRate), CI: [2]Number{Number(max(iv.Lo, 0)), Number(min(iv.Hi, 1))}}
		return cand, nil
	}
}

// sectioned is a figure's pooled estimate with its sectioning interval
// over the replications where get is not NaN, cut at 0.
func sectioned(figs []summary.ReplicationFigure, get func(summary.ReplicationFigure) float64, pooled, level float64) Interval {
	out := Interval{Estimate: Number(pooled), CI: [2]Number{Number(math.NaN()), Number(math.NaN())}}
	if math.IsNaN(pooled) {
		return out
	}
	var xs []float64
	for _, f := range figs {
		if x := get(f); !math.IsNaN(x) {
			xs = append(xs, x)
		}
	}
	if len(xs) >= 2 {
		iv := stats.SectionCI(xs, pooled, level)
		out.CI = [2]Number{Number(max(iv.Lo, 0)), Number(iv.Hi)}
	}
	return out
}

// paired is b − a of a figure over the replications both ran and both
// have it (not NaN), by sectioning around the difference of the pooled
// figures; nil with fewer than two.
func paired(a, b *Candidate, get func(summary.ReplicationFigure) float64, pooledA, pooledB, level float64) *Difference {
	n := min(len(a.figs), len(b.figs))
	var ds []float64
	for i := range n {
		x, y := get(a.figs[i]), get(b.figs[i])
		if math.IsNaN(x) || math.IsNaN(y) {
			continue
		}
		ds = append(ds, y-x)
	}
	if len(ds) < 2 || math.IsNaN(pooledA) || math.IsNaN(pooledB) {
		return nil
	}
	iv := stats.SectionCI(ds, pooledB-pooledA, level)
	return &Difference{Mean: Number(iv.Mean), CI: [2]Number{Number(iv.Lo), Number(iv.Hi)}, Replications: len(ds)}
}

func costOf(f summary.ReplicationFigure) float64 { return f.CostPerSuccess }

func p99Of(f summary.ReplicationFigure) float64 {
	if f.Completed == 0 {
		return math.NaN()
	}
	return f.LatencyP99
}

// cheapest fills Found, Cheapest, Ties and the note.
func cheapest(ans *GridAnswer, short []string) {
	cs := ans.Candidates
	best := -1
	for i := range cs {
		c := &cs[i]
		if !c.Feasible || math.IsNaN(float64(c.Cost.Estimate)) {
			continue
		}
		// Equal costs (a knob that does not change the bill): the faster.
		if best < 0 || c.Cost.Estimate < cs[best].Cost.Estimate ||
			c.Cost.Estimate == cs[best].Cost.Estimate && c.P99.Estimate < cs[best].P99.Estimate {
			best = i
		}
	}
	if best < 0 {
		feasible := 0
		for _, c := range cs {
			if c.Feasible {
				feasible++
			}
		}
		if feasible > 0 {
			ans.Note = fmt.Sprintf("%d configurations meet every objective, but none has a cost: no tool of the scenario is metered (tools.NAME.cost)", feasible)
		} else {
			ans.Note = fmt.Sprintf("none of the %d configurations meets every objective", len(cs))
		}
		return
	}
	ans.Found, ans.Cheapest = true, best
	b := &cs[best]
	for i := range cs {
		c := &cs[i]
		if i == best || !c.Feasible {
			continue
		}
		c.CostVsCheapest = paired(b, c, costOf, float64(b.Cost.Estimate), float64(c.Cost.Estimate), ans.Level)
		if d := c.CostVsCheapest; d != nil && !d.Above() {
			ans.Ties = append(ans.Ties, i)
		}
	}
	var note strings.Builder
	fmt.Fprintf(&note, "%s is the cheapest of the %d configurations that meet every objective", b.Name(short), countFeasible(cs))
	if len(ans.Ties) == 0 {
		fmt.Fprintf(&note, ", and cheaper than each of the others beyond its paired %g%% interval", 100*ans.Level)
	} else {
		var names []string
		for _, i := range ans.Ties {
			names = append(names, cs[i].Name(short))
		}
		fmt.Fprintf(&note, "; at %g%% it cannot be told from %s (the paired cost difference's interval holds 0): choose between them on other grounds, or run more replications", 100*ans.Level, strings.Join(names, "; "))
	}
	ans.Note = note.String()
}

func countFeasible(cs []Candidate) int {
	n := 0
	for _, c := range cs {
		if c.Feasible {
			n++
		}
	}
	return n
}

// comparable reports whether c can be placed against the others on cost
// and p99.
func comparable(c *Candidate) bool {
	return c.NotAnAnswer == "" && !math.IsNaN(float64(c.Cost.Estimate)) && !math.IsNaN(float64(c.P99.Estimate))
}

// meetsSuccess reports whether c meets every success objective (its
// interval clear of the threshold): the configurations the frontier
// places.
func meetsSuccess(c *Candidate) bool {
	for _, ch := range c.Checks {
		if ch.SLO.Figure == Success && (ch.Verdict != Pass) {
			return false
		}
	}
	return true
}

// frontier marks every candidate's place against the cost–p99 frontier
// and lists the frontier by increasing p99.
func frontier(ans *GridAnswer) {
	cs := ans.Candidates
	for i := range cs {
		b := &cs[i]
		switch {
		case !comparable(b):
			b.Frontier = OffFrontier
			continue
		case !meetsSuccess(b):
			b.Frontier = MissesSuccess
			continue
		}
		b.Frontier = OnFrontier
		for j := range cs {
			a := &cs[j]
			if j == i || !comparable(a) || !meetsSuccess(a) {
				continue
			}
			// a beats b on both by the point estimates (and strictly on
			// one), the usual Pareto dominance.
			if !(a.Cost.Estimate <= b.Cost.Estimate && a.P99.Estimate <= b.P99.Estimate &&
				(a.Cost.Estimate < b.Cost.Estimate || a.P99.Estimate < b.P99.Estimate)) {
				continue
			}
			dc := paired(a, b, costOf, float64(a.Cost.Estimate), float64(b.Cost.Estimate), ans.Level)
			dp := paired(a, b, p99Of, float64(a.P99.Estimate), float64(b.P99.Estimate), ans.Level)
			if dc.Above() && dp.NotBelow() || dc.NotBelow() && dp.Above() {
				if b.Frontier != Dominated {
					jj := j
					b.Frontier, b.DominatedBy, b.CostDiff, b.P99Diff = Dominated, &jj, dc, dp
				}
				continue
			}
			if b.Frontier == OnFrontier {
				b.Frontier = WithinNoise
			}
		}
	}
	for i := range cs {
		if cs[i].Frontier == OnFrontier {
			ans.Frontier = append(ans.Frontier, i)
		}
	}
	sort.SliceStable(ans.Frontier, func(x, y int) bool {
		a, b := cs[ans.Frontier[x]], cs[ans.Frontier[y]]
		if a.P99.Estimate != b.P99.Estimate {
			return a.P99.Estimate < b.P99.Estimate
		}
		return a.Cost.Estimate < b.Cost.Estimate
	})
}

// gridWhy says why no configuration meets every objective: for each
// objective that no configuration meets, the best value it reaches and
// where, whether it has levelled off there (the configuration one step
// down each knob reaches an overlapping interval) or still moves, and
// what caps it (capOf). When each objective is met by some configuration
// but never all together, it says so.
func gridWhy(ans *GridAnswer, slos []SLO, short []string) string {
	cs := ans.Candidates
	var parts []string
	for k, o := range slos {
		best := -1
		for i := range cs {
			c := &cs[i]
			if c.NotAnAnswer != "" || k >= len(c.Checks) {
				continue
			}
			if best < 0 || better(o, c.Checks[k].Mean, cs[best].Checks[k].Mean) {
				best = i
			}
		}
		if best < 0 {
			continue
		}
		c := &cs[best]
		ch := c.Checks[k]
		f := figureFormat(o)
		if ch.Verdict == Unresolved {
			more := "raise --max-replications"
			if c.Replications < ans.MaxReplications {
				more = "no more were run there, since another objective fails"
			}
			parts = append(parts, fmt.Sprintf("%s is unresolved at its best, %s [%s, %s] at %s: its interval still straddles the threshold after %d replications, so it may be met there (%s)",
				ch.Name, f(ch.Mean), f(ch.CI[0]), f(ch.CI[1]), c.Name(short), c.Replications, more))
			continue
		}
		if ch.Verdict != Fail {
			continue
		}
		fig := o.Figure.String()
		if o.Class != "" {
			fig = o.Class + "'s " + fig
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s reaches at best %s [%s, %s] at %s (objective %s)", fig, f(ch.Mean), f(ch.CI[0]), f(ch.CI[1]), c.Name(short), ch.Name)
		var moves []string
		for kn := range ans.Knobs {
			nb := neighbour(cs, c, kn)
			if nb == nil || kn >= len(nb.Labels) || k >= len(nb.Checks) {
				continue
			}
			nc := nb.Checks[k]
			if !(nc.CI[1] >= ch.CI[0] && ch.CI[1] >= nc.CI[0]) {
				moves = append(moves, fmt.Sprintf("%s (%s at %s=%s)", short[kn], f(nc.Mean), short[kn], nb.Labels[kn]))
			}
		}
		switch {
		case len(moves) == 0:
			b.WriteString(": it has levelled off, as the configurations one step down each knob reach the same within their intervals, so no setting of these knobs will meet it")
		default:
			fmt.Fprintf(&b, ": it still moves with %s, so the grid may stop short of the values that meet it", strings.Join(moves, " and "))
		}
		if cause := capOf(c.summary, o); cause != "" {
			b.WriteString("; what caps it: " + cause)
		}
		parts = append(parts, b.String())
	}
	if len(parts) == 0 && len(slos) > 0 {
		// Configurations that fail no objective but leave one unresolved
		// might meet them all with more replications.
		var open []string
		for i := range cs {
			c := &cs[i]
			if c.Feasible || c.NotAnAnswer != "" {
				continue
			}
			failed, straddles := false, false
			for _, ch := range c.Checks {
				failed = failed || ch.Verdict == Fail
				straddles = straddles || ch.Verdict == Unresolved
			}
			if straddles && !failed {
				open = append(open, fmt.Sprintf("#%d %s", i+1, c.Name(short)))
			}
		}
		msg := "each objective is met by some configuration, but no configuration meets them all together (the table shows which each fails)"
		if len(open) > 0 {
			msg += fmt.Sprintf("; %s fail none of them but leave an interval straddling its threshold after %d replications, so might meet them all: raise --max-replications", strings.Join(open, ", "), ans.MaxReplications)
		}
		return msg
	}
	return strings.Join(parts, "; ")
}

// better reports whether x is a better value than y of objective o's
// figure (lower for a time, higher for the success rate).
func better(o SLO, x, y Number) bool {
	if o.Figure.IsTime() {
		return x < y
	}
	return x > y
}

// neighbour returns the candidate equal to c but one setting earlier on
// knob k (the one before it in the list), or nil.
func neighbour(cs []Candidate, c *Candidate, k int) *Candidate {
	for i := range cs {
		o := &cs[i]
		if len(o.Labels) != len(c.Labels) || o.NotAnAnswer != "" {
			continue
		}
		same := true
		for j := range o.Labels {
			if j != k && o.Labels[j] != c.Labels[j] {
				same = false
			}
		}
		if same && o.Positions[k] == c.Positions[k]-1 {
			return o
		}
	}
	return nil
}

// figureFormat formats an objective's figure: a time, or a percentage.
func figureFormat(o SLO) func(Number) string {
	return func(x Number) string {
		if o.Figure.IsTime() {
			return secondsText(float64(x))
		}
		return strconv.FormatFloat(100*float64(x), 'f', 2, 64) + " %"
	}
}
