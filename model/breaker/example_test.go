package breaker_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/budgetsim/budgetsim/model/breaker"
)

// A client wraps an HTTP dependency in a breaker on the real clock: now is
// the time since the client started. The server fails until it is marked
// healthy; the breaker opens after four failures, refuses calls locally
// while open, and closes after one successful probe.
func Example() {
	var healthy atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !healthy.Load() {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()

	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	b, err := breaker.New(breaker.Config{
		Window:                breaker.CountBased,
		WindowSize:            10,
		MinimumCalls:          4,
		FailureRateThreshold:  50,
		SlowCallRateThreshold: 100,
		SlowCallDuration:      2 * time.Second,
		WaitInOpen:            300 * time.Millisecond,
		PermittedInHalfOpen:   1,
		OnTransition: func(t breaker.Transition) {
			fmt.Printf("  breaker %v -> %v (%d calls, %.0f%% failed)\n", t.From, t.To, t.Window.Calls, t.Window.FailureRate())
		},
	})
	if err != nil {
		panic(err)
	}

	call := func() string {
		if !b.Allow(now()) {
			return "refused locally"
		}
		began := now()
		resp, err := srv.Client().Get(srv.URL)
		if err != nil {
			b.Record(now(), breaker.Failure, now()-began)
			return err.Error()
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		result := breaker.Success
		if resp.StatusCode >= 500 {
			result = breaker.Failure
		}
		b.Record(now(), result, now()-began)
		return resp.Status
	}

	for range 6 {
		fmt.Println(call())
	}
	healthy.Store(true)
	time.Sleep(400 * time.Millisecond) // longer than WaitInOpen
	fmt.Println(call())
	fmt.Println(call())
	fmt.Printf("calls saved: %d\n", b.Counts().Rejected)
	// Output:
	// 503 Service Unavailable
	// 503 Service Unavailable
	// 503 Service Unavailable
	//   breaker closed -> open (4 calls, 100% failed)
	// 503 Service Unavailable
	// refused locally
	// refused locally
	//   breaker open -> half_open (0 calls, 0% failed)
	//   breaker half_open -> closed (1 calls, 0% failed)
	// 200 OK
	// 200 OK
	// calls saved: 2
}

// The same rules on a simulator's virtual clock, with resilience4j's
// defaults except a shorter window: an outage from 10s to 70s opens the
// breaker within the window, and it closes once the probes after the 60s
// wait succeed.
func ExampleResilience4jDefaults() {
	cfg := breaker.Resilience4jDefaults()
	cfg.WindowSize, cfg.MinimumCalls = 20, 20
	cfg.OnTransition = func(t breaker.Transition) {
		fmt.Printf("%v: %v -> %v\n", t.At, t.From, t.To)
	}
	b, err := breaker.New(cfg)
	if err != nil {
		panic(err)
	}
	// One call every 500ms for 150s; the dependency is down in [10s, 70s).
	for now := time.Duration(0); now < 150*time.Second; now += 500 * time.Millisecond {
		if !b.Allow(now) {
			continue
		}
		down := now >= 10*time.Second && now < 70*time.Second
		r := breaker.Success
		if down {
			r = breaker.Failure
		}
		b.Record(now+100*time.Millisecond, r, 100*time.Millisecond)
	}
	c := b.Counts()
	fmt.Printf("permitted %d, refused %d, failed %d\n", c.Permitted, c.Rejected, c.Failures)
	// Output:
	// 14.6s: closed -> open
	// 1m14.6s: open -> half_open
	// 1m19.6s: half_open -> closed
	// permitted 180, refused 120, failed 10
}
