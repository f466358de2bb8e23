package system_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/dist"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/sweep"
)

// encoded is r in sweep's wire format: every exported figure, histograms
// bucket by bucket, series bin by bin.
func encoded(t *testing.T, r *system.Result) []byte {
	t.Helper()
	b, err := sweep.EncodeResult(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// twoSteps returns cfg with a second step calling a new tool with a
// lognormal latency.
func twoSteps(t *testing.T, cfg *system.Config) *system.Config {
	t.Helper()
	c := *cfg
	lat, err := dist.LogNormal(0.2, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	c.Tools = append(append([]system.Tool(nil), cfg.Tools...), system.Tool{Name: "second", Latency: lat})
	c.Steps = append(append([]system.Step(nil), cfg.Steps...), system.Step{Name: "then", Tool: len(c.Tools) - 1, Retry: cfg.Steps[0].Retry})
	return &c
}

// plainOf returns cfg without what keeps it off the plain path: deadline,
// ceilings, error rates, retry-afters and every tool feature.
func plainOf(cfg *system.Config) *system.Config {
	c := *cfg
	c.Deadline, c.Floor = 0, 0
	c.Steps = append([]system.Step(nil), cfg.Steps...)
	for i := range c.Steps {
		c.Steps[i].Timeout, c.Steps[i].Budget = 0, nil
	}
	c.Tools = append([]system.Tool(nil), cfg.Tools...)
	for i := range c.Tools {
		c.Tools[i] = system.Tool{Name: c.Tools[i].Name, Latency: c.Tools[i].Latency, RetryAfter: c.Tools[i].RetryAfter}
	}
	return &c
}

// TestPlainPathMatchesGeneral: the plain path, alone and with a spare core
// (its draws made ahead and, with one step, its completions applied from
// the end log on another goroutine), gives the general path's result bit
// for bit, across the features a plain scenario can have: warm-up by runs
// and by time, a horizon, bounded and zero waiting rooms, several steps,
// other replications, and every guard that can stop it (the guards leave
// runs in service, whose waits the end log does not carry).
func TestPlainPathMatchesGeneral(t *testing.T) {
	type tc struct {
		name string
		cfg  *system.Config
		opt  system.Options
		stop string // what the guard's message says, for the guard cases
	}
	var cases []tc
	add := func(name string, cfg *system.Config, opt system.Options) {
		cases = append(cases, tc{name, cfg, opt, ""})
	}
	for _, s := range []string{"mm1", "mmc", "mmck", "md1", "mg1"} {
		add(s, load(t, s, "runs=20000", "warmup=1000"), system.Options{})
	}
	// Long enough to go round the end log's ring: the spare core makes
	// the ring's batches (newEndLog).
	add("long", load(t, "mmc", "runs=60000", "warmup=1000"), system.Options{})
	add("warm-up by time", load(t, "mmc", "runs=20000", "warmup=300s"), system.Options{})
	hz := load(t, "mmc", "warmup=0")
	hz.Runs, hz.Horizon = 0, 1500*time.Second
	add("horizon", hz, system.Options{})
	add("replication 3", load(t, "mmc", "runs=20000"), system.Options{Replication: 3})
	add("loss system", load(t, "mmc", "runs=20000", "queue={capacity: 0}"), system.Options{})
	add("bounded queue", load(t, "mmc", "runs=20000", "queue={capacity: 3}", "arrivals={rate: 12/s}"), system.Options{})
	add("two steps", twoSteps(t, load(t, "mmc", "runs=20000")), system.Options{})
	add("constant arrivals", load(t, "mmc", "runs=20000", "arrivals={process: constant, rate: 9/s}"), system.Options{})
	add("schedule, shared tool", plainOf(load(t, "launch-day", "horizon=6h", "warmup=30m")), system.Options{})
	over := load(t, "mmc", "runs=200000", "warmup=0", "arrivals={rate: 20/s}")
	over.Guards.MaxInSystem = 500
	add("max_in_system", over, system.Options{})
	cases[len(cases)-1].stop = "max_in_system"
	ev := load(t, "mmc", "runs=20000", "warmup=0")
	ev.Guards.MaxEvents = 10000
	add("max_events", ev, system.Options{})
	cases[len(cases)-1].stop = "max_events"
	tm := load(t, "mmc", "runs=20000", "warmup=0")
	tm.Guards.MaxTime = 100 * time.Second
	add("max_time", tm, system.Options{})
	cases[len(cases)-1].stop = "max_time"
	stopped := &atomic.Bool{}
	stopped.Store(true)
	add("interrupted", load(t, "mmc", "runs=20000", "warmup=0"), system.Options{Interrupt: stopped})
	cases[len(cases)-1].stop = "interrupted"

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !system.TakesPlainPath(c.cfg, c.opt) {
				t.Fatalf("%s does not take the plain path", c.name)
			}
			want := system.NewGeneral(c.cfg, c.opt).Run()
			if want.Runs.Completed == 0 {
				t.Fatalf("nothing completed: the case tests nothing")
			}
			if !strings.Contains(want.Stopped, c.stop) || c.stop == "" && want.Stopped != "" {
				t.Fatalf("stopped %q, want a stop by %q", want.Stopped, c.stop)
			}
			wantB := encoded(t, want)
			spare := c.opt
			spare.SpareCore = true
			for _, v := range []struct {
				name string
				opt  system.Options
			}{
				{"alone", c.opt},
				{"with a spare core", spare},
				// The end log stopping in mid-run (its applier a ring
				// behind): 1000 runs in, with runs in service and queued.
				{"with a spare core, the end log stopping", system.WithEndLogSwitch(c.opt, 1000)},
			} {
				got := system.New(c.cfg, v.opt).Run()
				if !bytes.Equal(encoded(t, got), wantB) {
					t.Errorf("%s: plain path differs from the general path:\n got %s\nwant %s", v.name, brief(got), brief(want))
				}
			}
		})
	}
}

// brief is a one-line digest of a result, for failure messages.
func brief(r *system.Result) string {
	return fmt.Sprintf("runs %+v events %d end %v stopped %q latency n=%d sum=%v waited %d sojourn %v in-system %v util %v peak %d",
		r.Runs, r.Events, r.End, r.Stopped, r.Latency.Count(), r.Latency.Sum(), r.Waited, r.SojournSum, r.TimeAvgInSystem, r.WorkerUtilisation, r.PeakInSystem)
}

// TestDrawAheadMatches: making the draws ahead changes nothing on the
// general path either, whatever the scenario does with them (retries,
// deadlines, a cache, a rate limit, outages).
func TestDrawAheadMatches(t *testing.T) {
	for _, c := range []struct {
		name string
		sets []string
	}{
		{"seed-plan", []string{"arrivals={rate: 50/s}", "runs=5000", "workers=100"}},
		{"retry-storm", nil},
		{"tool-bottleneck", []string{"runs=5000"}},
		{"aws-jitter", nil},
		{"launch-day", []string{"horizon=6h", "warmup=30m"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := load(t, c.name, c.sets...)
			if system.TakesPlainPath(cfg, system.Options{}) {
				t.Fatalf("%s takes the plain path: this test is about the general one", c.name)
			}
			want := encoded(t, system.New(cfg, system.Options{}).Run())
			got := encoded(t, system.New(cfg, system.Options{SpareCore: true}).Run())
			if !bytes.Equal(got, want) {
				t.Errorf("draw ahead changed the result")
			}
		})
	}
}
