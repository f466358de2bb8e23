package sweep_test

import (
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/sweep"
	"github.com/budgetsim/budgetsim/scenarios"
)

// FuzzDecodeResult feeds arbitrary bytes to DecodeResult, as a damaged or
// hand-edited shard file would: it must return an error, or a result that
// CheckAgainst refuses, or one that system.Summarize pools without
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
		system.Summarize(cfg, []*system.Result{d, r}, 0.95)
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
