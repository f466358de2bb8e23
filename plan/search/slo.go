package search

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/scenarios"
)

// Figure is a measured figure an SLO can bound.
type Figure int

// The figures. Latency is arrival → completion of completed runs; Wait is
// arrival → start of service; Success is completed / arrived.
const (
	LatencyP50 Figure = iota
	LatencyP90
	LatencyP99
	LatencyP999
	LatencyMean
	WaitP50
	WaitP90
	WaitP99
	WaitP999
	WaitMean
	Success
	numFigures
)

var figureNames = [numFigures]string{"p50", "p90", "p99", "p999", "mean", "wait_p50", "wait_p90", "wait_p99", "wait_p999", "wait_mean", "success"}

// String returns the figure's name in the SLO grammar ("p99", "wait_mean",
// "success").
func (f Figure) String() string {
	if f < 0 || f >= numFigures {
		return "Figure(" + strconv.Itoa(int(f)) + ")"
	}
	return figureNames[f]
}

// IsTime reports whether the figure is a time in seconds (bounded above);
// otherwise it is the success rate (bounded below).
func (f Figure) IsTime() bool { return f != Success }

// Quantile returns the probability of a percentile figure (0.99 for p99
// and wait_p99) and false for means and the success rate.
func (f Figure) Quantile() (float64, bool) {
	switch f {
	case LatencyP50, WaitP50:
		return 0.50, true
	case LatencyP90, WaitP90:
		return 0.90, true
	case LatencyP99, WaitP99:
		return 0.99, true
	case LatencyP999, WaitP999:
		return 0.999, true
	}
	return 0, false
}

// SLO is one service-level objective: a time figure at most Threshold
// seconds, or the success rate at least Threshold. With a Class, the
// figure is that class of work's (summary.ClassSummary), else the pooled
// one.
type SLO struct {
	Figure    Figure
	Threshold float64
	Class     string
}

// ParseSLO parses an objective:
//
//	p50|p90|p99|p999|mean <= DURATION        completion time of completed runs
//	wait_p50|…|wait_p999|wait_mean <= DURATION   time until a worker starts the run
//	success >= FRACTION                       completed / arrived, e.g. 0.99 or 99%
//
// Spaces are optional; p99.9 is accepted for p999 and latency_ as a prefix
// of the completion-time figures. Durations need a unit (2s, 250ms). A
// class of work's name and a colon before the objective ("premium:
// p99<=5s") hold that class's runs to it. Errors quote the objective and
// say what is wrong.
func ParseSLO(s string) (SLO, error) {
	in := strings.TrimSpace(s)
	class := ""
	if i := strings.IndexByte(in, ':'); i >= 0 {
		class, in = strings.TrimSpace(in[:i]), strings.TrimSpace(in[i+1:])
		if !className(class) {
			return SLO{}, fmt.Errorf("%q: before the colon goes the name of a class of work, letters, digits, - and _ (e.g. premium: p99<=5s)", s)
		}
	}
	o, err := parseObjective(s, in)
	o.Class = class
	return o, err
}

// parseObjective parses in, the objective s without its class.
func parseObjective(s, in string) (SLO, error) {
	i := strings.IndexAny(in, "<>=")
	if i <= 0 {
		return SLO{}, fmt.Errorf("%q: must be FIGURE<=DURATION (e.g. p99<=2s, wait_p99<=500ms) or success>=FRACTION (e.g. success>=0.99)", s)
	}
	name := strings.ToLower(strings.TrimSpace(in[:i]))
	rest := in[i:]
	op := ""
	for _, o := range []string{"<=", ">=", "<", ">", "="} {
		if strings.HasPrefix(rest, o) {
			op = o
			break
		}
	}
	value := strings.TrimSpace(rest[len(op):])
	name = strings.TrimPrefix(name, "latency_")
	name = strings.ReplaceAll(name, "p99.9", "p999")
	fig := Figure(-1)
	for f, n := range figureNames {
		if n == name {
			fig = Figure(f)
		}
	}
	if fig < 0 {
		return SLO{}, fmt.Errorf("%q: unknown figure %q (use %s)", s, name, strings.Join(figureNames[:], ", "))
	}
	if fig.IsTime() {
		if op != "<=" {
			return SLO{}, fmt.Errorf("%q: %s is a time and is bounded with <=, got %q", s, fig, op)
		}
		d, err := scenarios.ParseDuration(value)
		if err != nil {
			return SLO{}, fmt.Errorf("%q: %v", s, err)
		}
		if d == 0 && fig != WaitP50 && fig != WaitP90 && fig != WaitP99 && fig != WaitP999 && fig != WaitMean {
			return SLO{}, fmt.Errorf("%q: a completion time of 0 cannot be met", s)
		}
		return SLO{Figure: fig, Threshold: d.Seconds()}, nil
	}
	if op != ">=" {
		return SLO{}, fmt.Errorf("%q: success is a fraction bounded with >=, got %q", s, op)
	}
	num := value
	if strings.HasSuffix(num, "%") {
		// "99.9e-2" rounds once, to the float64 nearest 0.999; dividing
		// by 100 would round twice.
		num = strings.TrimSpace(strings.TrimSuffix(num, "%")) + "e-2"
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || !(x > 0 && x <= 1) {
		return SLO{}, fmt.Errorf("%q: the success rate must be a fraction in (0, 1] such as 0.99 or 99%%, got %q", s, value)
	}
	return SLO{Figure: Success, Threshold: x}, nil
}

// String formats the SLO in the grammar ParseSLO reads ("p99<=2s",
// "success>=0.99").
func (s SLO) String() string {
	class := ""
	if s.Class != "" {
		class = s.Class + ": "
	}
	if s.Figure.IsTime() {
		return class + s.Figure.String() + "<=" + durationText(s.Threshold)
	}
	return class + s.Figure.String() + ">=" + strconv.FormatFloat(s.Threshold, 'g', -1, 64)
}

// durationText prints seconds as a Go duration ("500ms", "2s").
func durationText(sec float64) string {
	return time.Duration(math.Round(sec * 1e9)).String()
}

// Verdict is the outcome of checking an objective (or all of them) against
// a probe's confidence interval.
type Verdict int

// The verdicts.
const (
	// Unresolved: the interval straddles the threshold.
	Unresolved Verdict = iota
	// Pass: the whole interval is on the good side of the threshold.
	Pass
	// Fail: the whole interval is on the bad side.
	Fail
)

// String returns "unresolved", "pass" or "fail".
func (v Verdict) String() string {
	switch v {
	case Pass:
		return "pass"
	case Fail:
		return "fail"
	}
	return "unresolved"
}

// MarshalText encodes the verdict as its String.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText reads a verdict written by MarshalText.
func (v *Verdict) UnmarshalText(b []byte) error {
	switch string(b) {
	case "pass":
		*v = Pass
	case "fail":
		*v = Fail
	case "unresolved":
		*v = Unresolved
	default:
		return fmt.Errorf("verdict: want pass, fail or unresolved, got %q", b)
	}
	return nil
}

// Check is one objective checked against a summary.
type Check struct {
	SLO SLO `json:"-"`
	// Name is the objective as text.
	Name string `json:"slo"`
	// Estimate is the pooled figure (from all replications' runs
	// together); CI is the summary's interval over the replications (for a
	// percentile, by sectioning, centred on the pooled figure; for a rate
	// or a mean, the Student-t interval of the per-replication figures),
	// clipped to the figure's range, and Mean its midpoint. The verdict
	// uses CI.
	Estimate Number    `json:"estimate"`
	Mean     Number    `json:"mean"`
	CI       [2]Number `json:"ci"`
	// Verdict compares CI with the threshold; Margin is the relative
	// distance of Mean from the threshold, positive on the good side.
	Verdict Verdict `json:"verdict"`
	Margin  Number  `json:"margin"`
}

// Check compares the objective with sum's figure. The verdict needs the
// confidence interval of at least two replications (with one it is
// Unresolved). A time objective on a summary with no completed (or no
// started) runs fails: nothing met it.
func (s SLO) Check(sum *summary.Summary) Check {
	est, iv, n := figure(classView(sum, s.Class), s.Figure)
	c := Check{SLO: s, Name: s.String(), Estimate: Number(est)}
	if n == 0 && s.Figure.IsTime() {
		inf := Number(math.Inf(1))
		c.Mean, c.CI, c.Verdict, c.Margin = inf, [2]Number{inf, inf}, Fail, -1
		return c
	}
	mean, lo, hi := est, math.Inf(-1), math.Inf(1)
	if iv != nil {
		mean, lo, hi = (iv.Lo+iv.Hi)/2, iv.Lo, iv.Hi
	}
	c.Mean, c.CI = Number(mean), [2]Number{Number(lo), Number(hi)}
	good := func(x float64) bool {
		if s.Figure.IsTime() {
			return x <= s.Threshold
		}
		return x >= s.Threshold
	}
	switch {
	case good(lo) && good(hi):
		c.Verdict = Pass
	case !good(lo) && !good(hi):
		c.Verdict = Fail
	}
	switch {
	case s.Threshold != 0 && s.Figure.IsTime():
		c.Margin = Number((s.Threshold - mean) / s.Threshold)
	case s.Threshold != 0:
		c.Margin = Number((mean - s.Threshold) / s.Threshold)
	case mean <= 0:
		c.Margin = 0
	default:
		c.Margin = -1
	}
	return c
}

// figure returns the pooled estimate of f, its interval over replications
// (nil without one) and the number of samples behind it.
func figure(s *summary.Summary, f Figure) (est float64, iv *summary.Interval, n uint64) {
	c := s.Confidence
	pick := func(p *summary.Percentiles, ci *summary.PercentileIntervals) {
		n = p.N
		var x float64
		var i summary.Interval
		switch f {
		case LatencyP50, WaitP50:
			x, i = p.P50, ci.P50
		case LatencyP90, WaitP90:
			x, i = p.P90, ci.P90
		case LatencyP99, WaitP99:
			x, i = p.P99, ci.P99
		case LatencyP999, WaitP999:
			x, i = p.P999, ci.P999
		default:
			x, i = p.Mean, ci.Mean
		}
		est = x
		if c != nil {
			iv = &i
		}
	}
	var empty summary.PercentileIntervals
	switch {
	case f == Success:
		est, n = s.SuccessRate, uint64(s.Runs.Arrived)
		if c != nil {
			i := c.SuccessRate
			iv = &i
		}
	case f >= WaitP50:
		ci := &empty
		if c != nil {
			ci = &c.Wait
		}
		pick(&s.Wait, ci)
	default:
		ci := &empty
		if c != nil {
			ci = &c.Latency
		}
		pick(&s.Latency, ci)
	}
	return est, iv, n
}

// classView returns the summary whose figures objectives on class are
// checked against: sum itself without a class, else a summary holding the
// class's figures (empty when sum has no such class: nothing met the
// objective).
func classView(sum *summary.Summary, class string) *summary.Summary {
	if class == "" {
		return sum
	}
	c := sum.Classes[class]
	v := &summary.Summary{Runs: c.Runs, SuccessRate: c.SuccessRate, Latency: c.Latency, Wait: c.Wait}
	if ci := c.Confidence; ci != nil {
		v.Confidence = &summary.Confidence{SuccessRate: ci.SuccessRate, Latency: ci.Latency, Wait: ci.Wait}
	}
	return v
}

// CheckClasses returns an error naming the first objective whose class
// names is not among (the scenario's classes).
func CheckClasses(slos []SLO, names []string) error {
	for _, o := range slos {
		if o.Class == "" || slices.Contains(names, o.Class) {
			continue
		}
		if len(names) == 0 {
			return fmt.Errorf("%q: the scenario has no classes of work, so no objective can name one", o.String())
		}
		return fmt.Errorf("%q: unknown class %q (the scenario's classes: %s)", o.String(), o.Class, strings.Join(names, ", "))
	}
	return nil
}

// className reports whether s has the shape of a class's name (letters,
// digits, - and _, as the scenario format requires).
func className(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) < 0
}
