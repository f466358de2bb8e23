package recommend

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// TestReplay measures testdata/two-step.yaml (no timeouts but fetch's 5 s
// hang guard, no deadline), applies the recommended timeouts, attempts,
// min_lease and deadline back with --set overrides, replays on a different
// seed (fresh draws, not the measured ones) and checks the replayed success
// rate against the target and against the predicted rate.
func TestReplay(t *testing.T) {
	const file = "testdata/two-step.yaml"
	sc, err := scenarios.Load(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	results := replicate.All(sc.Config, 1, 1, system.Options{})
	plan, err := FromResults(sc.Config, results, Options{Success: 0.99})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Steps) != 2 {
		t.Fatalf("FromResults: %d steps, want 2", len(plan.Steps))
	}
	// Each step's p99 ceiling cuts off at most 1% of good calls (nearest
	// rank), less only the calls sharing the ceiling's histogram bucket
	// (width ≤ 1/128 of the value: about 5 of 20 000 calls near the p99,
	// see TestHistogramCensored), so [0.009, 0.01]; and the fits recover
	// the tools' lognormal families.
	for _, r := range plan.Steps {
		if r.CutOff > 0.01 || r.CutOff < 0.009 {
			t.Errorf("steps.%s: CutOff = %v, want in [0.009, 0.01]", r.Step, r.CutOff)
		}
		if r.Fit == nil || r.Fit.Dist != "lognormal" {
			t.Errorf("steps.%s: Fit = %v, want lognormal", r.Step, r.Fit)
		}
		// The step target is 0.99^(1/2) = 0.99499. search: q ≈ 1 −
		// 0.98·0.99 = 0.030, fetch: q ≈ 1 − 0.94·0.99 = 0.069; one attempt
		// is short of the target and two reach it (q² ≤ 0.005013 holds
		// for q ≤ 0.0708, i.e. any cut-off ≤ 1.15%).
		if !r.TargetMet || r.Attempts != 2 {
			t.Errorf("steps.%s: Attempts, TargetMet = %d, %v, want 2, true", r.Step, r.Attempts, r.TargetMet)
		}
	}
	// fetch's 5 s timeouts are all hangs (1% of dialed attempts): none is
	// a slow call, so none is censored.
	if f := plan.Steps[1]; f.Censored != 0 {
		t.Errorf("steps.fetch: Censored = %d, want 0 (every timeout is a hang)", f.Censored)
	}
	if plan.PredictedSuccess < plan.Success {
		t.Fatalf("PredictedSuccess = %v, want ≥ target %v", plan.PredictedSuccess, plan.Success)
	}

	sets := append(plan.Sets(), "seed=99")
	replay, err := scenarios.Load(file, sets)
	if err != nil {
		t.Fatalf("scenarios.Load(%s, %q): %v", file, sets, err)
	}
	res := replicate.All(replay.Config, 1, 1, system.Options{})[0]
	n := float64(res.Runs.Arrived)
	got := float64(res.Runs.Completed) / n
	p := plan.PredictedSuccess
	se := math.Sqrt(p * (1 - p) / n) // binomial standard error of a proportion
	t.Logf("replay with %s: success %.5f over %.0f runs, predicted %.5f ± %.5f (1 SE), target %v",
		strings.Join(plan.Sets(), " "), got, n, p, se, plan.Success)
	// The target holds unless the replay is more than 3.29 SE below it
	// (one-sided 99.95%): a failure means the plan misses the target.
	if got < plan.Success-z3*se {
		t.Errorf("replayed success = %v, want ≥ target %v (−3.29 SE = %v)", got, plan.Success, plan.Success-z3*se)
	}
	// And the independence model predicts it: within 3.29 SE. (The
	// prediction's own error, from the measured cut-off's standard error
	// sqrt(0.01·0.99/20000) = 0.0007, moves it by about 2q·0.0007 ≈ 1e-4,
	// a fifth of an SE.)
	if math.Abs(got-p) > z3*se {
		t.Errorf("replayed success = %v, want predicted %v ± %v (3.29 SE)", got, p, z3*se)
	}
	// The worst-case deadline fits every attempt: nothing is cut short.
	if res.Runs.DeadlineExceeded != 0 || res.Runs.Refused != 0 {
		t.Errorf("replay: deadline exceeded %d, refused %d, want 0, 0 (the deadline covers k attempts at the ceiling plus the worst sleeps)", res.Runs.DeadlineExceeded, res.Runs.Refused)
	}
}

// TestFromResultsErrors: bad scenario inputs name the field.
func TestFromResultsErrors(t *testing.T) {
	sc, err := scenarios.Load("testdata/two-step.yaml", []string{"runs=50"})
	if err != nil {
		t.Fatal(err)
	}
	results := replicate.All(sc.Config, 1, 1, system.Options{})
	if _, err := FromResults(sc.Config, results, Options{ErrorRate: 0.1}); err == nil || !strings.HasPrefix(err.Error(), "error rate: must be 0 for a scenario") {
		t.Errorf("FromResults(ErrorRate 0.1) error = %v, want error rate: must be 0 for a scenario…", err)
	}
	if _, err := FromResults(sc.Config, nil, Options{}); err == nil {
		t.Errorf("FromResults(no results) error = nil, want one")
	}
	one, err := scenarios.Load("seed-plan", nil) // a batch of one run: one call per step
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FromResults(one.Config, replicate.All(one.Config, 1, 1, system.Options{}), Options{}); err == nil ||
		err.Error() != "steps.search: samples: need at least 2 answered calls, got 1 over 1 replication(s): simulate more calls (more runs, or --replications)" {
		t.Errorf("FromResults(one run) error = %v, want the step named and what to do", err)
	}
	if _, err := FromResults(sc.Config, results, Options{Percentile: 101}); err == nil || !strings.HasPrefix(err.Error(), "steps.search: percentile") {
		t.Errorf("FromResults(percentile 101) error = %v, want steps.search: percentile…", err)
	}
}

// TestUnsafeStep: a step that may not be retried gets an attempt limit of 1.
func TestUnsafeStep(t *testing.T) {
	sc, err := scenarios.Load("testdata/two-step.yaml", []string{"runs=2000", "steps.search.idempotent=false"})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := FromResults(sc.Config, replicate.All(sc.Config, 1, 1, system.Options{}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := plan.Steps[0]; s.AttemptLimit != 1 || s.Attempts != 1 || s.TargetMet {
		t.Errorf("unsafe search: AttemptLimit, Attempts, TargetMet = %d, %d, %v, want 1, 1, false", s.AttemptLimit, s.Attempts, s.TargetMet)
	}
}

// TestFromAccumulator: replications pooled as they complete (what simulate
// recommend and report do, keeping none of them) give the plan of the same
// replications kept whole; each step's sample count is the replications'
// answered calls plus their censored timeouts, summed by hand here; and a
// replication that stopped early is named by its index.
func TestFromAccumulator(t *testing.T) {
	sc, err := scenarios.Load("retry-storm", []string{"runs=6000", "warmup=100"}) // past the stall: timeouts
	if err != nil {
		t.Fatal(err)
	}
	cfg := sc.Config
	results := replicate.All(cfg, 3, 1, system.Options{})
	results[1].Stopped = "interrupted" // as if replication 1 had been cut short
	want, err := FromResults(cfg, results, Options{})
	if err != nil {
		t.Fatal(err)
	}
	acc := summary.NewAccumulator(cfg, 0.9)
	for _, r := range results {
		acc.Add(r)
	}
	got, err := FromAccumulator(acc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if !bytes.Equal(gj, wj) {
		t.Errorf("FromAccumulator's plan differs from FromResults':\n%s\n%s", gj, wj)
	}
	if got.Replications != 3 {
		t.Errorf("plan of %d replications, want 3", got.Replications)
	}
	if len(got.Warnings) == 0 || got.Warnings[0] != "replication 1 stopped early (interrupted): its measurements are partial" {
		t.Errorf("warnings %q, want replication 1's early stop first", got.Warnings)
	}
	for i, st := range got.Steps {
		var answered, censored int64
		for _, r := range results {
			answered += int64(r.StepLatency[i].Count())
			censored += r.StepTimeouts[i] - r.StepHangs[i]
		}
		if censored == 0 {
			t.Errorf("step %s: no censored calls; the test needs some", st.Step)
		}
		if st.Samples != answered+censored || st.Censored != censored {
			t.Errorf("step %s: %d samples, %d censored; the replications have %d answered and %d censored", st.Step, st.Samples, st.Censored, answered, censored)
		}
	}
	if _, err := FromAccumulator(summary.NewAccumulator(cfg, 0.95), Options{}); err == nil || err.Error() != "results: need at least 1 replication, got 0" {
		t.Errorf("FromAccumulator(empty) error = %v", err)
	}
}

// TestQueueWaitAndTokenWaitCounted: the deadline is fixed at arrival, so
// the recommended one includes the simulated p99 wait for a worker; and a
// scenario whose runs queue for workers and for a client-side rate limit
// (tool-bottleneck) is told that the predicted success leaves both out.
func TestQueueWaitAndTokenWaitCounted(t *testing.T) {
	sc, err := scenarios.Load("tool-bottleneck", []string{"runs=4000", "warmup=200"})
	if err != nil {
		t.Fatal(err)
	}
	acc, _ := replicate.Pooled(sc.Config, 1, 1, system.Options{}, 0.95)
	plan, err := FromAccumulator(acc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wait := acc.Summary().Wait.P99
	if wait <= 0 || plan.QueueWait != durationUp(wait) {
		t.Fatalf("QueueWait = %v, want the simulated p99 wait %v s rounded up", plan.QueueWait, wait)
	}
	var steps time.Duration
	var maxFloor time.Duration
	for _, r := range plan.Steps {
		steps += r.BudgetFor(r.Attempts)
		maxFloor = max(maxFloor, r.Floor)
	}
	if want := plan.QueueWait + steps + maxFloor + plan.Reserve; plan.Deadline != want {
		t.Errorf("Deadline = %v, want queue wait + steps + largest floor + reserve = %v", plan.Deadline, want)
	}
	// Each step's max attempts fit the given deadline with the others at
	// their recommended attempts and the queue wait.
	for _, r := range plan.Steps {
		others := steps - r.BudgetFor(r.Attempts)
		if r.MaxAttempts > 0 && plan.QueueWait+others+r.DeadlineFor(r.MaxAttempts) > plan.GivenDeadline {
			t.Errorf("steps.%s: %d attempts need %v with the queue wait and the other steps, more than the given %v",
				r.Step, r.MaxAttempts, plan.QueueWait+others+r.DeadlineFor(r.MaxAttempts), plan.GivenDeadline)
		}
	}
	joined := strings.Join(plan.Warnings, "\n")
	for _, want := range []string{"rejected (queue full) or expired in the queue", "for tool search's rate-limit tokens"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q lack %q", plan.Warnings, want)
		}
	}
}

// TestRoundUp3: the overrides' durations read with three significant
// digits, rounded up so that none is shorter than recommended.
func TestRoundUp3(t *testing.T) {
	for _, c := range []struct{ in, want time.Duration }{
		{1503906250, 1510 * time.Millisecond},
		{305664063, 306 * time.Millisecond},
		{17378906250, 17400 * time.Millisecond},
		{2 * time.Second, 2 * time.Second},
		{999, 999},
		{69755312500, 69800 * time.Millisecond},
		{0, 0},
	} {
		if got := roundUp3(c.in); got != c.want {
			t.Errorf("roundUp3(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
