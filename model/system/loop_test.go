package system_test

import (
	"math"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// agent is a scenario of one agent loop on an unloaded system: a model
// call of constant time and output, then a search of constant time, in
// each turn. LOOP is replaced by the loop's own keys.
const agent = `
name: agent
seed: 7
runs: 20000
warmup: 0
arrivals: {rate: 2/s}
workers: 1000
steps:
  - name: agent
    loop:
      LOOP
      steps:
        - {name: think, tool: llm}
        - {name: act, tool: search}
tools:
  llm:
    latency: {dist: constant, value: 200ms}
    tokens: {input: {dist: constant, value: 10}, output: {dist: constant, value: 100}}
  search:
    latency: {dist: constant, value: 100ms}
    result_tokens: {dist: constant, value: 400}
`

func agentConfig(t *testing.T, loop string, sets ...string) *system.Config {
	t.Helper()
	sc, err := scenarios.Parse("agent.yaml", []byte(strings.Replace(agent, "LOOP", loop, 1)), sets, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Config
}

// within fails unless got is within z standard errors of want.
func within(t *testing.T, what string, got, want, se float64) {
	t.Helper()
	if math.Abs(got-want) > 4*se {
		t.Errorf("%s = %.5g, want %.5g ± %.3g (4 standard errors)", what, got, want, 4*se)
	}
}

// TestLoopStopTurns: with a stop probability p after each turn and
// max_turns N, the turns are geometric truncated at N, of mean
// (1 − (1−p)^N)/p, and on an unloaded system a run takes E[turns] ×
// E[turn] (each turn is a 200 ms model call and a 100 ms search).
func TestLoopStopTurns(t *testing.T) {
	const p, n = 0.25, 12
	res := audited(t, agentConfig(t, "max_turns: 12\n      stop: 0.25"))
	q := 1 - p
	mean := (1 - math.Pow(q, n)) / p
	// The variance of the truncated geometric, from its first two moments.
	var m2 float64
	for k := 1; k <= n; k++ {
		pk := math.Pow(q, float64(k-1)) * p
		if k == n {
			pk = math.Pow(q, n-1)
		}
		m2 += float64(k*k) * pk
	}
	l := res.Loops[0]
	runs := float64(l.Turns.Count())
	if runs != float64(res.Runs.Completed) || res.Runs.Completed != res.Runs.Arrived {
		t.Fatalf("%v runs left the loop, %d completed of %d: every run should", runs, res.Runs.Completed, res.Runs.Arrived)
	}
	se := math.Sqrt((m2 - mean*mean) / runs)
	within(t, "mean turns", l.Turns.Mean(), mean, se)
	within(t, "mean run time", res.Latency.Mean(), 0.3*mean, 0.3*se)
	if got := l.TurnLatency.Mean(); math.Abs(got-0.3) > 1e-9 {
		t.Errorf("turn latency %v, want 0.3 s", got)
	}
}

// TestLoopContextGrowth: with s system tokens, no task tokens and g
// tokens appended per turn (a model output of 100 and a search result of
// 400), a run of n turns sends n·s + g·n(n−1)/2 input tokens. With n
// fixed every run sends exactly that; with n drawn, the mean over the
// turn distribution.
func TestLoopContextGrowth(t *testing.T) {
	const s, g = 1500.0, 500.0
	sent := func(n float64) float64 { return n*s + g*n*(n-1)/2 }
	t.Run("fixed", func(t *testing.T) {
		res := audited(t, agentConfig(t, "max_turns: 5\n      context: {system: 1500}"))
		runs := float64(res.Runs.Completed)
		if got, want := float64(res.Tokens[0].Input), runs*sent(5); got != want {
			t.Errorf("input tokens %v, want %v (%v runs × %v)", got, want, runs, sent(5))
		}
		if got, want := res.Loops[0].TurnInput.Mean(), sent(5)/5; math.Abs(got-want) > 1e-6 {
			t.Errorf("input per turn %v, want %v", got, want)
		}
	})
	t.Run("drawn", func(t *testing.T) {
		// round(U(1, 8)): 1 and 8 with probability 1/14, 2 … 7 with 1/7.
		res := audited(t, agentConfig(t, "max_turns: 8\n      turns: {dist: uniform, min: 1, max: 8}\n      context: {system: 1500}"))
		var mean, m2 float64
		for k := 1.0; k <= 8; k++ {
			pk := 1.0 / 7
			if k == 1 || k == 8 {
				pk = 1.0 / 14
			}
			mean += pk * sent(k)
			m2 += pk * sent(k) * sent(k)
		}
		runs := float64(res.Runs.Completed)
		se := math.Sqrt((m2 - mean*mean) / runs)
		within(t, "input tokens per run", float64(res.Tokens[0].Input)/runs, mean, se)
	})
}

// TestLoopAnswer: a model that answers with probability a in each turn
// ends the loop by turn N with probability 1 − (1−a)^N; the others reach
// max_turns. An answer skips the turn's tool call.
func TestLoopAnswer(t *testing.T) {
	const a, n = 0.3, 4
	res := audited(t, agentConfig(t, "max_turns: 4\n      answer: 0.3"))
	l := res.Loops[0]
	runs := float64(l.Turns.Count())
	p := 1 - math.Pow(1-a, n)
	within(t, "share answered", float64(l.Answered)/runs, p, math.Sqrt(p*(1-p)/runs))
	if l.Answered+l.MaxTurns != int64(runs) {
		t.Errorf("%d answered + %d at max_turns ≠ %v runs", l.Answered, l.MaxTurns, runs)
	}
	// Each turn calls the model; each turn without an answer searches.
	calls, searches := res.Tools[0].Calls, res.Tools[1].Calls
	if turns := int64(l.Turns.Sum()); calls != turns || searches != turns-l.Answered {
		t.Errorf("%d model calls and %d searches for %d turns, %d answered", calls, searches, turns, l.Answered)
	}
}

// TestLoopWindow: a system prompt of 1500 and 500 tokens a turn reach a
// 3000-token window at the fifth turn (1500 + 4 × 500 = 3500): refused
// there, or cut to the window.
func TestLoopWindow(t *testing.T) {
	t.Run("refuse", func(t *testing.T) {
		res := audited(t, agentConfig(t, "max_turns: 6\n      context: {system: 1500, window: 3000}"))
		l := res.Loops[0]
		if res.Runs.Refused != res.Runs.Arrived || l.Refused != res.Runs.Arrived || res.Attempts.RefusedWindow != l.Refused {
			t.Errorf("runs refused %d of %d, window refusals %d (attempts %d): want every run refused at its fifth turn", res.Runs.Refused, res.Runs.Arrived, l.Refused, res.Attempts.RefusedWindow)
		}
		if got := res.Tools[0].Calls; got != 4*res.Runs.Arrived {
			t.Errorf("%d model calls, want 4 per run", got)
		}
	})
	t.Run("truncate", func(t *testing.T) {
		res := audited(t, agentConfig(t, "max_turns: 6\n      context: {system: 1500, window: 3000, at_window: truncate}"))
		l := res.Loops[0]
		if res.Runs.Completed != res.Runs.Arrived || l.Truncated != 2*res.Runs.Arrived {
			t.Errorf("completed %d of %d, truncated %d: want every run, two cut calls each", res.Runs.Completed, res.Runs.Arrived, l.Truncated)
		}
		// 1500 + 2000 + 2500 + 3000 + 3000 + 3000.
		if got, want := res.Tokens[0].Input, 15000*res.Runs.Arrived; got != want {
			t.Errorf("input tokens %d, want %d", got, want)
		}
	})
}

// TestLoopDrawsDifferEachTurn: a turn's calls draw anew (the turn is in
// their key), and a scenario without loops keeps its draws: the first
// turn's are those of the same steps without the loop.
func TestLoopDrawsDifferEachTurn(t *testing.T) {
	const lat = "tools.search.latency={dist: exponential, mean: 100ms}"
	looped := audited(t, agentConfig(t, "max_turns: 3", lat, "runs=2000"))
	once := audited(t, agentConfig(t, "max_turns: 1", lat, "runs=2000"))
	if looped.StepLatency[1].Count() != 3*once.StepLatency[1].Count() {
		t.Fatalf("%d searches in 3 turns, %d in one", looped.StepLatency[1].Count(), once.StepLatency[1].Count())
	}
	if math.Abs(looped.StepLatency[1].Mean()-once.StepLatency[1].Mean()) > 0.02 || looped.StepLatency[1].Max() == once.StepLatency[1].Max() && looped.StepLatency[1].Sum() == 3*once.StepLatency[1].Sum() {
		t.Errorf("search latency: 3 turns mean %v (sum %v), one turn %v (sum %v): later turns repeat the first's draws", looped.StepLatency[1].Mean(), looped.StepLatency[1].Sum(), once.StepLatency[1].Mean(), once.StepLatency[1].Sum())
	}
}

// TestLoopParallelToolCalls: each turn the model makes k parallel tool
// calls, k drawn (round of U(0.5, 3.5): 1, 2 or 3 alike), each call's tool
// drawn by weight (search 3 : fetch 1); the turns' calls add up, and the
// tools' shares follow the weights.
func TestLoopParallelToolCalls(t *testing.T) {
	cfg := agentConfig(t, "max_turns: 3", "steps.agent.loop.steps.act={name: act, calls: {dist: uniform, min: 0.5, max: 3.5}, parallel: [{name: c1, choose: [{tool: search, weight: 3}, {tool: fetch}]}, {name: c2, choose: [{tool: search, weight: 3}, {tool: fetch}]}, {name: c3, choose: [{tool: search, weight: 3}, {tool: fetch}]}]}",
		"tools.fetch={latency: {dist: constant, value: 300ms}, result_tokens: {dist: constant, value: 2000}}")
	res := audited(t, cfg)
	turns := float64(3 * res.Runs.Completed)
	search, fetch := float64(res.Tools[1].Calls), float64(res.Tools[2].Calls)
	calls := search + fetch
	// k is 1, 2 or 3 with probability 1/3 each: mean 2, variance 2/3.
	within(t, "tool calls per turn", calls/turns, 2, math.Sqrt(2.0/3/turns))
	within(t, "search's share", search/calls, 0.75, math.Sqrt(0.75*0.25/calls))
	g := res.Groups[0]
	if g.Satisfied != int64(turns) || g.Cancelled != 0 {
		t.Errorf("groups satisfied %d (want %v, one per turn), cancelled %d", g.Satisfied, turns, g.Cancelled)
	}
}

// TestLoopTrace: each traced call of a loop carries its 1-based turn, in
// order, and a step outside loops none.
func TestLoopTrace(t *testing.T) {
	src := strings.Replace(strings.Replace(agent, "LOOP", "max_turns: 3", 1), "\ntools:", "\n  - {name: after, tool: search}\ntools:", 1)
	sc, err := scenarios.Parse("agent.yaml", []byte(src), []string{"runs=50"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, res := traceOf(t, sc.Config)
	if res.Runs.Completed != 50 {
		t.Fatalf("%d of 50 runs completed", res.Runs.Completed)
	}
	next := map[int64]int{}
	for _, a := range rec.attempts {
		switch a.Step {
		case "think":
			next[a.Run]++
			if a.Turn != next[a.Run] {
				t.Fatalf("run %d: think in turn %d, want %d", a.Run, a.Turn, next[a.Run])
			}
		case "act":
			if a.Turn != next[a.Run] {
				t.Fatalf("run %d: act in turn %d after think in turn %d", a.Run, a.Turn, next[a.Run])
			}
		case "after":
			if a.Turn != 0 || next[a.Run] != 3 {
				t.Fatalf("run %d: the step after the loop has turn %d, after %d turns", a.Run, a.Turn, next[a.Run])
			}
		}
	}
}

// TestLoopCompaction: a turn whose context (system + appended) passes
// at × window begins with the compaction call, whose output replaces the
// history. With 1500 system tokens, 500 appended per turn, a 4000-token
// window compacted at 0.75 into 300 tokens, eight turns send
// 1500, 2000, 2500, 3000, then compact 3500 → 300 and send 1800, then
// 2300, 2800, and compact 3300 → 300 and send 1800: 24,500 input tokens,
// 8 × 100 + 2 × 300 output tokens, and 8 × 300 ms + 2 × 200 ms per run.
func TestLoopCompaction(t *testing.T) {
	res := audited(t, agentConfig(t, "max_turns: 8\n      context: {system: 1500, window: 4000, at_window: compact, compact: {output: {dist: constant, value: 300}, at: 0.75}}"))
	runs := res.Runs.Completed
	if runs == 0 || runs != res.Runs.Arrived-res.Runs.InFlight {
		t.Fatalf("completed %d of %d", runs, res.Runs.Arrived)
	}
	if got := res.Loops[0].Compactions; got != 2*runs {
		t.Errorf("compactions %d, want 2 per run (%d)", got, 2*runs)
	}
	if got := res.Tokens[0].Input; got != 24500*runs {
		t.Errorf("input tokens %d, want 24,500 per run (%d)", got, 24500*runs)
	}
	if got := res.Tokens[0].Output; got != 1400*runs {
		t.Errorf("output tokens %d, want 1,400 per run (%d)", got, 1400*runs)
	}
	if got := res.Latency.Max(); math.Abs(got-2.8) > 1e-6 {
		t.Errorf("run latency max %v, want 2.8 s", got)
	}
	if res.Loops[0].Refused != 0 || res.Attempts.RefusedWindow != 0 {
		t.Errorf("window refusals %d: compaction keeps every call within the window", res.Loops[0].Refused)
	}
}

// TestLoopCompactionLoad: the compaction step is named LOOP_compact and
// needs its summary's tokens; compact applies only with at_window:
// compact.
func TestLoopCompactionLoad(t *testing.T) {
	cfg := agentConfig(t, "max_turns: 8\n      context: {system: 1500, window: 4000, at_window: compact, compact: {output: {dist: constant, value: 300}}}")
	if l := cfg.Loops[0]; cfg.Steps[l.First].Name != "agent_compact" || l.Len != 3 || l.Context.CompactAt != 1 || l.Context.AtWindow != system.WindowCompact {
		t.Errorf("loop %+v, first step %q; want agent_compact first of 3, at 1", l, cfg.Steps[l.First].Name)
	}
	for _, tc := range []struct{ ctx, want string }{
		{"{system: 1500, window: 4000, at_window: compact}", "context.compact: required with at_window: compact"},
		{"{system: 1500, window: 4000, compact: {output: {dist: constant, value: 300}}}", "context.compact: applies only with at_window: compact"},
		{"{system: 1500, window: 4000, at_window: compact, compact: {at: 0.5}}", "compact.output: required"},
	} {
		_, err := scenarios.Parse("agent.yaml", []byte(strings.Replace(agent, "LOOP", "max_turns: 8\n      context: "+tc.ctx, 1)), nil, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("context %s: error %v, want one naming %q", tc.ctx, err, tc.want)
		}
	}
}
