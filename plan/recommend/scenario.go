package recommend

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/budgetsim/budgetsim/model/backoff"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// Plan is the recommendation for every step of a simulated scenario, plus
// the run-level settings that tie them together. A run succeeds when every
// step does, so each step is given the target Success^(1/len(Steps)) (the
// run's target spread evenly over the steps) and the predicted run success
// is the product of the steps'.
type Plan struct {
	// Scenario is the scenario's name; Replications the number of
	// replications pooled.
	Scenario     string `json:"scenario"`
	Replications int    `json:"replications"`
	// Steps holds one recommendation per step, in plan order.
	Steps []*Recommendation `json:"steps"`
	// Success is the run's target; StepSuccess each step's,
	// Success^(1/len(Steps)); PredictedSuccess the product of the steps'
	// predicted success.
	Success          float64 `json:"success_target"`
	StepSuccess      float64 `json:"step_success_target"`
	PredictedSuccess float64 `json:"success"`
	// MinLease is the run's min_lease: the smallest step floor, so that no
	// step is refused a lease its own floor would grant.
	MinLease time.Duration `json:"-"`
	// Reserve is the time the deadline holds back (the scenario's floor).
	Reserve time.Duration `json:"-"`
	// QueueWait is the p99 of the simulated runs' wait for a worker: the
	// deadline is fixed at arrival, so queueing spends it.
	QueueWait time.Duration `json:"-"`
	// Deadline is the run deadline needed: QueueWait, plus the sum over
	// steps of Attempts × Ceiling + Backoff, plus the largest step floor
	// and Reserve.
	Deadline time.Duration `json:"-"`
	// GivenDeadline is the deadline each step's MaxAttempts was computed
	// for (Options.Deadline, else the scenario's; 0: none). A step's
	// MaxAttempts is the most attempts it can make within GivenDeadline
	// when every other step uses its recommended attempts.
	GivenDeadline time.Duration `json:"-"`

	// Seconds views of QueueWait, MinLease, Reserve, Deadline and
	// GivenDeadline, for JSON.
	QueueWaitS     float64 `json:"queue_wait_p99_s"`
	MinLeaseS      float64 `json:"min_lease_s"`
	ReserveS       float64 `json:"reserve_s"`
	DeadlineS      float64 `json:"deadline_s"`
	GivenDeadlineS float64 `json:"given_deadline_s"`

	// Warnings apply to the whole plan (replications stopped early, a
	// given deadline too short).
	Warnings []string `json:"warnings"`
}

// FromResults recommends settings for every step of cfg from the
// replications in results (as replicate.All returns them): each step's
// Result.StepLatency histograms, pooled, are its answered calls, and its
// Result.StepTimeouts, less its Result.StepHangs (calls that would never
// have answered), are censored good calls: slow answers cut off by their
// lease.
//
// Zero fields of opt are taken from the scenario, step by step: the
// attempt limit from retry.attempts (1 when the step may not retry: neither
// idempotent, keyed nor allow_unsafe), the backoff from retry.backoff, the
// deadline from deadline and the reserve from floor. The error rates come
// from each step's tool (hang, transient and rate_limited are retryable,
// permanent is not); opt.ErrorRate and opt.PermanentRate must be 0.
//
// Outages, scripted outcomes, contention, Retry-After and retry budgets are
// not in the independence model: a step whose tool or policy has them gets
// a warning.
func FromResults(cfg *system.Config, results []*system.Result, opt Options) (*Plan, error) {
	acc := summary.NewAccumulator(cfg, 0.95)
	for _, r := range results {
		acc.Add(r)
	}
	return FromAccumulator(acc, opt)
}

// FromAccumulator is FromResults for replications already pooled, in
// replication order, by acc (replicate.Pooled's, or one fed as
// replications complete): it reads each step's pooled calls
// (Accumulator.StepCalls) and the replications that stopped early, so a
// caller need not keep every replication's result. FromResults of the
// same replications gives the same plan.
func FromAccumulator(acc *summary.Accumulator, opt Options) (*Plan, error) {
	cfg := acc.Config()
	for _, c := range cfg.Classes {
		if c.Steps != nil || c.Deadline != cfg.Deadline {
			return nil, fmt.Errorf("class %q has a plan or a deadline of its own: a recommendation is for one plan under one deadline, so run it on one class at a time (--set with that class's steps and deadline at the top level)", c.Name)
		}
	}
	if len(cfg.Steps) == 0 {
		return nil, errNoSteps
	}
	if acc.Replications() == 0 {
		return nil, fmt.Errorf("results: need at least 1 replication, got 0")
	}
	if opt.ErrorRate != 0 || opt.PermanentRate != 0 {
		return nil, fmt.Errorf("error rate: must be 0 for a scenario, whose tools define their error rates, got %v (permanent %v)", opt.ErrorRate, opt.PermanentRate)
	}
	success := opt.Success
	if success == 0 {
		success = DefaultSuccess
	}
	if !(success > 0 && success < 1) {
		return nil, fmt.Errorf("success: must be in (0, 1), got %v", success)
	}
	p := &Plan{
		Scenario:     cfg.Name,
		Replications: acc.Replications(),
		Success:      success,
		StepSuccess:  math.Pow(success, 1/float64(len(cfg.Steps))),
		Reserve:      opt.Reserve,
		Warnings:     []string{},
	}
	if p.Reserve == 0 {
		p.Reserve = cfg.Floor
	}
	p.GivenDeadline = opt.Deadline
	if p.GivenDeadline == 0 {
		p.GivenDeadline = cfg.Deadline
	}
	for _, stop := range acc.Stops() {
		p.Warnings = append(p.Warnings, fmt.Sprintf("replication %d stopped early (%s): its measurements are partial", stop.Replication, stop.Reason))
	}
	pooled := acc.StepCalls()
	p.PredictedSuccess = 1
	for i := range cfg.Steps {
		st := &cfg.Steps[i]
		tool := &cfg.Tools[st.Tool]
		h, timeouts, hangs := pooled[i].Latency, pooled[i].Timeouts, pooled[i].Hangs
		censored := timeouts - hangs

		so := opt
		so.Success = p.StepSuccess
		so.ErrorRate = tool.Errors.Hang + tool.Errors.Transient + tool.Errors.RateLimited + tool.Errors.Overloaded
		so.PermanentRate = tool.Errors.Permanent
		so.Reserve = p.Reserve
		so.Deadline = 0
		var warnings []string
		pol := st.Retry
		if so.AttemptLimit == 0 {
			so.AttemptLimit = max(pol.Attempts, 1)
		}
		if !pol.MayRetry() && so.AttemptLimit > 1 {
			so.AttemptLimit = 1
			warnings = append(warnings, "the step is neither idempotent nor keyed (and allow_unsafe is off): it is never retried, so the attempt limit is 1")
		}
		if opt.Backoff == (backoff.Policy{}) {
			so.Backoff = pol.Backoff
		}
		rec, err := FromHistogram(h, censored, so)
		if err != nil {
			if h.Count() < 2 {
				return nil, fmt.Errorf("steps.%s: %w over %d replication(s): simulate more calls (more runs, or --replications)", st.Name, err, acc.Replications())
			}
			return nil, fmt.Errorf("steps.%s: %w", st.Name, err)
		}
		rec.Step, rec.Tool = st.Name, tool.Name
		rec.Source = "simulated: " + cfg.Name
		if hangs > 0 {
			warnings = append(warnings, fmt.Sprintf("%d of the %d timeouts were hangs (calls that would never have answered) and are not counted as slow calls", hangs, timeouts))
		}
		if len(tool.Outages) > 0 || len(tool.Script) > 0 {
			warnings = append(warnings, "the tool's outages and scripted outcomes are not in the error rate")
		}
		if tool.Contention {
			warnings = append(warnings, "write conflicts (contention) are not in the error rate")
		}
		if tool.RetryAfter != nil && pol.HonorRetryAfter && tool.Errors.Transient+tool.Errors.RateLimited > 0 {
			warnings = append(warnings, "Retry-After replaces the local backoff and is not bounded by it: the deadline may be short")
		}
		if st.Budget != nil {
			warnings = append(warnings, "a retry budget may deny retries the plan counts on")
		}
		rec.Warnings = append(warnings, rec.Warnings...)
		p.Steps = append(p.Steps, rec)
		p.PredictedSuccess *= rec.Success
	}
	var total time.Duration
	var maxFloor time.Duration
	p.MinLease = p.Steps[0].Floor
	for _, r := range p.Steps {
		total = satAdd(total, r.BudgetFor(r.Attempts))
		maxFloor = max(maxFloor, r.Floor)
		p.MinLease = min(p.MinLease, r.Floor)
	}
	sum := acc.Summary()
	if sum.Wait.N > 0 {
		p.QueueWait = durationUp(sum.Wait.P99)
	}
	p.Deadline = satAdd(satAdd(satAdd(p.QueueWait, total), maxFloor), p.Reserve)
	if r := sum.Runs; r.Arrived > 0 && r.Rejected+r.Expired > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%.2f%% of the simulated runs were rejected (queue full) or expired in the queue: the predicted success counts the steps only; size the workers or the queue (simulate plan)",
			100*float64(r.Rejected+r.Expired)/float64(r.Arrived)))
	}
	for _, t := range sum.Tools {
		if t.ClientWaitSeconds > 0 && t.Calls > 0 {
			p.Warnings = append(p.Warnings, fmt.Sprintf("callers waited %.3g s per call on average for tool %s's rate-limit tokens, which neither the deadline nor the predicted success includes: the limit (%g calls/s) caps the whole chain however many workers there are",
				t.ClientWaitSeconds/float64(t.Calls), t.Name, t.RateLimit))
		}
	}
	if p.GivenDeadline > 0 && p.Deadline > p.GivenDeadline {
		p.Warnings = append(p.Warnings, fmt.Sprintf("the deadline needed, %v, exceeds the given deadline %v: some runs that would succeed in time are cut short", p.Deadline, p.GivenDeadline))
	}
	for _, r := range p.Steps {
		r.GivenDeadline = p.GivenDeadline
		if p.GivenDeadline > 0 {
			others := total - r.BudgetFor(r.Attempts)
			r.setMaxAttempts(p.GivenDeadline - others - p.QueueWait)
		}
	}
	p.QueueWaitS, p.MinLeaseS, p.ReserveS, p.DeadlineS, p.GivenDeadlineS = p.QueueWait.Seconds(), p.MinLease.Seconds(), p.Reserve.Seconds(), p.Deadline.Seconds(), p.GivenDeadline.Seconds()
	return p, nil
}

// Sets returns the plan as scenario overrides (simulate's --set flags), in
// a fixed order: per step timeout and attempts, then min_lease and
// deadline. Durations are rounded up to three significant digits
// (1.50390625s is 1.51s), to read and type: up, so that a timeout or a
// deadline is never shorter than recommended.
func (p *Plan) Sets() []string {
	var out []string
	for _, r := range p.Steps {
		out = append(out,
			"steps."+r.Step+".timeout="+roundUp3(r.Ceiling).String(),
			"steps."+r.Step+".attempts="+strconv.Itoa(r.Attempts))
	}
	return append(out, "min_lease="+roundUp3(p.MinLease).String(), "deadline="+roundUp3(p.Deadline).String())
}

// roundUp3 rounds d up to three significant digits.
func roundUp3(d time.Duration) time.Duration {
	if d <= 0 {
		return d
	}
	step := time.Duration(1)
	for d/step >= 1000 {
		step *= 10
	}
	return (d + step - 1) / step * step
}
