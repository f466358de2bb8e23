package sched_test

import (
	"fmt"

	"github.com/budgetsim/budgetsim/model/sched"
)

// Chat turns (priority 0) are served before research runs (priority 1),
// first come first served within each; a job in service is not
// interrupted.
func ExamplePriority() {
	q, err := sched.NewPriority[string](nil)
	if err != nil {
		panic(err)
	}
	_ = q.Push(0, sched.Item[string]{Tenant: "acme", Priority: 1, Value: "research-1"})
	_ = q.Push(1, sched.Item[string]{Tenant: "acme", Priority: 0, Value: "chat-1"})
	_ = q.Push(2, sched.Item[string]{Tenant: "globex", Priority: 1, Value: "research-2"})
	_ = q.Push(3, sched.Item[string]{Tenant: "globex", Priority: 0, Value: "chat-2"})
	for q.Len() > 0 {
		it, _ := q.Pop(4)
		fmt.Println(it.Value, "waited", 4-it.Enqueued)
	}
	// Output:
	// chat-1 waited 3ns
	// chat-2 waited 1ns
	// research-1 waited 4ns
	// research-2 waited 2ns
}

// A paying tenant has three times the weight of a free one, and the free
// tenant may have at most two jobs in flight. Both have a backlog: the
// paying tenant gets three jobs for each of the free tenant's one.
func ExampleFair() {
	q, err := sched.NewFair[int]([]sched.Tenant{
		{Name: "paying", Weight: 3},
		{Name: "free", Weight: 1, MaxInFlight: 2},
	})
	if err != nil {
		panic(err)
	}
	for i := range 8 {
		_ = q.Push(0, sched.Item[int]{Tenant: "free", Value: i})
		_ = q.Push(0, sched.Item[int]{Tenant: "paying", Value: i})
	}
	for range 8 {
		it, _ := q.Pop(0)
		fmt.Print(it.Tenant, " ")
		_ = q.Done(0, it.Tenant) // a worker finishes each job at once
	}
	fmt.Println()
	// Output:
	// free paying paying paying free paying paying paying
}
