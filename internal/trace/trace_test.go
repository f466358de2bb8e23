package trace

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/model/system"
)

func TestJSONLFields(t *testing.T) {
	var b bytes.Buffer
	tr := NewJSONL(&b)
	tr.Attempt(&system.AttemptRecord{Run: 3, Step: "fetch", Tool: "web", Attempt: 2, Start: 140 * time.Millisecond,
		Granted: 100 * time.Millisecond, Remaining: 860 * time.Millisecond, HasDeadline: true, Outcome: retry.Timeout,
		Latency: 100 * time.Millisecond, Backoff: 30 * time.Millisecond, ResendCount: 1, Decision: "retrying"})
	tr.Run(system.RunRecord{Run: 3, Arrived: 0, Started: -1, Ended: time.Second, Outcome: system.Expired, Deadline: -1})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	var a map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &a); err != nil {
		t.Fatalf("attempt line is not JSON: %v\n%s", err, lines[0])
	}
	want := map[string]any{"event": "attempt", "run": 3.0, "step": "fetch", "attempt": 2.0, "start_s": 0.14, "granted_s": 0.1,
		"remaining_s": 0.86, "outcome": "timeout", "latency_s": 0.1, "backoff_s": 0.03, "resend_count": 1.0}
	for k, v := range want {
		if a[k] != v {
			t.Errorf("%s = %v, want %v", k, a[k], v)
		}
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &r); err != nil {
		t.Fatal(err)
	}
	if r["started_s"] != nil || r["deadline_s"] != nil || r["outcome"] != "expired" {
		t.Errorf("run line %v: a run that never started and has no deadline has null started_s and deadline_s", r)
	}
	if _, ok := r["class"]; ok {
		t.Errorf("run line %v: a run without a class of work has no class field", r)
	}
	b.Reset()
	tr.Run(system.RunRecord{Run: 4, Started: -1, Deadline: -1, Class: "research"})
	r = nil
	if err := json.Unmarshal(b.Bytes(), &r); err != nil || r["class"] != "research" {
		t.Errorf("run line %s (%v): want class research", b.String(), err)
	}
}

// TestChromeFormat: the Trace Event format Perfetto reads: a traceEvents
// array of complete ("X") events with ts and dur in microseconds.
func TestChromeFormat(t *testing.T) {
	var b bytes.Buffer
	c := NewChrome(&b)
	c.Attempt(&system.AttemptRecord{Run: 1, Step: "s", Attempt: 1, Start: time.Millisecond, Latency: 2 * time.Millisecond, Backoff: 3 * time.Millisecond, Outcome: retry.Transient})
	c.Run(system.RunRecord{Run: 1, Arrived: 0, Started: 500 * time.Microsecond, Ended: 10 * time.Millisecond, Outcome: system.Completed, Deadline: time.Second})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string   `json:"name"`
			Ph   string   `json:"ph"`
			Ts   float64  `json:"ts"`
			Dur  *float64 `json:"dur"`
			Tid  int64    `json:"tid"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range doc.TraceEvents {
		got[e.Name] = e.Ph
		if e.Ph == "X" && e.Dur == nil {
			t.Errorf("%s: complete event without dur", e.Name)
		}
		if e.Name == "backoff" && (e.Ts != 3000 || *e.Dur != 3000) {
			t.Errorf("backoff at %v µs for %v µs, want 3000 and 3000", e.Ts, *e.Dur)
		}
	}
	for name, ph := range map[string]string{"s #1 transient": "X", "backoff": "X", "queued": "X", "run completed": "X", "deadline": "i"} {
		if got[name] != ph {
			t.Errorf("event %q has ph %q, want %q (events: %v)", name, got[name], ph, got)
		}
	}
}

// TestChromeStreams: the Chrome trace is written as records come, not held
// until the end (memory would grow with the traced runs), and Close
// completes the same document an all-at-once encoding gives.
func TestChromeStreams(t *testing.T) {
	var b bytes.Buffer
	c := NewChrome(&b)
	for i := range int64(1000) {
		c.Run(system.RunRecord{Run: i, Arrived: 0, Started: 0, Ended: time.Millisecond, Outcome: system.Completed, Deadline: -1})
	}
	if b.Len() == 0 {
		t.Fatal("nothing written after 1000 records: the trace is held in memory")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents     []map[string]any `json:"traceEvents"`
		DisplayTimeUnit string           `json:"displayTimeUnit"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.TraceEvents) != 1000 || doc.DisplayTimeUnit != "ms" {
		t.Fatalf("decoded %d events, unit %q, err %v; want 1000, ms", len(doc.TraceEvents), doc.DisplayTimeUnit, err)
	}
	var empty bytes.Buffer
	if err := NewChrome(&empty).Close(); err != nil || empty.String() != "{\"traceEvents\":[],\"displayTimeUnit\":\"ms\"}\n" {
		t.Fatalf("empty trace %q, %v", empty.String(), err)
	}
}
