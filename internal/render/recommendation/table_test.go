package recommendation

import (
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/plan/recommend"
)

// grid100 is 1 … 100 ms.
func grid100() []float64 {
	x := make([]float64, 100)
	for i := range x {
		x[i] = float64(i+1) / 1000
	}
	return x
}

// TestDeadlineTooShortSaysSo: when the given deadline holds fewer
// attempts than the target needs (here none: one attempt needs its 99 ms
// ceiling and the 50 ms floor, over a 100 ms deadline), the attempts row
// says so beside its number, and the max attempts row says what one
// attempt needs and what to change, not a bare "not even 1".
func TestDeadlineTooShortSaysSo(t *testing.T) {
	r, err := recommend.FromSamples(grid100(), recommend.Options{ErrorRate: 0.1, Deadline: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxAttempts != 0 || r.Attempts < 2 {
		t.Fatalf("MaxAttempts, Attempts = %d, %d; want 0 and at least 2", r.MaxAttempts, r.Attempts)
	}
	rows := recommendationRows(r, nil)
	cell := func(name string) string {
		for _, row := range rows {
			if row[0] == name {
				return row[2]
			}
		}
		t.Fatalf("no %q row in %q", name, rows)
		return ""
	}
	if got := cell("attempts"); !strings.Contains(got, "but the 100ms deadline holds none (max attempts below)") {
		t.Errorf("attempts row: %q; want it to say the deadline holds none", got)
	}
	if got := cell("max attempts"); !strings.Contains(got, "one attempt needs 149ms") || !strings.Contains(got, "raise the deadline to at least 149ms") {
		t.Errorf("max attempts row: %q; want what one attempt needs and what to change", got)
	}
}
