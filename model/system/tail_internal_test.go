package system

import (
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/sim/stats"
)

// TestTailWindowPastTheBandsDecodes: the band window grows by doubling, so
// a real table's window can reach below the smallest band bandOf returns
// (here: a first latency of 1 ms, then one at the 1e-12 floor). Such a
// table must survive the shard codec; only non-empty bands outside
// bandOf's range are refused. (A first version of that check refused the
// window and broke every sweep.)
func TestTailWindowPastTheBandsDecodes(t *testing.T) {
	var tt tailTable
	tt.init(3)
	st := []time.Duration{time.Millisecond, 0, 0}
	tt.add(1e-3, st)
	tt.add(0, st)
	tt.add(5, st)
	if tt.lo >= minBand {
		t.Fatalf("window starts at band %d, not below the smallest band %d: the test builds the wrong table", tt.lo, minBand)
	}
	b, err := tt.result(stats.NewHistogram()).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Tail
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatalf("a real table whose window reaches below band %d: %v", minBand, err)
	}
	if back.table.lo != tt.lo || len(back.table.n) != len(tt.n) {
		t.Fatalf("decoded window [%d, +%d), want [%d, +%d)", back.table.lo, len(back.table.n), tt.lo, len(tt.n))
	}
}
