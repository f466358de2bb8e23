package ratelimit_test

import (
	"fmt"
	"time"

	"github.com/budgetsim/budgetsim/model/ratelimit"
)

// A provider tier sells 100 requests and 20,000 tokens per minute, of which
// at most 6,000 output tokens. A call reserves its prompt and its
// max_tokens, and settles what it actually used when it ends.
func ExampleTokenLimiter() {
	m, err := ratelimit.NewTokenLimiter(ratelimit.TokenLimits{RPM: 100, TPM: 20000, OTPM: 6000})
	if err != nil {
		panic(err)
	}
	now := time.Duration(0)

	// A research call: 8,000 prompt tokens, max_tokens 4,000.
	r, ok, _ := m.AcquireAt(now, ratelimit.Usage{Input: 8000, Output: 4000}, time.Minute)
	fmt.Printf("research: ok=%v wait=%v\n", ok, r.Wait)

	// The provider rejects a second one: otpm has 2,000 tokens left and
	// refills at 100 per second.
	_, retry, ok, _ := m.TryAcquireAt(now, ratelimit.Usage{Input: 8000, Output: 4000})
	fmt.Printf("second: ok=%v retry-after=%v\n", ok, retry)

	// The first call ends after 30s having written 1,000 tokens: the 3,000
	// reserved but unused output tokens go back to the buckets.
	now += 30 * time.Second
	if err := m.Settle(now, r, ratelimit.Usage{Input: 8000, Output: 1000}); err != nil {
		panic(err)
	}
	w, binding, _ := m.WaitAt(now, ratelimit.Usage{Input: 8000, Output: 4000})
	fmt.Printf("after settle: wait=%v binding=%v\n", w, binding)
	// Output:
	// research: ok=true wait=0s
	// second: ok=false retry-after=20s
	// after settle: wait=0s binding=none
}
