package sweep

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"reflect"
	"time"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// EncodeResult serialises r with encoding/gob, which carries every exported
// field of system.Result and of the types inside it — including fields
// added later — bit for bit (floats, NaN and infinities included), and
// types with a binary form through it: histograms (stats.Histogram) and the
// tail breakdown's band table (system.Tail). The time series is packed as
// varints, and only what summary.Summarize reads from it: per bin, the
// arrivals, attempts and completions (not the runs ended nor the tools'
// busy time, which only the charts of a single run use). Two adjustments
// keep gob happy and do not change what summary.Summarize computes: a nil
// *stats.Histogram inside a slice (gob cannot send one) is sent as an empty
// histogram, and empty slices come back nil.
//
// A result of a 20000-run replication takes about 30 KB, most of it the
// time series.
func EncodeResult(r *system.Result) ([]byte, error) {
	c := *r
	fillNilHistograms(reflect.ValueOf(&c).Elem())
	w := resultWire{Result: &c}
	if s := c.Series; s != nil {
		// gob would spend a field tag per counter; varints are 3–4 times
		// faster and smaller for the thousands of bins of a series.
		c.Series = nil
		w.HasSeries, w.SeriesWidth = true, s.Width
		w.SeriesBins = binary.AppendUvarint(make([]byte, 0, 4*len(s.Bins)+8), uint64(len(s.Bins)))
		for _, bin := range s.Bins {
			w.SeriesBins = binary.AppendVarint(w.SeriesBins, bin.Arrivals)
			w.SeriesBins = binary.AppendVarint(w.SeriesBins, bin.Attempts)
			w.SeriesBins = binary.AppendVarint(w.SeriesBins, bin.Completed)
		}
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&w); err != nil {
		return nil, fmt.Errorf("encoding a result: %w", err)
	}
	return b.Bytes(), nil
}

// resultWire is what EncodeResult hands to gob: the result without its
// series, and the series packed as varint triples (arrivals, attempts,
// completions per bin, after the bin count).
type resultWire struct {
	Result      *system.Result
	HasSeries   bool
	SeriesWidth time.Duration
	SeriesBins  []byte
}

// DecodeResult parses a result written by EncodeResult.
func DecodeResult(data []byte) (*system.Result, error) {
	var w resultWire
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&w); err != nil {
		return nil, fmt.Errorf("decoding a result: %w", err)
	}
	if w.Result == nil {
		w.Result = &system.Result{}
	}
	if w.HasSeries {
		s, err := decodeSeries(w.SeriesWidth, w.SeriesBins)
		if err != nil {
			return nil, err
		}
		w.Result.Series = s
	}
	return w.Result, nil
}

func decodeSeries(width time.Duration, b []byte) (*system.Series, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, fmt.Errorf("decoding a result: series: bad bin count")
	}
	b = b[k:]
	s := &system.Series{Width: width, Bins: make([]system.Bin, n)}
	next := func() (int64, bool) {
		v, k := binary.Varint(b)
		if k <= 0 {
			return 0, false
		}
		b = b[k:]
		return v, true
	}
	for i := range s.Bins {
		x, ok1 := next()
		y, ok2 := next()
		z, ok3 := next()
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("decoding a result: series: data ends at bin %d of %d", i, n)
		}
		s.Bins[i] = system.Bin{Arrivals: x, Attempts: y, Completed: z}
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("decoding a result: series: %d trailing bytes", len(b))
	}
	return s, nil
}

var histPtr = reflect.TypeFor[*stats.Histogram]()

// fillNilHistograms replaces, in the top-level fields of the struct v,
// every slice of *stats.Histogram that holds a nil by a copy in which the
// nils are empty histograms (the original slice is not modified).
func fillNilHistograms(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		if !f.CanSet() || f.Kind() != reflect.Slice || f.Type().Elem() != histPtr {
			continue
		}
		hs := f.Interface().([]*stats.Histogram)
		var out []*stats.Histogram
		for j, h := range hs {
			if h == nil {
				if out == nil {
					out = append([]*stats.Histogram(nil), hs...)
				}
				out[j] = stats.NewHistogram()
			}
		}
		if out != nil {
			f.Set(reflect.ValueOf(out))
		}
	}
}
