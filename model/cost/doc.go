// Package cost keeps metered budgets: a call reserves its declared maximum
// cost before it is made and settles its actual usage after, and the
// difference returns to the budget.
//
// The life of a [Reservation]:
//
//	Reserve(max) ── refused with ErrInsufficient if max > Remaining
//	    │
//	    ├── Release(r)         the call was never dialed: full refund
//	    ├── Settle(r, actual)  usage known: spend actual, refund max − actual
//	    ├── Hold(r)            usage unknown (a metered call timed out):
//	    │       │              the whole max stays committed, as Pending
//	    │       └── Reconcile(r, actual)  the real figure arrived: settle it
//	    └── HoldForever(r)     usage unknown and never to be learnt (a
//	                           simulation): Pending for good, no record kept
//
// A timed-out metered call is never settled as zero: the provider may have
// done (and billed) all of the work, so its maximum stays out of the budget
// until Reconcile brings the real figure.
//
// At every instant Remaining + Reserved + Pending + Spent == Limit, and
// Remaining ≥ 0: a reservation that does not fit is refused, so concurrent
// callers can never both see "enough left" and spend it twice. An operation
// that returns an error leaves the books unchanged.
//
// [Ledger] is safe for concurrent use (a tenant's daily budget shared by
// workers); [Account] has the same semantics without a lock, for one owner
// such as one simulated run. Amounts are exact integers ([Amount], in
// micro-units); see Amount for why.
//
// The package imports nothing else from budgetsim: it is plain policy code
// that a production agent can run unchanged.
package cost
