package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// PointSummary is one point of a finished sweep: an element of sweep.json.
type PointSummary struct {
	// Point holds the varied keys and their values, in axis order.
	Point Values `json:"point"`
	// Index is the point's place in the grid (Point.Index of Spec.Points).
	Index int `json:"-"`
	// Warmup is the warm-up the point's replications used.
	Warmup Warmup `json:"warmup"`
	// Summary pools the point's replications (summary.Summarize).
	Summary summary.Summary `json:"summary"`
	// Parameter and Value are sweep.csv's first two columns (see
	// Point.Parameter and Point.Value).
	Parameter string  `json:"-"`
	Value     float64 `json:"-"`
	// Label is "key=value …" for tables.
	Label string `json:"-"`
	// SweepInterrupted is set when the sweep was interrupted before every
	// point had results (sweep.csv's partial column).
	SweepInterrupted bool `json:"-"`
}

// Values are a point's key=value pairs in axis order; they encode as a JSON
// object with the keys in that order.
type Values []KeyValue

// KeyValue is one varied key and its value, as given to --set.
type KeyValue struct{ Key, Value string }

// MarshalJSON writes {"key": "value", …} in order.
func (v Values) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.Key)
		x, _ := json.Marshal(kv.Value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(x)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Summarize turns a whole-sweep record (from Run with one shard, or from
// Merge) into one PointSummary per point, in grid order. The scenario is
// read once and checked against ScenarioSHA256; each point's config is
// parsed from that text (with Spec.Sets and the point's overrides) and
// given the recorded warm-up, and its replications are decoded in replication order and
// pooled at Spec.Level as summary.Summarize pools them. The warm-up's and
// the stop rule's notes are appended to the summary's warnings.
//
// A Partial record (interrupted) gives summaries for the points that have
// at least one replication; each point cut short is marked Partial with a
// warning saying how many of its replications completed, and every point
// carries a warning saying how many of the grid's points have results. Any
// other incomplete record is an error. Results are decoded and pooled one
// at a time, so memory holds one replication's result.
func Summarize(rec *Record) ([]PointSummary, error) {
	if !rec.Partial {
		if err := rec.checkComplete(); err != nil {
			return nil, err
		}
	}
	s, err := NewSummarizer(rec.Spec)
	if err != nil {
		return nil, err
	}
	if err := s.CheckScenario(rec.ScenarioSHA256); err != nil {
		return nil, err
	}
	if err := s.CheckData(rec.Data); err != nil {
		return nil, err
	}
	for _, rp := range rec.Points {
		if err := s.Add(rp, rec.Partial); err != nil {
			return nil, err
		}
	}
	return s.Summaries(rec.Partial), nil
}

// ErrScenarioChanged is wrapped by Summarize's error when the scenario's
// text is not the one the sweep ran (its SHA-256 differs from the
// record's).
var ErrScenarioChanged = errors.New("has changed since the sweep ran")

// A Summarizer summarises a sweep's points one at a time, as Summarize
// does for a whole record. Run's Options.Result and Options.PointDone hand
// it each replication as it completes and each point as the stop rule
// closes it (Result, then Done), so that a sweep holds only the pooled
// figures of the points in progress, never their replications; Add takes
// a point whose encoded results are in hand (a record's).
type Summarizer struct {
	spec Spec
	grid []Point
	hash string              // SHA-256 of the scenario's text as loaded now
	base *scenarios.Scenario // that text: every point is parsed from it
	sums map[int]PointSummary
	open map[int]*openPoint
}

// openPoint is a point whose replications are being pooled.
type openPoint struct {
	label string
	cfg   *system.Config
	acc   *summary.Accumulator
}

// NewSummarizer loads the sweep's scenario (to check it and to rebuild
// each point's configuration).
func NewSummarizer(spec Spec) (*Summarizer, error) {
	base, err := scenarios.Load(spec.Scenario, spec.Sets)
	if err != nil {
		return nil, err
	}
	return &Summarizer{spec: spec, base: base, grid: spec.Points(), hash: sourceHash(base.Source), sums: map[int]PointSummary{}, open: map[int]*openPoint{}}, nil
}

// CheckScenario returns an error wrapping ErrScenarioChanged unless the
// scenario's text as loaded now has SHA-256 recorded (hex), the hash a
// record holds.
func (s *Summarizer) CheckScenario(recorded string) error {
	if s.hash != recorded {
		return fmt.Errorf("scenario %s: %w (SHA-256 %s, recorded %s)", s.spec.Scenario, ErrScenarioChanged, s.hash[:12], recorded[:min(12, len(recorded))])
	}
	return nil
}

// CheckData returns an error wrapping ErrScenarioChanged unless the data
// files the scenario reads now are those recorded, byte for byte (their
// SHA-256), naming the first that differs.
func (s *Summarizer) CheckData(recorded map[string]string) error {
	if diff := dataDiff(recorded, s.base.DataFiles(), "the sweep"); diff != "" {
		return fmt.Errorf("scenario %s: %w: %s", s.spec.Scenario, ErrScenarioChanged, diff)
	}
	return nil
}

// point returns rp's pooling state, starting it on first use: the
// scenario is loaded again (Spec.Scenario with Spec.Sets and the point's
// overrides) and given the recorded warm-up.
func (s *Summarizer) point(rp *RawPoint) (*openPoint, error) {
	if op := s.open[rp.Index]; op != nil {
		return op, nil
	}
	spec := s.spec
	if rp.Index < 0 || rp.Index >= len(s.grid) {
		return nil, fmt.Errorf("point %d: outside the grid of %d points", rp.Index, len(s.grid))
	}
	if _, ok := s.sums[rp.Index]; ok {
		return nil, fmt.Errorf("point %s: already summarised", s.grid[rp.Index].Label(spec.Axes))
	}
	p := s.grid[rp.Index]
	cfg := rp.cfg
	if cfg == nil {
		sc, err := s.base.Reparse(spec.PointSets(p))
		if err != nil {
			return nil, fmt.Errorf("point %s: %w", p.Label(spec.Axes), err)
		}
		cfg = sc.Config
		rp.Warmup.Apply(cfg)
	}
	op := &openPoint{label: p.Label(spec.Axes), cfg: cfg, acc: summary.NewAccumulator(cfg, spec.Level)}
	s.open[rp.Index] = op
	return op, nil
}

// Result pools one replication of point rp (a summary.Accumulator at
// Spec.Level) and recycles r (system.Result.Recycle): keep nothing of it.
// A point's replications must come in replication order. It fits Run's
// Options.Result.
func (s *Summarizer) Result(rp *RawPoint, r *system.Result) error {
	op, err := s.point(rp)
	if err != nil {
		return err
	}
	op.acc.Add(r)
	r.Recycle()
	return nil
}

// Done summarises point rp from the replications Result pooled; the
// warm-up's and the stop rule's notes (rp.Warmup.Note, rp.Note) are
// appended to its warnings. interrupted says the sweep was cut short: a
// point with fewer replications than rp.Planned, or with Planned 0 (one the
// stop rule had not closed), is then marked Partial. A
// point without replications is skipped. Done with interrupted false fits
// Run's Options.PointDone.
func (s *Summarizer) Done(rp *RawPoint, interrupted bool) error {
	op := s.open[rp.Index]
	if op == nil {
		return nil
	}
	delete(s.open, rp.Index)
	n := op.acc.Replications()
	if n == 0 {
		return nil
	}
	sum := op.acc.Summary()
	op.acc.Recycle()
	if rp.Warmup.Note != "" {
		sum.Warnings = append(sum.Warnings, rp.Warmup.Note)
	}
	if rp.Note != "" {
		sum.Warnings = append(sum.Warnings, rp.Note)
	}
	switch {
	case interrupted && rp.Planned == 0:
		sum.Partial = true
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("partial: interrupted after %d replications, before the stop rule closed the point", n))
	case interrupted && n < rp.Planned:
		sum.Partial = true
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("partial: interrupted after %d of %d replications", n, rp.Planned))
	}
	spec, p := s.spec, s.grid[rp.Index]
	ps := PointSummary{Index: rp.Index, Warmup: rp.Warmup, Summary: sum, Parameter: p.Parameter(spec.Axes), Value: p.Value(), Label: op.label}
	for k, a := range spec.Axes {
		ps.Point = append(ps.Point, KeyValue{a.Key, p.Values[k]})
	}
	s.sums[rp.Index] = ps
	return nil
}

// Add summarises one point from the encoded results it holds (a record's
// RawPoint, or one MergeShards hands on: RawPoint.EachResult): each is
// decoded in order, checked against the point's scenario
// (Result.CheckAgainst) and pooled by Result, then the point is closed by
// Done. Replications Result already pooled for the point come first (a
// point an interrupt cut short after Run handed some on). A point without
// results is skipped.
func (s *Summarizer) Add(rp *RawPoint, interrupted bool) error {
	err := rp.EachResult(func(rep Replica) error {
		op, err := s.point(rp)
		if err != nil {
			return err
		}
		r, err := DecodeResult(rep.Result)
		if err == nil {
			err = r.CheckAgainst(op.cfg)
		}
		if err != nil {
			return fmt.Errorf("point %s replication %d: %w", op.label, rep.Replication, err)
		}
		op.acc.Add(r)
		r.Recycle()
		return nil
	})
	if err != nil {
		return err
	}
	return s.Done(rp, interrupted)
}

// Summaries returns the points added so far in grid order. When the sweep
// was interrupted, every point says so, since sweep.json has no field for
// the sweep as a whole: a reader of any one point learns the file is
// partial.
func (s *Summarizer) Summaries(interrupted bool) []PointSummary {
	idx := slices.Sorted(maps.Keys(s.sums))
	out := make([]PointSummary, 0, len(idx))
	for _, i := range idx {
		out = append(out, s.sums[i])
	}
	if interrupted {
		note := fmt.Sprintf("sweep interrupted: %d of its %d points have results", len(out), len(s.grid))
		for i := range out {
			out[i].Summary.Warnings = append(out[i].Summary.Warnings, note)
			out[i].SweepInterrupted = true
		}
	}
	return out
}

// CSVHeader is the header of sweep.csv. The columns are, per point: the
// parameter (Point.Parameter) and its numeric value (Point.Value; empty
// when not numeric), the replications, the success rate and its confidence
// interval, latency p50, p99 and its interval, p99.9 (seconds; empty when
// no run completed), throughput (completions/s), the time-average number in
// system, λW, attempts per run, and partial: true when an interrupt cut
// the point short or stopped the sweep (or search) before it was done, as
// sweep.json's warnings say; then the bottleneck (the most loaded
// resource when its load is at least 0.85, else empty) and the load of the
// most loaded resource, the most used per-minute limit of a model API
// ("llm tpm") and its use, and the cost per successful run with its
// interval (empty when no tool is metered). Interval columns are empty
// with one replication. Numbers use the shortest form that parses back
// exactly.
var CSVHeader = outputs.SweepCSV.Columns

// PeakLoad returns the most loaded resource of s (the workers or a tool)
// and its load, whether or not it reaches the bottleneck's 0.85.
func PeakLoad(s *summary.Summary) (string, float64) {
	name, load := "workers", s.Workers.Utilisation
	for _, t := range s.Tools {
		if t.Load > load {
			name, load = t.Name, t.Load
		}
	}
	return name, load
}

// BindingLimit returns the most used per-minute limit of the model APIs
// of s ("llm tpm") and its use; "" and NaN without any.
func BindingLimit(s *summary.Summary) (string, float64) {
	name, use := "", math.NaN()
	for _, t := range s.Tools {
		if t.Tokens == nil {
			continue
		}
		for _, l := range t.Tokens.Limits {
			if name == "" || l.Utilisation > use {
				name, use = t.Name+" "+l.Limit, l.Utilisation
			}
		}
	}
	return name, use
}

// Row is one line of sweep.csv.
type Row struct {
	Parameter string
	Value     float64
	Summary   *summary.Summary
	// Partial marks the row of an interrupted sweep or search; a summary
	// that is itself Partial is marked too.
	Partial bool
}

// Row returns the point's sweep.csv line.
func (p *PointSummary) Row() Row {
	return Row{Parameter: p.Parameter, Value: p.Value, Summary: &p.Summary, Partial: p.SweepInterrupted}
}

// num formats x for the CSV: shortest exact form, empty for NaN and
// infinities.
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// WriteCSV writes CSVHeader and one line per row.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, r := range rows {
		s := r.Summary
		lat := func(x float64) string {
			if s.Latency.N == 0 {
				return ""
			}
			return num(x)
		}
		var slo, shi, plo, phi string
		if c := s.Confidence; c != nil {
			slo, shi = num(c.SuccessRate.Lo), num(c.SuccessRate.Hi)
			if s.Latency.N > 0 {
				plo, phi = num(c.Latency.P99.Lo), num(c.Latency.P99.Hi)
			}
		}
		line := []string{outputs.CSVText(r.Parameter), num(r.Value), strconv.Itoa(s.Replications),
			num(s.SuccessRate), slo, shi,
			lat(s.Latency.P50), lat(s.Latency.P99), plo, phi, lat(s.Latency.P999),
			num(s.Little.Throughput), num(s.Little.TimeAvgInSystem), num(s.Little.LambdaW), num(s.Attempts.PerRun),
			strconv.FormatBool(r.Partial || s.Partial)}
		_, load := PeakLoad(s)
		limit, use := BindingLimit(s)
		var cost, clo, chi string
		if s.Cost != nil && s.Runs.Completed > 0 {
			cost = num(s.Cost.PerSuccess)
			if c := s.Confidence; c != nil && c.CostPerSuccess != nil {
				clo, chi = num(c.CostPerSuccess.Lo), num(c.CostPerSuccess.Hi)
			}
		}
		line = append(line, outputs.CSVText(s.Bottleneck), num(load), outputs.CSVText(limit), num(use), cost, clo, chi)
		if err := cw.Write(line); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Rows returns the sweep.csv lines of summaries.
func Rows(sums []PointSummary) []Row {
	rows := make([]Row, len(sums))
	for i := range sums {
		rows[i] = sums[i].Row()
	}
	return rows
}
