package observe_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/budgetsim/budgetsim/calibrate/internal/synth"
	"github.com/budgetsim/budgetsim/calibrate/observe"
)

func write(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A tool service whose clock runs a minute ahead puts its spans outside their
// run's root: they are moved back inside, counted, and their durations kept.
func TestClockSkew(t *testing.T) {
	a := synth.Default(200, 9)
	plain, _, err := synth.Trace(a)
	if err != nil {
		t.Fatal(err)
	}
	a.Skew = time.Minute // beyond any run
	skewed, _, err := synth.Trace(a)
	if err != nil {
		t.Fatal(err)
	}
	p, err := observe.Observe([]string{write(t, plain)}, observe.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := observe.Observe([]string{write(t, skewed)}, observe.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tools := s.Tools[1] // m1, search
	if tools.Name != synth.ToolName {
		t.Fatalf("tools %s", tools.Name)
	}
	if p.Skewed != 0 || s.Skewed != tools.Calls || s.Clamped != 0 {
		t.Errorf("skewed %d (plain %d), clamped %d; want every one of %d tool calls moved, none cut", s.Skewed, p.Skewed, s.Clamped, tools.Calls)
	}
	if got, want := tools.Latency.Mean(), p.Tools[1].Latency.Mean(); got != want {
		t.Errorf("mean latency %v with skew, %v without", got, want)
	}
	for i, r := range s.Runs {
		if r.Start != p.Runs[i].Start || r.End != p.Runs[i].End {
			t.Fatalf("run %d: [%d, %d] with skew, [%d, %d] without", i, r.Start, r.End, p.Runs[i].Start, p.Runs[i].End)
		}
	}
}

// A trace whose root spans were lost (a partial trace) still gives its
// runs, from the extent of their calls, and counts them as partial.
func TestPartialTrace(t *testing.T) {
	data, _, err := synth.Trace(synth.Default(100, 4))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(line)
		if err != nil {
			t.Fatal(err)
		}
		td.ResourceSpans().RemoveIf(func(rs ptrace.ResourceSpans) bool {
			rs.ScopeSpans().RemoveIf(func(ss ptrace.ScopeSpans) bool {
				ss.Spans().RemoveIf(func(s ptrace.Span) bool { return strings.HasPrefix(s.Name(), "invoke_agent") })
				return false
			})
			return false
		})
		b, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		out.Write(b)
		out.WriteByte('\n')
	}
	o, err := observe.Observe([]string{write(t, out.Bytes())}, observe.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Runs) != 100 || o.Partial != 100 {
		t.Fatalf("%d runs, %d partial; want 100, all partial", len(o.Runs), o.Partial)
	}
	for _, r := range o.Runs {
		if len(r.Steps) != 3 || r.End <= r.Start {
			t.Fatalf("run %+v", r)
		}
	}
}

// The same files give the same observation, and samples stay within
// their bound.
func TestBoundedAndDeterministic(t *testing.T) {
	data, _, err := synth.Trace(synth.Default(300, 2))
	if err != nil {
		t.Fatal(err)
	}
	p := write(t, data)
	a, err := observe.Observe([]string{p}, observe.Options{Seed: 3, MaxSamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := observe.Observe([]string{p}, observe.Options{Seed: 3, MaxSamples: 50})
	for i, tl := range a.Tools {
		if len(tl.Latency.Values()) != 50 || tl.Latency.N() < 300 {
			t.Errorf("%s: %d samples of %d", tl.Name, len(tl.Latency.Values()), tl.Latency.N())
		}
		for j, v := range tl.Latency.Values() {
			if b.Tools[i].Latency.Values()[j] != v {
				t.Fatalf("%s: sample %d differs between two reads", tl.Name, j)
			}
		}
	}
}

// Parallel calls of one tool, one failing and retried: with
// http.request.resend_count the retry joins the call it repeats, and the
// other call stays a step of its own (the order of starts alone would fold
// the second call into the failed first).
func TestResendCountFoldsRetries(t *testing.T) {
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	tid := [16]byte{1}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	add := func(k byte, op, tool string, from, to time.Duration, status, resend int) {
		s := spans.AppendEmpty()
		s.SetTraceID(tid)
		s.SetSpanID([8]byte{k})
		s.SetParentSpanID([8]byte{9})
		s.SetName(op + " " + tool)
		s.SetStartTimestamp(pcommonTS(base.Add(from)))
		s.SetEndTimestamp(pcommonTS(base.Add(to)))
		a := s.Attributes()
		a.PutStr("gen_ai.operation.name", op)
		if op == "chat" {
			a.PutStr("gen_ai.request.model", tool)
		} else {
			a.PutStr("gen_ai.tool.name", tool)
		}
		a.PutInt("http.response.status_code", int64(status))
		a.PutInt("http.request.resend_count", int64(resend))
	}
	add(1, "chat", "m", 0, time.Second, 200, 0)
	add(2, "execute_tool", "read", 1100*time.Millisecond, 1200*time.Millisecond, 503, 0)
	add(3, "execute_tool", "read", 1150*time.Millisecond, 1300*time.Millisecond, 200, 0)
	add(4, "execute_tool", "read", 1400*time.Millisecond, 1500*time.Millisecond, 200, 1)
	add(5, "chat", "m", 1600*time.Millisecond, 2*time.Second, 200, 0)
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	o, err := observe.Observe([]string{write(t, append(b, '\n'))}, observe.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	steps := o.Runs[0].Steps
	var got []string
	for _, s := range steps {
		got = append(got, fmt.Sprintf("%s×%d", s.Tool, s.Attempts))
	}
	if want := "m×1 read×2 read×1 m×1"; strings.Join(got, " ") != want {
		t.Errorf("steps %s, want %s", strings.Join(got, " "), want)
	}
	// The retried step is the first read (its last attempt the retry, at
	// 1.4 s); the second read (1.15 s) is its own step. Folding by order
	// alone would give the second read two attempts.
	if steps[1].Failed || steps[1].Chat || steps[1].Start != base.Add(1400*time.Millisecond).UnixNano() || steps[2].Start != base.Add(1150*time.Millisecond).UnixNano() {
		t.Errorf("steps %+v", steps)
	}
}

func pcommonTS(t time.Time) pcommon.Timestamp { return pcommon.NewTimestampFromTime(t) }
