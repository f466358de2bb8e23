package cost_test

import (
	"errors"
	"fmt"

	"github.com/budgetsim/budgetsim/model/cost"
)

// A budget of 100 units shared by calls that reserve their declared maximum
// before dialing and settle their actual usage after.
func ExampleLedger() {
	budget, err := cost.NewLedger(100 * cost.Unit)
	if err != nil {
		panic(err)
	}
	a, _ := budget.Reserve(70 * cost.Unit)
	fmt.Println("after reserving 70: remaining", budget.Remaining())

	// A second call's maximum no longer fits: it is refused before dialing.
	if _, err := budget.Reserve(50 * cost.Unit); errors.Is(err, cost.ErrInsufficient) {
		fmt.Println(err)
	}

	// The first call used 40: the other 30 return to the budget.
	if err := budget.Settle(a, 40*cost.Unit); err != nil {
		panic(err)
	}
	fmt.Println("after settling 40: remaining", budget.Remaining())

	b, _ := budget.Reserve(50 * cost.Unit)
	fmt.Println("after reserving 50: remaining", budget.Remaining())

	// The second call times out: its usage is unknown, so its maximum stays
	// committed (as pending) until the provider's figure arrives.
	_ = budget.Hold(b)
	fmt.Printf("held: %+v\n", budget.Balance())
	_ = budget.Reconcile(b, 12_500_000) // 12.5 units
	fmt.Printf("reconciled: %+v\n", budget.Balance())
	// Output:
	// after reserving 70: remaining 30
	// cost: Reserve(max 50): insufficient budget: remaining 30
	// after settling 40: remaining 60
	// after reserving 50: remaining 10
	// held: {Limit:100 Remaining:10 Reserved:0 Pending:50 Spent:40 Open:0 Held:1}
	// reconciled: {Limit:100 Remaining:47.5 Reserved:0 Pending:0 Spent:52.5 Open:0 Held:0}
}

// Settling more than was reserved is an error that leaves the books as they
// were: the reservation is still open and can be settled correctly.
func ExampleAccount_Settle() {
	run, _ := cost.NewAccount(30 * cost.Unit)
	x, _ := run.Reserve(20 * cost.Unit)
	fmt.Println(run.Settle(x, 25*cost.Unit))
	fmt.Println("remaining", run.Remaining(), "reserved", run.Reserved())
	fmt.Println(run.Settle(x, 10*cost.Unit))
	fmt.Println("remaining", run.Remaining(), "spent", run.Spent())
	fmt.Println(run.Settle(x, 10*cost.Unit))
	// Output:
	// cost: Settle(reservation 1, 25): actual: must be in [0, 20], got 25: invalid amount
	// remaining 10 reserved 20
	// <nil>
	// remaining 20 spent 10
	// cost: Settle(reservation 1): reservation already closed
}

func ExampleParseAmount() {
	for _, s := range []string{"0.25", "12", "0.0000001"} {
		a, err := cost.ParseAmount(s)
		fmt.Println(int64(a), a, err)
	}
	// Output:
	// 250000 0.25 <nil>
	// 12000000 12 <nil>
	// 0 0 cost: amount "0.0000001": more than 6 decimal places: invalid amount syntax
}
