package cost

import "sync"

// A Ledger is an [Account] shared by goroutines, such as a tenant's daily
// budget drawn on by many workers: every method takes one mutex, so a
// reservation is an atomic check-and-take and concurrent callers never
// overcommit. Its semantics are exactly Account's; see there and the
// package documentation.
//
// Reservations issued by a Ledger are valid only with that Ledger. Read
// the books with [Ledger.Balance] when several figures must agree: separate
// calls to Remaining, Reserved, … may observe different instants.
//
// The zero value is a Ledger with a limit of 0. A Ledger is safe for
// concurrent use by multiple goroutines and must not be copied after first
// use. Its methods do not allocate except to build an error, once its
// slots have grown to the largest number of reservations open at one time.
type Ledger struct {
	mu   sync.Mutex
	acct Account
}

// NewLedger returns a Ledger with limit to spend, nothing reserved or
// spent. It returns an error naming limit if limit < 0.
func NewLedger(limit Amount) (*Ledger, error) {
	a, err := NewAccount(limit)
	if err != nil {
		return nil, err
	}
	return &Ledger{acct: *a}, nil
}

// Reserve is [Account.Reserve] under the Ledger's lock.
func (l *Ledger) Reserve(max Amount) (Reservation, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acct.Reserve(max)
}

// TryReserve is [Account.TryReserve] under the Ledger's lock.
func (l *Ledger) TryReserve(max Amount) (Reservation, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acct.TryReserve(max)
}

// Settle is [Account.Settle] under the Ledger's lock.
func (l *Ledger) Settle(r Reservation, actual Amount) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acct.Settle(r, actual)
}

// Release is [Account.Release] under the Ledger's lock.
func (l *Ledger) Release(r Reservation) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acct.Release(r)
}

// Hold is [Account.Hold] under the Ledger's lock.
func (l *Ledger) Hold(r Reservation) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acct.Hold(r)
}

// HoldForever is [Account.HoldForever] under the Ledger's lock.
func (l *Ledger) HoldForever(r Reservation) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acct.HoldForever(r)
}

// Reconcile is [Account.Reconcile] under the Ledger's lock.
func (l *Ledger) Reconcile(r Reservation, actual Amount) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acct.Reconcile(r, actual)
}

// Limit returns the budget the Ledger was created with.
func (l *Ledger) Limit() Amount {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acct.limit
}

// Remaining returns the amount free to reserve. It is never negative.
func (l *Ledger) Remaining() Amount {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acct.remaining
}

// Reserved returns the amount held by open reservations awaiting Settle or
// Release.
func (l *Ledger) Reserved() Amount {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acct.reserved
}

// Pending returns the amount held by reservations awaiting Reconcile.
func (l *Ledger) Pending() Amount {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acct.pending
}

// Spent returns the usage settled and reconciled so far.
func (l *Ledger) Spent() Amount {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acct.spent
}

// Balance returns a consistent snapshot of the books, taken under the lock.
func (l *Ledger) Balance() Balance {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acct.Balance()
}
