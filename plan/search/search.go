package search

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/budgetsim/budgetsim/model/summary"
)

// Defaults of Problem.
const (
	// DefaultReplications is the first batch of replications per probe.
	DefaultReplications = 8
	// DefaultMaxFactor: MaxReplications defaults to 8 × Replications
	// (three doublings).
	DefaultMaxFactor = 8
	// DefaultTolerance is the relative width at which a search over a
	// continuous key stops.
	DefaultTolerance = 0.01
)

// ErrInterrupted is returned (with the answer so far) when the prober
// reports an interrupt.
var ErrInterrupted = errors.New("search interrupted")

// Problem is a capacity question: the smallest value of Range.Key in
// [Range.Lo, Range.Hi] at which every objective holds, assuming the
// objectives only get easier as the value grows.
type Problem struct {
	SLOs  []SLO
	Range Range
	// Replications is the first batch of replications of a probe (≥ 2;
	// 0 means DefaultReplications). A probe whose interval straddles a
	// threshold is re-run with twice as many, up to MaxReplications (0
	// means DefaultMaxFactor × Replications).
	Replications    int
	MaxReplications int
	// Level is the confidence of each probe's verdict, reported in the
	// answer; the prober's intervals must be at LookLevel, which accounts
	// for the repeated looks at a probe.
	Level float64
	// Start, when HasStart, is a first guess (such as an Erlang C
	// staffing level) for an integer search: Search probes it and its
	// neighbour first and gallops away from it only if needed.
	Start    float64
	HasStart bool
	// Tolerance is the relative precision at which a search stops (0
	// means DefaultTolerance): the bracket between a failing and a passing
	// value is narrower than Tolerance × the answer, or one step of an
	// integer key, whichever is wider. A count of tokens is not bisected
	// to a single token.
	Tolerance float64
	// Maximize turns the question around: the largest value of Range.Key
	// at which every objective holds, assuming the objectives only get
	// harder as the value grows (an arrival rate: the highest load a
	// configuration holds).
	Maximize bool
	// Offered, when set, returns what value v offers the system before it
	// is simulated (Simulator.Offered): a value whose offered load exceeds
	// a capacity is never the answer, however its figures look. Nil
	// checks only what the simulations show (a guard that stopped them,
	// runs left in flight).
	Offered func(v float64) (Offered, error)
}

// Offered is what one value of the searched key offers the system, from
// the scenario's own numbers, before any simulation.
type Offered struct {
	// Utilisation is the workers' offered utilisation, λ × E[service per
	// run] / workers (system.OfferedUtilisation); NaN when the arrivals
	// have no rate (batches, closed populations).
	Utilisation float64
	// Peak is the highest offered utilisation among the workers and the
	// tools with concurrency or a rate limit (Utilisation,
	// system.OfferedToolLoads; a rate limit's is calls needed / rate), and
	// PeakAt names where it is ("workers", a tool's name, or a tool's name
	// and its per-minute limit, "llm tpm"): the resource
	// that saturates first as the load grows. NaN and "" when unknown.
	Peak   float64
	PeakAt string
	// Overload says which capacity the offered load exceeds and what that
	// does, "" when it fits every capacity; Unstable is set when, besides,
	// nothing bounds the queue (no capacity, no deadline): the system has
	// no steady state.
	Overload string
	Unstable bool
	// MeansUnreliable says why the intervals of mean figures (mean,
	// wait_mean) cannot be trusted at this value, "" when they can: a
	// tool's latency has infinite variance, so those intervals cover the
	// true mean less often than stated. A mean objective is then not
	// checked reliably, and the value is not an answer.
	MeansUnreliable string
}

// WithDefaults returns p with a zero Replications, MaxReplications and
// Tolerance replaced by their defaults.
func (p Problem) WithDefaults() Problem {
	if p.Replications == 0 {
		p.Replications = DefaultReplications
	}
	if p.MaxReplications == 0 {
		p.MaxReplications = DefaultMaxFactor * p.Replications
	}
	if p.Tolerance == 0 {
		p.Tolerance = DefaultTolerance
	}
	return p
}

// Looks is how many times Search may judge one probe: once after
// Replications, then after each doubling up to MaxReplications.
func (p Problem) Looks() int {
	p = p.WithDefaults()
	looks := 1
	for n := p.Replications; n < p.MaxReplications && n > 0; n = min(2*n, p.MaxReplications) {
		looks++
	}
	return looks
}

// LookLevel is the confidence level the prober's intervals need so that a
// probe's verdict is wrong with probability at most 1 − Level however many
// looks it took: each look at a straddling interval is another chance to
// stop on an unlucky one (four unadjusted 95 % looks at a value on the
// threshold end "resolved" on the wrong side ~7 % of the time each way,
// not 2.5 %), so the error is split evenly over Looks (Bonferroni).
func (p Problem) LookLevel() float64 {
	return 1 - (1-p.Level)/float64(p.Looks())
}

// Prober returns the summary of replications 0 … n−1 of the scenario with
// the searched key set to v. Search calls it for one value with growing n
// (each call may reuse the replications of the previous one) and does not
// come back to a value it has left. A prober returns ErrInterrupted (or an
// error wrapping it) when stopped.
type Prober func(v float64, n int) (*summary.Summary, error)

// Number is a float64 that encodes NaN and infinities as JSON null.
type Number float64

// MarshalJSON writes the shortest exact decimal, or null.
func (x Number) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number written by MarshalJSON: null is NaN.
func (x *Number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*x = Number(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("number: %w", err)
	}
	*x = Number(f)
	return nil
}

// Probe is one simulated value of the search.
type Probe struct {
	// Order is the probe's place in the search (1 = first).
	Order        int     `json:"order"`
	Value        float64 `json:"value"`
	Replications int     `json:"replications"`
	// P99 is the pooled completion-time p99 (seconds) and CI its
	// Student-t interval over replications; Success the success rate.
	P99     Number    `json:"p99_s"`
	CI      [2]Number `json:"ci"`
	Success Number    `json:"success"`
	// Verdict is whether every objective held. Resolved is false when an
	// interval still straddled its threshold at MaxReplications, so the
	// verdict was taken from the interval's midpoint.
	Verdict  Verdict `json:"verdict"`
	Resolved bool    `json:"resolved"`
	// Deciding is the objective that decided: the first that failed, the
	// closest to its threshold when all passed, or the one that stayed
	// unresolved.
	Deciding Check   `json:"deciding"`
	Checks   []Check `json:"slos"`
	// Utilisation is the workers' offered utilisation at this value
	// (Offered.Utilisation; null when unknown), and Bottleneck the most
	// loaded resource the simulations measured, with its load (system.
	// Summary.Bottleneck: "" when nothing is loaded above 85%).
	Utilisation Number `json:"utilisation"`
	// Peak and PeakAt are the highest offered utilisation at this value
	// and where it is (Offered.Peak, Offered.PeakAt): unlike Utilisation,
	// they see a tool that saturates before the workers do.
	Peak       Number `json:"peak_utilisation"`
	PeakAt     string `json:"peak_at"`
	Bottleneck string `json:"bottleneck"`
	Load       Number `json:"bottleneck_load"`
	// NotAnAnswer says why this value cannot be the answer whatever its
	// verdict: its offered load exceeds a capacity (an unstable or
	// overloaded system, where a run that waits for hours still
	// "succeeds"), a guard stopped its simulations, or runs were left in
	// flight, so the checked figures describe only the runs that ended.
	// "" when none of these holds.
	NotAnAnswer string `json:"not_an_answer,omitempty"`
	// Warnings are the footnotes of the probe's summary, as simulate run
	// prints them.
	Warnings []string `json:"warnings"`
	// Offered is what the value offered the system (Problem.Offered).
	Offered Offered `json:"-"`
	// Summary is the probe's full summary.
	Summary *summary.Summary `json:"-"`
}

// Answers reports whether the probe can be the answer: every objective's
// interval cleared its threshold (Verdict Pass, Resolved) and nothing in
// NotAnAnswer holds.
func (pr *Probe) Answers() bool {
	return pr.Verdict == Pass && pr.Resolved && pr.NotAnAnswer == ""
}

// Evidence is the deciding objective at one value, for Confidence.
type Evidence struct {
	Value        float64 `json:"value"`
	Verdict      Verdict `json:"verdict"`
	Resolved     bool    `json:"resolved"`
	Replications int     `json:"replications"`
	Deciding     Check   `json:"deciding"`
	// NotAnAnswer is the probe's (Probe.NotAnAnswer).
	NotAnAnswer string `json:"not_an_answer,omitempty"`
}

// Confidence says how sure the answer is: the deciding objective's interval
// at the answer (which clears every threshold) and at the next smaller
// value probed (value − 1 for counts, which is not an answer: it failed,
// its interval straddled a threshold, or it is overloaded), and whether
// both intervals cleared their thresholds.
type Confidence struct {
	Level float64 `json:"level"`
	// LookLevel is the level of the intervals each look judged
	// (Problem.LookLevel).
	LookLevel float64   `json:"look_level"`
	At        *Evidence `json:"at"`
	Below     *Evidence `json:"below,omitempty"`
	// Resolved is true when neither interval straddled its threshold.
	// The answer's never does (an answer clears every threshold), so
	// false says that the value below might pass with more replications.
	Resolved bool   `json:"resolved"`
	Note     string `json:"note"`
}

// Analytic is a closed-form first guess.
type Analytic struct {
	Value  float64 `json:"value"`
	Method string  `json:"method"`
}

// Answer is the outcome of Search.
type Answer struct {
	Parameter string `json:"parameter"`
	Value     Number `json:"value"`
	Found     bool   `json:"found"`
	// Interrupted is set when the search stopped early (Ctrl-C): Found and
	// Value then describe the probes made so far, not the smallest value,
	// and Found false says nothing about the range.
	Interrupted bool `json:"interrupted"`
	// HurtsAsItGrows is set when nothing in the range above its low end
	// met the objectives but the low end did: the key gets worse as it
	// grows (an arrival rate), so there is no smallest value to find;
	// Found is false and the note says what to do instead.
	HurtsAsItGrows bool `json:"hurts_as_it_grows,omitempty"`
	// HelpsAsItGrows is HurtsAsItGrows for Maximize: the top of the range
	// meets the objectives, its low end does not, so the key is a capacity
	// to size with a search for the smallest value instead.
	HelpsAsItGrows bool `json:"helps_as_it_grows,omitempty"`
	// Maximize is set when the answer is the largest value meeting the
	// objectives (Problem.Maximize).
	Maximize bool `json:"maximize,omitempty"`
	// Why says, when no value meets the objectives, what stops them at
	// the most favourable end of the range: the objective that fails, the
	// value it reaches, whether it still moves with the key, and the
	// outcome that caps it ("" when the answer was found).
	Why string `json:"why,omitempty"`
	// NotMonotone is set when both ends of the range failed and a value
	// inside it passed: the answer is the smallest passing value found
	// near the first passing probe of a scan, not a proven minimum.
	NotMonotone bool     `json:"not_monotone,omitempty"`
	SLOs        []string `json:"slos"`
	Range       string   `json:"range"`
	// Analytic is set by the caller when a closed form gave the start.
	Analytic   *Analytic  `json:"analytic,omitempty"`
	Confidence Confidence `json:"confidence"`
	// Bottleneck is the most loaded resource at the answer (or, when no
	// value meets the objectives, at the top of the range): the binding
	// constraint. Empty when no resource is loaded above 85%.
	Bottleneck string `json:"bottleneck"`
	// Probes are every simulated value, by increasing value: the knee of
	// p99 against the parameter.
	Probes []Probe `json:"probes"`
	// Warnings are the footnotes a reader of the answer must see: those of
	// the probe at the answer (or, when none was found, at the top of the
	// range), as simulate run prints them, then one for each probed value
	// that was not an answer for a reason other than its figures.
	Warnings []string `json:"warnings"`
}

// searcher holds the state of one Search.
//
// The search runs in its own coordinate u, in which a larger value is
// always better: u is the value itself, or, with Maximize, its negation
// (exact in floating point, so a value maps back to itself), and u is
// the range in that coordinate. The probes are kept, and everything a
// reader sees is said, in the key's own values.
type searcher struct {
	p      Problem
	u      Range
	probe  Prober
	probes map[float64]*Probe
	order  int
}

// real returns the value of the key at search coordinate u (and, the
// negation being its own inverse, the coordinate of a value).
func (s *searcher) real(u float64) float64 {
	if s.p.Maximize {
		return -u
	}
	return u
}

// best and worst are the words for the direction searched: the answer is
// the smallest value meeting the objectives, or with Maximize the largest.
func (s *searcher) best() string {
	if s.p.Maximize {
		return "largest"
	}
	return "smallest"
}

// Search finds the smallest value of p.Range at which every objective of p
// holds, by simulation.
//
// Each probe runs p.Replications replications and checks every objective's
// Student-t interval (over replications) against its threshold: wholly on
// the good side passes, wholly on the bad side fails. An interval that
// straddles a threshold is not decided by luck: the probe is re-run with
// twice the replications until it clears or MaxReplications is reached;
// only then is the verdict taken from the interval's midpoint and the
// probe marked unresolved. The answer is the smallest value whose
// intervals all cleared their thresholds: an unresolved probe is never
// the answer, nor is one that is overloaded (p.Offered), stopped by a
// guard or left runs in flight (Probe.NotAnAnswer), whatever its figures.
//
// Integer ranges: from p.Start (if given) Search probes Start and its
// neighbour, galloping (steps 1, 2, 4, …) down while values pass or up
// while they fail, then bisects between the largest failing and the
// smallest passing value. Without a start it probes Hi, then Lo, then
// bisects. The bisection stops when the bracket is narrower than
// Tolerance × the answer or one step of an integer key, so the answer has
// a probed failing value within that precision below it (unless it is
// Range.Lo); non-integer values probed are rounded to the fewest digits
// inside the bracket. Values above Hi are never probed: if Hi fails,
// Found is false. With Maximize all of this is mirrored: the answer is
// the largest passing value, with a failing one just above it.
//
// The search assumes monotonicity; a noisy non-monotone probe can only
// shift the answer within the bracket it leaves, and its Resolved flag
// shows it.
func Search(p Problem, probe Prober) (*Answer, error) {
	if len(p.SLOs) == 0 {
		return nil, fmt.Errorf("slos: at least one objective is required")
	}
	p = p.WithDefaults()
	if p.Replications < 2 {
		return nil, fmt.Errorf("replications: need at least 2 for a confidence interval, got %d", p.Replications)
	}
	if p.MaxReplications < p.Replications {
		return nil, fmt.Errorf("max_replications: must be ≥ replications (%d), got %d", p.Replications, p.MaxReplications)
	}
	if !(p.Tolerance > 0 && p.Tolerance < 1) {
		return nil, fmt.Errorf("tolerance: must be in (0, 1), got %g", p.Tolerance)
	}
	r := p.Range
	if !(r.Lo >= 0 && r.Lo < r.Hi) {
		return nil, fmt.Errorf("range: need 0 ≤ lo < hi, got %g..%g", r.Lo, r.Hi)
	}
	s := &searcher{p: p, u: r, probe: probe, probes: map[float64]*Probe{}}
	if p.Maximize {
		s.u.Lo, s.u.Hi = -r.Hi, -r.Lo
	}
	ans := &Answer{Parameter: r.Key, Value: Number(math.NaN()), Range: r.String(), Maximize: p.Maximize}
	for _, o := range p.SLOs {
		ans.SLOs = append(ans.SLOs, o.String())
	}
	_, passLo, err := s.bracket()
	notMonotone := false
	if err == nil && math.IsInf(passLo, 1) {
		// Nothing passed: probe the low end too. If it passes, the key
		// hurts as it grows (an arrival rate, a latency), and "none" would
		// be wrong: finish says so instead.
		var loPasses bool
		loPasses, err = s.pass(s.u.Lo)
		if err == nil && !loPasses {
			// Both ends fail: look inside before saying "none".
			passLo, err = s.scan()
			notMonotone = !math.IsInf(passLo, 1)
		}
	}
	s.finish(ans, passLo)
	if notMonotone {
		ans.NotMonotone = true
		ans.Confidence.Resolved = false
		ans.Confidence.Note = fmt.Sprintf("not monotone: %s=%s and %s=%s both fail, but %s=%s meets every objective: more is not always better here (as when more workers only queue more callers for a rate-limited tool), so this is the %s passing value near the first passing probe of a scan, not a proof that nothing beyond it passes; sweep the range to see its shape (simulate sweep --vary %s:20). %s",
			r.Key, r.Format(r.Lo), r.Key, r.Format(r.Hi), r.Key, r.Format(s.real(passLo)), s.best(), r, ans.Confidence.Note)
	}
	if errors.Is(err, ErrInterrupted) {
		ans.Interrupted = true
		if ans.Found {
			ans.Confidence.Note = fmt.Sprintf("interrupted: %s=%s met every objective, but the search stopped before it had ruled out %s values; rerun to finish",
				r.Key, r.Format(float64(ans.Value)), map[bool]string{false: "smaller", true: "larger"}[s.p.Maximize])
		} else {
			ans.Confidence.Note = "interrupted before any probed value met every objective: this says nothing about the range; rerun to finish"
		}
	}
	return ans, err
}

// pass probes the value at search coordinate u and reports whether it
// passed.
func (s *searcher) pass(u float64) (bool, error) {
	v := s.real(u)
	if pr, ok := s.probes[v]; ok {
		return pr.Answers(), nil
	}
	off := Offered{Utilisation: math.NaN(), Peak: math.NaN()}
	if s.p.Offered != nil {
		var err error
		if off, err = s.p.Offered(v); err != nil {
			return false, err
		}
	}
	n := s.p.Replications
	var pr *Probe
	for {
		sum, err := s.probe(v, n)
		if err != nil {
			return false, err
		}
		pr = s.judge(v, n, sum)
		pr.Utilisation, pr.Offered = Number(off.Utilisation), off
		pr.Peak, pr.PeakAt = Number(off.Peak), off.PeakAt
		pr.NotAnAnswer = s.notAnAnswer(off, sum)
		// More replications cannot make a value that is not an answer
		// one: do not spend them.
		if pr.Verdict != Unresolved || pr.NotAnAnswer != "" || n >= s.p.MaxReplications {
			break
		}
		n = min(2*n, s.p.MaxReplications)
	}
	if pr.Verdict == Unresolved {
		pr.Verdict = Pass
		for _, c := range pr.Checks {
			if c.Margin < 0 {
				pr.Verdict = Fail
			}
		}
	}
	s.order++
	pr.Order = s.order
	s.probes[v] = pr
	return pr.Answers(), nil
}

// notAnAnswer says why a probe with offered load off and summary sum
// cannot be the answer whatever its verdict, or "".
func (s *searcher) notAnAnswer(off Offered, sum *summary.Summary) string {
	var why []string
	if off.Overload != "" {
		why = append(why, off.Overload)
	}
	if off.MeansUnreliable != "" {
		for _, o := range s.p.SLOs {
			if o.Figure == LatencyMean || o.Figure == WaitMean {
				why = append(why, fmt.Sprintf("%s cannot be checked: %s", o, off.MeansUnreliable))
				break
			}
		}
	}
	if sum.Partial {
		why = append(why, "a guard stopped its simulations (partial result: the figures describe the runs before it)")
	}
	if n := sum.Runs.InFlight; n > 0 {
		for _, o := range s.p.SLOs {
			if o.Figure.IsTime() {
				why = append(why, fmt.Sprintf("%d runs were still in flight at the end, and the slowest runs are missing from the time figures", n))
				break
			}
		}
	}
	if err := sum.Runs.Check(); err != nil {
		why = append(why, err.Error())
	}
	return strings.Join(why, "; ")
}

// judge checks every objective against sum.
func (s *searcher) judge(v float64, n int, sum *summary.Summary) *Probe {
	pr := &Probe{Value: v, Replications: n, Summary: sum, P99: Number(sum.Latency.P99), Success: Number(sum.SuccessRate),
		CI: [2]Number{Number(math.NaN()), Number(math.NaN())}, Resolved: true,
		Bottleneck: sum.Bottleneck, Load: Number(bottleneckLoad(sum)), Warnings: sum.Warnings}
	if c := sum.Confidence; c != nil && sum.Latency.N > 0 {
		pr.CI = [2]Number{Number(c.Latency.P99.Lo), Number(c.Latency.P99.Hi)}
	}
	allPass := true
	fail, open, closest := -1, -1, -1
	for i, o := range s.p.SLOs {
		c := o.Check(sum)
		pr.Checks = append(pr.Checks, c)
		switch c.Verdict {
		case Fail:
			allPass = false
			if fail < 0 {
				fail = i
			}
		case Unresolved:
			allPass = false
			if open < 0 {
				open = i
			}
		case Pass:
			if closest < 0 || closer(c, pr.Checks[closest]) {
				closest = i
			}
		}
	}
	switch {
	case fail >= 0:
		pr.Verdict, pr.Deciding = Fail, pr.Checks[fail]
	case allPass:
		pr.Verdict, pr.Deciding = Pass, pr.Checks[closest]
	default:
		pr.Verdict, pr.Deciding, pr.Resolved = Unresolved, pr.Checks[open], false
	}
	return pr
}

// bottleneckLoad is the load of sum's bottleneck (NaN when there is none).
func bottleneckLoad(sum *summary.Summary) float64 {
	if sum.Bottleneck == "" {
		return math.NaN()
	}
	if sum.Bottleneck == "workers" {
		return sum.Workers.Utilisation
	}
	for _, t := range sum.Tools {
		if t.Name == sum.Bottleneck {
			return t.Load
		}
	}
	return math.NaN()
}

// closer reports whether passing check a is nearer to failing than b: by
// the distance to the threshold in interval half-widths (a zero-width
// interval, such as a success rate of exactly 1 in every replication, is
// infinitely far), then by relative margin.
func closer(a, b Check) bool {
	za, zb := sigmas(a), sigmas(b)
	if za != zb {
		return za < zb
	}
	return a.Margin < b.Margin
}

// sigmas is a check's distance from its threshold in half-widths.
func sigmas(c Check) float64 {
	half := float64(c.CI[1]-c.CI[0]) / 2
	d := math.Abs(float64(c.Mean) - c.SLO.Threshold)
	if half == 0 {
		return math.Inf(1)
	}
	return d / half
}

// bracket runs the search and returns the largest failing value found
// before the bisection (−Inf when none failed) and the smallest passing
// value (+Inf when none passed).
func (s *searcher) bracket() (failHi, passLo float64, err error) {
	r := s.u
	failHi, passLo = math.Inf(-1), math.Inf(1)
	try := func(v float64) (bool, error) {
		ok, err := s.pass(v)
		if err != nil {
			return false, err
		}
		if ok {
			passLo = math.Min(passLo, v)
		} else {
			failHi = math.Max(failHi, v)
		}
		return ok, nil
	}
	if r.Integer && s.p.HasStart {
		h := math.Min(math.Max(math.Round(s.real(s.p.Start)), r.Lo), r.Hi)
		ok, err := try(h)
		if err != nil {
			return failHi, passLo, err
		}
		if ok {
			// Gallop down while values pass.
			for step := 1.0; passLo > r.Lo; step *= 2 {
				v := math.Max(passLo-step, r.Lo)
				if ok, err := try(v); err != nil || !ok {
					if err != nil {
						return failHi, passLo, err
					}
					break
				}
			}
		} else {
			// Gallop up while values fail.
			for step := 1.0; failHi < r.Hi; step *= 2 {
				v := math.Min(failHi+step, r.Hi)
				if ok, err := try(v); err != nil || ok {
					if err != nil {
						return failHi, passLo, err
					}
					break
				}
			}
		}
	} else {
		ok, err := try(r.Hi)
		if err != nil || !ok {
			return failHi, passLo, err
		}
		if _, err := try(r.Lo); err != nil {
			return failHi, passLo, err
		}
	}
	if math.IsInf(passLo, 1) || passLo == r.Lo {
		return failHi, passLo, nil
	}
	// Here a value failed: both ways above probe until one does, or
	// until Lo passes.
	passLo, err = s.bisect(failHi, passLo)
	return failHi, passLo, err
}

// bisect narrows the bracket between a failing value lo and a passing
// value passLo (search coordinates) until it is Tolerance × the answer
// wide, or one step of an integer key, and returns the best passing value
// probed.
func (s *searcher) bisect(lo, passLo float64) (float64, error) {
	r := s.u
	for {
		// Relative precision, in the key's own values (the answer's), and
		// never finer than one step of an integer key.
		if passLo-lo <= float64(s.p.Tolerance*math.Abs(s.real(passLo))) || r.Integer && passLo-lo <= 1 {
			break
		}
		m := lo + (passLo-lo)/2
		if r.Integer {
			m = math.Floor(m)
		} else {
			// A round value of the key inside the bracket, to read and to
			// type back (4.75/s, not 4.748046875/s).
			m = s.real(roundBetween(s.real(lo), s.real(passLo), s.real(m)))
		}
		ok, err := s.pass(m)
		if err != nil {
			return passLo, err
		}
		if ok {
			passLo = m
		} else {
			lo = m
		}
	}
	return passLo, nil
}

// scanPoints is how many values inside the range scan probes when both
// ends fail.
const scanPoints = 8

// scan probes up to scanPoints values inside the range, evenly spaced (on
// a log scale when the range spans more than a factor of 8), in
// increasing order; at the first that passes it bisects down to the last
// failing one and returns the smallest passing value, or +Inf when none
// passed. It is for objectives that are not monotone in the key (success
// behind a rate-limited tool rises with workers, then falls as more of
// them queue for its tokens): both ends fail, the middle does not.
func (s *searcher) scan() (float64, error) {
	r := s.u
	logScale := r.Lo >= 1 && r.Hi/r.Lo > 8
	var vals []float64
	for i := 1; i <= scanPoints; i++ {
		f := float64(i) / float64(scanPoints+1)
		v := r.Lo + float64((r.Hi-r.Lo)*f) // float64(): no fused multiply-add
		if logScale {
			v = r.Lo * math.Pow(r.Hi/r.Lo, f)
		}
		if r.Integer {
			v = math.Round(v)
		}
		if v <= r.Lo || v >= r.Hi || (len(vals) > 0 && v == vals[len(vals)-1]) {
			continue
		}
		vals = append(vals, v)
	}
	failHi := r.Lo
	for _, v := range vals {
		ok, err := s.pass(v)
		if err != nil {
			return math.Inf(1), err
		}
		if ok {
			return s.bisect(failHi, v)
		}
		failHi = v
	}
	return math.Inf(1), nil
}

// finish fills the answer from the probes: the value, the probes by
// value, the confidence statement and the warnings.
func (s *searcher) finish(ans *Answer, passLo float64) {
	for _, pr := range s.probes {
		ans.Probes = append(ans.Probes, *pr)
	}
	sort.Slice(ans.Probes, func(i, j int) bool { return ans.Probes[i].Value < ans.Probes[j].Value })
	ans.Confidence.Level = s.p.Level
	ans.Confidence.LookLevel = s.p.LookLevel()
	r := s.p.Range
	at, ok := s.probes[s.real(passLo)]
	defer func() { ans.Warnings = s.warnings(ans) }()
	// worst and top are the ends of the range where the key is least and
	// most favourable to the objectives.
	worst, top := s.real(s.u.Lo), s.real(s.u.Hi)
	if lo, probed := s.probes[worst]; !ok && probed && lo.Answers() {
		ans.Confidence.At = evidence(lo)
		ans.Confidence.Resolved = lo.Resolved
		if s.p.Maximize {
			ans.HelpsAsItGrows = true
			ans.Confidence.Note = fmt.Sprintf("%s=%s meets every objective and %s=%s does not: %s helps as it grows, and --maximize finds the largest value of a key that hurts as it grows (an arrival rate); to find the smallest %s that meets them, use --search %s",
				r.Key, r.Format(r.Hi), r.Key, r.Format(r.Lo), r.Key, r.Key, r)
			return
		}
		ans.HurtsAsItGrows = true
		ans.Confidence.Note = fmt.Sprintf("%s=%s meets every objective and %s=%s does not: %s hurts as it grows, and --search finds the smallest value of a key that helps as it grows (workers, capacity, limits); to find the largest %s the objectives allow, use --maximize %s",
			r.Key, r.Format(r.Lo), r.Key, r.Format(r.Hi), r.Key, r.Key, r)
		return
	}
	if !ok {
		ans.Confidence.Note = fmt.Sprintf("no value %s %s meets every objective", map[bool]string{false: "up to", true: "down to"}[s.p.Maximize], r.Format(top))
		if pr, ok := s.probes[top]; ok {
			ans.Confidence.At = evidence(pr)
			ans.Confidence.Resolved = pr.Resolved
			switch {
			case pr.NotAnAnswer != "":
				ans.Confidence.Note += fmt.Sprintf(" with a system it can serve: at %s=%s %s", r.Key, r.Format(top), pr.NotAnAnswer)
			case pr.Verdict == Pass:
				ans.Confidence.Note += fmt.Sprintf(" with intervals that clear their thresholds: at %s=%s %s (unresolved after %d replications; raise --max-replications)", r.Key, r.Format(top), describe(pr), pr.Replications)
			default:
				ans.Why = s.why(pr)
				if ans.Why != "" {
					ans.Confidence.Note += ": " + ans.Why
				}
			}
			if pr.Summary != nil && pr.Summary.Bottleneck != "" {
				ans.Bottleneck = pr.Summary.Bottleneck
				ans.Confidence.Note += fmt.Sprintf("; at %s=%s the binding constraint is %s: size that instead",
					r.Key, r.Format(top), pr.Summary.Bottleneck)
			}
		}
		return
	}
	if at.Summary != nil {
		ans.Bottleneck = at.Summary.Bottleneck
	}
	ans.Found, ans.Value = true, Number(s.real(passLo))
	ans.Confidence.At = evidence(at)
	below := s.below(passLo)
	ans.Confidence.Resolved = at.Resolved
	atView := *at
	if below != nil && below.NotAnAnswer == "" {
		// The binding objective is the one that decided below: report it
		// at the answer too.
		for _, c := range at.Checks {
			if c.SLO == below.Deciding.SLO {
				atView.Deciding = c
				ans.Confidence.At.Deciding = c
			}
		}
	}
	key := r.Key
	var b strings.Builder
	fmt.Fprintf(&b, "%s=%s meets every objective, its intervals clear every threshold (%s)", key, r.Format(s.real(passLo)), describe(&atView))
	switch {
	case below == nil && passLo == s.u.Lo:
		fmt.Fprintf(&b, "; it is the %s end of the range", map[bool]string{false: "lower", true: "upper"}[s.p.Maximize])
	case below == nil:
	case below.NotAnAnswer != "":
		ans.Confidence.Below = evidence(below)
		fmt.Fprintf(&b, "; %s=%s is not an answer: %s", key, r.Format(below.Value), below.NotAnAnswer)
	case !below.Resolved:
		ans.Confidence.Below = evidence(below)
		ans.Confidence.Resolved = false
		fmt.Fprintf(&b, "; %s=%s is UNRESOLVED (%s): its interval still straddled the threshold after %d replications (max-replications), so it might meet the objectives too: the answer is the %s value shown to meet them, and may be one step more cautious than needed", key, r.Format(below.Value), describe(below), s.p.MaxReplications, s.best())
	default:
		ans.Confidence.Below = evidence(below)
		fmt.Fprintf(&b, "; %s=%s fails (%s)", key, r.Format(below.Value), describe(below))
	}
	ans.Confidence.Note = b.String()
}

// below returns the probe nearest the answer at search coordinate u on
// its worse side (below it, or above it with Maximize) that is not an
// answer, or nil.
func (s *searcher) below(u float64) *Probe {
	var below *Probe
	for _, pr := range s.probes {
		if pu := s.real(pr.Value); pu < u && !pr.Answers() && (below == nil || pu > s.real(below.Value)) {
			below = pr
		}
	}
	return below
}

// warnings returns the answer's warnings (Answer.Warnings).
func (s *searcher) warnings(ans *Answer) []string {
	r := s.p.Range
	w := []string{}
	show := s.probes[s.real(s.u.Hi)]
	if ans.Found || ans.HurtsAsItGrows || ans.HelpsAsItGrows {
		show = s.probes[float64(ans.Value)]
		if ans.HurtsAsItGrows || ans.HelpsAsItGrows {
			show = s.probes[s.real(s.u.Lo)]
		}
	}
	if show != nil {
		for _, x := range show.Warnings {
			w = append(w, fmt.Sprintf("at %s=%s: %s", r.Key, r.Format(show.Value), x))
		}
	}
	for _, pr := range ans.Probes {
		if pr.NotAnAnswer != "" {
			w = append(w, fmt.Sprintf("%s=%s is not an answer: %s", r.Key, r.Format(pr.Value), pr.NotAnAnswer))
		}
	}
	return w
}

func evidence(pr *Probe) *Evidence {
	return &Evidence{Value: pr.Value, Verdict: pr.Verdict, Resolved: pr.Resolved, Replications: pr.Replications, Deciding: pr.Deciding, NotAnAnswer: pr.NotAnAnswer}
}

// describe says "p99 = 1.8s, 95% CI [1.7s, 1.9s] vs ≤ 2s, 8 replications".
func describe(pr *Probe) string {
	c := pr.Deciding
	f := func(x float64) string {
		if c.SLO.Figure.IsTime() {
			return secondsText(x)
		}
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	op := "≤"
	if !c.SLO.Figure.IsTime() {
		op = "≥"
	}
	fig := c.SLO.Figure.String()
	if c.SLO.Class != "" {
		fig = c.SLO.Class + "'s " + fig
	}
	return fmt.Sprintf("%s = %s, CI [%s, %s] vs %s %s, %d replications", fig, f(float64(c.Mean)), f(float64(c.CI[0])), f(float64(c.CI[1])), op, f(c.SLO.Threshold), pr.Replications)
}

// secondsText formats seconds with four significant digits and a unit
// ("426ms", "4.672s").
func secondsText(x float64) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.IsInf(x, 0):
		return "∞"
	case x == 0:
		return "0s"
	case math.Abs(x) < 1e-3:
		return strconv.FormatFloat(x*1e6, 'g', 4, 64) + "µs"
	case math.Abs(x) < 1:
		return strconv.FormatFloat(x*1e3, 'g', 4, 64) + "ms"
	}
	return strconv.FormatFloat(x, 'g', 4, 64) + "s"
}

// why says what stops the objectives at the most favourable end of the
// range, probe top, which failed (Answer.Why): the objective that failed
// and the value it reached; whether it levels off there (its interval
// overlaps the one at the next probe short of top, so more of the key
// does not move it) or still moves (the range stops short); and the
// outcome or stage that caps it.
func (s *searcher) why(top *Probe) string {
	c := top.Deciding
	if c.Verdict != Fail {
		return ""
	}
	r := s.p.Range
	f := func(x Number) string {
		if c.SLO.Figure.IsTime() {
			return secondsText(float64(x))
		}
		return strconv.FormatFloat(100*float64(x), 'f', 2, 64) + " %"
	}
	fig := c.SLO.Figure.String()
	if c.SLO.Class != "" {
		fig = c.SLO.Class + "'s " + fig
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s reaches %s [%s, %s] at %s=%s (objective %s)", fig, f(c.Mean), f(c.CI[0]), f(c.CI[1]), r.Key, r.Format(top.Value), c.Name)
	// The probe nearest top on its worse side that checked the same
	// objective.
	var next *Probe
	var nc Check
	for _, pr := range s.probes {
		if pr == top || pr.NotAnAnswer != "" || s.real(pr.Value) >= s.real(top.Value) {
			continue
		}
		if next != nil && s.real(pr.Value) < s.real(next.Value) {
			continue
		}
		for _, x := range pr.Checks {
			if x.Name == c.Name {
				next, nc = pr, x
			}
		}
	}
	if next != nil {
		if nc.CI[1] >= c.CI[0] && c.CI[1] >= nc.CI[0] {
			fmt.Fprintf(&b, ", as at %s=%s (%s): it has levelled off, so no value of %s will meet it", r.Key, r.Format(next.Value), f(nc.Mean), r.Key)
		} else {
			fmt.Fprintf(&b, ", and %s at %s=%s: it still moves with %s, so the range may stop short", f(nc.Mean), r.Key, r.Format(next.Value), r.Key)
		}
	}
	if cause := capOf(top.Summary, c.SLO); cause != "" {
		b.WriteString("; what caps it: " + cause)
	}
	return b.String()
}

// capOf names what holds figure slo back in sum: for success, the
// commonest way runs did not complete; for a time, the stage in which the
// p99 run spends most of its time. "" when sum says nothing.
func capOf(sum *summary.Summary, slo SLO) string {
	if sum == nil || slo.Class != "" {
		return ""
	}
	if slo.Figure == Success {
		runs := sum.Runs
		if runs.Arrived == 0 {
			return ""
		}
		causes := []struct {
			n    int64
			text string
		}{
			{runs.DeadlineExceeded, "the deadline (%s of runs end past it)"},
			{runs.Failed, "errors (%s of runs fail after their retries)"},
			{runs.Refused, "refusals (%s of runs refused by a rate limit, breaker or budget)"},
			{runs.Expired, "runs expiring while queued (%s)"},
			{runs.Rejected, "a full queue (%s of runs rejected at the door)"},
		}
		best := -1
		for i, cs := range causes {
			if cs.n > 0 && (best < 0 || cs.n > causes[best].n) {
				best = i
			}
		}
		if best < 0 {
			return ""
		}
		return fmt.Sprintf(causes[best].text, strconv.FormatFloat(100*float64(causes[best].n)/float64(runs.Arrived), 'f', 2, 64)+" %")
	}
	shares := sum.Tail.Shares()
	best := -1
	for i, sh := range shares {
		if best < 0 || sh > shares[best] {
			best = i
		}
	}
	if best < 0 || sum.Tail.Stages[best].Seconds <= 0 {
		return ""
	}
	return fmt.Sprintf("the p99 run spends %s %% of its time in %s", strconv.FormatFloat(100*shares[best], 'f', 0, 64), sum.Tail.Stages[best].Stage)
}

// roundBetween returns x rounded to the fewest significant digits that
// keep it strictly between a and b (in either order), or x itself.
func roundBetween(a, b, x float64) float64 {
	lo, hi := math.Min(a, b), math.Max(a, b)
	if x == 0 || !(lo < x && x < hi) {
		return x
	}
	for digits := 1; digits <= 15; digits++ {
		y, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', digits, 64), 64)
		if err == nil && lo < y && y < hi {
			return y
		}
	}
	return x
}
