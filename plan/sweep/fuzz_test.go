package sweep_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/sweep"
	"github.com/budgetsim/budgetsim/scenarios"
)

// FuzzDecodeResult feeds arbitrary bytes to DecodeResult, as a damaged or
// hand-edited shard file would: it must return an error, or a result that
// CheckAgainst refuses, or one that summary.Summarize pools without
// panicking or hanging (as Summarize in this package does).
func FuzzDecodeResult(f *testing.F) {
	sc, err := scenarios.Load("aws-jitter", []string{"arrivals.count=20"})
	if err != nil {
		f.Fatal(err)
	}
	cfg := sc.Config
	r := system.New(cfg, system.Options{}).Run()
	b, err := sweep.EncodeResult(r)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	empty, _ := sweep.EncodeResult(&system.Result{})
	f.Add(empty)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := sweep.DecodeResult(data)
		if err != nil || d.CheckAgainst(cfg) != nil {
			return
		}
		summary.Summarize(cfg, []*system.Result{d, r}, 0.95)
	})
}

// TestSummarizeRefusesDamagedResults: a shard whose recorded result does
// not fit the scenario (here: its time series dropped, a per-step table
// cut short) makes Summarize fail with an error naming the point and the
// replication, instead of panicking.
func TestSummarizeRefusesDamagedResults(t *testing.T) {
	path := writeScenario(t, mmcYAML)
	spec := sweep.Spec{Scenario: path, Sets: []string{"runs=500"}, Axes: []sweep.Axis{mustAxis(t, "workers=5,6")}, Replications: 2, Level: 0.95, Shards: 1}
	for _, tc := range []struct {
		name, want string
		damage     func(r *system.Result)
	}{
		{"series", "point workers=6 replication 1: result has no time series", func(r *system.Result) { r.Series = nil }},
		{"steps", "point workers=6 replication 1: result has per-step tables", func(r *system.Result) { r.StepTimeouts = nil }},
	} {
		rec, err := sweep.Run(spec, sweep.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sweep.Summarize(rec); err != nil {
			t.Fatalf("undamaged record: %v", err)
		}
		rep := &rec.Points[1].Results[1]
		r, err := sweep.DecodeResult(rep.Result)
		if err != nil {
			t.Fatal(err)
		}
		tc.damage(r)
		if rep.Result, err = sweep.EncodeResult(r); err != nil {
			t.Fatal(err)
		}
		_, err = sweep.Summarize(rec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Summarize = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// FuzzParseAxis: ParseAxis never panics; an accepted axis has a key, one to
// MaxPoints values, none empty, and — for a list — reads back from its
// values joined by commas.
func FuzzParseAxis(f *testing.F) {
	for _, s := range []string{"workers=10..16:7", "arrivals.rate=1/s..10/s:10", "deadline=100ms..2s:5", "retry.backoff.jitter=none,full",
		"x={a: 1, b: 2},{a: 3}", "workers=1.5..2.5:3", "a=0..1/s:3", "k=1..2:10001", "=1", "k=,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := sweep.ParseAxis(s)
		if err != nil {
			return
		}
		if a.Key == "" || len(a.Values) == 0 || len(a.Values) > sweep.MaxPoints {
			t.Fatalf("ParseAxis(%q) = %+v: no key, or 0 or too many values", s, a)
		}
		for _, v := range a.Values {
			if strings.TrimSpace(v) == "" {
				t.Fatalf("ParseAxis(%q) = %+v: an empty value", s, a)
			}
		}
	})
}

// TestPointDoneMatchesSummarize: a sweep summarised as Run goes gives the
// same summaries, byte for byte, as summarising the whole record at the
// end, whether points are handed on whole (Options.PointDone with
// Summarizer.Add) or replication by replication (Options.Result with
// Summarizer.Result and Done, what simulate sweep does) — with fixed
// replications, under the stop rule, and when an interrupt cuts a point
// short — and the record keeps no results of what it handed on.
func TestPointDoneMatchesSummarize(t *testing.T) {
	path := writeScenario(t, mmcYAML)
	base := sweep.Spec{Scenario: path, Sets: []string{"runs=300", "warmup=10"}, Axes: []sweep.Axis{mustAxis(t, "workers=5,6,7")}, Replications: 3, Level: 0.95, Shards: 1}
	stopRule := base
	stopRule.Replications, stopRule.RelError, stopRule.MaxReplications = 2, 0.2, 8
	wide := stopRule // more points than the stop rule keeps open at once
	wide.Axes = []sweep.Axis{mustAxis(t, "seed=1..20:20")}
	const (
		record  = iota // summarise the record at the end
		byPoint        // PointDone → Summarizer.Add
		byRep          // Result → Summarizer.Result, PointDone → Done
	)
	for _, tc := range []struct {
		name      string
		spec      sweep.Spec
		interrupt int // stop after this many replications (0: never)
	}{{"fixed", base, 0}, {"stop rule", stopRule, 0}, {"stop rule, 20 points", wide, 0}, {"interrupted", base, 4}} {
		run := func(mode int) ([]byte, *sweep.Record, int) {
			var stop atomic.Bool
			opt := sweep.Options{Parallel: 1, Interrupt: &stop, Progress: func(done, _ int) {
				if done == tc.interrupt {
					stop.Store(true)
				}
			}}
			sum, err := sweep.NewSummarizer(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			handed := 0
			switch mode {
			case byPoint:
				opt.PointDone = func(rp *sweep.RawPoint) error { handed++; return sum.Add(rp, false) }
			case byRep:
				opt.Result = sum.Result
				opt.PointDone = func(rp *sweep.RawPoint) error { handed++; return sum.Done(rp, false) }
			}
			rec, err := sweep.Run(tc.spec, opt)
			if err != nil {
				t.Fatal(err)
			}
			var sums []sweep.PointSummary
			if mode == record {
				if sums, err = sweep.Summarize(rec); err != nil {
					t.Fatal(err)
				}
			} else {
				for _, rp := range rec.Points {
					if err := sum.Add(rp, rec.Partial); err != nil {
						t.Fatal(err)
					}
				}
				sums = sum.Summaries(rec.Partial)
			}
			b, _ := json.Marshal(sums)
			return b, rec, handed
		}
		want, _, _ := run(record)
		points := len(sweep.Grid(tc.spec.Axes))
		for _, mode := range []int{byPoint, byRep} {
			got, rec, handed := run(mode)
			if !bytes.Equal(got, want) {
				t.Errorf("%s, mode %d: summaries as Run goes differ from the whole record's:\n%s\nwant\n%s", tc.name, mode, got, want)
			}
			left := 0
			for _, rp := range rec.Points {
				left += len(rp.Results)
			}
			switch {
			case mode == byRep && left != 0:
				t.Errorf("%s: %d results left in the record; Options.Result keeps none", tc.name, left)
			case tc.interrupt == 0 && (handed != points || left != 0):
				t.Errorf("%s, mode %d: %d points handed on, %d results left in the record; want %d and 0", tc.name, mode, handed, left, points)
			case tc.interrupt > 0 && mode == byPoint && left+3*handed != tc.interrupt:
				// Parallel 1, 3 replications a point, stop after 4: the 4
				// results are either handed on with a complete point or
				// still in the record.
				t.Errorf("%s: %d points handed on, %d results left; want %d results in all", tc.name, handed, left, tc.interrupt)
			case tc.interrupt > 0 && handed != 1:
				t.Errorf("%s, mode %d: %d points handed on as complete, want 1 (4 replications, 3 a point)", tc.name, mode, handed)
			}
		}
	}
	sharded := base
	sharded.Shards = 2
	stopped := sharded
	stopped.RelError, stopped.Replications = 0.1, 4
	if _, err := sweep.Run(stopped, sweep.Options{PointDone: func(*sweep.RawPoint) error { return nil }}); err == nil {
		t.Error("Run(shard 0 of 2, stop rule) with PointDone: no error; points close out of order there")
	}
	if _, err := sweep.Run(sharded, sweep.Options{Result: func(*sweep.RawPoint, *system.Result) error { return nil }}); err == nil {
		t.Error("Run(shard 0 of 2) with Result: no error; a shard's record must keep its results")
	}
}

// TestStopRuleKeepsFewPointsOpen: under the stop rule, Run hands on every
// replication of a point before the point closes, in replication order,
// and never has more than a few points open (begun, not closed) at once,
// however large the grid: 100 points that never converge hold the pooled
// figures of 8 per goroutine, not 100.
func TestStopRuleKeepsFewPointsOpen(t *testing.T) {
	spec := sweep.Spec{Scenario: writeScenario(t, mmcYAML), Sets: []string{"runs=50", "warmup=5"}, Axes: []sweep.Axis{mustAxis(t, "seed=1..100:100")},
		Replications: 4, RelError: 1e-9, MaxReplications: 8, Level: 0.95, Shards: 1}
	next := map[int]int{} // point → next replication expected
	closed := map[int]bool{}
	peak := 0
	_, err := sweep.Run(spec, sweep.Options{Parallel: 2,
		Result: func(rp *sweep.RawPoint, r *system.Result) error {
			if closed[rp.Index] {
				t.Errorf("point %d: a replication after it closed", rp.Index)
			}
			next[rp.Index]++
			peak = max(peak, len(next)-len(closed))
			return nil
		},
		PointDone: func(rp *sweep.RawPoint) error {
			if next[rp.Index] != 8 || rp.Planned != 8 || !strings.Contains(rp.Note, "not reached after 8 replications") {
				t.Errorf("point %d closed after %d replications (planned %d, note %q); want 8, at the cap", rp.Index, next[rp.Index], rp.Planned, rp.Note)
			}
			closed[rp.Index] = true
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(closed) != 100 || peak > 16 || peak < 2 {
		t.Errorf("%d points closed, at most %d open at once; want 100 and between 2 and 16 (8 per goroutine)", len(closed), peak)
	}
}

// TestPointDoneStreams: on a grid larger than one chunk of work, points are
// handed on (and their results dropped) while later points still run, not
// all at the end.
func TestPointDoneStreams(t *testing.T) {
	spec := sweep.Spec{Scenario: writeScenario(t, mmcYAML), Sets: []string{"runs=50", "warmup=5"}, Axes: []sweep.Axis{mustAxis(t, "seed=1..300:300")}, Replications: 1, Level: 0.95, Shards: 1}
	handed, handedAtLast := 0, -1
	_, err := sweep.Run(spec, sweep.Options{Parallel: 1,
		PointDone: func(*sweep.RawPoint) error { handed++; return nil },
		Progress: func(done, scheduled int) {
			if done == scheduled {
				handedAtLast = handed
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if handed != 300 || handedAtLast <= 0 {
		t.Fatalf("%d points handed on, %d of them before the last replication ran; want 300 and most", handed, handedAtLast)
	}
}

// TestStopRuleInterrupted: an interrupt under the stop rule leaves the
// points it had not closed marked partial, saying the stop rule had not
// closed them, whether the point's batch was cut (2 of 4 replications) or
// complete but not yet enough (4, the rule asking for more); points not
// begun have no summary; summarising the record and pooling as Run goes
// agree.
func TestStopRuleInterrupted(t *testing.T) {
	spec := sweep.Spec{Scenario: writeScenario(t, mmcYAML), Sets: []string{"runs=50", "warmup=5"}, Axes: []sweep.Axis{mustAxis(t, "seed=1..20:20")},
		Replications: 4, RelError: 1e-9, MaxReplications: 8, Level: 0.95, Shards: 1}
	var out [2][]byte
	for mode := range 2 {
		var stop atomic.Bool
		opt := sweep.Options{Parallel: 1, Interrupt: &stop, Progress: func(done, _ int) {
			if done == 6 {
				stop.Store(true)
			}
		}}
		sum, err := sweep.NewSummarizer(spec)
		if err != nil {
			t.Fatal(err)
		}
		if mode == 1 {
			opt.Result = sum.Result
			opt.PointDone = func(rp *sweep.RawPoint) error { return sum.Done(rp, false) }
		}
		rec, err := sweep.Run(spec, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !rec.Partial {
			t.Fatal("record not partial after an interrupt")
		}
		var sums []sweep.PointSummary
		if mode == 0 {
			sums, err = sweep.Summarize(rec)
		} else {
			for _, rp := range rec.Points {
				if err = sum.Add(rp, true); err != nil {
					break
				}
			}
			sums = sum.Summaries(true)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != 2 {
			t.Fatalf("mode %d: %d points summarised, want 2 (one with 4 replications, one with 2)", mode, len(sums))
		}
		for i, want := range []int{4, 2} {
			s := sums[i].Summary
			note := fmt.Sprintf("partial: interrupted after %d replications, before the stop rule closed the point", want)
			if s.Replications != want || !s.Partial || !slices.Contains(s.Warnings, note) {
				t.Errorf("mode %d, point %d: %d replications, partial %v, warnings %q; want %d, partial, %q", mode, i, s.Replications, s.Partial, s.Warnings, want, note)
			}
		}
		out[mode], _ = json.Marshal(sums)
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Errorf("the record's summaries and those pooled as Run went differ:\n%s\n%s", out[0], out[1])
	}
}

// FuzzReadRecord feeds damaged shard files to ReadRecord, the integrity
// check every merge passes through: it must refuse them without panicking,
// and a file it accepts must be one WriteTo wrote, byte for byte (its
// lines' CRC-32C and its SHA-256 are over the exact bytes).
func FuzzReadRecord(f *testing.F) {
	path := writeScenario(f, integrityYAML)
	spec := sweep.Spec{Scenario: path, Axes: []sweep.Axis{{Key: "workers", Values: []string{"2", "3"}}}, Replications: 1, Level: 0.95, Shard: 1, Shards: 2}
	r, err := sweep.Run(spec, sweep.Options{})
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := r.WriteTo(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	lines := bytes.SplitAfter(b.Bytes(), []byte("\n"))
	f.Add(bytes.Join([][]byte{lines[0], lines[len(lines)-2]}, nil)) // the point dropped
	f.Add(lines[0])
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := sweep.ReadRecord("fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if _, err := rec.WriteTo(&out); err != nil {
			t.Fatalf("an accepted record does not encode: %v", err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("accepted a file that is not what WriteTo writes for its record:\n%q\nwant\n%q", data, out.Bytes())
		}
	})
}
