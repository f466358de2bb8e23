package trace

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// TestChromeOverlaps: the members of a parallel step and the attempts of
// a hedged step run at once; in the Chrome trace every call of a run that
// overlaps another is on a thread of its own, and the slices of one thread
// nest or follow each other (what Perfetto draws on one track).
func TestChromeOverlaps(t *testing.T) {
	sc, err := scenarios.Parse("t.yaml", []byte(`name: overlap
arrivals: {process: batch, count: 3}
workers: 3
retry: {idempotent: true}
steps:
  - name: fetch
    wait: {first: 2}
    parallel:
      - {name: a, tool: slow}
      - {name: b, tool: fast}
      - {name: c, tool: fast}
  - {name: ask, tool: slow, hedge: {delay: 100ms, max_attempts: 3}}
tools:
  slow: {latency: {dist: constant, value: 1s}}
  fast: {latency: {dist: constant, value: 200ms}}
`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	c := NewChrome(&b)
	system.New(sc.Config, system.Options{Tracer: c, TraceRuns: 3}).Run()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Dur  *float64       `json:"dur"`
			Tid  int64          `json:"tid"`
			Cat  string         `json:"cat"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	type slice struct {
		name, cat string
		tid, run  int64
		from, to  float64
	}
	var xs []slice
	named := map[int64]bool{}
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "X":
			run := e.Tid
			if run >= laneBase {
				run = (run - laneBase) / maxLanes
			}
			xs = append(xs, slice{e.Name, e.Cat, e.Tid, run, e.Ts, e.Ts + *e.Dur})
		case "M":
			if e.Name == "thread_name" {
				named[e.Tid] = true
			}
		}
	}
	overlapping := 0
	for i, p := range xs {
		for _, q := range xs[i+1:] {
			if p.from >= q.to || q.from >= p.to {
				continue // disjoint
			}
			if p.tid == q.tid {
				nested := p.from <= q.from && q.to <= p.to || q.from <= p.from && p.to <= q.to
				if !nested {
					t.Errorf("%q and %q overlap on thread %d without nesting", p.name, q.name, p.tid)
				}
			}
			if p.run == q.run && p.cat == "attempt" && q.cat == "attempt" {
				if p.tid == q.tid {
					t.Errorf("calls %q and %q of run %d overlap on one thread", p.name, q.name, p.run)
				}
				overlapping++
			}
		}
	}
	// Per run: the three members overlap pairwise (3 pairs) and the three
	// hedged attempts too (3 pairs).
	if overlapping != 3*6 {
		t.Errorf("%d pairs of calls of a run overlap, want 18", overlapping)
	}
	for _, s := range xs {
		if s.tid >= laneBase && !named[s.tid] {
			t.Errorf("thread %d of %q has no thread_name", s.tid, s.name)
		}
	}
}
