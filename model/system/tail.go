package system

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"time"

	"github.com/budgetsim/budgetsim/sim/stats"
)

// Tail explains where the slowest completed runs spent their time: the
// mean seconds per stage (queue, each step, backoff sleeps) of the runs
// whose completion time fell in the same band as the p99 (at most 1.6% wide). Steps
// include the attempts' time and client-side rate-limit waits.
type Tail struct {
	// P99 is the completion-time p99 the band is centred on; N the runs in
	// the band.
	P99 float64 `json:"p99_s"`
	N   int64   `json:"n"`
	// Stages are mean seconds: index 0 queue, 1..len(PlanSteps) the steps,
	// then one per Config.Groups entry, last backoff. Summaries label them.
	// A parallel step's time is its group's stage; its members' stages
	// hold their own spans, which overlap each other and the group's, and
	// are not part of the sum that partitions the run's time.
	Stages []float64 `json:"stages_s"`
	table  *tailTable
}

// tailTable accumulates stage times of completed runs per completion-time
// band. Bands are stored densely between lo and lo+len(n); the window grows
// by doubling, so accounting allocates O(log range) times, never per run.
type tailTable struct {
	stages int
	lo     int32
	n      []int64
	sums   []float64 // len(n)*stages
}

func (t *tailTable) init(stages int) { t.stages = stages }

// bandOf returns x's band: its binary exponent and top 6 mantissa bits, so
// 64 linear bands per octave, each at most 1/64 ≈ 1.6% wide (relative),
// computed from the float's bits without a logarithm. Bands are monotone in
// x for x > 0.
func bandOf(x float64) int32 {
	if x <= 1e-12 {
		x = 1e-12
	}
	return int32(math.Float64bits(x) >> (52 - 6))
}

// minBand and maxBand are the smallest and largest bands bandOf returns.
var minBand, maxBand = bandOf(0), bandOf(math.MaxFloat64)

// slot returns the index of band k, growing the window to hold it.
func (t *tailTable) slot(k int32) int {
	if len(t.n) == 0 {
		t.lo = k - 64
		t.resize(128, 0)
	}
	for k < t.lo || int(k-t.lo) >= len(t.n) {
		size := len(t.n)
		shift := 0
		if k < t.lo {
			shift = size
		}
		t.resize(2*size, shift)
		t.lo -= int32(shift)
	}
	return int(k - t.lo)
}

// resize makes the window size bands long, its current bands moved up by
// shift and every other band zero. Storage comes from the table's own
// capacity or a recycled table's (see Result.Recycle) when it is large
// enough.
func (t *tailTable) resize(size, shift int) {
	old, oldSums := t.n, t.sums
	st := t.stages
	if cap(old) < size || cap(oldSums) < size*st {
		n, sums := tailStorage(size, size*st)
		copy(n[shift:], old)
		copy(sums[shift*st:], oldSums)
		t.n, t.sums = n, sums
		if cap(old) > 0 {
			tailPool.Put(&tailBuf{old, oldSums})
		}
		return
	}
	was := len(old)
	n, sums := old[:size], oldSums[:size*st]
	copy(n[shift:], n[:was]) // copy moves overlapping ranges correctly
	copy(sums[shift*st:], sums[:was*st])
	if shift > 0 {
		clear(n[:shift])
		clear(sums[:shift*st])
	}
	clear(n[shift+was:])
	clear(sums[(shift+was)*st:])
	t.n, t.sums = n, sums
}

// release hands the table's storage to later tables and empties it.
func (t *tailTable) release() {
	if cap(t.n) > 0 {
		tailPool.Put(&tailBuf{t.n, t.sums})
	}
	t.n, t.sums, t.lo = nil, nil, 0
}

// tailBuf is a tail table's storage, recycled through tailPool.
type tailBuf struct {
	n    []int64
	sums []float64
}

// tailStorage returns zeroed slices of lengths n and sums, recycled when a
// free pair is large enough.
func tailStorage(n, sums int) ([]int64, []float64) {
	if b, ok := tailPool.Get().(*tailBuf); ok {
		if cap(b.n) >= n && cap(b.sums) >= sums {
			bn, bs := b.n[:n], b.sums[:sums]
			clear(bn)
			clear(bs)
			return bn, bs
		}
	}
	return make([]int64, n), make([]float64, sums)
}

func (t *tailTable) add(latency float64, stages []time.Duration) {
	i := t.slot(bandOf(latency))
	t.n[i]++
	row := t.sums[i*t.stages : (i+1)*t.stages]
	for j, d := range stages {
		row[j] += secs(d)
	}
}

func (t *tailTable) merge(o *tailTable) {
	for i, n := range o.n {
		if n == 0 {
			continue
		}
		j := t.slot(o.lo + int32(i))
		t.n[j] += n
		for s := range t.stages {
			t.sums[j*t.stages+s] += o.sums[i*o.stages+s]
		}
	}
}

func (t *tailTable) result(lat *stats.Histogram) Tail {
	out := Tail{table: t}
	out.finish(lat)
	return out
}

// finish computes the p99 band's mean stage times.
func (tl *Tail) finish(lat *stats.Histogram) {
	t := tl.table
	tl.Stages = make([]float64, t.stages)
	tl.N, tl.P99 = 0, 0
	if lat.Count() == 0 || len(t.n) == 0 {
		return
	}
	tl.P99 = lat.Quantile(0.99)
	k := bandOf(tl.P99)
	if k < t.lo || int(k-t.lo) >= len(t.n) {
		return
	}
	i := int(k - t.lo)
	tl.N = t.n[i]
	if tl.N == 0 {
		return
	}
	for s := range t.stages {
		tl.Stages[s] = t.sums[i*t.stages+s] / float64(tl.N)
	}
}

// NewTail returns an empty breakdown of stages stages (queue, each step,
// backoff) for pooling replications' tails into with Merge.
func NewTail(stages int) Tail { return Tail{table: &tailTable{stages: stages}} }

// Merge adds o's completion-time bands to tl's, which came from NewTail or
// a replication of the same scenario. Pool replications in replication
// order: the sums are of floats. A tail without bands (a recycled result's)
// adds nothing.
func (tl *Tail) Merge(o Tail) {
	if o.table != nil {
		tl.table.merge(o.table)
	}
}

// Recompute returns tl's breakdown with the p99 band taken from lat, the
// completion-time histogram pooled over the same replications as tl's
// bands. The result shares tl's bands.
func (tl Tail) Recompute(lat *stats.Histogram) Tail { return tl.table.result(lat) }

// Release hands tl's bands to later simulations in this process (see
// Result.Recycle) and empties them.
func (tl Tail) Release() {
	if tl.table != nil {
		tl.table.release()
	}
}

// MarshalBinary encodes the tail's bands (for shard files), so merged
// shards recompute the same p99 breakdown as a single run.
func (tl Tail) MarshalBinary() ([]byte, error) {
	t := tl.table
	if t == nil {
		t = &tailTable{}
	}
	b := binary.AppendUvarint(nil, uint64(t.stages))
	b = binary.AppendVarint(b, int64(t.lo))
	b = binary.AppendUvarint(b, uint64(len(t.n)))
	for _, n := range t.n {
		b = binary.AppendVarint(b, n)
	}
	for _, s := range t.sums {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s))
	}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(tl.P99))
	b = binary.AppendVarint(b, tl.N)
	for _, s := range tl.Stages {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s))
	}
	return b, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (tl *Tail) UnmarshalBinary(b []byte) error {
	bad := errors.New("system: malformed tail encoding")
	r := bytes.NewReader(b)
	stages, err := binary.ReadUvarint(r)
	if err != nil || stages > 1<<20 {
		return bad
	}
	lo, err := binary.ReadVarint(r)
	if err != nil {
		return bad
	}
	nb, err := binary.ReadUvarint(r)
	if err != nil || nb > 1<<24 || nb*stages*8 > uint64(len(b)) {
		return bad
	}
	if lo < math.MinInt32 || lo+int64(nb) > math.MaxInt32 {
		return bad
	}
	t := &tailTable{stages: int(stages), lo: int32(lo), n: make([]int64, nb), sums: make([]float64, int(nb)*int(stages))}
	for i := range t.n {
		if t.n[i], err = binary.ReadVarint(r); err != nil {
			return bad
		}
		if k := lo + int64(i); t.n[i] != 0 && (k < int64(minBand) || k > int64(maxBand)) {
			// A band bandOf never returns: merging it would grow the
			// window toward 2^32 bands. (The window itself may reach
			// past both ends: it grows by doubling.)
			return bad
		}
	}
	f := func() (float64, error) {
		var x [8]byte
		if _, err := io.ReadFull(r, x[:]); err != nil {
			return 0, bad
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(x[:])), nil
	}
	for i := range t.sums {
		if t.sums[i], err = f(); err != nil {
			return err
		}
	}
	out := Tail{table: t, Stages: make([]float64, stages)}
	if out.P99, err = f(); err != nil {
		return err
	}
	if out.N, err = binary.ReadVarint(r); err != nil {
		return bad
	}
	for i := range out.Stages {
		if out.Stages[i], err = f(); err != nil {
			return err
		}
	}
	if len(t.n) == 0 {
		t.n, t.sums = nil, nil
	}
	*tl = out
	return nil
}
