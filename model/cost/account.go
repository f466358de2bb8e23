package cost

import (
	"errors"
	"fmt"
)

// ErrInsufficient is the error class of a reservation refused because its
// maximum exceeds what remains: errors.Is(err, ErrInsufficient) reports
// true for an [*InsufficientError].
var ErrInsufficient = errors.New("insufficient budget")

// ErrUnknownReservation is wrapped by errors for a Reservation that was not
// issued by this Account or Ledger: the zero Reservation, or one from
// another ledger.
var ErrUnknownReservation = errors.New("unknown reservation")

// ErrClosed is wrapped by errors for a Reservation that was already
// settled, released or reconciled: settling twice is an error.
var ErrClosed = errors.New("reservation already closed")

// ErrWrongState is wrapped by errors for an operation that does not apply to
// the reservation's state: Settle, Release or Hold of a held reservation
// (its call was dialed and its usage is unknown: Reconcile it), or Reconcile
// of one that is not held.
var ErrWrongState = errors.New("wrong reservation state")

// ErrInvalidAmount is wrapped by errors for a negative maximum, or an actual
// usage that is negative or above the reservation's maximum.
var ErrInvalidAmount = errors.New("invalid amount")

// InsufficientError reports a reservation refused because Max exceeded
// Remaining at the time. errors.Is(err, ErrInsufficient) reports true for it.
type InsufficientError struct {
	Max       Amount // the maximum asked for
	Remaining Amount // what remained unreserved
}

// Error returns "cost: Reserve(max 50): insufficient budget: remaining 30".
func (e *InsufficientError) Error() string {
	return fmt.Sprintf("cost: Reserve(max %v): %v: remaining %v", e.Max, ErrInsufficient, e.Remaining)
}

// Is reports whether target is [ErrInsufficient].
func (e *InsufficientError) Is(target error) bool { return target == ErrInsufficient }

// A Reservation is the handle of a budget reservation: a small value, valid
// only with the Account or Ledger that issued it. Copies refer to the same
// reservation, and once it is closed (settled, released or reconciled)
// every copy is closed. The zero Reservation is valid with no ledger.
type Reservation struct {
	owner *Account
	id    uint64
	slot  uint32
	max   Amount
}

// ID returns the reservation's sequence number, unique within its ledger
// and counting from 1 in the order of Reserve calls; 0 for the zero
// Reservation.
func (r Reservation) ID() uint64 { return r.id }

// Max returns the amount reserved: the call's declared maximum cost.
func (r Reservation) Max() Amount { return r.max }

// Balance is a consistent snapshot of an Account's or Ledger's books.
// Remaining + Reserved + Pending + Spent == Limit.
type Balance struct {
	Limit     Amount // the budget
	Remaining Amount // free to reserve; never negative
	Reserved  Amount // held by open reservations awaiting Settle or Release
	Pending   Amount // held by reservations awaiting Reconcile
	Spent     Amount // settled and reconciled usage
	Open      int    // number of open (not held) reservations
	Held      int    // number of reservations pending reconciliation
}

// slot is one reservation's record. A slot with id 0 is free.
type slot struct {
	id   uint64
	max  Amount
	held bool
}

// An Account is a budget for a single owner, such as one simulated run:
// [Ledger] semantics without the lock. See the package documentation for
// the life of a reservation.
//
// Reservations live in a slice of slots reused through a free list, so once
// the slice has grown to the largest number of reservations open at one
// time, no method allocates except to build an error.
//
// The zero value is an Account with a limit of 0: it refuses every
// reservation with a positive maximum.
//
// An Account is not safe for concurrent use: one goroutine at a time, or
// use a [Ledger]. It must not be copied after first use (a copy would not
// recognise the reservations issued by the original).
type Account struct {
	limit, remaining, reserved, pending, spent Amount

	open, held int
	lastID     uint64
	slots      []slot
	free       []uint32 // indices of free slots, used last-in first-out
}

// NewAccount returns an Account with limit to spend, nothing reserved or
// spent. It returns an error naming limit if limit < 0.
func NewAccount(limit Amount) (*Account, error) {
	if limit < 0 {
		return nil, fmt.Errorf("cost: limit: must be ≥ 0, got %v: %w", limit, ErrInvalidAmount)
	}
	return &Account{limit: limit, remaining: limit}, nil
}

// Reserve sets max aside for a call about to be made and returns its
// handle. If max exceeds Remaining, nothing is reserved and the error is an
// [*InsufficientError] (errors.Is(err, ErrInsufficient)). A max of 0 is
// allowed (a free call that still goes through the books); a negative max
// is an error wrapping [ErrInvalidAmount].
func (a *Account) Reserve(max Amount) (Reservation, error) {
	if max < 0 {
		return Reservation{}, fmt.Errorf("cost: Reserve: max: must be ≥ 0, got %v: %w", max, ErrInvalidAmount)
	}
	if max > a.remaining {
		return Reservation{}, &InsufficientError{Max: max, Remaining: a.remaining}
	}
	return a.reserve(max), nil
}

// TryReserve is Reserve for hot paths: it reports false instead of
// returning an error when max does not fit, and never allocates once the
// slots have grown. It panics if max is negative.
func (a *Account) TryReserve(max Amount) (Reservation, bool) {
	if max < 0 {
		panic("cost: TryReserve: negative max")
	}
	if max > a.remaining {
		return Reservation{}, false
	}
	return a.reserve(max), true
}

func (a *Account) reserve(max Amount) Reservation {
	var i uint32
	if n := len(a.free); n > 0 {
		i = a.free[n-1]
		a.free = a.free[:n-1]
	} else {
		i = uint32(len(a.slots))
		a.slots = append(a.slots, slot{})
	}
	a.lastID++
	a.slots[i] = slot{id: a.lastID, max: max}
	a.remaining -= max
	a.reserved += max
	a.open++
	return Reservation{owner: a, id: a.lastID, slot: i, max: max}
}

// lookup returns r's slot, or an error naming op if r is not open here.
func (a *Account) lookup(op string, r Reservation) (*slot, error) {
	if r.owner != a || r.id == 0 || int(r.slot) >= len(a.slots) {
		return nil, fmt.Errorf("cost: %s(reservation %d): %w", op, r.id, ErrUnknownReservation)
	}
	s := &a.slots[r.slot]
	if s.id != r.id {
		return nil, fmt.Errorf("cost: %s(reservation %d): %w", op, r.id, ErrClosed)
	}
	return s, nil
}

// close frees r's slot.
func (a *Account) close(r Reservation) {
	a.slots[r.slot] = slot{}
	a.free = append(a.free, r.slot)
}

// checkActual returns an error naming op unless 0 ≤ actual ≤ s.max.
func checkActual(op string, r Reservation, s *slot, actual Amount) error {
	if actual < 0 || actual > s.max {
		return fmt.Errorf("cost: %s(reservation %d, %v): actual: must be in [0, %v], got %v: %w",
			op, r.id, actual, s.max, actual, ErrInvalidAmount)
	}
	return nil
}

// Settle closes r with the call's actual usage: actual is spent and
// r.Max() − actual returns to Remaining. It is an error, leaving the books
// unchanged, if actual is negative or exceeds r.Max() ([ErrInvalidAmount]),
// if r is held ([ErrWrongState]: use Reconcile), already closed
// ([ErrClosed]) or not from this Account ([ErrUnknownReservation]).
func (a *Account) Settle(r Reservation, actual Amount) error {
	s, err := a.lookup("Settle", r)
	if err != nil {
		return err
	}
	if s.held {
		return fmt.Errorf("cost: Settle(reservation %d): held for reconciliation, use Reconcile: %w", r.id, ErrWrongState)
	}
	if err := checkActual("Settle", r, s, actual); err != nil {
		return err
	}
	a.reserved -= s.max
	a.spent += actual
	a.remaining += s.max - actual
	a.open--
	a.close(r)
	return nil
}

// Release closes r with a full refund, for a call that was never dialed
// (refused locally, or its run ended first). It is an error, leaving the
// books unchanged, if r is held ([ErrWrongState]: a held call was dialed),
// already closed ([ErrClosed]) or not from this Account
// ([ErrUnknownReservation]).
func (a *Account) Release(r Reservation) error {
	s, err := a.lookup("Release", r)
	if err != nil {
		return err
	}
	if s.held {
		return fmt.Errorf("cost: Release(reservation %d): held for reconciliation, use Reconcile: %w", r.id, ErrWrongState)
	}
	a.reserved -= s.max
	a.remaining += s.max
	a.open--
	a.close(r)
	return nil
}

// Hold moves r to pending reconciliation, for a metered call whose usage is
// unknown (it timed out, or its connection dropped): the whole r.Max() stays
// out of Remaining, counted in Pending instead of Reserved, until Reconcile
// settles it. It is never settled as zero. It is an error, leaving the books
// unchanged, if r is already held ([ErrWrongState]), closed ([ErrClosed]) or
// not from this Account ([ErrUnknownReservation]).
func (a *Account) Hold(r Reservation) error { return a.hold("Hold", r) }

func (a *Account) hold(op string, r Reservation) error {
	s, err := a.lookup(op, r)
	if err != nil {
		return err
	}
	if s.held {
		return fmt.Errorf("cost: %s(reservation %d): already held: %w", op, r.id, ErrWrongState)
	}
	s.held = true
	a.reserved -= s.max
	a.pending += s.max
	a.open--
	a.held++
	return nil
}

// HoldForever is Hold for a caller that will never learn the usage, such as
// a simulation: r.Max() moves to Pending for good and r is closed at once,
// so its slot is reused (it counts in Held, and Reconcile refuses it as
// closed). A storm of timed-out metered calls then takes no memory per
// call. It is an error, leaving the books unchanged, in the cases Hold is.
func (a *Account) HoldForever(r Reservation) error {
	if err := a.hold("HoldForever", r); err != nil {
		return err
	}
	a.close(r)
	return nil
}

// Reconcile closes a held reservation r with the real usage, once the
// provider reports it: actual is spent and r.Max() − actual returns to
// Remaining. It is an error, leaving the books unchanged, if actual is
// negative or exceeds r.Max() ([ErrInvalidAmount]: the declared maximum is
// the contract), if r is not held ([ErrWrongState]: use Settle), already
// closed ([ErrClosed]) or not from this Account ([ErrUnknownReservation]).
func (a *Account) Reconcile(r Reservation, actual Amount) error {
	s, err := a.lookup("Reconcile", r)
	if err != nil {
		return err
	}
	if !s.held {
		return fmt.Errorf("cost: Reconcile(reservation %d): not held, use Settle: %w", r.id, ErrWrongState)
	}
	if err := checkActual("Reconcile", r, s, actual); err != nil {
		return err
	}
	a.pending -= s.max
	a.spent += actual
	a.remaining += s.max - actual
	a.held--
	a.close(r)
	return nil
}

// Limit returns the budget the Account was created with.
func (a *Account) Limit() Amount { return a.limit }

// Remaining returns the amount free to reserve. It is never negative.
func (a *Account) Remaining() Amount { return a.remaining }

// Reserved returns the amount held by open reservations awaiting Settle or
// Release.
func (a *Account) Reserved() Amount { return a.reserved }

// Pending returns the amount held by reservations awaiting Reconcile.
func (a *Account) Pending() Amount { return a.pending }

// Spent returns the usage settled and reconciled so far.
func (a *Account) Spent() Amount { return a.spent }

// Balance returns a snapshot of the books.
func (a *Account) Balance() Balance {
	return Balance{
		Limit:     a.limit,
		Remaining: a.remaining,
		Reserved:  a.reserved,
		Pending:   a.pending,
		Spent:     a.spent,
		Open:      a.open,
		Held:      a.held,
	}
}
