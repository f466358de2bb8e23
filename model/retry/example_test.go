package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/budgetsim/budgetsim/model/backoff"
	"github.com/budgetsim/budgetsim/model/deadline"
	"github.com/budgetsim/budgetsim/model/retry"
)

// Example wraps a real HTTP call in the same deadline, lease and retry code
// the simulator runs, on the real monotonic clock. The client sends the lease
// it grants each attempt in a header; the server turns it back into a
// deadline on its own clock. The server answers the first request with 503
// and "Retry-After: 0", which replaces the local backoff, and the second with
// 200.
func Example() {
	// Server: a separate clock origin, as in another process.
	srvOrigin := time.Now()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		remaining, err := deadline.ParseMillis(r.Header.Get(deadline.HeaderRemaining))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		srvNow := time.Since(srvOrigin)
		d := deadline.FromWire(srvNow, remaining, 0).WithFloor(5 * time.Millisecond)
		_, refused := d.Lease(srvNow, 0)
		fmt.Printf("server: request %d, has time to work: %v\n", n, refused == nil)
		if n == 1 {
			w.Header().Set(retry.HeaderRetryAfter, "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "hello")
	}))
	defer srv.Close()

	// Client: one deadline for the whole call, fixed once.
	origin := time.Now()
	now := func() time.Duration { return time.Since(origin) }
	d := deadline.After(now(), 5*time.Second).WithFloor(20 * time.Millisecond)
	policy := retry.Policy{
		Attempts:        3,
		Backoff:         backoff.Policy{Base: 50 * time.Millisecond, Cap: time.Second, Multiplier: 2, Jitter: backoff.Full},
		HonorRetryAfter: true,
		Idempotent:      true, // GET
	}
	runner := retry.Runner{Now: now, Sleep: time.Sleep, Rand: rand.New(rand.NewPCG(1, 2)).Float64}

	var body string
	res, trace := runner.Run(d, policy, 2*time.Second, func(n int, lease time.Duration) retry.Result {
		ctx, cancel := context.WithTimeout(context.Background(), lease)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		if err != nil {
			return retry.Result{Outcome: retry.Permanent, Err: err}
		}
		req.Header.Set(deadline.HeaderRemaining, deadline.FormatMillis(lease))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return retry.Result{Outcome: retry.Timeout, Err: err}
			}
			return retry.Result{Outcome: retry.Transient, Err: err}
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return retry.Result{Outcome: retry.Timeout, Err: err}
		}
		out := retry.Result{Outcome: retry.OutcomeForStatus(resp.StatusCode)}
		out.RetryAfter, out.HasRetryAfter = retry.ParseRetryAfter(resp.Header.Get(retry.HeaderRetryAfter), time.Now())
		if out.Outcome == retry.OK {
			body = string(b)
		}
		return out
	})

	fmt.Printf("client: %v after %d attempts: %q\n", res.Outcome, len(trace), body)
	for _, a := range trace {
		// In production, log a.String(): it carries the remaining budget and
		// the lease. Timings are left out here to keep the output stable.
		fmt.Printf("attempt %d: %v, retry-after %v → %v\n",
			a.N, a.Outcome, a.HasRetryAfter, a.Decision.Reason)
	}
	// Output:
	// server: request 1, has time to work: true
	// server: request 2, has time to work: true
	// client: ok after 2 attempts: "hello"
	// attempt 1: transient, retry-after true → retrying
	// attempt 2: ok, retry-after false → success
}

// ExampleDecide shows the decision on its own, as the simulator calls it:
// a run that queued 1.2 s of its 2 s budget and then
// got a 503 with "Retry-After: 1".
func ExampleDecide() {
	d := retry.Decide(retry.Input{
		Policy:        retry.Policy{Attempts: 3, Idempotent: true, HonorRetryAfter: true},
		Attempt:       1,
		Outcome:       retry.Transient,
		RetryAfter:    time.Second,
		HasRetryAfter: true,
		Now:           1200 * time.Millisecond,
		Deadline:      deadline.After(0, 2*time.Second).WithMinLease(200 * time.Millisecond),
	})
	fmt.Println(d.Retry, d.Reason)
	// Output:
	// false retry_after_outlasts_deadline
}

// A retry budget shared by every call to one backend: AWS's standard mode
// stops retrying once 100 retries have failed without a success in between.
func ExampleTokenBucket() {
	b, _ := retry.NewTokenBucket(retry.AWSStandard())
	n := 0
	for b.AllowRetry(0, retry.Transient) {
		n++
	}
	fmt.Println(n, "retries, then", b.Tokens(), "tokens")
	b.OnResult(0, 1, retry.OK, retry.OK)      // a first-attempt success adds 1
	b.OnResult(0, 2, retry.OK, retry.Timeout) // a successful retry after a timeout refunds 10
	fmt.Println(b.Tokens(), "tokens")
	// Output:
	// 100 retries, then 0 tokens
	// 11 tokens
}
