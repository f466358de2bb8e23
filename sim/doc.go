// Package sim is budgetsim's discrete-event engine: an exact virtual clock,
// a typed future-event list with cancellable timers, named random streams and
// a parallel replication runner. It knows nothing of queues, runs or tools.
//
// # Time
//
// Virtual time is a time.Duration: integer nanoseconds since the start of a
// simulation. It never drifts the way float seconds do, and two events at the
// same instant are ordered by the sequence number they were scheduled with, so
// the order of processing is total and deterministic (the (time, priority, id)
// rule of SimPy's Environment).
//
// # Events
//
// An Event is a small value: a kind and two integers that the model
// interprets (typically an index into a model-owned table and a generation
// number). The model runs the loop itself:
//
//	for {
//		ev, ok := s.Next()
//		if !ok {
//			break
//		}
//		switch ev.Kind { ... }
//	}
//
// There are no closures or interfaces on the hot path, so scheduling and
// processing an event allocate nothing once the event list has grown to its
// working size.
//
// # Randomness
//
// Every component draws from its own Stream, derived from the scenario seed
// and the component's name, so changing one component's policy never shifts
// another component's draws (common random numbers). A Stream can also be
// re-keyed per draw (Stream.Key) for counter-based draws that depend only on
// what is drawn (run, step, attempt), not on how many draws came before.
//
// # Concurrency
//
// A Sim and a Stream are not safe for concurrent use: run one simulator per
// goroutine. Parallel runs independent simulations side by side and returns
// their results in index order, so output does not depend on GOMAXPROCS.
package sim
