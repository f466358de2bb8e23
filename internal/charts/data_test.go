package charts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/internal/outputs"
)

// open opens a fixture under testdata.
func open(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readSums(t *testing.T, name string) []Summary {
	t.Helper()
	s, err := outputs.ReadSummaries(open(t, name), name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readTraceString(s string) error {
	_, err := ReadTrace(strings.NewReader(s), "f.jsonl")
	return err
}

// TestReadTraceErrors checks that a malformed trace names the file and
// the line.
func TestReadTraceErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"event":"run","run":0,"arrived_s":0,"ended_s":1,"outcome":"completed"}` + "\n{oops\n", "f.jsonl:2: invalid character"},
		{`{"event":"attempt","run":0,"granted_s":1,"latency_s":0.1,"outcome":"ok"}` + "\n", "f.jsonl:1: attempt: missing start_s"},
		{`{"event":"run","run":0,"arrived_s":2,"ended_s":1,"outcome":"completed"}` + "\n", "f.jsonl:1: run: ended_s must be ≥ arrived_s"},
		{`{"event":"other"}` + "\n", `f.jsonl: no "run" lines`},
	} {
		if err := readTraceString(tt.in); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadTrace(%q) error = %v, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

func TestMatchSummaries(t *testing.T) {
	sums := []Summary{{Label: "deadline=1s workers=2"}, {Label: "deadline=1s workers=4"}}
	// CSV labels are in --vary order; position decides.
	m := matchSummaries([]string{"workers=2 deadline=1s", "workers=4 deadline=1s"}, sums)
	if m["workers=4 deadline=1s"] != &sums[1] {
		t.Errorf("matchSummaries by position: workers=4 matched %v, want the second summary", m["workers=4 deadline=1s"])
	}
	if m := matchSummaries([]string{"x"}, sums); len(m) != 0 {
		t.Errorf("matchSummaries with different counts and labels = %v, want no match", m)
	}
}

func TestReadTrace(t *testing.T) {
	tr, err := ReadTrace(open(t, "seed-plan.jsonl"), "seed-plan.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	run, as, err := tr.Run(0)
	if err != nil {
		t.Fatal(err)
	}
	// seed-plan.yaml: the hung fetch is cut by its 100 ms ceiling, then a
	// full-jitter backoff, then the second fetch succeeds.
	if len(as) != 4 || as[1].Step != "fetch" || as[1].Outcome != "timeout" || as[1].Granted != 100*time.Millisecond || as[1].Backoff != 30757780*time.Nanosecond {
		t.Errorf("seed-plan attempts = %+v, want 4 with fetch #1 a 100ms timeout then a 30.75778ms backoff", as)
	}
	if as[0].Backoff != -1 || run.Deadline != time.Second || run.Outcome != "completed" {
		t.Errorf("seed-plan: search backoff %v (want -1: none), deadline %v (want 1s), outcome %q", as[0].Backoff, run.Deadline, run.Outcome)
	}
	if _, _, err := tr.Run(9); err == nil || !strings.Contains(err.Error(), "run: 9 is not in the trace (1 runs traced, ids 0 to 0)") {
		t.Errorf("Trace.Run(9) error = %v, want it to say run 9 is not traced", err)
	}

	// aws-jitter has no deadline: leases are unlimited, remaining is null.
	tr, err = ReadTrace(open(t, "jitter-none.jsonl"), "jitter-none.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if a := tr.Attempts[0]; a.Granted != Unlimited || a.Remaining != -1 {
		t.Errorf("jitter-none first attempt: granted %v, remaining %v, want Unlimited, -1", a.Granted, a.Remaining)
	}
	id, ok := tr.Slowest(nil)
	if !ok || id != 2 {
		t.Errorf("Trace.Slowest(nil) = %d, %v, want 2, true (ended last)", id, ok)
	}
	if _, ok := tr.Slowest(func(r TraceRun) bool { return r.Outcome != "completed" }); ok {
		t.Errorf("Trace.Slowest(not completed) found a run; every jitter-none run completed")
	}
}
