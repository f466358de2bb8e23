// Package breaker is a client-side circuit breaker: a state machine that
// watches the outcomes of calls to one dependency and, when too many of them
// fail or are slow, refuses further calls locally for a while instead of
// sending them to a dependency that is down.
//
// The model is resilience4j's CircuitBreaker (resilience4j-circuitbreaker,
// CircuitBreakerConfig and CircuitBreakerStateMachine), which Polly's
// advanced circuit breaker (Polly v7 AdvancedCircuitBreaker, Polly v8
// CircuitBreakerStrategyOptions) is a special case of. Each rule cites its
// source in the doc comment of the field or method that implements it; in
// short:
//
//   - Closed: every call is permitted. Outcomes go into a sliding window,
//     count-based (the last N calls) or time-based (the calls of the last N
//     buckets of time). Once the window holds at least MinimumCalls, the
//     failure rate and the slow-call rate are checked after each recorded
//     outcome; if either is at or above its threshold the breaker opens.
//   - Open: every call is refused locally (counted in [Counts].Rejected: the
//     calls the breaker saved the dependency). After WaitInOpen the breaker
//     turns half-open.
//   - HalfOpen: PermittedInHalfOpen probe calls are permitted and the rest
//     refused. When that many outcomes have been recorded, the rates over
//     them decide: at or above a threshold reopens, below closes.
//
// Time is an argument. Every method takes now, an instant on a monotonic
// clock expressed as a [time.Duration] from an arbitrary origin, like
// model/ratelimit and golang.org/x/time/rate's *At methods. The same code
// runs on a simulator's virtual clock and, with now = time.Since(start), on
// the real clock. There is no package-level state and no timer: the change
// from Open to HalfOpen is applied by the first call at or after it is due,
// and reported with the instant it became due.
//
// Transitions are reported to [Config].OnTransition, in order, with their
// instant, so a simulator can chart the state over time; [Breaker.Counts]
// says how many calls were permitted, refused, and how they ended.
//
// The package imports nothing else from budgetsim: it is plain policy code
// that a production agent can run unchanged.
package breaker
