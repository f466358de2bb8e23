package adaptive_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/budgetsim/budgetsim/model/adaptive"
)

// A client limits its calls to an HTTP dependency with an AIMD limit on
// the real clock. Overload answers (503) and a call slower than the 50ms
// timeout shrink the limit; successes while the client uses little of its
// limit leave it alone.
func Example() {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n := calls.Add(1); {
		case n <= 3:
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		case n == 4:
			time.Sleep(60 * time.Millisecond)
			fmt.Fprint(w, "slow")
		default:
			fmt.Fprint(w, "ok")
		}
	}))
	defer srv.Close()

	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	alg, err := adaptive.NewAIMD(adaptive.AIMDConfig{Initial: 20, Min: 1, Max: 100, BackoffRatio: 0.9, Timeout: 50 * time.Millisecond})
	if err != nil {
		panic(err)
	}
	lim, err := adaptive.NewLimiter(alg)
	if err != nil {
		panic(err)
	}
	for range 6 {
		t, ok := lim.Acquire(now())
		if !ok {
			fmt.Println("refused at the limit")
			continue
		}
		resp, err := srv.Client().Get(srv.URL)
		if err != nil {
			lim.Ignore(t)
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		var limit int
		if resp.StatusCode == http.StatusServiceUnavailable {
			limit = lim.Dropped(now(), t)
		} else {
			limit = lim.Success(now(), t)
		}
		fmt.Printf("%s -> limit %d\n", resp.Status, limit)
	}
	// Output:
	// 503 Service Unavailable -> limit 18
	// 503 Service Unavailable -> limit 16
	// 503 Service Unavailable -> limit 14
	// 200 OK -> limit 12
	// 200 OK -> limit 12
	// 200 OK -> limit 12
}

// A gradient limit on virtual time: the limit grows while the RTT holds at
// its baseline and shrinks when a slowdown triples it.
func ExampleGradient() {
	cfg := adaptive.DefaultGradient()
	cfg.Min = 1
	g, err := adaptive.NewGradient(cfg)
	if err != nil {
		panic(err)
	}
	rtt := 100 * time.Millisecond
	for i := 1; i <= 60; i++ {
		if i == 31 {
			rtt *= 3 // the provider slows down
		}
		g.Update(adaptive.Sample{RTT: rtt, InFlight: g.Limit()})
		if i%10 == 0 {
			fmt.Printf("after %d samples at %v: limit %d\n", i, rtt, g.Limit())
		}
	}
	// Output:
	// after 10 samples at 100ms: limit 28
	// after 20 samples at 100ms: limit 36
	// after 30 samples at 100ms: limit 44
	// after 40 samples at 300ms: limit 21
	// after 50 samples at 300ms: limit 13
	// after 60 samples at 300ms: limit 11
}
