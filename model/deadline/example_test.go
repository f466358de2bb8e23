package deadline_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/budgetsim/budgetsim/model/deadline"
)

// The worked example of a run that queued before its first call: a 2 s
// budget, 1.2 s spent waiting in the queue, a 1 s per-attempt ceiling and a
// 200 ms minimum call. A 1 s Retry-After cannot be honoured; without one the
// call gets what is left, not a fresh 2 s.
func Example() {
	d := deadline.After(0, 2*time.Second).WithMinLease(200 * time.Millisecond)
	now := 1200 * time.Millisecond // dequeued

	fmt.Println("remaining:", d.Remaining(now))
	fmt.Println("fits a 1s Retry-After:", d.FitsSleep(now, time.Second))
	lease, err := d.Lease(now, time.Second)
	fmt.Println("lease:", lease, err)
	// Output:
	// remaining: 800ms
	// fits a 1s Retry-After: false
	// lease: 800ms <nil>
}

// A budget that starts below the floor is refused before the first call is
// dialed.
func ExampleDeadline_Lease_refused() {
	d := deadline.After(0, 10*time.Millisecond).WithFloor(20 * time.Millisecond)
	_, err := d.Lease(0, 250*time.Millisecond)
	fmt.Println(errors.Is(err, deadline.ErrRefused))
	fmt.Println(err)
	// Output:
	// true
	// deadline: lease refused: 10ms remaining, need at least 20.000001ms (floor 20ms, min lease 0s)
}

// Across a process boundary only a duration travels: the sender writes the
// lease it granted, the receiver turns it into an instant on its own clock.
func ExampleFromWire() {
	// Sender: its clock reads 40s; the run's deadline is at 41.5s.
	sender := deadline.At(41500 * time.Millisecond).WithFloor(20 * time.Millisecond)
	lease, _ := sender.Lease(40*time.Second, 2*time.Second)
	header := deadline.FormatMillis(lease)
	grpc := deadline.FormatGRPCTimeout(lease)

	// Receiver: a different process whose clock reads 7s on arrival.
	remaining, _ := deadline.ParseMillis(header)
	recv := deadline.FromWire(7*time.Second, remaining, 5*time.Millisecond)
	at, _ := recv.Instant()
	fmt.Println(deadline.HeaderRemaining+":", header)
	fmt.Println(deadline.HeaderGRPCTimeout+":", grpc)
	fmt.Println("receiver deadline at", at)
	// Output:
	// Budget-Remaining-Ms: 1480
	// grpc-timeout: 1480m
	// receiver deadline at 8.475s
}
