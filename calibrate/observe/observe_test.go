package observe_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
