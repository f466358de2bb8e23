package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/budgetsim/budgetsim/model/system"
)

// Format names the version of the record (shard file) format.
const Format = "budgetsim-sweep-record/1"

// Record is the raw, mergeable outcome of a sweep or of one shard of it:
// per point, the warm-up used and every replication's serialised result
// (counts, sums and histograms, nothing summarised yet). Merge combines the
// records of all shards into the record a single machine would have
// produced, and Summarize turns a record into summaries; the two routes
// give byte-identical output.
type Record struct {
	Format string `json:"format"`
	// Spec is the sweep's spec; Spec.Shard says which slice this is.
	Spec Spec `json:"spec"`
	// ScenarioSHA256 is the SHA-256 of the scenario's YAML text (before
	// overrides), so that a merge can refuse shards of a changed file.
	ScenarioSHA256 string `json:"scenario_sha256"`
	// Partial is true when an interrupt stopped the run: some points or
	// replications are missing.
	Partial bool `json:"partial"`
	// Points are the points this record holds, by increasing Index.
	Points []*RawPoint `json:"points"`
}

// RawPoint is one point's share of a record.
type RawPoint struct {
	// Index is the point's index in Grid(Spec.Axes).
	Index int `json:"index"`
	// Warmup is the warm-up every replication of the point used.
	Warmup Warmup `json:"warmup"`
	// Planned is the number of replications the point has in the whole
	// sweep: Spec.Replications, or where the stop rule stopped; 0 in an
	// interrupted record for a point the stop rule had not closed.
	Planned int `json:"planned"`
	// Note is a caveat for the summary's warnings (e.g. the stop rule hit
	// its cap).
	Note string `json:"note,omitempty"`
	// Results are the replications this record holds, by increasing
	// Replication.
	Results []Replica `json:"results"`

	// cfg is the point's scenario with its warm-up applied, when Run
	// loaded it in this process: the Summarizer then need not load it
	// again. Not recorded.
	cfg *system.Config
}

// ShardFile returns the file name of shard i of n: "shard-i-of-n.json".
func ShardFile(i, n int) string { return fmt.Sprintf("shard-%d-of-%d.json", i, n) }

// WriteTo writes the record as one JSON document (compact: results are
// large) followed by a newline.
func (r *Record) WriteTo(w io.Writer) (int64, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return 0, err
	}
	b = append(b, '\n')
	n, err := w.Write(b)
	return int64(n), err
}

// ReadRecord reads a record written by WriteTo. name labels errors.
func ReadRecord(name string, r io.Reader) (*Record, error) {
	var rec Record
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("%s: not a sweep record: %v", name, err)
	}
	if rec.Format != Format {
		return nil, fmt.Errorf("%s: format %q, this build reads %q", name, rec.Format, Format)
	}
	if err := rec.Spec.Validate(); err != nil {
		return nil, fmt.Errorf("%s: spec: %v", name, err)
	}
	return &rec, nil
}

// sameSweep reports whether a and b are slices of the same sweep.
func sameSweep(a, b *Record) bool {
	sa, sb := a.Spec, b.Spec
	sa.Shard, sb.Shard = 0, 0
	ja, _ := json.Marshal(sa)
	jb, _ := json.Marshal(sb)
	return bytes.Equal(ja, jb) && a.ScenarioSHA256 == b.ScenarioSHA256 && a.Format == b.Format
}

// Merge combines the records of every shard of one sweep (in any order)
// into the record of the whole sweep, as Run with one shard would have
// returned it. It refuses records of different sweeps (spec or scenario
// text), a missing, repeated or partial shard, and points whose shards
// disagree on the warm-up; every error names the shard or point.
func Merge(recs []*Record) (*Record, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("merge: no shard records")
	}
	first := recs[0]
	n := first.Spec.Shards
	byShard := make([]*Record, n)
	for _, r := range recs {
		if !sameSweep(first, r) {
			return nil, fmt.Errorf("merge: shard %d of %d is from a different sweep than shard %d (spec or scenario text differ)", r.Spec.Shard, r.Spec.Shards, first.Spec.Shard)
		}
		if byShard[r.Spec.Shard] != nil {
			return nil, fmt.Errorf("merge: shard %d of %d given twice", r.Spec.Shard, n)
		}
		if r.Partial {
			return nil, fmt.Errorf("merge: shard %d of %d is partial (interrupted); rerun it", r.Spec.Shard, n)
		}
		byShard[r.Spec.Shard] = r
	}
	var missing []string
	for i, r := range byShard {
		if r == nil {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("merge: missing shard(s) %s of %d (files %s)", strings.Join(missing, ", "), n, ShardFile(0, n)+" … "+ShardFile(n-1, n))
	}
	out := &Record{Format: Format, Spec: first.Spec, ScenarioSHA256: first.ScenarioSHA256}
	out.Spec.Shard, out.Spec.Shards = 0, 1
	points := map[int]*RawPoint{}
	for _, r := range byShard {
		for _, p := range r.Points {
			q, ok := points[p.Index]
			if !ok {
				c := *p
				c.Results = slices.Clone(p.Results)
				points[p.Index] = &c
				continue
			}
			if q.Warmup != p.Warmup || q.Planned != p.Planned || q.Note != p.Note {
				return nil, fmt.Errorf("merge: shards disagree on point %d (warm-up %+v vs %+v, planned %d vs %d): were they built from different versions?", p.Index, q.Warmup, p.Warmup, q.Planned, p.Planned)
			}
			q.Results = append(q.Results, p.Results...)
		}
	}
	for _, p := range points {
		sort.Slice(p.Results, func(i, j int) bool { return p.Results[i].Replication < p.Results[j].Replication })
		out.Points = append(out.Points, p)
	}
	sort.Slice(out.Points, func(i, j int) bool { return out.Points[i].Index < out.Points[j].Index })
	if err := out.checkComplete(); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	return out, nil
}

// checkComplete verifies that a whole-sweep record has every point and,
// for each, exactly replications 0 … Planned-1.
func (r *Record) checkComplete() error {
	total := len(r.Spec.Points())
	if len(r.Points) != total {
		have := map[int]bool{}
		for _, p := range r.Points {
			have[p.Index] = true
		}
		for i := range total {
			if !have[i] {
				return fmt.Errorf("point %d (%s) has no results", i, Grid(r.Spec.Axes)[i].Label(r.Spec.Axes))
			}
		}
		return fmt.Errorf("%d points, want %d", len(r.Points), total)
	}
	for k, p := range r.Points {
		if p.Index != k {
			return fmt.Errorf("point %d listed out of order or twice", p.Index)
		}
		if len(p.Results) != p.Planned {
			return fmt.Errorf("point %d has %d replications, want %d", p.Index, len(p.Results), p.Planned)
		}
		for i, rep := range p.Results {
			if rep.Replication != i {
				return fmt.Errorf("point %d: replication %d missing or repeated", p.Index, i)
			}
		}
	}
	return nil
}
