package ingest_test

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/calibrate/ingest"
	"github.com/budgetsim/budgetsim/calibrate/internal/synth"
)

var update = flag.Bool("update", false, "rewrite testdata/agent.otlp.jsonl with the OpenTelemetry SDK")

const fixture = "testdata/agent.otlp.jsonl"

// TestFixture regenerates (with -update) the small checked-in trace made
// by the OpenTelemetry Go SDK, and reads it: every span of its 20 runs,
// with the GenAI attributes the SDK set.
func TestFixture(t *testing.T) {
	if *update {
		data, _, err := synth.Trace(synth.Default(20, 3))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fixture, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs := map[string]int{}
	var chats, tools, agents, errs, retryAfter int
	err := ingest.ReadFile(fixture, ingest.Options{}, func(s *ingest.Span) error {
		runs[s.Run]++
		switch s.Op {
		case ingest.OpChat:
			chats++
			if s.Tool != synth.ModelName || s.InputTokens < 1000 || s.OutputTokens < 1 || s.CachedTokens < 0 || s.TTFT <= 0 || s.HTTPStatus != 200 {
				t.Errorf("line %d: chat span %+v", s.Line, *s)
			}
		case ingest.OpTool:
			tools++
			if s.Tool != synth.ToolName {
				t.Errorf("line %d: tool %q", s.Line, s.Tool)
			}
			if s.Class != ingest.OK {
				errs++
			}
			if s.RetryAfter >= 0 {
				retryAfter++
				if s.RetryAfter != 2 || s.Class != ingest.RateLimited {
					t.Errorf("line %d: Retry-After %v on a %v", s.Line, s.RetryAfter, s.Class)
				}
			}
		case ingest.OpAgent:
			agents++
			if s.Parent != "" {
				t.Errorf("line %d: agent span has a parent", s.Line)
			}
		}
		if s.End < s.Start || s.Start < synth.Start.UnixNano() {
			t.Errorf("line %d: interval [%d, %d]", s.Line, s.Start, s.End)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 20 || agents != 20 || chats != 40 || tools < 20 || tools-errs != 20 {
		t.Errorf("runs %d, agents %d, chats %d, tools %d (%d errors)", len(runs), agents, chats, tools, errs)
	}
}

func TestCallLog(t *testing.T) {
	in := `{"run": "r1", "tool": "search", "start": "2026-11-30T09:00:00Z", "end": "2026-11-30T09:00:00.25Z", "status": 200}
{"run": 2, "tool": "llm", "op": "chat", "start": 1796029200.5, "end": 1796029201.75, "status": "ok", "input_tokens": 1200, "output_tokens": 300, "cached_tokens": 0, "ttft_s": 0.4}

{"run": "r1", "tool": "search", "start": "2026-11-30T09:00:01Z", "end": "2026-11-30T09:00:03Z", "status": 429, "retry_after_s": 1.5}
{"run": "r3", "tool": "search", "start": 1796029200, "end": 1796029230, "status": "error", "error_type": "TimeoutError"}
`
	var got []ingest.Span
	err := ingest.Read(strings.NewReader(in), "calls.jsonl", ingest.Options{}, func(s *ingest.Span) error {
		got = append(got, *s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d calls", len(got))
	}
	if d := got[0].Duration(); d != 0.25 {
		t.Errorf("duration %v", d)
	}
	if g := got[1]; g.Run != "2" || g.Op != ingest.OpChat || g.End-g.Start != int64(1250*time.Millisecond) || g.TTFT != 0.4 || g.InputTokens != 1200 {
		t.Errorf("chat %+v", g)
	}
	if g := got[2]; g.Line != 4 || g.Class != ingest.RateLimited || g.RetryAfter != 1.5 {
		t.Errorf("429 %+v", g)
	}
	if g := got[3]; g.Class != ingest.Timeout {
		t.Errorf("timeout %+v", g)
	}
}

// Bad input is an error naming the file and line, never a panic.
func TestBadInput(t *testing.T) {
	otlp, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	first := string(bytes.SplitN(otlp, []byte("\n"), 2)[0])
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "x.jsonl: no spans: the file is empty"},
		{"not json", "hello\n", "x.jsonl:1: not a call-log line"},
		{"unknown field", `{"run":"a","tool":"t","start":1,"end":2,"colour":"red"}`, `x.jsonl:1: not a call-log line (a JSON object with run, tool, start, end, …; see docs/calibration.md): json: unknown field "colour"`},
		{"no run", "\n\n" + `{"tool":"t","start":1,"end":2}`, "x.jsonl:3: run: missing"},
		{"end before start", `{"run":"a","tool":"t","start":2,"end":1}`, "x.jsonl:1: end is before start"},
		{"bad time", `{"run":"a","tool":"t","start":"yesterday","end":1}`, `x.jsonl:1: start: "yesterday" is not an RFC 3339 timestamp`},
		{"bad status", `{"run":"a","tool":"t","start":1,"end":2,"status":700}`, "x.jsonl:1: status: must be an HTTP status code"},
		{"negative tokens", `{"run":"a","tool":"t","start":1,"end":2,"input_tokens":-3}`, "x.jsonl:1: input_tokens: must be a whole number ≥ 0"},
		{"broken otlp", first + "\n" + `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz"}]}]}]}`, "x.jsonl:2: not OTLP JSON"},
		{"otlp without trace id", `{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "a", "startTimeUnixNano": "1"}]}]}]}`, `x.jsonl:1: span "a" has no traceId`},
		{"too long", strings.Repeat("x", 100), "x.jsonl:1: line longer than 64 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ingest.Read(strings.NewReader(tc.in), "x.jsonl", ingest.Options{MaxLineBytes: 64 + 64*len(first)*boolInt(tc.name != "too long")}, func(*ingest.Span) error { return nil })
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want prefix %q", err, tc.want)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FuzzRead feeds arbitrary bytes to the reader: it returns spans or an
// error, never panics, and every span it returns is well-formed.
func FuzzRead(f *testing.F) {
	otlp, _ := os.ReadFile(fixture)
	f.Add(bytes.SplitN(otlp, []byte("\n"), 2)[0][:2000]) // the start of one request: the fuzzer mutates small inputs best
	f.Add([]byte(`{"run": "r1", "tool": "search", "start": 1.5, "end": 2, "status": 503, "retry_after_s": 1}`))
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"chat","startTimeUnixNano":"5","endTimeUnixNano":"3","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.usage.input_tokens","value":{"doubleValue":1e300}}]}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = ingest.Read(bytes.NewReader(data), "fuzz", ingest.Options{MaxLineBytes: 1 << 16}, func(s *ingest.Span) error {
			if s.Run == "" || s.End < s.Start || s.Line < 1 || s.Class < 0 || s.Class >= ingest.NumClasses {
				t.Fatalf("malformed span %+v", *s)
			}
			if s.InputTokens < -1 || s.OutputTokens < -1 || s.CachedTokens < -1 {
				t.Fatalf("token counts %+v", *s)
			}
			return nil
		})
	})
}
