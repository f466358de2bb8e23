package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
)

// LimitsHeader heads limits.csv: the adaptive concurrency limit of each
// tool that has one, per bin of the time series.
var LimitsHeader = []string{"variant", "tool", "t_s", "width_s", "limit"}

// HasAdaptive reports whether some tool of cfg has an adaptive concurrency
// limit: whether limits.csv has rows.
func HasAdaptive(cfg *system.Config) bool {
	for _, t := range cfg.Tools {
		if t.Adaptive != nil {
			return true
		}
	}
	return false
}

// LimitRows writes one variant's rows of limits.csv: for each tool with
// adaptive concurrency and each bin of s, the time-average of its limit
// over the bin.
func LimitRows(cw *csv.Writer, cfg *system.Config, variant string, s *system.Series) error {
	width := s.Width.Seconds()
	for t, tool := range cfg.Tools {
		if tool.Adaptive == nil || t >= len(s.ToolLimit) {
			continue
		}
		for k, v := range s.ToolLimit[t] {
			if err := cw.Write([]string{CSVText(variant), CSVText(tool.Name),
				strconv.FormatFloat(float64(k)*width, 'g', -1, 64),
				strconv.FormatFloat(width, 'g', -1, 64),
				strconv.FormatFloat(v/width, 'g', -1, 64),
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

// LimitsCSV writes limits.csv for one variant.
func LimitsCSV(w io.Writer, cfg *system.Config, variant string, s *system.Series) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(LimitsHeader); err != nil {
		return err
	}
	if err := LimitRows(cw, cfg, variant, s); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// AdaptiveHeader heads the table of adaptive concurrency figures.
var AdaptiveHeader = []string{"adaptive concurrency", "limit: mean (min–max)", "waited (mean wait)", "refused: wait too long / at limit", "drops"}

// AdaptiveRow formats a tool's adaptive concurrency figures as a row of
// AdaptiveHeader's table after its label: "aimd 12.3 (4–20)", …
func AdaptiveRow(label string, a *system.AdaptiveStats) []string {
	wait := "–"
	if a.Waited > 0 {
		wait = Seconds(a.WaitSeconds / float64(a.Waited))
	}
	return []string{label,
		fmt.Sprintf("%s %s (%d–%d)", a.Algorithm, Number(a.MeanLimit), a.MinLimit, a.MaxLimit),
		fmt.Sprintf("%s (%s)", Number(float64(a.Waited)), wait),
		fmt.Sprintf("%s / %s", Number(float64(a.RefusedWait)), Number(float64(a.Rejected))),
		Number(float64(a.Drops)),
	}
}

// adaptiveTable writes the adaptive concurrency figures of the tools that
// have a limit, if any.
func adaptiveTable(w io.Writer, tools []summary.ToolSummary) error {
	var rows [][]string
	for _, t := range tools {
		if t.Adaptive != nil {
			rows = append(rows, AdaptiveRow(t.Name, t.Adaptive))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	if err := Table(w, AdaptiveHeader, rows); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}
