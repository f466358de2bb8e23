package outputs

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// CSVText makes user text (a scenario, variant or tool name) safe in a CSV
// cell that a spreadsheet opens: text starting with =, +, -, @, a tab or a
// carriage return would be read as a formula, so it gets a leading single
// quote (OWASP's advice on CSV injection). Other text is unchanged;
// numbers never pass through it.
func CSVText(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}

// WriteSummaryCSV writes summary.csv: one row per summary with the main figures in seconds.
// variants, when not nil, labels each row (same length as sums).
func WriteSummaryCSV(w io.Writer, sums []summary.Summary, variants []string) error {
	cw := csv.NewWriter(w)
	header := SummaryCSV.Columns
	if err := cw.Write(header); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	i := func(x int64) string { return strconv.FormatInt(x, 10) }
	for k, s := range sums {
		v := ""
		if variants != nil {
			v = variants[k]
		}
		r := s.Runs
		row := []string{CSVText(s.Scenario), CSVText(v), strconv.FormatUint(s.Seed, 10), strconv.Itoa(s.Replications),
			i(r.Arrived), i(r.Completed), i(r.Rejected), i(r.Expired), i(r.Refused), i(r.DeadlineExceeded), i(r.Failed), i(r.InFlight),
			f(s.SuccessRate),
			f(s.Latency.Mean), f(s.Latency.P50), f(s.Latency.P90), f(s.Latency.P99), f(s.Latency.P999), f(s.Latency.Max),
			f(s.Wait.Mean), f(s.Wait.P99), f(s.Rates.OfferedPerSecond), f(s.Rates.AdmittedPerSecond), f(s.Little.ArrivalRate), f(s.Little.Throughput), f(s.Little.LambdaW), f(s.Little.TimeAvgInSystem),
			i(s.Attempts.Attempts), f(s.Attempts.PerRun), i(s.Attempts.Retries), f(s.Attempts.PeakRate), strconv.FormatBool(s.Partial)}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// CDFCSV writes empirical CDFs, one row per non-empty histogram bucket:
// variant, value_s, fraction. variants labels each histogram.
func WriteCDF(w io.Writer, variants []string, hists []*stats.Histogram) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(LatencyCDFCSV.Columns); err != nil {
		return err
	}
	for i, h := range hists {
		if err := CDFRows(cw, variants[i], h); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// CDFRows writes one variant's rows of latency_cdf.csv (see CDFCSV).
func CDFRows(cw *csv.Writer, variant string, h *stats.Histogram) error {
	for _, p := range h.CDFPoints(nil) {
		if err := cw.Write([]string{CSVText(variant), strconv.FormatFloat(p.Value, 'g', -1, 64), strconv.FormatFloat(p.Fraction, 'g', -1, 64)}); err != nil {
			return err
		}
	}
	return nil
}

// WriteSeries writes several time series with a variant column.
func WriteSeries(w io.Writer, variants []string, series []*system.Series) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(SeriesCSV.Columns); err != nil {
		return err
	}
	for i, s := range series {
		if err := SeriesRows(cw, variants[i], s); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// SeriesRows writes one variant's rows of series.csv (see
// WriteSeries).
func SeriesRows(cw *csv.Writer, variant string, s *system.Series) error {
	width := s.Width.Seconds()
	for k, b := range s.Bins {
		if err := cw.Write([]string{CSVText(variant),
			strconv.FormatFloat(float64(k)*width, 'g', -1, 64),
			strconv.FormatFloat(width, 'g', -1, 64),
			strconv.FormatInt(b.Arrivals, 10),
			strconv.FormatInt(b.Attempts, 10),
			strconv.FormatInt(b.Completed, 10),
			strconv.FormatInt(b.Ended, 10),
		}); err != nil {
			return err
		}
	}
	return nil
}

// WriteTools writes per-tool utilisation over time for the tools with a
// capacity (concurrency) or a rate limit: variant, tool, t_s, width_s,
// utilisation. For a capacity it is server time spent in the bin /
// (concurrency × bin width); for a rate limit, calls that reached the tool
// in the bin / (rate × bin width); for both, the larger, as the summary's
// load. Tools with neither have no utilisation and are left out. It writes
// nothing but the header when no tool has one. cfgs, variants and series
// are parallel (one per variant).
func WriteTools(w io.Writer, cfgs []*system.Config, variants []string, series []*system.Series) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(ToolsCSV.Columns); err != nil {
		return err
	}
	for i, s := range series {
		if err := ToolRows(cw, cfgs[i], variants[i], s); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// minCallsPerRow is how many calls a rate-limited tool's row of tools.csv
// holds at its limit, at least: its bins are grouped until then, since a
// count of a few calls per bin swings by one call (at 2/s in 1.28 s bins,
// between 78 % and 117 %) and draws a solid band instead of a line.
const minCallsPerRow = 50

// ToolBin is one row of tools.csv before formatting: tool Tool's
// utilisation over the series' bins [First, First+Bins).
type ToolBin struct {
	Tool        string
	First, Bins int
	Utilisation float64
}

// ToolUtilisation returns the rows of tools.csv for series s of a
// simulation of cfg, tool by tool in cfg's order (see WriteTools). A
// rate-limited tool's rows group the series' bins so that each holds at
// least minCallsPerRow calls at the limit.
func ToolUtilisation(cfg *system.Config, s *system.Series) []ToolBin {
	width := s.Width.Seconds()
	var out []ToolBin
	for t, tool := range cfg.Tools {
		var busy []float64
		var calls []int64
		if t < len(s.ToolBusy) {
			busy = s.ToolBusy[t]
		}
		if t < len(s.ToolCalls) {
			calls = s.ToolCalls[t]
		}
		c := tool.Concurrency
		var rate float64
		if tool.RateLimit != nil {
			rate = tool.RateLimit.Rate
		}
		if c <= 0 && rate <= 0 {
			continue
		}
		bins, group := 0, 1
		if c > 0 {
			bins = len(busy)
		}
		if rate > 0 {
			bins = max(bins, len(calls))
			group = max(1, int(math.Ceil(minCallsPerRow/(rate*width))))
		}
		for k := 0; k < bins; k += group {
			n := min(group, bins-k)
			w := float64(n) * width
			var b float64
			var a int64
			for i := k; i < k+n; i++ {
				if i < len(busy) {
					b += busy[i]
				}
				if i < len(calls) {
					a += calls[i]
				}
			}
			var u float64
			if c > 0 {
				u = b / (w * float64(c))
			}
			if rate > 0 {
				u = max(u, float64(a)/(w*rate))
			}
			out = append(out, ToolBin{Tool: tool.Name, First: k, Bins: n, Utilisation: u})
		}
	}
	return out
}

// ToolRows writes one variant's rows of tools.csv (see WriteTools and
// ToolUtilisation); width_s is each row's width.
func ToolRows(cw *csv.Writer, cfg *system.Config, variant string, s *system.Series) error {
	width := s.Width.Seconds()
	for _, b := range ToolUtilisation(cfg, s) {
		if err := cw.Write([]string{CSVText(variant), CSVText(b.Tool),
			strconv.FormatFloat(float64(b.First)*width, 'g', -1, 64),
			strconv.FormatFloat(float64(b.Bins)*width, 'g', -1, 64),
			strconv.FormatFloat(b.Utilisation, 'g', -1, 64),
		}); err != nil {
			return err
		}
	}
	return nil
}

// HasLimitedTools reports whether any tool has a concurrency limit or a
// rate limit: whether tools.csv has rows.
func HasLimitedTools(cfg *system.Config) bool {
	for _, t := range cfg.Tools {
		if t.Concurrency > 0 || t.RateLimit != nil {
			return true
		}
	}
	return false
}

// HasOutages reports whether some tool of cfg has an outage window.
func HasOutages(cfg *system.Config) bool {
	for _, t := range cfg.Tools {
		if len(t.Outages) > 0 {
			return true
		}
	}
	return false
}

// OutageRows writes cfg's outage windows labelled variant: the tool, the
// window and its mode ("stall", or the outcome a call inside it gets).
func OutageRows(cw *csv.Writer, cfg *system.Config, variant string) error {
	for _, t := range cfg.Tools {
		for _, o := range t.Outages {
			mode := o.Mode.String()
			if o.Stall {
				mode = "stall"
			}
			if o.Slow > 0 {
				mode = "slow"
			}
			if err := cw.Write([]string{variant, t.Name,
				strconv.FormatFloat(o.Start.Seconds(), 'g', -1, 64),
				strconv.FormatFloat(o.End.Seconds(), 'g', -1, 64), mode}); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteOutages writes outages.csv for one variant.
func WriteOutages(w io.Writer, cfg *system.Config, variant string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(OutagesCSV.Columns); err != nil {
		return err
	}
	if err := OutageRows(cw, cfg, variant); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

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

// WriteBreakers writes breakers.csv for one variant.
func WriteBreakers(w io.Writer, cfg *system.Config, variant string, s *system.Series) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(BreakersCSV.Columns); err != nil {
		return err
	}
	if err := BreakerRows(cw, cfg, variant, s); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

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

// WriteLimits writes limits.csv for one variant.
func WriteLimits(w io.Writer, cfg *system.Config, variant string, s *system.Series) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(LimitsCSV.Columns); err != nil {
		return err
	}
	if err := LimitRows(cw, cfg, variant, s); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
