package outputs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/model/summary"
)

// CDFPoint is one point of an empirical CDF: a fraction Fraction of the
// completed runs took at most Value seconds.
type CDFPoint struct {
	Value    float64 // seconds, ≥ 0
	Fraction float64 // in (0, 1], non-decreasing along a CDF
}

// CDF is one variant's completion-time distribution, as `simulate --out`
// writes it to latency_cdf.csv (one point per non-empty histogram bucket,
// see WriteCDF and stats.Histogram.CDFPoints).
type CDF struct {
	Variant string
	Points  []CDFPoint // in increasing order of Value
}

// Quantile returns the nearest-rank p-quantile: the Value of the first
// point whose Fraction is at least p (with a 1e-12 allowance for rounding in
// the file). That is the estimator stats.Histogram.Quantile uses, so it
// reproduces the summary's percentiles from the same histogram. It returns
// NaN for an empty CDF.
func (d CDF) Quantile(p float64) float64 {
	for _, pt := range d.Points {
		if pt.Fraction >= p-1e-12 {
			return pt.Value
		}
	}
	if len(d.Points) == 0 {
		return math.NaN()
	}
	return d.Points[len(d.Points)-1].Value
}

// The readers below return an empty result and no error for a file with
// only a header (a scenario where no run completed writes one); the chart
// functions then report ErrNoData.

// ReadCDF reads latency_cdf.csv (columns variant, value_s, fraction) into
// one CDF per variant, in order of first appearance. name labels errors
// ("latency_cdf.csv:12: fraction: must be in [0, 1], got 1.5"). Within a
// variant, values and fractions must not decrease.
func ReadCDF(r io.Reader, name string) ([]CDF, error) {
	t, err := newTable(r, name, LatencyCDFCSV.required())
	if err != nil {
		return nil, err
	}
	var vi VariantIndex
	var out []CDF
	for {
		ok, err := t.next()
		if err != nil || !ok {
			return out, err
		}
		v, err := t.nonNeg("value_s")
		if err != nil {
			return nil, err
		}
		f, err := t.fraction("fraction")
		if err != nil {
			return nil, err
		}
		i, isNew := vi.Of(t.str("variant"))
		if isNew {
			out = append(out, CDF{Variant: t.str("variant")})
		}
		d := &out[i]
		if n := len(d.Points); n > 0 {
			last := d.Points[n-1]
			if v < last.Value {
				return nil, t.errorf("value_s", "values of variant %q must not decrease, got %v after %v", d.Variant, v, last.Value)
			}
			if f < last.Fraction {
				return nil, t.errorf("fraction", "fractions of variant %q must not decrease, got %v after %v", d.Variant, f, last.Fraction)
			}
		}
		d.Points = append(d.Points, CDFPoint{Value: v, Fraction: f})
	}
}

// Bin is one interval [Start, Start+Width) of virtual time of series.csv:
// the measured runs that arrived, the attempts dialed and the runs that
// completed in it (model/system.Series).
type Bin struct {
	Start, Width                  time.Duration
	Arrivals, Attempts, Completed int64
	// Ended counts the measured runs that ended in the bin with any
	// outcome; -1 when the file has no "ended" column.
	Ended int64
	// InSystem is the time-average number of runs in the system over the
	// bin; NaN when the file has no "in_system" column.
	InSystem float64
}

// Series is one variant's bins, in order of time.
type Series struct {
	Variant string
	Bins    []Bin
}

// HasInSystem reports whether the bins carry a measured in_system column.
func (s Series) HasInSystem() bool { return len(s.Bins) > 0 && !math.IsNaN(s.Bins[0].InSystem) }

// HasEnded reports whether the bins carry an "ended" column.
func (s Series) HasEnded() bool { return len(s.Bins) > 0 && s.Bins[0].Ended >= 0 }

// MaxSeriesVariants is how many variants plot and report keep of
// compare.json, series.csv and the other per-variant files, the first in
// each file (charts.ReadDir, with ReadSummariesUpTo, ReadSeriesUpTo and
// FirstVariants): a comparison of 10 000 variants writes hundreds of
// megabytes of summaries, bins and curves, more than a chart or a page
// can show or memory should hold. The other variants are skipped and
// counted (charts.Dir.VariantsOmitted).
const MaxSeriesVariants = 32

// ReadSeries reads series.csv (columns variant, t_s, width_s, arrivals,
// attempts, completed, and optionally in_system and ended) into one Series
// per variant. Bins of a variant must start in increasing order.
func ReadSeries(r io.Reader, name string) ([]Series, error) {
	out, _, err := ReadSeriesUpTo(r, name, 0)
	return out, err
}

// ReadSeriesUpTo is ReadSeries keeping the first max variants (0: all), and
// the number of variants it left out.
func ReadSeriesUpTo(r io.Reader, name string, max int) ([]Series, int, error) {
	out, err := readSeriesRows(r, name, max)
	omitted := 0
	if max > 0 && err == nil && len(out) > max {
		omitted = len(out) - max
		out = out[:max:max]
	}
	return out, omitted, err
}

func readSeriesRows(r io.Reader, name string, max int) ([]Series, error) {
	t, err := newTable(r, name, SeriesCSV.required("ended"))
	if err != nil {
		return nil, err
	}
	var vi VariantIndex
	var out []Series
	for {
		ok, err := t.next()
		if err != nil || !ok {
			return out, err
		}
		b := Bin{Ended: -1, InSystem: math.NaN()}
		if b.Start, err = t.duration("t_s"); err != nil {
			return nil, err
		}
		if b.Width, err = t.duration("width_s"); err != nil {
			return nil, err
		}
		if b.Width <= 0 {
			return nil, t.errorf("width_s", "must be > 0, got %s", t.str("width_s"))
		}
		for _, c := range []struct {
			col string
			dst *int64
		}{{"arrivals", &b.Arrivals}, {"attempts", &b.Attempts}, {"completed", &b.Completed}} {
			if *c.dst, err = t.count(c.col); err != nil {
				return nil, err
			}
		}
		if t.has("ended") {
			if b.Ended, err = t.count("ended"); err != nil {
				return nil, err
			}
		}
		if t.has("in_system") {
			if b.InSystem, err = t.nonNeg("in_system"); err != nil {
				return nil, err
			}
		}
		i, isNew := vi.Of(t.str("variant"))
		if isNew {
			out = append(out, Series{Variant: t.str("variant")})
		}
		s := &out[i]
		if max > 0 && i >= max {
			continue // counted (a Series without bins), not kept
		}
		if n := len(s.Bins); n > 0 && b.Start <= s.Bins[n-1].Start {
			return nil, t.errorf("t_s", "bins of variant %q must be in increasing order of time, got %s after %s", s.Variant, t.str("t_s"), strconv.FormatFloat(s.Bins[n-1].Start.Seconds(), 'g', -1, 64)+" s")
		}
		s.Bins = append(s.Bins, b)
	}
}

// SweepPoint is one row of sweep.csv (from `simulate sweep` or `simulate
// plan`): the figures measured at one value of the swept parameter, with
// confidence intervals over replications. Times are seconds; rates are
// fractions in [0, 1].
type SweepPoint struct {
	Parameter    string
	Value        float64
	Replications int64
	// SuccessRate and its interval [SuccessLo, SuccessHi].
	SuccessRate, SuccessLo, SuccessHi float64
	// P50, P99 (interval [P99Lo, P99Hi]) and P999 completion times.
	P50, P99, P99Lo, P99Hi, P999 float64
	// Throughput is completions per second; TimeAvgInSystem and LambdaW
	// are Little's L measured and predicted; AttemptsPerRun counts calls.
	Throughput, TimeAvgInSystem, LambdaW, AttemptsPerRun float64
	// Bottleneck is the most loaded resource when its load is at least
	// 0.85 ("" otherwise), PeakLoad the load of the most loaded one;
	// BindingLimit and LimitUse a model API's most used per-minute limit
	// and its use; CostPerSuccess, CostLo and CostHi the cost per
	// successful run and its interval. NaN (and "") in files without those
	// columns or points without them.
	Bottleneck, BindingLimit                           string
	PeakLoad, LimitUse, CostPerSuccess, CostLo, CostHi float64
}

// ReadSweep reads sweep.csv (columns parameter, value, replications,
// success_rate, success_lo, success_hi, latency_p50_s, latency_p99_s,
// latency_p99_lo_s, latency_p99_hi_s, latency_p999_s, throughput,
// time_avg_in_system, lambda_w, attempts_per_run), in file order. Interval
// bounds may be empty (one replication: no interval); they then equal the
// point estimate.
func ReadSweep(r io.Reader, name string) ([]SweepPoint, error) {
	// Files from before a column was added still read: those columns
	// are optional.
	t, err := newTable(r, name, SweepCSV.required("partial", "bottleneck", "peak_load", "binding_limit", "limit_use", "cost_per_success", "cost_per_success_lo", "cost_per_success_hi"))
	if err != nil {
		return nil, err
	}
	var out []SweepPoint
	for {
		ok, err := t.next()
		if err != nil || !ok {
			return out, err
		}
		p := SweepPoint{Parameter: t.str("parameter")}
		if p.Parameter == "" {
			return nil, t.errorf("parameter", "must not be empty")
		}
		if p.Value, err = t.num("value"); err != nil {
			return nil, err
		}
		if p.Replications, err = t.count("replications"); err != nil {
			return nil, err
		}
		// optional reads an interval bound, defaulting to the estimate.
		optional := func(col string, def float64, parse func(string) (float64, error)) (float64, error) {
			if t.str(col) == "" {
				return def, nil
			}
			return parse(col)
		}
		if p.SuccessRate, err = t.fraction("success_rate"); err != nil {
			return nil, err
		}
		if p.SuccessLo, err = optional("success_lo", p.SuccessRate, t.num); err != nil {
			return nil, err
		}
		if p.SuccessHi, err = optional("success_hi", p.SuccessRate, t.num); err != nil {
			return nil, err
		}
		for _, c := range []struct {
			col string
			dst *float64
		}{{"latency_p50_s", &p.P50}, {"latency_p99_s", &p.P99}, {"latency_p999_s", &p.P999},
			{"throughput", &p.Throughput}, {"time_avg_in_system", &p.TimeAvgInSystem}, {"lambda_w", &p.LambdaW}, {"attempts_per_run", &p.AttemptsPerRun}} {
			if *c.dst, err = t.nonNeg(c.col); err != nil {
				return nil, err
			}
		}
		if p.P99Lo, err = optional("latency_p99_lo_s", p.P99, t.num); err != nil {
			return nil, err
		}
		if p.P99Hi, err = optional("latency_p99_hi_s", p.P99, t.num); err != nil {
			return nil, err
		}
		if t.has("bottleneck") {
			p.Bottleneck = t.str("bottleneck")
		}
		if t.has("binding_limit") {
			p.BindingLimit = t.str("binding_limit")
		}
		for _, c := range []struct {
			col string
			dst *float64
		}{{"peak_load", &p.PeakLoad}, {"limit_use", &p.LimitUse}, {"cost_per_success", &p.CostPerSuccess}, {"cost_per_success_lo", &p.CostLo}, {"cost_per_success_hi", &p.CostHi}} {
			*c.dst = math.NaN()
			if t.has(c.col) && t.str(c.col) != "" {
				if *c.dst, err = t.nonNeg(c.col); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, p)
	}
}

// ToolSample is one row of tools.csv: the utilisation of one tool over the
// bin [Start, Start+Width) of one variant's run, as a fraction of its
// capacity (busy time / (capacity × width); may exceed 1 only if the
// writer counts queued calls).
type ToolSample struct {
	Variant, Tool string
	Start, Width  time.Duration
	Utilisation   float64
}

// ReadTools reads tools.csv (columns variant, tool, t_s, width_s,
// utilisation), in file order.
func ReadTools(r io.Reader, name string) ([]ToolSample, error) {
	t, err := newTable(r, name, ToolsCSV.required())
	if err != nil {
		return nil, err
	}
	var out []ToolSample
	for {
		ok, err := t.next()
		if err != nil || !ok {
			return out, err
		}
		var s ToolSample
		if s.Variant, s.Tool, s.Start, s.Width, err = t.toolBin(); err != nil {
			return nil, err
		}
		if s.Utilisation, err = t.nonNeg("utilisation"); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
}

// Summary is one simulated variant's summary: summary.json of `simulate
// run` (Label is the scenario name) or one element of compare.json of
// `simulate compare` (Label is the variant's name, as in the CSV files;
// without one, from older files, the variant's key=value pairs joined with
// spaces, keys sorted, since JSON objects do not keep the --vary order).
type Summary struct {
	Label   string
	Variant map[string]string
	// Provenance is what produced the summary (the scenario after its
	// overrides, its SHA-256, the build); nil in files written without it.
	Provenance *provenance.Record
	summary.Summary
}

// ReadSummaries reads summary.json (one object) or compare.json (an
// array of objects, each with a "variant" object), every variant. Syntax
// errors name the line of summary.json, the variant of compare.json.
func ReadSummaries(r io.Reader, name string) ([]Summary, error) {
	out, _, err := ReadSummariesUpTo(r, name, 0)
	return out, err
}

// variantSummary is one element of compare.json as the charts read it.
type variantSummary struct {
	Name       string             `json:"name"`
	Variant    map[string]string  `json:"variant"`
	Provenance *provenance.Record `json:"provenance"`
	summary.Summary
}

// ReadSummariesUpTo is ReadSummaries keeping the first max variants of
// compare.json (0: all), and the number it left out. compare.json is
// decoded one variant at a time (ReadArray), so memory holds the kept
// variants and one more, however many the file holds.
func ReadSummariesUpTo(r io.Reader, name string, max int) ([]Summary, int, error) {
	br := bufio.NewReader(r)
	var first byte
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return nil, 0, fmt.Errorf("%s: empty file, want a JSON summary", name)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", name, err)
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			first = c
			break
		}
	}
	if err := br.UnreadByte(); err != nil {
		return nil, 0, err
	}
	if first != '[' {
		data, err := io.ReadAll(br)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", name, err)
		}
		var v variantSummary
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, 0, jsonError(name, data, err)
		}
		return []Summary{v.label()}, 0, nil
	}
	var out []Summary
	n, err := ReadArray(br, name, func(dec *json.Decoder, i int) error {
		if max > 0 && i >= max {
			return dec.Decode(&struct{}{}) // read past, kept nowhere
		}
		var v variantSummary
		if err := dec.Decode(&v); err != nil {
			return err
		}
		out = append(out, v.label())
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, n - len(out), nil
}

// label makes the variant's Summary, labelled by its name, or without one
// (older files) by its key=value pairs.
func (v *variantSummary) label() Summary {
	s := Summary{Label: v.Scenario, Variant: v.Variant, Provenance: v.Provenance, Summary: v.Summary}
	if v.Name != "" {
		s.Label = v.Name
	} else if len(v.Variant) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(v.Variant)) {
			parts = append(parts, k+"="+v.Variant[k])
		}
		s.Label = strings.Join(parts, " ")
	}
	return s
}

// jsonError turns a byte offset in a JSON error into a line number.
func jsonError(name string, data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return fmt.Errorf("%s: %v", name, err)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	return fmt.Errorf("%s:%d: %v", name, line, err)
}

// BreakerSample is one row of breakers.csv: the share of a bin a tool's
// circuit breaker spent open and half-open, and the calls it refused in
// the bin.
type BreakerSample struct {
	Variant, Tool  string
	Start, Width   time.Duration
	Open, HalfOpen float64
	Refused        int64
}

// ReadBreakers reads breakers.csv (columns variant, tool, t_s, width_s,
// open, half_open, refused), in file order.
func ReadBreakers(r io.Reader, name string) ([]BreakerSample, error) {
	t, err := newTable(r, name, BreakersCSV.required())
	if err != nil {
		return nil, err
	}
	var out []BreakerSample
	for {
		ok, err := t.next()
		if err != nil || !ok {
			return out, err
		}
		var s BreakerSample
		if s.Variant, s.Tool, s.Start, s.Width, err = t.toolBin(); err != nil {
			return nil, err
		}
		// Shares are written with 6 significant digits: a sum of two may
		// pass 1 by rounding.
		if s.Open, err = t.fraction("open"); err != nil {
			return nil, err
		}
		if s.HalfOpen, err = t.fraction("half_open"); err != nil {
			return nil, err
		}
		if s.Refused, err = t.count("refused"); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
}

// LimitSample is one row of limits.csv (simulate run|compare --out): the
// time-average adaptive concurrency limit of Tool over [Start,
// Start+Width).
type LimitSample struct {
	Variant, Tool string
	Start, Width  time.Duration
	Limit         float64
}

// ReadLimits reads limits.csv (columns variant, tool, t_s, width_s,
// limit), in file order.
func ReadLimits(r io.Reader, name string) ([]LimitSample, error) {
	t, err := newTable(r, name, LimitsCSV.required())
	if err != nil {
		return nil, err
	}
	var out []LimitSample
	for {
		ok, err := t.next()
		if err != nil || !ok {
			return out, err
		}
		var s LimitSample
		if s.Variant, s.Tool, s.Start, s.Width, err = t.toolBin(); err != nil {
			return nil, err
		}
		if s.Limit, err = t.nonNeg("limit"); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
}

// Outage is one outage window of a tool, a row of outages.csv (simulate
// run|compare --out): calls to Tool dialed in [Start, End) get Mode
// ("stall", "timeout", "transient", …).
type Outage struct {
	Variant, Tool string
	Start, End    time.Duration
	Mode          string
}

// ReadOutages reads outages.csv (columns variant, tool, start_s, end_s,
// mode), in file order.
func ReadOutages(r io.Reader, name string) ([]Outage, error) {
	t, err := newTable(r, name, OutagesCSV.required())
	if err != nil {
		return nil, err
	}
	var out []Outage
	for {
		ok, err := t.next()
		if err != nil || !ok {
			return out, err
		}
		o := Outage{Variant: t.str("variant"), Tool: t.str("tool"), Mode: t.str("mode")}
		if o.Tool == "" {
			return nil, t.errorf("tool", "must not be empty")
		}
		if o.Start, err = t.duration("start_s"); err != nil {
			return nil, err
		}
		if o.End, err = t.duration("end_s"); err != nil {
			return nil, err
		}
		if o.End <= o.Start {
			return nil, t.errorf("end_s", "must be after start_s (%s), got %s", t.str("start_s"), t.str("end_s"))
		}
		out = append(out, o)
	}
}
