package generate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"runtime/debug"

	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// Violation is an invariant a generated scenario broke.
type Violation struct {
	// Seed is the generator seed, YAML the scenario's text.
	Seed uint64
	YAML []byte
	// Invariant names the law ("panic", "audit", "runs conserved", …);
	// Detail says how it was broken.
	Invariant string
	Detail    string
}

// Error names the seed, the invariant and the scenario.
func (v *Violation) Error() string {
	return fmt.Sprintf("generator seed %d: %s: %s\n--- scenario:\n%s", v.Seed, v.Invariant, v.Detail, v.YAML)
}

// Check simulates d and checks the invariants every scenario must keep:
//
//   - the simulation does not panic, and its own audit
//     (system.Options.Audit: permits, reservations and timers given
//     back, a tool's calls within its concurrency, a tenant's runs within
//     max_in_flight, ledgers that balance) finds nothing;
//   - a scenario bounded by runs measures every run past the warm-up;
//   - runs are conserved (arrived = ended + in flight), pooled and per
//     class, and the classes add up to the pool; when the simulation ran
//     to its end, no run is left in flight (unless a call may hang with
//     neither a timeout nor a deadline: then its run never ends);
//   - attempts are conserved: every dialed attempt has one outcome (ok,
//     timeout, 503, 429, permanent, or cancelled by its group or hedge)
//     once the simulation has run to its end, never more outcomes than
//     attempts, the refusals add up to their reasons, and the groups'
//     cancellations to the attempts cancelled;
//   - per tool: no more served than called, no more wasted than busy,
//     and on average no more in service than its concurrency; without a
//     warm-up, the attempts of an open workload are the calls the tools
//     got, their cache hits and their rate limiters' 429s;
//   - per group: no more groups decided than runs arrived, no fewer than
//     runs completed, and no more hedges than max_attempts − 1 per group;
//   - cost: spent, unsettled and wasted are ≥ 0, wasted ≤ spent, the
//     classes' costs add up to the spend, and a scenario budget is never
//     exceeded;
//   - Little's law holds as an identity (L = λW) once every run has ended;
//   - the summary of two replications is the same, byte for byte, on one
//     goroutine or two, and a replication run with a spare core (the
//     draw-ahead) gives the same as without.
//
// It returns nil, or a *Violation naming the first broken law.
func Check(d *Drawn) error {
	inv, detail := CheckConfig(d.Config())
	if inv == "" {
		return nil
	}
	return &Violation{Seed: d.Seed, YAML: d.YAML, Invariant: inv, Detail: detail}
}

// CheckConfig is Check on a compiled configuration: it returns the broken
// invariant's name and how it was broken, or "" when every one holds.
func CheckConfig(cfg *system.Config) (invariant, detail string) {
	var results [2]*system.Result
	for i := range results {
		res, audit, p := runOne(cfg, i)
		if p != "" {
			return "panic", fmt.Sprintf("replication %d: %s", i, p)
		}
		if audit != nil {
			return "audit", fmt.Sprintf("replication %d: %v", i, audit)
		}
		if inv, d := checkResult(cfg, res); inv != "" {
			return inv, fmt.Sprintf("replication %d: %s", i, d)
		}
		results[i] = res
	}
	// The replications do not panic when run alone (above), so running
	// them on goroutines cannot take the process down.
	one, err := json.Marshal(summary.Summarize(cfg, results[:], 0.95))
	if err != nil {
		return "determinism", err.Error()
	}
	two, err := Fingerprint(cfg, 2)
	if err != nil {
		return "determinism", err.Error()
	}
	if !bytes.Equal(one, two) {
		return "determinism", "the summary of 2 replications run one after the other with the audit on differs from 2 run on 2 goroutines without it:\n" + firstDiff(one, two)
	}
	spare := replicate.All(cfg, 1, 2, system.Options{})[0] // SpareCore: draws ahead on a second goroutine
	a, _ := json.Marshal(summary.Summarize(cfg, []*system.Result{spare}, 0.95))
	b, _ := json.Marshal(summary.Summarize(cfg, results[:1], 0.95))
	if !bytes.Equal(a, b) {
		return "determinism", "replication 0 with a spare core (draw-ahead) differs from without:\n" + firstDiff(b, a)
	}
	return "", ""
}

// Fingerprint returns the JSON of the summary of two replications of cfg
// run on the given number of goroutines: the bytes that must not depend
// on the goroutines nor on GOMAXPROCS.
func Fingerprint(cfg *system.Config, workers int) ([]byte, error) {
	return json.Marshal(summary.Summarize(cfg, replicate.All(cfg, 2, workers, system.Options{}), 0.95))
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("at byte %d: %q\nvs %q", i, a[lo:min(len(a), i+80)], b[lo:min(len(b), i+80)])
}

// runOne runs replication i of cfg with the audit on, recovering a panic.
func runOne(cfg *system.Config, i int) (res *system.Result, audit error, panicked string) {
	defer func() {
		if v := recover(); v != nil {
			panicked = fmt.Sprintf("%v\n%s", v, debug.Stack())
		}
	}()
	m := system.New(cfg, system.Options{Replication: i, Audit: true})
	res = m.Run()
	return res, m.Audit(), ""
}

// tolerance is the rounding slack of sums of float64 seconds or costs:
// relative 1e-9, with an absolute floor.
func tolerance(x float64) float64 { return float64(1e-9*math.Abs(x)) + 1e-9 }

// checkResult checks the laws of one result.
func checkResult(cfg *system.Config, res *system.Result) (string, string) {
	// drained: every run had the chance to end. A call that hangs with
	// neither a timeout nor a deadline never ends, nor does its run, and
	// the simulation ends when nothing else is left to happen.
	drained := res.Stopped == "" && !mayHangForever(cfg)
	r := res.Runs
	if err := r.Check(); err != nil {
		return "runs conserved", fmt.Sprintf("%v (%+v)", err, r)
	}
	if drained && r.InFlight != 0 {
		return "runs drained", fmt.Sprintf("the simulation ended on its own with %d runs in flight (%+v)", r.InFlight, r)
	}
	// A scenario bounded by runs measures all but the warm-up's, once
	// the simulation ran to its end (a closed population's runs past
	// runs are not measured).
	if res.Stopped == "" && cfg.Horizon == 0 && cfg.WarmupTime == 0 && cfg.Arrivals.Process != system.Closed && r.Arrived != cfg.Runs-cfg.WarmupRuns {
		return "runs arrive", fmt.Sprintf("%d runs measured, the scenario has %d after a warm-up of %d", r.Arrived, cfg.Runs-cfg.WarmupRuns, cfg.WarmupRuns)
	}
	if len(res.Classes) > 0 {
		var sum system.Counts
		var att, retries int64
		var cost float64
		for i, c := range res.Classes {
			if err := c.Runs.Check(); err != nil {
				return "runs conserved per class", fmt.Sprintf("class %s: %v (%+v)", cfg.Classes[i].Name, err, c.Runs)
			}
			sum.Arrived += c.Runs.Arrived
			sum.Completed += c.Runs.Completed
			sum.Rejected += c.Runs.Rejected
			sum.Expired += c.Runs.Expired
			sum.Refused += c.Runs.Refused
			sum.DeadlineExceeded += c.Runs.DeadlineExceeded
			sum.Failed += c.Runs.Failed
			sum.InFlight += c.Runs.InFlight
			att += c.Attempts
			retries += c.Retries
			cost += c.Cost
		}
		if sum != r {
			return "classes add up", fmt.Sprintf("the classes' runs %+v, the pool's %+v", sum, r)
		}
		if att != res.Attempts.Attempts || retries != res.Attempts.Retries {
			return "classes add up", fmt.Sprintf("the classes' attempts %d and retries %d, the pool's %d and %d", att, retries, res.Attempts.Attempts, res.Attempts.Retries)
		}
		if math.Abs(cost-res.Cost.Spent) > tolerance(res.Cost.Spent) {
			return "classes add up", fmt.Sprintf("the classes' cost %v, the pool's spend %v", cost, res.Cost.Spent)
		}
	}

	a := res.Attempts
	outcomes := a.OK + a.Timeouts + a.Transient + a.RateLimited + a.Permanent + a.Overloaded + a.Cancelled
	if outcomes > a.Attempts || (drained && outcomes != a.Attempts) {
		return "attempts conserved", fmt.Sprintf("%d attempts dialed, %d outcomes (ok %d + timeouts %d + 503 %d + 429 %d + permanent %d + overloaded %d + cancelled %d)%s",
			a.Attempts, outcomes, a.OK, a.Timeouts, a.Transient, a.RateLimited, a.Permanent, a.Overloaded, a.Cancelled, map[bool]string{true: " after the simulation ran to its end", false: ""}[drained])
	}
	if a.Retries > a.Attempts {
		return "attempts conserved", fmt.Sprintf("%d retries of %d attempts", a.Retries, a.Attempts)
	}
	if reasons := a.RefusedLease + a.RefusedTokenWait + a.RefusedLimit + a.RefusedBreaker + a.RefusedWindow + res.Cost.Refused; a.Refused != reasons {
		return "refusals add up", fmt.Sprintf("%d refused, reasons add to %d (lease %d, token wait %d, limit %d, breaker %d, window %d, cost %d)",
			a.Refused, reasons, a.RefusedLease, a.RefusedTokenWait, a.RefusedLimit, a.RefusedBreaker, a.RefusedWindow, res.Cost.Refused)
	}
	if what, detail := checkLoops(cfg, res); what != "" {
		return what, detail
	}
	// A group in an agent loop is decided at most once per turn; a run
	// may answer before reaching it.
	turns := func(gi int) (most int64, skippable bool) {
		st := cfg.Steps[cfg.Groups[gi].First]
		if st.Loop == 0 {
			return 1, false
		}
		l := cfg.Loops[st.Loop-1]
		return int64(l.MaxTurns), l.Answer > 0 && cfg.Groups[gi].First != l.First
	}
	var cancelled int64
	for i, g := range res.Groups {
		cancelled += g.Cancelled
		most, _ := turns(i)
		if g.Satisfied < 0 || g.Failed < 0 || g.Satisfied+g.Failed > r.Arrived*most {
			return "groups conserved", fmt.Sprintf("group %d: %d satisfied + %d failed of %d runs arrived, at most %d turns each", i, g.Satisfied, g.Failed, r.Arrived, most)
		}
		hedges := int64(0) // the most hedges a group may launch after its first attempt
		if h := cfg.Groups[i].Hedge; h != nil {
			hedges = int64(h.MaxAttempts - 1)
		}
		if g.Hedges < 0 || g.Hedges > hedges*(g.Satisfied+g.Failed+r.InFlight) {
			return "groups conserved", fmt.Sprintf("group %d: %d hedges for %d groups decided and %d runs in flight, at most %d each", i, g.Hedges, g.Satisfied+g.Failed, r.InFlight, hedges)
		}
	}
	// Every completed run decided every group of its plan: with no class
	// plan of its own, the top-level plan's.
	if drained && r.InFlight == 0 && len(cfg.PlanSteps()) == len(cfg.Steps) {
		for i, g := range res.Groups {
			if _, skippable := turns(i); !skippable && g.Satisfied+g.Failed < r.Completed {
				return "groups conserved", fmt.Sprintf("group %d: %d satisfied + %d failed, but %d runs completed the plan", i, g.Satisfied, g.Failed, r.Completed)
			}
		}
	}
	if cancelled != a.Cancelled {
		return "groups conserved", fmt.Sprintf("the groups cancelled %d calls, the attempts %d", cancelled, a.Cancelled)
	}

	// A tool's figures cover the measured window: calls that reached it
	// in the warm-up may be served in it.
	warm := cfg.WarmupRuns == 0 && cfg.WarmupTime == 0
	for i, ts := range res.Tools {
		name := cfg.Tools[i].Name
		switch {
		case warm && (ts.Served > ts.Calls || ts.Dropped > ts.Calls) || ts.Calls < 0:
			return "tool counts", fmt.Sprintf("tool %s: %d calls, %d served, %d dropped", name, ts.Calls, ts.Served, ts.Dropped)
		case ts.BusySeconds < 0 || ts.WastedSeconds < 0 || ts.WastedSeconds > ts.BusySeconds+tolerance(ts.BusySeconds):
			return "tool counts", fmt.Sprintf("tool %s: busy %vs, wasted %vs", name, ts.BusySeconds, ts.WastedSeconds)
		case cfg.Tools[i].Concurrency > 0 && ts.MeanBusy > float64(cfg.Tools[i].Concurrency)+1e-9:
			return "tool concurrency", fmt.Sprintf("tool %s: %v calls in service on average, concurrency %d", name, ts.MeanBusy, cfg.Tools[i].Concurrency)
		}
	}

	// Without a warm-up, every open run is measured and the tools see
	// exactly the measured attempts: each reached the tool (Calls), was
	// answered by its cache, or was turned away by its rate limiter with
	// a 429. (A closed population's runs past runs are not measured.)
	if drained && warm && cfg.Arrivals.Process != system.Closed {
		var calls, hits, limited int64
		for _, ts := range res.Tools {
			calls += ts.Calls
			hits += ts.CacheHits
			limited += ts.RateLimited
		}
		if calls+hits+limited != a.Attempts {
			return "attempts reach the tools", fmt.Sprintf("%d attempts dialed; the tools got %d calls + %d cache hits + %d turned away by their rate limit = %d",
				a.Attempts, calls, hits, limited, calls+hits+limited)
		}
	}

	c := res.Cost
	switch {
	case c.Spent < 0 || c.Unsettled < 0 || c.Wasted < 0:
		return "cost", fmt.Sprintf("spent %v, unsettled %v, wasted %v: none may be negative", c.Spent, c.Unsettled, c.Wasted)
	case c.Wasted > c.Spent+tolerance(c.Spent):
		return "cost", fmt.Sprintf("wasted %v above spent %v", c.Wasted, c.Spent)
	case cfg.ScenarioBudget > 0 && c.Spent+c.Unsettled > cfg.ScenarioBudget.Float64()+tolerance(cfg.ScenarioBudget.Float64()):
		return "cost", fmt.Sprintf("spent %v + unsettled %v above the scenario budget %v", c.Spent, c.Unsettled, cfg.ScenarioBudget.Float64())
	}

	if drained && r.InFlight == 0 && r.Ended() > 0 {
		if w := res.Window.Seconds(); w > 0 {
			lw := float64(r.Arrived) / w * res.SojournSum / float64(r.Ended())
			if d := lw - res.TimeAvgInSystem; math.Abs(d) > float64(1e-9*res.TimeAvgInSystem)+1e-12 {
				return "Little's law", fmt.Sprintf("λW = %v, time-average L = %v", lw, res.TimeAvgInSystem)
			}
		}
	}
	return "", ""
}

// mayHangForever reports whether a call of cfg may never end: a tool may
// hang (its hang rate, an outage or a script), and some step has no
// timeout while some run has no deadline.
func mayHangForever(cfg *system.Config) bool {
	hangs := false
	for _, t := range cfg.Tools {
		hangs = hangs || t.Errors.Hang > 0
		for _, o := range t.Outages {
			hangs = hangs || o.Mode == retry.Timeout
		}
		for _, e := range t.Script {
			hangs = hangs || e.Outcome == retry.Timeout
		}
	}
	if !hangs || cfg.EveryRunHasDeadline() {
		return false
	}
	for _, st := range cfg.PlanSteps() {
		if st.Timeout <= 0 {
			return true
		}
	}
	return false
}

// checkLoops checks the agent loops' figures: turns within 1 … max_turns,
// at most one loop exit per run arrived, and an answer loop's runs left
// either by an answer or at max_turns.
func checkLoops(cfg *system.Config, res *system.Result) (string, string) {
	r := res.Runs
	var refused int64
	for i, lr := range res.Loops {
		l := cfg.Loops[i]
		refused += lr.Refused
		n := int64(lr.Turns.Count())
		switch {
		case n > r.Arrived:
			return "loops conserved", fmt.Sprintf("loop %s: %d runs left it of %d arrived", l.Name, n, r.Arrived)
		case n > 0 && (lr.Turns.Min() < 1 || lr.Turns.Max() > float64(l.MaxTurns)):
			return "loops conserved", fmt.Sprintf("loop %s: turns from %g to %g, max_turns %d", l.Name, lr.Turns.Min(), lr.Turns.Max(), l.MaxTurns)
		case l.Answer > 0 && lr.Answered+lr.MaxTurns != n:
			return "loops conserved", fmt.Sprintf("loop %s: %d answered + %d at max_turns, %d runs left it", l.Name, lr.Answered, lr.MaxTurns, n)
		case l.Answer == 0 && lr.Answered+lr.MaxTurns != 0:
			return "loops conserved", fmt.Sprintf("loop %s: no answer probability, yet %d answered and %d at max_turns", l.Name, lr.Answered, lr.MaxTurns)
		case int64(lr.TurnLatency.Count()) < int64(lr.Turns.Sum())-0:
			return "loops conserved", fmt.Sprintf("loop %s: %d turns completed, the runs that left it took %g", l.Name, lr.TurnLatency.Count(), lr.Turns.Sum())
		}
	}
	if refused != res.Attempts.RefusedWindow {
		return "loops conserved", fmt.Sprintf("the loops' windows refused %d calls, the attempts %d", refused, res.Attempts.RefusedWindow)
	}
	return "", ""
}
