package render

import (
	"fmt"
	"io"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// BreakerTable writes the circuit breakers' table of a summary: per tool,
// how often its breaker opened, the time it spent open and half-open, and
// the calls it refused, split into those that would have failed (the
// calls it saved) and those that would have succeeded (the successes it
// cost), each judged by the call's own draws.
func BreakerTable(w io.Writer, bs []summary.BreakerSummary) error {
	var rows [][]string
	for _, b := range bs {
		rows = append(rows, BreakerRow(b))
	}
	if err := Table(w, BreakerHeader, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, BreakerNote)
	return err
}

// BreakerHeader heads the circuit breakers' table (BreakerRow).
var BreakerHeader = []string{"circuit breaker", "opened", "open", "half-open", "refused", "would have failed (saved)", "would have succeeded (cost)"}

// BreakerNote says how the breakers' table judges a refused call.
const BreakerNote = "A refused call is judged by its own draws had it been dialed (errors, outages, script, latency against its lease), not by the load it would have added."

// BreakerRow is a tool's row of the circuit breakers' table.
func BreakerRow(b summary.BreakerSummary) []string {
	return []string{b.Tool, Number(float64(b.Opened)), Seconds(b.OpenSeconds), Seconds(b.HalfOpenSeconds),
		Number(float64(b.Refused)), Number(float64(b.RefusedWouldFail)), Number(float64(b.RefusedWouldSucceed))}
}

// BreakerCell is a comparison's cell for a summary's breakers: the calls
// refused, would have failed / would have succeeded, summed over its tools;
// "–" without a breaker.
func BreakerCell(bs []summary.BreakerSummary) string {
	if len(bs) == 0 {
		return "–"
	}
	var b system.BreakerStats
	for _, x := range bs {
		b.Merge(x.BreakerStats)
	}
	return fmt.Sprintf("%s (%s / %s)", Number(float64(b.Refused)), Number(float64(b.RefusedWouldFail)), Number(float64(b.RefusedWouldSucceed)))
}
