package system

import (
	"math/rand/v2"
	"testing"

	"github.com/budgetsim/budgetsim/model/retry"
)

// outcomeBySwitch is the drawn outcome as the error rates define it: the
// cumulative probabilities of hang, permanent, rate limited and transient,
// compared in that order; the rest succeeds.
func outcomeBySwitch(e Errors, u float64) retry.Outcome {
	switch {
	case u < e.Hang:
		return retry.Timeout
	case u < e.Hang+e.Permanent:
		return retry.Permanent
	case u < e.Hang+e.Permanent+e.RateLimited:
		return retry.RateLimited
	case u < e.Hang+e.Permanent+e.RateLimited+e.Transient:
		return retry.Transient
	}
	return retry.OK
}

// outcomeByPlan is draw's reading of a compiled outcome table.
func outcomeByPlan(p *toolPlan, u float64) retry.Outcome {
	for _, r := range p.outcomes {
		if u < r.below {
			return r.outcome
		}
	}
	return retry.OK
}

// TestOutcomeTable: the compiled table gives the outcome the error rates
// define for every uniform, including at the thresholds themselves, with
// rates that are zero (their rows left out) and rates that are not; and it
// is empty when every call succeeds, so that such a tool's calls compare
// nothing.
func TestOutcomeTable(t *testing.T) {
	if p := compileTool(&Tool{}); len(p.outcomes) != 0 {
		t.Fatalf("a tool that never fails compiles %d outcome rows, want 0", len(p.outcomes))
	}
	r := rand.New(rand.NewPCG(1, 2))
	rate := func() float64 {
		if r.IntN(3) == 0 {
			return 0
		}
		return r.Float64() / 4
	}
	for range 2000 {
		e := Errors{Hang: rate(), Permanent: rate(), RateLimited: rate(), Transient: rate()}
		p := compileTool(&Tool{Errors: e})
		nonzero := 0
		for _, x := range []float64{e.Hang, e.Permanent, e.RateLimited, e.Transient} {
			if x > 0 {
				nonzero++
			}
		}
		if len(p.outcomes) != nonzero {
			t.Fatalf("%+v: %d rows, want one per nonzero rate (%d)", e, len(p.outcomes), nonzero)
		}
		us := []float64{0, e.Hang, e.Hang + e.Permanent, e.Hang + e.Permanent + e.RateLimited,
			e.Hang + e.Permanent + e.RateLimited + e.Transient}
		for range 50 {
			us = append(us, r.Float64())
		}
		for _, u := range us {
			if got, want := outcomeByPlan(&p, u), outcomeBySwitch(e, u); got != want {
				t.Fatalf("%+v, u = %v: plan says %v, the rates say %v", e, u, got, want)
			}
		}
	}
}

// TestToolPlanFlags: each feature of a tool turns on its check, and only
// its own; stalls stay out of the outages that override outcomes.
func TestToolPlanFlags(t *testing.T) {
	none := compileTool(&Tool{})
	if none.cache != nil || none.clientLimit || none.serverLimit || none.cost != nil || none.capacity ||
		none.deadlineAware || none.contention || none.retryAfter != nil || len(none.outages) != 0 || len(none.script) != 0 {
		t.Fatalf("a plain tool's plan has a check on: %+v", none)
	}
	if p := compileTool(&Tool{Cache: &Cache{HitRatio: 0}}); p.cache != nil {
		t.Errorf("a cache that never hits is checked")
	}
	if p := compileTool(&Tool{Cache: &Cache{HitRatio: 0.5}}); p.cache == nil {
		t.Errorf("a cache that hits is not checked")
	}
	if p := compileTool(&Tool{RateLimit: &RateLimit{Rate: 1, Burst: 1, Client: true}}); !p.clientLimit || p.serverLimit {
		t.Errorf("a client-side limit compiles to client %v, server %v", p.clientLimit, p.serverLimit)
	}
	if p := compileTool(&Tool{RateLimit: &RateLimit{Rate: 1, Burst: 1}}); p.clientLimit || !p.serverLimit {
		t.Errorf("a server-side limit compiles to client %v, server %v", p.clientLimit, p.serverLimit)
	}
	p := compileTool(&Tool{Outages: []Outage{
		{Start: 1, End: 2, Mode: retry.Transient},
		{Start: 3, End: 4, Stall: true},
		{Start: 5, End: 6, Mode: retry.Timeout},
	}})
	if len(p.outages) != 2 || p.outages[0].Start != 1 || p.outages[1].Start != 5 {
		t.Errorf("outages compiled to %+v, want the two that are not stalls, in order", p.outages)
	}
	if p := compileTool(&Tool{Concurrency: 2, QueueCapacity: 5, DeadlineAware: true, DropFloor: 7}); !p.capacity ||
		p.concurrency != 2 || p.queueCapacity != 5 || !p.deadlineAware || p.dropFloor != 7 {
		t.Errorf("a capacity tool compiles to %+v", p)
	}
}
