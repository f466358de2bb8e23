package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/budgetsim/budgetsim/model/system"
)

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
	// Build is the budgetsim build that ran the record
	// (buildinfo.Stamp), and Data the data files the scenario read, each
	// with its SHA-256 (scenarios.Scenario.DataFiles): a merge refuses
	// shards that differ in either, naming what differs. The checksums
	// detect damage and accidental mixing, not deliberate forgery: anyone
	// who can edit a shard file can recompute them.
	Build string            `json:"build"`
	Data  map[string]string `json:"data_sha256,omitempty"`
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
	// read, for a point MergeShards hands on, reads its results from the
	// shard files one at a time (EachResult). Not recorded.
	read func(f func(Replica) error) error
}

// ShardFile returns the file name of shard i of n: "shard-i-of-n.json".
func ShardFile(i, n int) string { return fmt.Sprintf("shard-%d-of-%d.json", i, n) }

// sweepDiff says how b differs from a as a slice of a sweep (its spec,
// the scenario's text, the build, a data file), or "" when both are
// slices of the same sweep.
func sweepDiff(a, b *Record) string {
	sa, sb := a.Spec, b.Spec
	sa.Shard, sb.Shard = 0, 0
	ja, _ := json.Marshal(sa)
	jb, _ := json.Marshal(sb)
	switch {
	case a.Format != b.Format:
		return fmt.Sprintf("format %s, not %s", b.Format, a.Format)
	case !bytes.Equal(ja, jb):
		return "its sweep (scenario, overrides, axes or replications) differs"
	case a.ScenarioSHA256 != b.ScenarioSHA256:
		return fmt.Sprintf("its scenario text differs (SHA-256 %.12s, not %.12s)", b.ScenarioSHA256, a.ScenarioSHA256)
	case a.Build != b.Build:
		return fmt.Sprintf("it was run by budgetsim %s, not %s", b.Build, a.Build)
	}
	return dataDiff(a.Data, b.Data, "the other shard")
}

// dataDiff says how the data files got differ from want, naming the
// first file (in name order) that is missing, extra or of another
// SHA-256, or returns "" when they agree. other names what want is.
func dataDiff(want, got map[string]string, other string) string {
	names := slices.Sorted(maps.Keys(want))
	for n := range got {
		if _, ok := want[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		w, okw := want[n]
		g, okg := got[n]
		switch {
		case !okw:
			return fmt.Sprintf("it read the data file %s, which %s did not", n, other)
		case !okg:
			return fmt.Sprintf("it did not read the data file %s, which %s read", n, other)
		case w != g:
			return fmt.Sprintf("its data file %s differs (SHA-256 %.12s, not %.12s)", n, g, w)
		}
	}
	return ""
}

// Merge combines the records of every shard of one sweep (in any order)
// into the record of the whole sweep, as Run with one shard would have
// returned it. It refuses records of different sweeps (spec or scenario
// text), a missing, repeated or partial shard, and points whose shards
// disagree on the warm-up; every error names the shard or point. It holds
// every record in memory: MergeShards merges shard files point by point.
func Merge(recs []*Record) (*Record, error) {
	heads := make([]*Record, len(recs))
	for i, r := range recs {
		heads[i] = r
	}
	out, byShard, err := mergeHeaders(heads)
	if err != nil {
		return nil, err
	}
	pieces := map[int][]*RawPoint{}
	for _, i := range byShard {
		for _, p := range recs[i].Points {
			pieces[p.Index] = append(pieces[p.Index], p)
		}
	}
	for i := range len(out.Spec.Points()) {
		p, err := mergePoint(&out.Spec, i, pieces[i])
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		out.Points = append(out.Points, p)
	}
	if err := out.checkComplete(); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	return out, nil
}

// MergeShards merges the shard files of one sweep, read by shards (in any
// order), point by point. Once the headers check out (as Merge checks its
// records), start receives the whole sweep's record without points and
// returns add, which then receives each point in grid order. A point's
// lines are checked in full (each file's line, and the point's
// replications across the files) before add receives it, without its
// results: add reads them with the point's EachResult, one at a time in
// replication order, each from its file, so that memory holds one
// replication's result and where the point's others lie, whatever the
// number of shards. Every shard must be read from an io.ReaderAt (see
// NewShardReader). Any damaged file is refused (see ShardReader); a file's
// checksum is checked at its end, so a caller must not publish anything
// add produced before MergeShards returns nil. It returns the merged
// record without its points.
func MergeShards(shards []*ShardReader, start func(whole *Record) (add func(rp *RawPoint) error, err error)) (*Record, error) {
	heads := make([]*Record, len(shards))
	for i, s := range shards {
		if s.ra == nil {
			return nil, fmt.Errorf("merge: %s: not a file that can be read again at any offset (an io.ReaderAt)", s.name)
		}
		heads[i] = s.Header
	}
	out, byShard, err := mergeHeaders(heads)
	if err != nil {
		return nil, err
	}
	add, err := start(out)
	if err != nil {
		return nil, err
	}
	ahead := make([]*piece, len(byShard))
	next := func(k int) error {
		p, err := shards[byShard[k]].nextPiece()
		if errors.Is(err, io.EOF) {
			p, err = nil, nil
		}
		ahead[k] = p
		return err
	}
	for k := range byShard {
		if err := next(k); err != nil {
			return nil, err
		}
	}
	for i := range len(out.Spec.Points()) {
		var pieces []*piece
		for k, p := range ahead {
			if p != nil && p.pl.Index == i {
				pieces = append(pieces, p)
				if err := next(k); err != nil {
					return nil, err
				}
			}
		}
		p, err := mergePieces(&out.Spec, i, pieces)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if err := add(p); err != nil {
			return nil, err
		}
	}
	for k, p := range ahead {
		if p != nil { // a reader checks that indexes are in the grid
			return nil, fmt.Errorf("merge: shard %d: point %d after the grid's last", byShard[k], p.pl.Index)
		}
	}
	return out, nil
}

// mergeHeaders checks that heads are the records of every shard of one
// sweep, each once and none partial, and returns the whole sweep's record
// without points and, for each shard in order, its position in heads.
func mergeHeaders(heads []*Record) (*Record, []int, error) {
	if len(heads) == 0 {
		return nil, nil, fmt.Errorf("merge: no shard records")
	}
	first := heads[0]
	n := first.Spec.Shards
	byShard := make([]int, n)
	for i := range byShard {
		byShard[i] = -1
	}
	for i, r := range heads {
		if diff := sweepDiff(first, r); diff != "" {
			return nil, nil, fmt.Errorf("merge: shard %d of %d is from a different sweep than shard %d: %s", r.Spec.Shard, r.Spec.Shards, first.Spec.Shard, diff)
		}
		if byShard[r.Spec.Shard] >= 0 {
			return nil, nil, fmt.Errorf("merge: shard %d of %d given twice", r.Spec.Shard, n)
		}
		if r.Partial {
			return nil, nil, fmt.Errorf("merge: shard %d of %d is partial (interrupted); rerun it", r.Spec.Shard, n)
		}
		byShard[r.Spec.Shard] = i
	}
	var missing []string
	for i, k := range byShard {
		if k < 0 {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("merge: missing shard(s) %s of %d (files %s)", strings.Join(missing, ", "), n, ShardFile(0, n)+" … "+ShardFile(n-1, n))
	}
	out := &Record{Format: Format, Spec: first.Spec, ScenarioSHA256: first.ScenarioSHA256, Build: first.Build, Data: first.Data}
	out.Spec.Shard, out.Spec.Shards = 0, 1
	return out, byShard, nil
}

// mergePoint joins the shards' pieces of point i into one point whose
// results are in replication order and must be 0 … Planned-1.
func mergePoint(spec *Spec, i int, pieces []*RawPoint) (*RawPoint, error) {
	if len(pieces) == 0 {
		return nil, fmt.Errorf("point %d (%s) has no results", i, Grid(spec.Axes)[i].Label(spec.Axes))
	}
	q := *pieces[0]
	q.Results = slices.Clone(q.Results)
	for _, p := range pieces[1:] {
		if q.Warmup != p.Warmup || q.Planned != p.Planned || q.Note != p.Note {
			return nil, fmt.Errorf("shards disagree on point %d (warm-up %+v vs %+v, planned %d vs %d): were they built from different versions?", p.Index, q.Warmup, p.Warmup, q.Planned, p.Planned)
		}
		q.Results = append(q.Results, p.Results...)
	}
	sort.Slice(q.Results, func(i, j int) bool { return q.Results[i].Replication < q.Results[j].Replication })
	for k, rep := range q.Results {
		if rep.Replication != k {
			return nil, fmt.Errorf("point %d: replication %d missing or repeated", q.Index, k)
		}
	}
	return &q, nil
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
