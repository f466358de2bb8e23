package cost_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/budgetsim/budgetsim/model/cost"
	"pgregory.net/rapid"
)

// books is the API that Account and Ledger share. Every test below runs on
// both implementations.
type books interface {
	Reserve(max cost.Amount) (cost.Reservation, error)
	TryReserve(max cost.Amount) (cost.Reservation, bool)
	Settle(r cost.Reservation, actual cost.Amount) error
	Release(r cost.Reservation) error
	Hold(r cost.Reservation) error
	HoldForever(r cost.Reservation) error
	Reconcile(r cost.Reservation, actual cost.Amount) error
	Limit() cost.Amount
	Remaining() cost.Amount
	Reserved() cost.Amount
	Pending() cost.Amount
	Spent() cost.Amount
	Balance() cost.Balance
}

var (
	_ books = (*cost.Account)(nil)
	_ books = (*cost.Ledger)(nil)
)

// impls constructs each implementation with a limit.
var impls = []struct {
	name string
	new  func(limit cost.Amount) (books, error)
}{
	{"Account", func(l cost.Amount) (books, error) { return cost.NewAccount(l) }},
	{"Ledger", func(l cost.Amount) (books, error) { return cost.NewLedger(l) }},
}

func forEach(t *testing.T, limit cost.Amount, test func(t *testing.T, b books)) {
	t.Helper()
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			b, err := impl.new(limit)
			if err != nil {
				t.Fatalf("New%s(%v): %v", impl.name, limit, err)
			}
			test(t, b)
		})
	}
}

const u = cost.Unit

// checkBooks fails unless b's books read want, through Balance and through
// each single read-out, and satisfy the invariant.
func checkBooks(t *testing.T, step string, b books, want cost.Balance) {
	t.Helper()
	got := b.Balance()
	if got != want {
		t.Errorf("%s: Balance() = %+v, want %+v", step, got, want)
	}
	single := cost.Balance{
		Limit: b.Limit(), Remaining: b.Remaining(), Reserved: b.Reserved(),
		Pending: b.Pending(), Spent: b.Spent(), Open: got.Open, Held: got.Held,
	}
	if single != got {
		t.Errorf("%s: read-outs %+v disagree with Balance() %+v", step, single, got)
	}
	checkInvariant(t, step, got)
}

// reporter is what checkInvariant needs of a *testing.T or a *rapid.T.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

func checkInvariant(t reporter, step string, g cost.Balance) {
	t.Helper()
	if sum := g.Remaining + g.Reserved + g.Pending + g.Spent; sum != g.Limit {
		t.Errorf("%s: Remaining+Reserved+Pending+Spent = %v, want Limit %v (%+v)", step, sum, g.Limit, g)
	}
	if g.Remaining < 0 || g.Reserved < 0 || g.Pending < 0 || g.Spent < 0 || g.Open < 0 || g.Held < 0 {
		t.Errorf("%s: negative figure in %+v", step, g)
	}
}

func mustReserve(t *testing.T, b books, max cost.Amount) cost.Reservation {
	t.Helper()
	r, err := b.Reserve(max)
	if err != nil {
		t.Fatalf("Reserve(%v): %v", max, err)
	}
	return r
}

// The seed's worked example: limit 100; reserve 70; 50 more is refused;
// settling 40 returns 30, so remaining is 60; then 50 fits, leaving 10.
func TestSeedExample(t *testing.T) {
	forEach(t, 100*u, func(t *testing.T, b books) {
		a := mustReserve(t, b, 70*u)
		checkBooks(t, "reserve 70", b, cost.Balance{Limit: 100 * u, Remaining: 30 * u, Reserved: 70 * u, Open: 1})

		_, err := b.Reserve(50 * u)
		var ie *cost.InsufficientError
		if !errors.Is(err, cost.ErrInsufficient) || !errors.As(err, &ie) || ie.Max != 50*u || ie.Remaining != 30*u {
			t.Fatalf("Reserve(50) with 30 left = %v, want *InsufficientError{Max: 50, Remaining: 30}", err)
		}
		if want := "cost: Reserve(max 50): insufficient budget: remaining 30"; err.Error() != want {
			t.Errorf("Reserve(50).Error() = %q, want %q", err.Error(), want)
		}
		checkBooks(t, "refused 50", b, cost.Balance{Limit: 100 * u, Remaining: 30 * u, Reserved: 70 * u, Open: 1})

		if err := b.Settle(a, 40*u); err != nil {
			t.Fatalf("Settle(a, 40): %v", err)
		}
		checkBooks(t, "settle 40", b, cost.Balance{Limit: 100 * u, Remaining: 60 * u, Spent: 40 * u})

		mustReserve(t, b, 50*u)
		checkBooks(t, "reserve 50", b, cost.Balance{Limit: 100 * u, Remaining: 10 * u, Reserved: 50 * u, Spent: 40 * u, Open: 1})
	})
}

// The seed's exercise: with 30, reserve 20; settling 25 is an error that
// keeps the reservation and the balance; settling 10 then leaves 20.
func TestSeedExercise(t *testing.T) {
	forEach(t, 30*u, func(t *testing.T, b books) {
		x := mustReserve(t, b, 20*u)
		before := b.Balance()
		err := b.Settle(x, 25*u)
		if !errors.Is(err, cost.ErrInvalidAmount) {
			t.Fatalf("Settle(x, 25) of a 20 reservation = %v, want ErrInvalidAmount", err)
		}
		if want := "actual: must be in [0, 20], got 25"; !strings.Contains(err.Error(), want) {
			t.Errorf("Settle(x, 25) error = %q, want containing %q", err, want)
		}
		checkBooks(t, "refused settle 25", b, before)
		if err := b.Settle(x, 10*u); err != nil {
			t.Fatalf("Settle(x, 10) after the refused 25: %v (the reservation should still exist)", err)
		}
		checkBooks(t, "settle 10", b, cost.Balance{Limit: 30 * u, Remaining: 20 * u, Spent: 10 * u})
	})
}

// A timed-out metered call keeps its whole maximum out of the budget until
// the real figure arrives; it is never settled as zero.
func TestHoldReconcile(t *testing.T) {
	forEach(t, 100*u, func(t *testing.T, b books) {
		r := mustReserve(t, b, 30*u)
		s := mustReserve(t, b, 20*u)
		if err := b.Hold(r); err != nil {
			t.Fatalf("Hold(r): %v", err)
		}
		checkBooks(t, "hold r", b, cost.Balance{Limit: 100 * u, Remaining: 50 * u, Reserved: 20 * u, Pending: 30 * u, Open: 1, Held: 1})

		// Held money is not available: 51 does not fit.
		if _, err := b.Reserve(51 * u); !errors.Is(err, cost.ErrInsufficient) {
			t.Errorf("Reserve(51) with 50 remaining and 30 pending = %v, want ErrInsufficient", err)
		}
		if err := b.Release(s); err != nil {
			t.Fatalf("Release(s): %v", err)
		}
		checkBooks(t, "release s", b, cost.Balance{Limit: 100 * u, Remaining: 70 * u, Pending: 30 * u, Held: 1})

		if err := b.Reconcile(r, 12*u); err != nil {
			t.Fatalf("Reconcile(r, 12): %v", err)
		}
		checkBooks(t, "reconcile r", b, cost.Balance{Limit: 100 * u, Remaining: 88 * u, Spent: 12 * u})
	})
}

// TestHoldForever: a reservation held for good counts in Pending and Held
// like a held one, is closed (Reconcile and a second hold refuse it), and
// leaves its slot to the next reservation: a million of them take no more
// slots than one.
func TestHoldForever(t *testing.T) {
	forEach(t, 100*u, func(t *testing.T, b books) {
		r := mustReserve(t, b, 30*u)
		if err := b.HoldForever(r); err != nil {
			t.Fatalf("HoldForever(r): %v", err)
		}
		checkBooks(t, "hold r for good", b, cost.Balance{Limit: 100 * u, Remaining: 70 * u, Pending: 30 * u, Held: 1})
		if err := b.Reconcile(r, 10*u); !errors.Is(err, cost.ErrClosed) {
			t.Errorf("Reconcile(r held for good) = %v, want ErrClosed", err)
		}
		if err := b.HoldForever(r); !errors.Is(err, cost.ErrClosed) {
			t.Errorf("HoldForever twice = %v, want ErrClosed", err)
		}
		checkBooks(t, "after refused calls", b, cost.Balance{Limit: 100 * u, Remaining: 70 * u, Pending: 30 * u, Held: 1})
	})
	a, err := cost.NewAccount(1_000_000 * u)
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		r, ok := a.TryReserve(u)
		if !ok {
			t.Fatal("TryReserve refused")
		}
		if err := a.HoldForever(r); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Reserve + HoldForever allocates %v times per call: held reservations keep their slots", allocs)
	}
}

// Misuse is an error of the right class, and leaves the books unchanged.
func TestErrors(t *testing.T) {
	forEach(t, 100*u, func(t *testing.T, b books) {
		open := mustReserve(t, b, 10*u)
		held := mustReserve(t, b, 20*u)
		if err := b.Hold(held); err != nil {
			t.Fatalf("Hold(held): %v", err)
		}
		closed := mustReserve(t, b, 5*u)
		if err := b.Settle(closed, 5*u); err != nil {
			t.Fatalf("Settle(closed, 5): %v", err)
		}
		// The next reservation reuses closed's slot: closed must stay closed.
		reused := mustReserve(t, b, 7*u)
		other, _ := cost.NewLedger(100 * u)
		foreign, _ := other.Reserve(10 * u)

		tests := []struct {
			name string
			op   func() error
			want error
		}{
			{"Reserve(-1)", func() error { _, err := b.Reserve(-1); return err }, cost.ErrInvalidAmount},
			{"Reserve(59)", func() error { _, err := b.Reserve(59 * u); return err }, cost.ErrInsufficient},
			{"Settle(open, -1)", func() error { return b.Settle(open, -1) }, cost.ErrInvalidAmount},
			{"Settle(open, 10.000001)", func() error { return b.Settle(open, 10*u+1) }, cost.ErrInvalidAmount},
			{"Settle(closed, 5)", func() error { return b.Settle(closed, 5*u) }, cost.ErrClosed},
			{"Release(closed)", func() error { return b.Release(closed) }, cost.ErrClosed},
			{"Hold(closed)", func() error { return b.Hold(closed) }, cost.ErrClosed},
			{"Reconcile(closed, 0)", func() error { return b.Reconcile(closed, 0) }, cost.ErrClosed},
			{"Settle(Reservation{}, 0)", func() error { return b.Settle(cost.Reservation{}, 0) }, cost.ErrUnknownReservation},
			{"Release(Reservation{})", func() error { return b.Release(cost.Reservation{}) }, cost.ErrUnknownReservation},
			{"Settle(foreign, 1)", func() error { return b.Settle(foreign, 1) }, cost.ErrUnknownReservation},
			{"Hold(foreign)", func() error { return b.Hold(foreign) }, cost.ErrUnknownReservation},
			{"Settle(held, 1)", func() error { return b.Settle(held, 1) }, cost.ErrWrongState},
			{"Release(held)", func() error { return b.Release(held) }, cost.ErrWrongState},
			{"Hold(held)", func() error { return b.Hold(held) }, cost.ErrWrongState},
			{"Reconcile(open, 1)", func() error { return b.Reconcile(open, 1) }, cost.ErrWrongState},
			{"Reconcile(held, -1)", func() error { return b.Reconcile(held, -1) }, cost.ErrInvalidAmount},
			{"Reconcile(held, 21)", func() error { return b.Reconcile(held, 21*u) }, cost.ErrInvalidAmount},
		}
		for _, tt := range tests {
			before := b.Balance()
			err := tt.op()
			if !errors.Is(err, tt.want) {
				t.Errorf("%s = %v, want %v", tt.name, err, tt.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "cost: ") {
				t.Errorf("%s error %q lacks the package prefix", tt.name, err)
			}
			if after := b.Balance(); after != before {
				t.Errorf("%s changed the books: %+v, was %+v", tt.name, after, before)
			}
		}
		// The failed operations did not damage the live reservations.
		for _, step := range []struct {
			name string
			op   func() error
		}{
			{"Settle(open, 10)", func() error { return b.Settle(open, 10*u) }},
			{"Reconcile(held, 20)", func() error { return b.Reconcile(held, 20*u) }},
			{"Release(reused)", func() error { return b.Release(reused) }},
		} {
			if err := step.op(); err != nil {
				t.Errorf("%s after the misuse: %v", step.name, err)
			}
		}
		checkBooks(t, "end", b, cost.Balance{Limit: 100 * u, Remaining: 65 * u, Spent: 35 * u})
	})
}

func TestReservationIDs(t *testing.T) {
	forEach(t, 10*u, func(t *testing.T, b books) {
		for want := uint64(1); want <= 3; want++ {
			r := mustReserve(t, b, u)
			if r.ID() != want || r.Max() != u {
				t.Errorf("Reserve #%d = {ID: %d, Max: %v}, want {ID: %d, Max: 1}", want, r.ID(), r.Max(), want)
			}
			if err := b.Release(r); err != nil {
				t.Fatalf("Release(#%d): %v", want, err)
			}
		}
		if got := (cost.Reservation{}).ID(); got != 0 {
			t.Errorf("Reservation{}.ID() = %d, want 0", got)
		}
	})
}

func TestZeroValues(t *testing.T) {
	var a cost.Account
	var l cost.Ledger
	for name, b := range map[string]books{"Account{}": &a, "Ledger{}": &l} {
		if _, err := b.Reserve(cost.Micro); !errors.Is(err, cost.ErrInsufficient) {
			t.Errorf("%s.Reserve(0.000001) = %v, want ErrInsufficient", name, err)
		}
		r, err := b.Reserve(0)
		if err != nil {
			t.Fatalf("%s.Reserve(0) = %v, want nil", name, err)
		}
		if err := b.Settle(r, 0); err != nil {
			t.Errorf("%s.Settle(r, 0) = %v, want nil", name, err)
		}
		if got := b.Balance(); got != (cost.Balance{}) {
			t.Errorf("%s.Balance() = %+v, want zero", name, got)
		}
	}
}

func TestNewErrors(t *testing.T) {
	const want = "limit: must be ≥ 0, got -0.5"
	if _, err := cost.NewAccount(-u / 2); !errors.Is(err, cost.ErrInvalidAmount) || !strings.Contains(err.Error(), want) {
		t.Errorf("NewAccount(-0.5) error = %v, want containing %q", err, want)
	}
	if _, err := cost.NewLedger(-u / 2); !errors.Is(err, cost.ErrInvalidAmount) || !strings.Contains(err.Error(), want) {
		t.Errorf("NewLedger(-0.5) error = %v, want containing %q", err, want)
	}
}

func TestTryReserve(t *testing.T) {
	forEach(t, 10*u, func(t *testing.T, b books) {
		r, ok := b.TryReserve(10 * u)
		if !ok || r.Max() != 10*u {
			t.Fatalf("TryReserve(10) with 10 left = %+v, %v; want ok", r, ok)
		}
		if r2, ok := b.TryReserve(cost.Micro); ok || r2 != (cost.Reservation{}) {
			t.Errorf("TryReserve(0.000001) with 0 left = %+v, %v; want zero, false", r2, ok)
		}
		defer func() {
			if recover() == nil {
				t.Errorf("TryReserve(-1) did not panic")
			}
		}()
		b.TryReserve(-1)
	})
}

// In steady state (slots grown), the hot path allocates nothing: reserve,
// settle, hold, reconcile, release and a refusal through TryReserve.
func TestAllocs(t *testing.T) {
	const runs = 100
	// Each cycle spends 3 + 20 = 23 and needs 35 at its peak; the limit
	// leaves room for our warm-up, AllocsPerRun's own and the measured runs,
	// so no step fails (a failure would allocate its error).
	const cycles = runs + 2
	forEach(t, cycles*23*u+35*u, func(t *testing.T, b books) {
		failed := 0
		cycle := func() {
			r1, ok1 := b.TryReserve(10 * u)
			r2, err := b.Reserve(20 * u)
			r3, ok3 := b.TryReserve(5 * u)
			_, refused := b.TryReserve(cost.MaxAmount)
			if !ok1 || err != nil || !ok3 || refused ||
				b.Settle(r1, 3*u) != nil || b.Hold(r2) != nil || b.Release(r3) != nil || b.Reconcile(r2, 20*u) != nil {
				failed++
			}
			_ = b.Balance()
		}
		cycle()
		if allocs := testing.AllocsPerRun(runs, cycle); allocs != 0 {
			t.Errorf("reserve/settle/hold/reconcile/release cycle: %v allocs per run, want 0", allocs)
		}
		if failed != 0 {
			t.Errorf("%d cycles had a failing step, want 0", failed)
		}
		checkBooks(t, "after cycles", b, cost.Balance{Limit: cycles*23*u + 35*u, Remaining: 35 * u, Spent: cycles * 23 * u})
	})
}

// model is the reference the property test compares the books against:
// the same rules, written as plainly as possible.
type model struct {
	limit, remaining, reserved, pending, spent cost.Amount
	state                                      map[uint64]string // "open", "held", "held forever", "closed"
	max                                        map[uint64]cost.Amount
}

func (m *model) balance() cost.Balance {
	b := cost.Balance{Limit: m.limit, Remaining: m.remaining, Reserved: m.reserved, Pending: m.pending, Spent: m.spent}
	for _, s := range m.state {
		switch s {
		case "open":
			b.Open++
		case "held", "held forever":
			b.Held++
		}
	}
	return b
}

// TestBooksProperty drives random sequences of reserve, settle, hold, hold
// forever, reconcile and release (valid and invalid) against both implementations,
// checking after every step that the books equal a plain model, that
// Remaining + Reserved + Pending + Spent == Limit, that nothing is
// overcommitted, and that every error leaves the books unchanged.
func TestBooksProperty(t *testing.T) {
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				limit := cost.Amount(rapid.Int64Range(0, 1000).Draw(t, "limit"))
				b, err := impl.new(limit)
				if err != nil {
					t.Fatalf("New(%v): %v", limit, err)
				}
				m := &model{limit: limit, remaining: limit, state: map[uint64]string{}, max: map[uint64]cost.Amount{}}
				var handles []cost.Reservation // every handle ever issued, open or not
				pick := func(t *rapid.T) (cost.Reservation, bool) {
					if len(handles) == 0 {
						return cost.Reservation{}, false
					}
					return rapid.SampledFrom(handles).Draw(t, "r"), true
				}
				// apply runs op and checks it against the model's verdict:
				// wantErr reports whether the model says op must fail, and
				// commit updates the model when it must succeed.
				apply := func(t *rapid.T, name string, op func() error, wantErr bool, commit func()) {
					before := b.Balance()
					err := op()
					switch {
					case wantErr && err == nil:
						t.Fatalf("%s succeeded, want an error (books %+v)", name, before)
					case !wantErr && err != nil:
						t.Fatalf("%s = %v, want success (books %+v)", name, err, before)
					case err != nil:
						if after := b.Balance(); after != before {
							t.Fatalf("%s = %v changed the books: %+v, was %+v", name, err, after, before)
						}
					default:
						commit()
					}
				}
				t.Repeat(map[string]func(*rapid.T){
					"reserve": func(t *rapid.T) {
						max := cost.Amount(rapid.Int64Range(-2, 400).Draw(t, "max"))
						r, err := b.Reserve(max)
						switch {
						case max < 0 && !errors.Is(err, cost.ErrInvalidAmount),
							max >= 0 && max > m.remaining && !errors.Is(err, cost.ErrInsufficient),
							max >= 0 && max <= m.remaining && err != nil:
							t.Fatalf("Reserve(%v) with %v remaining = %v", max, m.remaining, err)
						}
						if err == nil {
							handles = append(handles, r)
							m.state[r.ID()], m.max[r.ID()] = "open", max
							m.remaining -= max
							m.reserved += max
						}
					},
					"settle": func(t *rapid.T) {
						r, ok := pick(t)
						if !ok {
							t.Skip("no reservations")
						}
						actual := cost.Amount(rapid.Int64Range(-1, int64(r.Max())+1).Draw(t, "actual"))
						valid := m.state[r.ID()] == "open" && actual >= 0 && actual <= r.Max()
						apply(t, "Settle", func() error { return b.Settle(r, actual) }, !valid, func() {
							m.state[r.ID()] = "closed"
							m.reserved -= r.Max()
							m.spent += actual
							m.remaining += r.Max() - actual
						})
					},
					"release": func(t *rapid.T) {
						r, ok := pick(t)
						if !ok {
							t.Skip("no reservations")
						}
						apply(t, "Release", func() error { return b.Release(r) }, m.state[r.ID()] != "open", func() {
							m.state[r.ID()] = "closed"
							m.reserved -= r.Max()
							m.remaining += r.Max()
						})
					},
					"hold": func(t *rapid.T) {
						r, ok := pick(t)
						if !ok {
							t.Skip("no reservations")
						}
						apply(t, "Hold", func() error { return b.Hold(r) }, m.state[r.ID()] != "open", func() {
							m.state[r.ID()] = "held"
							m.reserved -= r.Max()
							m.pending += r.Max()
						})
					},
					"hold forever": func(t *rapid.T) {
						r, ok := pick(t)
						if !ok {
							t.Skip("no reservations")
						}
						apply(t, "HoldForever", func() error { return b.HoldForever(r) }, m.state[r.ID()] != "open", func() {
							m.state[r.ID()] = "held forever"
							m.reserved -= r.Max()
							m.pending += r.Max()
						})
					},
					"reconcile": func(t *rapid.T) {
						r, ok := pick(t)
						if !ok {
							t.Skip("no reservations")
						}
						actual := cost.Amount(rapid.Int64Range(-1, int64(r.Max())+1).Draw(t, "actual"))
						valid := m.state[r.ID()] == "held" && actual >= 0 && actual <= r.Max()
						apply(t, "Reconcile", func() error { return b.Reconcile(r, actual) }, !valid, func() {
							m.state[r.ID()] = "closed"
							m.pending -= r.Max()
							m.spent += actual
							m.remaining += r.Max() - actual
						})
					},
					"unknown": func(t *rapid.T) {
						apply(t, "Settle(Reservation{})", func() error { return b.Settle(cost.Reservation{}, 0) }, true, nil)
					},
					"": func(t *rapid.T) {
						got, want := b.Balance(), m.balance()
						if got != want {
							t.Fatalf("Balance() = %+v, want %+v", got, want)
						}
						checkInvariant(t, "property", got)
					},
				})
			})
		})
	}
}

// Many goroutines reserving, settling, holding, reconciling and releasing
// against one Ledger never commit more than the limit, and the final books
// are exact. Commitments are also tracked outside the ledger: each worker
// adds its maximum after a successful Reserve and takes back the refund
// before closing, so the outside figure is never above the ledger's own
// Reserved + Pending + Spent and exceeding the limit would show an overspend.
func TestLedgerConcurrent(t *testing.T) {
	const (
		limit   = 1000 * u
		workers = 8
		rounds  = 400
	)
	l, _ := cost.NewLedger(limit)
	var committed, spent, refused atomic.Int64
	// The workers start once the auditor has taken its first snapshot, so
	// that its reads overlap theirs however the goroutines are scheduled.
	ready := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			<-ready
			rng := rand.New(rand.NewPCG(1, uint64(w)))
			for range rounds {
				max := cost.Amount(1 + rng.Int64N(int64(10*u)))
				r, err := l.Reserve(max)
				if err != nil {
					if !errors.Is(err, cost.ErrInsufficient) {
						t.Errorf("Reserve(%v) = %v, want nil or ErrInsufficient", max, err)
					}
					refused.Add(1)
					continue
				}
				if c := committed.Add(int64(max)); c > int64(limit) {
					t.Errorf("committed %v > limit %v", cost.Amount(c), limit)
				}
				actual := cost.Amount(rng.Int64N(int64(max) + 1))
				switch rng.IntN(3) {
				case 0: // settled
					committed.Add(-int64(max - actual))
					spent.Add(int64(actual))
					err = l.Settle(r, actual)
				case 1: // timed out, reconciled later
					if err = l.Hold(r); err == nil {
						committed.Add(-int64(max - actual))
						spent.Add(int64(actual))
						err = l.Reconcile(r, actual)
					}
				case 2: // never dialed
					committed.Add(-int64(max))
					err = l.Release(r)
				}
				if err != nil {
					t.Errorf("closing reservation %d: %v", r.ID(), err)
				}
			}
		})
	}
	// An auditor reads consistent snapshots while the workers run.
	stop := make(chan struct{})
	var audits atomic.Int64
	var auditor sync.WaitGroup
	auditor.Go(func() {
		for {
			checkInvariant(t, "concurrent audit", l.Balance())
			if audits.Add(1) == 1 {
				close(ready)
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	})
	wg.Wait()
	close(stop)
	auditor.Wait()

	got := l.Balance()
	want := cost.Balance{Limit: limit, Remaining: limit - cost.Amount(spent.Load()), Spent: cost.Amount(spent.Load())}
	if got != want {
		t.Errorf("final Balance() = %+v, want %+v", got, want)
	}
	// Demand (8 workers × 400 × 5 units on average) is about 16 times the
	// limit, so the ledger must have run dry and refused some reservations.
	if refused.Load() == 0 {
		t.Errorf("no reservation was refused, want some: demand exceeds the limit")
	}
	if audits.Load() == 0 {
		t.Errorf("the auditor took no snapshot")
	}
}

// Goroutines racing for the last of the budget: exactly limit/size of them
// win, never one more.
func TestLedgerRaceForTheLast(t *testing.T) {
	const size, goroutines = 3 * u, 100
	l, _ := cost.NewLedger(100 * u) // room for 33 reservations of 3
	var won atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			if _, ok := l.TryReserve(size); ok {
				won.Add(1)
			}
		})
	}
	wg.Wait()
	if got := won.Load(); got != 33 {
		t.Errorf("%d goroutines TryReserve(3) against 100: %d won, want 33", goroutines, got)
	}
	checkBooks(t, "race", l, cost.Balance{Limit: 100 * u, Remaining: u, Reserved: 99 * u, Open: 33})
}

func BenchmarkAccountReserveSettle(b *testing.B) {
	a, _ := cost.NewAccount(1000 * u)
	b.ReportAllocs()
	for b.Loop() {
		r, _ := a.TryReserve(10 * u)
		if err := a.Settle(r, 0); err != nil { // settle 0 so the budget lasts
			b.Fatal(err)
		}
	}
}

func BenchmarkLedgerReserveSettle(b *testing.B) {
	l, _ := cost.NewLedger(1000 * u)
	b.ReportAllocs()
	for b.Loop() {
		r, _ := l.TryReserve(10 * u)
		if err := l.Settle(r, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLedgerReserveSettleParallel(b *testing.B) {
	l, _ := cost.NewLedger(cost.MaxAmount)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r, _ := l.TryReserve(10 * u)
			if err := l.Settle(r, 0); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
