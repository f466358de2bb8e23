package outputs

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// table reads a CSV file with a header row, by column name, and makes
// errors that name the file, the line and the column. Extra columns are
// ignored, so a file that gains a column still reads.
type table struct {
	name string
	r    *csv.Reader
	cols map[string]int
	rec  []string
	line int
	// first, when the file is read through a VariantFilter, skips the
	// rows of the variants past its first few.
	first *VariantFilter
}

func newTable(r io.Reader, name string, required []string) (*table, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file, want a header row %s", name, strings.Join(required, ","))
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	t := &table{name: name, r: cr, cols: map[string]int{}}
	if fv, ok := r.(*VariantFilter); ok {
		t.first = fv
	}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := t.cols[h]; dup {
			return nil, fmt.Errorf("%s:1: column %q appears twice", name, h)
		}
		t.cols[h] = i
	}
	for _, c := range required {
		if _, ok := t.cols[c]; !ok {
			return nil, fmt.Errorf("%s:1: missing column %q (header must name %s)", name, c, strings.Join(required, ","))
		}
	}
	return t, nil
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %v", name, pe.Line, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// next reads the next record; it returns false at the end of the file.
func (t *table) next() (bool, error) {
	for {
		rec, err := t.r.Read()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, csvError(t.name, err)
		}
		t.rec = rec
		t.line, _ = t.r.FieldPos(0)
		if t.first == nil || !t.has("variant") || t.first.keep(t.str("variant")) {
			return true, nil
		}
	}
}

// VariantFilter is a per-variant file's reader for the readers of this
// package (FirstVariants): they keep the rows of its first max variants
// (by the variant column) and skip the others' unparsed, counting those
// variants: a comparison of thousands of variants
// writes per-variant files of hundreds of megabytes, more than a chart can
// show or memory should hold.
type VariantFilter struct {
	io.Reader
	max     int
	seen    VariantIndex
	omitted int
}

// FirstVariants wraps r, a per-variant CSV file, so that the reader it is
// given to keeps the rows of the first max variants only.
func FirstVariants(r io.Reader, max int) *VariantFilter {
	return &VariantFilter{Reader: r, max: max}
}

// Omitted is the number of variants whose rows were skipped.
func (f *VariantFilter) Omitted() int { return f.omitted }

// keep reports whether the rows of variant v are kept.
func (f *VariantFilter) keep(v string) bool {
	i, isNew := f.seen.Of(v)
	if i < f.max {
		return true
	}
	if isNew {
		f.omitted++
	}
	return false
}

func (t *table) has(col string) bool { _, ok := t.cols[col]; return ok }

func (t *table) errorf(col, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", t.name, t.line, col, fmt.Sprintf(format, args...))
}

// str returns a cell's text, without the single quote that keeps text
// starting with =, +, -, @ from being read as a formula by a spreadsheet
// (CSVText).
func (t *table) str(col string) string {
	s := strings.TrimSpace(t.rec[t.cols[col]])
	if len(s) > 1 && s[0] == '\'' && strings.IndexByte("=+-@\t\r", s[1]) >= 0 {
		return s[1:]
	}
	return s
}

// num parses a finite number.
func (t *table) num(col string) (float64, error) {
	s := t.str(col)
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, t.errorf(col, "want a finite number, got %q", s)
	}
	return x, nil
}

// nonNeg parses a finite number ≥ 0.
func (t *table) nonNeg(col string) (float64, error) {
	x, err := t.num(col)
	if err == nil && x < 0 {
		err = t.errorf(col, "must be ≥ 0, got %v", x)
	}
	return x, err
}

// fraction parses a number in [0, 1].
func (t *table) fraction(col string) (float64, error) {
	x, err := t.num(col)
	if err == nil && (x < 0 || x > 1) {
		err = t.errorf(col, "must be in [0, 1], got %v", x)
	}
	return x, err
}

// count parses an integer ≥ 0.
func (t *table) count(col string) (int64, error) {
	s := t.str(col)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, t.errorf(col, "want an integer, got %q", s)
	}
	if n < 0 {
		return 0, t.errorf(col, "must be ≥ 0, got %d", n)
	}
	return n, nil
}

// duration parses seconds ≥ 0 into an exact nanosecond count.
func (t *table) duration(col string) (time.Duration, error) {
	x, err := t.nonNeg(col)
	if err != nil {
		return 0, err
	}
	d, ok := SecondsToDuration(x)
	if !ok {
		return 0, t.errorf(col, "%v s is out of range", x)
	}
	return d, nil
}

// SecondsToDuration rounds seconds to the nearest nanosecond; ok is false
// beyond time.Duration's range (about 292 years).
func SecondsToDuration(s float64) (time.Duration, bool) {
	ns := math.Round(s * 1e9)
	if math.IsNaN(ns) || math.Abs(ns) >= math.MaxInt64 {
		return 0, false
	}
	return time.Duration(ns), true
}

// VariantIndex keeps names (variants, tools, stages) in order of first
// appearance: the order a file lists them in, and the charts draw and
// colour them in.
type VariantIndex struct {
	Names []string
	Index map[string]int
}

// Of returns name's index, adding it if it is new.
func (v *VariantIndex) Of(name string) (i int, isNew bool) {
	if v.Index == nil {
		v.Index = map[string]int{}
	}
	if i, ok := v.Index[name]; ok {
		return i, false
	}
	v.Index[name] = len(v.Names)
	v.Names = append(v.Names, name)
	return len(v.Names) - 1, true
}

// toolBin reads the columns every per-tool time series shares (tools.csv,
// breakers.csv, limits.csv): variant, a non-empty tool, and the bin
// [t_s, t_s+width_s) with width_s > 0.
func (t *table) toolBin() (variant, tool string, start, width time.Duration, err error) {
	variant, tool = t.str("variant"), t.str("tool")
	if tool == "" {
		return "", "", 0, 0, t.errorf("tool", "must not be empty")
	}
	if start, err = t.duration("t_s"); err != nil {
		return "", "", 0, 0, err
	}
	if width, err = t.duration("width_s"); err != nil {
		return "", "", 0, 0, err
	}
	if width <= 0 {
		return "", "", 0, 0, t.errorf("width_s", "must be > 0, got %s", t.str("width_s"))
	}
	return variant, tool, start, width, nil
}
