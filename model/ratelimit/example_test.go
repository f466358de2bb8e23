package ratelimit_test

import (
	"fmt"
	"time"

	"github.com/budgetsim/budgetsim/model/ratelimit"
)

// A tool allows 2 calls per second with bursts of 3. Instants are virtual
// time: durations since an arbitrary origin.
func ExampleTokenBucket() {
	b, err := ratelimit.NewTokenBucket(2, 3)
	if err != nil {
		panic(err)
	}
	now := time.Duration(0)

	// The bucket starts full: three calls pass at once, the fourth is dropped.
	for i := 1; i <= 4; i++ {
		fmt.Printf("call %d at %v: allowed=%v\n", i, now, b.AllowAt(now, 1))
	}
	fmt.Println("next token at", b.NextAt(now))

	// A run with 300ms left will not wait 500ms for a token: refused up
	// front, nothing taken.
	wait, ok := b.ReserveWithinAt(now, 1, 300*time.Millisecond)
	fmt.Printf("within 300ms: wait=%v ok=%v\n", wait, ok)

	// A run with 2s left takes the token and sleeps until it is due.
	wait, ok = b.ReserveWithinAt(now, 1, 2*time.Second)
	fmt.Printf("within 2s: wait=%v ok=%v\n", wait, ok)

	// After 1.5s of virtual time, the queue is served and two tokens are back.
	now += 1500 * time.Millisecond
	fmt.Printf("tokens at %v: %v\n", now, b.TokensAt(now))
	// Output:
	// call 1 at 0s: allowed=true
	// call 2 at 0s: allowed=true
	// call 3 at 0s: allowed=true
	// call 4 at 0s: allowed=false
	// next token at 500ms
	// within 300ms: wait=500ms ok=false
	// within 2s: wait=500ms ok=true
	// tokens at 1.5s: 2
}

// A tool serves at most two calls at a time; a third is refused until one
// finishes.
func ExampleConcurrency() {
	c, err := ratelimit.NewConcurrency(2)
	if err != nil {
		panic(err)
	}
	fmt.Println(c.TryAcquire(), c.TryAcquire(), c.TryAcquire(), c.InUse())
	c.Release()
	fmt.Println(c.TryAcquire(), c.InUse())
	// Output:
	// true true false 2
	// true 2
}
