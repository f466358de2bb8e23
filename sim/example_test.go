package sim_test

import (
	"fmt"
	"time"

	"github.com/budgetsim/budgetsim/sim"
)

// A single-server queue with deterministic times: arrivals every second
// through the source lane (each arrival schedules the next), 1.5 s of
// service through the heap, and a timeout that is cancelled when service
// ends first. Events at the same instant come in the order they were
// scheduled, whichever of the lane and the heap holds them.
func ExampleSim() {
	const (
		arrival sim.Kind = iota
		done
		timeout
	)
	s := sim.New(16)
	s.Source(time.Second, arrival, 1, 0)
	busy, queued := false, 0
	var guard sim.Timer
	for {
		ev, ok := s.Next()
		if !ok {
			break
		}
		switch ev.Kind {
		case arrival:
			fmt.Printf("%v arrival %d\n", s.Now(), ev.Ref)
			if ev.Ref < 3 {
				s.Source(s.Now()+time.Second, arrival, ev.Ref+1, 0)
			}
			if busy {
				queued++
				continue
			}
			busy = true
			s.After(1500*time.Millisecond, done, ev.Ref, 0)
			guard = s.After(2*time.Second, timeout, ev.Ref, 0)
		case done:
			fmt.Printf("%v done %d (timeout cancelled: %v)\n", s.Now(), ev.Ref, s.Cancel(guard))
			busy = false
			if queued > 0 {
				queued--
				busy = true
				s.After(1500*time.Millisecond, done, ev.Ref+1, 0)
				guard = s.After(2*time.Second, timeout, ev.Ref+1, 0)
			}
		case timeout:
			fmt.Printf("%v timeout %d\n", s.Now(), ev.Ref)
		}
	}
	fmt.Println("events:", s.Processed())
	// Output:
	// 1s arrival 1
	// 2s arrival 2
	// 2.5s done 1 (timeout cancelled: true)
	// 3s arrival 3
	// 4s done 2 (timeout cancelled: true)
	// 5.5s done 3 (timeout cancelled: true)
	// events: 6
}
