package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// BreakersHeader heads breakers.csv: per tool with a circuit breaker and
// bin of the time series, the share of the bin its breaker spent open and
// half-open, and the calls of measured runs it refused in the bin.
var BreakersHeader = []string{"variant", "tool", "t_s", "width_s", "open", "half_open", "refused"}

// HasBreakers reports whether some tool of cfg has a circuit breaker:
// whether breakers.csv has rows.
func HasBreakers(cfg *system.Config) bool {
	for _, t := range cfg.Tools {
		if t.CircuitBreaker != nil {
			return true
		}
	}
	return false
}

// BreakerBin is one row of breakers.csv before formatting: bin Bin of the
// series, the shares of it tool Tool's breaker spent open and half-open,
// and the calls it refused in it.
type BreakerBin struct {
	Tool           string
	Bin            int
	Open, HalfOpen float64
	Refused        int64
}

// BreakerBins returns the rows of breakers.csv for series s of a
// simulation of cfg: for each tool with a breaker, in cfg's order, one per
// bin of s from 0 to the series' last bin (a closed breaker's are zeros).
func BreakerBins(cfg *system.Config, s *system.Series) []BreakerBin {
	width := s.Width.Seconds()
	var out []BreakerBin
	for t, tool := range cfg.Tools {
		if tool.CircuitBreaker == nil || t >= len(s.BreakerOpen) {
			continue
		}
		open, half, refused := s.BreakerOpen[t], s.BreakerHalfOpen[t], s.BreakerRefused[t]
		for i := range max(len(s.Bins), len(open), len(half), len(refused)) {
			b := BreakerBin{Tool: tool.Name, Bin: i}
			if i < len(open) {
				b.Open = open[i] / width
			}
			if i < len(half) {
				b.HalfOpen = half[i] / width
			}
			if i < len(refused) {
				b.Refused = refused[i]
			}
			out = append(out, b)
		}
	}
	return out
}

// BreakerRows writes one variant's rows of breakers.csv (see BreakerBins).
func BreakerRows(cw *csv.Writer, cfg *system.Config, variant string, s *system.Series) error {
	width := s.Width.Seconds()
	for _, b := range BreakerBins(cfg, s) {
		if err := cw.Write([]string{CSVText(variant), CSVText(b.Tool),
			strconv.FormatFloat(float64(b.Bin)*width, 'g', -1, 64),
			strconv.FormatFloat(width, 'g', -1, 64),
			strconv.FormatFloat(b.Open, 'g', 6, 64),
			strconv.FormatFloat(b.HalfOpen, 'g', 6, 64),
			strconv.FormatInt(b.Refused, 10),
		}); err != nil {
			return err
		}
	}
	return nil
}

// BreakersCSV writes breakers.csv for one variant.
func BreakersCSV(w io.Writer, cfg *system.Config, variant string, s *system.Series) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(BreakersHeader); err != nil {
		return err
	}
	if err := BreakerRows(cw, cfg, variant, s); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

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
