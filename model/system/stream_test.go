package system_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// A streaming call of constTokens takes 1 s to its first token and 10 ms
// for each of its 50 output tokens: it answers at 1.5 s.

// TestStreamCutBillsProducedTokens: a stream the lease cuts at 1.2 s has
// produced 50 × 0.2/0.5 = 20 tokens; the call settles its input and those
// 20 tokens (counted and billed), and nothing stays reserved. Without
// stream the same cut keeps the whole reservation (TestTokensTimedOut…).
func TestStreamCutBillsProducedTokens(t *testing.T) {
	cfg := parseTokens(t, constTokens, "tools.llm.stream=true", "steps=[{name: draft, tool: llm, timeout: 1200ms}]")
	res := system.New(cfg, system.Options{Audit: true}).Run()
	s := summary.Summarize(cfg, []*system.Result{res}, 0.95)
	if s.Runs.Completed != 0 || res.Attempts.StreamCuts != 1000 || res.Attempts.Timeouts != 1000 {
		t.Fatalf("completed %d, stream cuts %d, timeouts %d; want 0, 1000, 1000", s.Runs.Completed, res.Attempts.StreamCuts, res.Attempts.Timeouts)
	}
	if res.Attempts.FirstTokenTimeouts != 0 {
		t.Errorf("first-token timeouts %d: no step sets one", res.Attempts.FirstTokenTimeouts)
	}
	tk := s.Tools[0].Tokens
	if tk.Calls != 1000 || tk.InputTokens != 1000*100 || tk.OutputTokens != 1000*20 {
		t.Errorf("calls %d, input %d, output %d; want 1000, 100000, 20000", tk.Calls, tk.InputTokens, tk.OutputTokens)
	}
	if want := 1000 * (100*0.01 + 20*0.02); s.Cost == nil || math.Abs(s.Cost.Spent-want) > 1e-6 || s.Cost.Unsettled != 0 {
		t.Errorf("cost %+v; want %v spent, nothing unsettled", s.Cost, want)
	}
	if tc := s.Cost.Tokens; math.Abs(tc.Input-1000) > 1e-6 || math.Abs(tc.Output-400) > 1e-6 {
		t.Errorf("token cost by kind %+v; want input 1000, output 400 (20 tokens a cut stream)", tc)
	}
}

// TestFirstTokenTimeout: a first_token_timeout shorter than the time to
// first token cuts every call then, before any token: a timeout whose
// usage is unknown (the reservation stays), not a stream cut; a hung
// stream is cut at the same instant instead of at its 5 s timeout.
func TestFirstTokenTimeout(t *testing.T) {
	for _, tc := range []struct{ name, hang string }{{"slow", "0"}, {"hung", "1"}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := parseTokens(t, constTokens, "tools.llm.stream=true", "tools.llm.hang="+tc.hang, "steps=[{name: draft, tool: llm, timeout: 5s, first_token_timeout: 600ms}]")
			res := system.New(cfg, system.Options{Audit: true}).Run()
			s := summary.Summarize(cfg, []*system.Result{res}, 0.95)
			a := res.Attempts
			if a.Attempts != 1000 || a.FirstTokenTimeouts != 1000 || a.Timeouts != 1000 || a.StreamCuts != 0 {
				t.Fatalf("attempts %+v; want 1000 attempts, each cut by its first-token timeout", a)
			}
			if math.Abs(a.WastedSeconds-600) > 1e-6 {
				t.Errorf("attempt time %v s; want 1000 × 0.6 s", a.WastedSeconds)
			}
			if res.Runs.DeadlineExceeded != 0 {
				t.Errorf("%d runs blamed on the deadline: the first-token timeout cut them", res.Runs.DeadlineExceeded)
			}
			if want := 1000 * (100*0.01 + 80*0.02); s.Cost == nil || math.Abs(s.Cost.Unsettled-want) > 1e-6 || s.Cost.Spent != 0 {
				t.Errorf("cost %+v; want %v held unsettled, nothing spent", s.Cost, want)
			}
			if !slices.ContainsFunc(s.Warnings, func(w string) bool {
				return strings.HasPrefix(w, "100% of the attempts were cut by a first_token_timeout")
			}) {
				t.Errorf("warnings %q: none says the first-token timeout cut every attempt", s.Warnings)
			}
		})
	}
}

// TestFirstTokenTimeoutAtCapacityTool: at a tool with concurrency the
// first-token timer runs from the call's sending, and once the first
// token is in time the call's timer moves to its lease: every call of a
// run every 2 s (never queued) answers at 1.5 s when the timeout is 1.2 s;
// with 0.9 s every call is cut then.
func TestFirstTokenTimeoutAtCapacityTool(t *testing.T) {
	sets := []string{"tools.llm.stream=true", "tools.llm.concurrency=1", "arrivals={process: constant, rate: 0.5/s}"}
	cfg := parseTokens(t, constTokens, append(sets, "steps=[{name: draft, tool: llm, timeout: 5s, first_token_timeout: 1200ms}]")...)
	res := system.New(cfg, system.Options{Audit: true}).Run()
	if res.Runs.Completed != 1000 || res.Attempts.FirstTokenTimeouts != 0 || math.Abs(res.Latency.Max()-1.5) > 1e-6 {
		t.Errorf("completed %d, first-token timeouts %d, latency max %v; want 1000, 0, 1.5 s", res.Runs.Completed, res.Attempts.FirstTokenTimeouts, res.Latency.Max())
	}
	cfg = parseTokens(t, constTokens, append(sets, "steps=[{name: draft, tool: llm, first_token_timeout: 900ms}]")...)
	res = system.New(cfg, system.Options{Audit: true}).Run()
	if res.Runs.Completed != 0 || res.Attempts.FirstTokenTimeouts != 1000 || math.Abs(res.Attempts.WastedSeconds-900) > 1e-6 {
		t.Errorf("completed %d, first-token timeouts %d, attempt time %v; want 0, 1000, 900 s", res.Runs.Completed, res.Attempts.FirstTokenTimeouts, res.Attempts.WastedSeconds)
	}
}

// TestStreamCancelledAfterFirstToken: a parallel step that waits for any
// member cancels the streaming one when the other answers at 1.2 s, after
// its first token: the cancelled stream bills its 20 tokens.
func TestStreamCancelledAfterFirstToken(t *testing.T) {
	cfg := parseTokens(t, constTokens, "tools.llm.stream=true", "tools.quick={latency: {dist: constant, value: 1200ms}}",
		"steps=[{name: both, wait: any, parallel: [{name: a, tool: llm}, {name: b, tool: quick}]}]")
	res := system.New(cfg, system.Options{Audit: true}).Run()
	s := summary.Summarize(cfg, []*system.Result{res}, 0.95)
	if res.Runs.Completed != 1000 || res.Attempts.Cancelled != 1000 || res.Attempts.StreamCuts != 1000 {
		t.Fatalf("completed %d, cancelled %d, stream cuts %d; want 1000 each", res.Runs.Completed, res.Attempts.Cancelled, res.Attempts.StreamCuts)
	}
	if tk := s.Tools[0].Tokens; tk.OutputTokens != 1000*20 {
		t.Errorf("output tokens %d; want 20 per cancelled stream", tk.OutputTokens)
	}
	if want := 1000 * (100*0.01 + 20*0.02); s.Cost == nil || math.Abs(s.Cost.Spent-want) > 1e-6 || s.Cost.Unsettled != 0 {
		t.Errorf("cost %+v; want %v spent, nothing unsettled", s.Cost, want)
	}
}
