package system_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/model/system"
)

// TestDeadlineInvariants checks, on every traced attempt of random
// scenarios: the lease never exceeds the step's ceiling nor remaining −
// floor; no attempt is dialed with remaining ≤ floor; no backoff sleep ends
// with remaining ≤ floor; an attempt never outlives its lease; a run never
// ends after its deadline unless it never had one.
func TestDeadlineInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 150 {
		cfg := randomConfig(r)
		rec := &recorder{}
		system.New(cfg, system.Options{Tracer: rec, TraceRuns: 1 << 40}).Run()
		ceiling := map[string]time.Duration{}
		for _, st := range cfg.Steps {
			ceiling[st.Name] = st.Timeout
		}
		deadlineOf := map[int64]time.Duration{}
		for _, run := range rec.runs {
			deadlineOf[run.Run] = run.Deadline
			if run.Deadline >= 0 && run.Ended > run.Deadline {
				t.Fatalf("scenario %d: run %d ended at %v after its deadline %v", i, run.Run, run.Ended, run.Deadline)
			}
		}
		for _, a := range rec.attempts {
			if a.Outcome == retry.Refused {
				if a.Remaining-cfg.Floor > 0 && a.Decision == "refused" && a.Remaining-cfg.Floor >= cfg.MinLease {
					t.Fatalf("scenario %d: %+v refused with %v remaining above the floor %v", i, a, a.Remaining, cfg.Floor)
				}
				continue
			}
			if c := ceiling[a.Step]; c > 0 && a.Granted > c {
				t.Fatalf("scenario %d: lease %v above the ceiling %v: %+v", i, a.Granted, c, a)
			}
			if a.Granted > a.Remaining-cfg.Floor {
				t.Fatalf("scenario %d: lease %v above remaining %v − floor %v", i, a.Granted, a.Remaining, cfg.Floor)
			}
			if a.Remaining <= cfg.Floor {
				t.Fatalf("scenario %d: attempt dialed with %v remaining, floor %v", i, a.Remaining, cfg.Floor)
			}
			if a.Latency > a.Granted {
				t.Fatalf("scenario %d: attempt took %v beyond its lease %v", i, a.Latency, a.Granted)
			}
			if a.Backoff > 0 {
				wake := a.Start + a.Latency + a.Backoff
				if dl := deadlineOf[a.Run]; dl >= 0 && dl-wake <= cfg.Floor {
					t.Fatalf("scenario %d: a sleep until %v leaves ≤ floor before the deadline %v", i, wake, dl)
				}
			}
		}
	}
}
