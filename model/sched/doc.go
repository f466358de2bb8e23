// Package sched holds queue disciplines: the order in which waiting work
// is handed to free workers. A simulator and a real gateway use them the
// same way: Push work as it arrives, Pop when a worker is free, and call
// Done when the worker finishes, so that a per-tenant cap on work in
// flight can be enforced.
//
//   - [Priority] serves by strict, non-preemptive priority: the lowest
//     Priority value first (0 before 1), first in first out within a
//     priority. Work in service is never interrupted. Its mean waits are
//     Cobham's formula for the M/G/1 priority queue (model/analytic's
//     PriorityMG1).
//   - [Fair] serves tenants by weighted fair queuing, in the start-time
//     fair queuing form of Goyal, Vin and Cheng (SIGCOMM 1996), each item
//     tagged when it reaches the head of its tenant's queue: while tenants
//     are backlogged, the work handed out to each is proportional to its
//     weight, whatever the others push, and an item handed out after its
//     [Item.Deadline] is not charged to its tenant ([Fair.Refund] gives
//     back the turn of one dropped for another reason). A bounded queue
//     makes room with [Fair.PushOut], longest queue drop, so that a
//     flooding tenant cannot fill the room and drain the others' backlog.
//
// Both cap each tenant's work in flight at its [Tenant.MaxInFlight]: an
// item of a tenant at its cap is passed over, not dropped, until Done
// frees a slot. Items of one tenant at one priority always leave in the
// order they came.
//
// Time is an argument: Push and Pop take now, an instant on a monotonic
// clock as a [time.Duration] (virtual or real), and record it in the item,
// so that a caller can measure waits. The order does not depend on time,
// except that [Fair] does not charge an item popped at or after its
// [Item.Deadline]. All state lives in the queue value; there is no
// package-level state. The package imports nothing else from budgetsim.
// Queues are not safe for concurrent use: a gateway guards one with its own
// mutex. Ties are broken by the order of Push calls, so the same calls
// give the same order on every run.
package sched
