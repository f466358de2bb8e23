package hedge_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/budgetsim/budgetsim/model/hedge"
	"github.com/budgetsim/budgetsim/model/retry"
)

// A client hedges an idempotent GET on the real clock: the first attempt
// lands on a slow replica, so after the 50ms hedging delay a second attempt
// goes out, answers first, and the first is cancelled.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("attempt") == "0" {
			select { // a slow replica, until the client cancels
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()

	h, err := hedge.New(hedge.Policy{MaxAttempts: 3, Delay: 50 * time.Millisecond, NonFatal: []retry.Outcome{retry.Transient}})
	if err != nil {
		panic(err)
	}
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }

	type answer struct {
		attempt int
		outcome retry.Outcome
	}
	answers := make(chan answer, h.Policy().MaxAttempts)
	var cancels []context.CancelFunc
	send := func(i int) {
		ctx, cancel := context.WithCancel(context.Background())
		cancels = append(cancels, cancel)
		fmt.Println("send attempt", i)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s?attempt=%d", srv.URL, i), nil)
			resp, err := srv.Client().Do(req)
			if err != nil {
				answers <- answer{i, retry.Timeout}
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			o := retry.OK
			if resp.StatusCode >= 500 {
				o = retry.Transient
			}
			answers <- answer{i, o}
		}()
	}

	call := h.Begin(now(), true)
	send(0)
	for !call.Done() {
		var due <-chan time.Time
		if at, ok := call.NextAt(); ok {
			due = time.After(at - now())
		}
		select {
		case <-due:
			if i, ok := call.Launch(now()); ok {
				send(i)
			}
		case a := <-answers:
			d := call.Finish(now(), a.attempt, a.outcome)
			for _, j := range d.Cancel {
				fmt.Println("cancel attempt", j)
				cancels[j]()
			}
			if d.Done {
				fmt.Printf("attempt %d won: %v\n", d.Winner, d.Outcome)
			}
		}
	}
	for _, cancel := range cancels {
		cancel()
	}
	// Output:
	// send attempt 0
	// send attempt 1
	// cancel attempt 0
	// attempt 1 won: ok
}

// With a delay from the 95th percentile of observed latency, a hedge is
// sent for about one request in twenty. The estimate is the 95th of 100
// samples, 950ms, to within the histogram's 1/256.
func ExampleHedger_Delay() {
	h, err := hedge.New(hedge.Policy{MaxAttempts: 2, Delay: time.Second, Percentile: 0.95, MinSamples: 20})
	if err != nil {
		panic(err)
	}
	fmt.Println("before any sample:", h.Delay())
	for i := 1; i <= 100; i++ {
		h.Observe(time.Duration(i) * 10 * time.Millisecond)
	}
	fmt.Println("after 100 samples of 10ms…1s:", h.Delay().Round(time.Millisecond))
	// Output:
	// before any sample: 1s
	// after 100 samples of 10ms…1s: 951ms
}
