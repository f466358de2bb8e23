// Package latencylog reads observed latencies that users export from their
// own systems (logs, tracing backends, spreadsheets) so the planner can fit a
// service-time distribution to them.
//
// The reader is forgiving about layout and strict about values. It accepts:
//
//   - one value per line, or CSV/TSV rows with a header naming the column;
//   - Go durations ("250ms", "1.5s", "2m", "1m30s"), plain numbers with an
//     optional unit ("250 ms", "1e3us"), and bare numbers in a default unit;
//     units may differ from line to line;
//   - blank lines, "#" comments (whole-line or trailing), a UTF-8 byte order
//     mark, LF, CRLF or lone CR line endings, spaces around values, and
//     values wrapped in double quotes;
//   - metadata comments "# source: ..." and "# date: ..." (or
//     "# collected: ..."), kept in [Log.Source] and [Log.Date] so a report can
//     say which provider and which day the numbers describe.
//
// It rejects, with the file name and line number (a [*LineError]), negative
// values, NaN and infinities, values over [MaxLatency] (100 years), more
// samples than [Options.MaxSamples] (10 million by default), text that is neither a number nor a duration, a
// named column that the header lacks, rows too short to hold the column, lines
// longer than [Options.MaxLineBytes], and inputs with no samples at all.
//
// Samples are returned as float64 seconds because they feed maximum-likelihood
// fits, not the simulation clock.
package latencylog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultMaxLineBytes is the longest line [Read] accepts when
// [Options.MaxLineBytes] is zero: 1 MiB, far more than any row of latencies
// needs, small enough that a file without line breaks fails fast instead of
// exhausting memory.
const DefaultMaxLineBytes = 1 << 20

// DefaultMaxSamples is the most samples [Read] keeps when
// [Options.MaxSamples] is zero: 10 million, 80 MB of float64s (a copy or
// two more while a distribution is built from them).
const DefaultMaxSamples = 10_000_000

// MaxMaxSamples is the largest [Options.MaxSamples]: 50 million samples,
// 400 MB, so that a log and the copies made of it (about 1.6 GB at the
// peak, for an empirical distribution) fit in a 4 GB address
// space. Past it, pass samples on with [Options.Sample] instead of keeping
// them.
const MaxMaxSamples = 50_000_000

// MaxLatency is the longest sample [Read] accepts: 100 years, the longest
// duration a scenario takes (scenarios.MaxDuration). A longer value is a
// unit or a typo, and would saturate the simulation clock.
const MaxLatency = 100 * 365 * 24 * time.Hour

// ErrTooManySamples is wrapped by the [*LineError] of a log with more than
// [Options.MaxSamples] samples.
var ErrTooManySamples = errors.New("too many samples")

// Options controls how [Read] interprets its input. The zero value reads
// bare numbers as seconds (unless the header names a unit), takes the first
// column, and limits lines to [DefaultMaxLineBytes].
type Options struct {
	// DefaultUnit is the unit of bare numbers such as "0.25". Zero means:
	// the unit named by the column header ("latency_ms", "duration (us)",
	// "rt[s]"; see [Read] for the suffixes recognised), or else
	// time.Second. A non-zero DefaultUnit always wins over the header.
	// Values that carry their own unit ("250ms") ignore it.
	DefaultUnit time.Duration

	// Column names the CSV column to read, matched against the header
	// exactly, then ignoring case. Empty means the first column. A non-empty
	// Column requires a header line.
	Column string

	// Name labels errors and [Log.File] when reading with [Read]. [ReadFile]
	// sets it to the path.
	Name string

	// MaxLineBytes bounds the length of one line, line ending excluded.
	// Zero means [DefaultMaxLineBytes].
	MaxLineBytes int

	// MaxSamples bounds the samples Read keeps: one more is an error
	// wrapping [ErrTooManySamples] that names its line. Zero means
	// [DefaultMaxSamples]; at most [MaxMaxSamples]. It does not apply
	// with Sample.
	MaxSamples int

	// Sample, when set, receives each sample (seconds) in file order
	// instead of Read keeping it: [Log.Samples] is then nil, [Log.Count]
	// counts them, and memory holds one line whatever the file's size.
	Sample func(seconds float64)
}

// Log is the content of a latency file. Its zero value is an empty log.
type Log struct {
	// Samples are the latencies in seconds, in file order. Every sample is
	// finite, >= 0 and at most MaxLatency. Exactly len(Samples) float64s
	// are retained (8 bytes per sample). Nil when Options.Sample took
	// them.
	Samples []float64

	// Count is the number of samples read.
	Count int64

	// Source is the value of the first "# source:" comment, trimmed; empty
	// if there is none.
	Source string

	// Date is the value of the first "# date:" or "# collected:" comment,
	// kept verbatim (trimmed) and not parsed; empty if there is none.
	Date string

	// File is the path given to [ReadFile], or [Options.Name].
	File string

	// Column is the header name of the column that was read; empty when the
	// input has no header.
	Column string

	// Unit is the unit that was applied to bare numbers.
	Unit time.Duration
}

// LineError reports a bad line. Line is 1-based; Line 0 means the input as a
// whole (for example: no samples).
type LineError struct {
	File string // file name, or "" when reading an unnamed stream
	Line int    // 1-based line number; 0 for the whole input
	Msg  string // what is wrong, quoting the offending text
	Err  error  // a sentinel such as ErrTooManySamples, or nil
}

// Unwrap returns Err.
func (e *LineError) Unwrap() error { return e.Err }

// Error formats the error as "file:line: msg", the form editors and
// terminals turn into links. Missing parts are left out.
func (e *LineError) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.File != "":
		return e.File + ": " + e.Msg
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	default:
		return e.Msg
	}
}

// ReadFile reads the latency file at path. See [Read] for the format.
func ReadFile(path string, opt Options) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	opt.Name = path
	return Read(f, opt)
}

// chunkLen is the number of samples per storage chunk while reading. Chunks
// avoid the repeated copying of append growth; one final copy yields a slice
// of exactly the right length.
const chunkLen = 1 << 16

// Read parses latencies from r.
//
// Layout. Lines end in LF, CRLF or a lone CR. A leading UTF-8 byte order mark
// is skipped. Blank lines and lines whose first non-space character is '#'
// are ignored, and text from a '#' to the end of a line is a comment. A
// comment of the form "# key: value" whose key is "source", "date" or
// "collected" (any case) is metadata (see [Log]).
//
// Header. The first line that is neither blank nor a comment is a header if
// none of its fields is a number or duration and at least one starts with a
// letter or '_'. Fields are separated by the first of ',', '\t', ';' found in
// the header (none: one field per line) and trimmed of spaces and of one pair
// of surrounding double quotes; quoted separators are not supported. Without
// a header every line holds exactly one value: several values on a line are
// an error rather than a guess.
//
// Values. A field is a bare number ("0.25", "1e-3", in the default unit), a
// number followed by a unit with optional spaces between ("250ms", "250 ms";
// units ns, us, µs, μs, ms, s, m, h), or any Go duration ("1m30s",
// time.ParseDuration). "-0" is read as 0.
//
// Default unit. When [Options.DefaultUnit] is zero and the column header ends
// in a unit after '_', '-', '.', ' ', '(' or '[' (ns, us, µs, micros, ms,
// millis, s, sec, secs, seconds), bare numbers are in that unit: a
// "latency_ms" column of "250" reads as 0.25 s. Otherwise seconds.
//
// Errors are [*LineError] values except for I/O errors from r, which are
// returned wrapped. Read retains at most one line (bounded by
// [Options.MaxLineBytes]) plus the samples (at most [Options.MaxSamples],
// none with [Options.Sample]).
func Read(r io.Reader, opt Options) (*Log, error) {
	if opt.DefaultUnit < 0 {
		return nil, fmt.Errorf("latencylog: DefaultUnit: must be >= 0, got %v", opt.DefaultUnit)
	}
	if opt.MaxLineBytes < 0 {
		return nil, fmt.Errorf("latencylog: MaxLineBytes: must be >= 0, got %d", opt.MaxLineBytes)
	}
	if opt.MaxSamples < 0 || opt.MaxSamples > MaxMaxSamples {
		return nil, fmt.Errorf("latencylog: MaxSamples: must be in [0, %d], got %d", MaxMaxSamples, opt.MaxSamples)
	}
	if opt.MaxSamples == 0 {
		opt.MaxSamples = DefaultMaxSamples
	}
	maxLine := opt.MaxLineBytes
	if maxLine == 0 {
		maxLine = DefaultMaxLineBytes
	}
	p := parser{
		log:  &Log{File: opt.Name},
		opt:  opt,
		unit: opt.DefaultUnit,
	}
	sc := bufio.NewScanner(r)
	// The +2 leaves room for a CRLF; longer lines are rejected below.
	sc.Buffer(make([]byte, 0, min(64<<10, maxLine+2)), maxLine+2)
	sc.Split(scanLines)
	for sc.Scan() {
		p.line++
		b := sc.Bytes()
		if len(b) > maxLine {
			return nil, p.errorf("line longer than %d bytes", maxLine)
		}
		if err := p.parseLine(b); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			p.line++
			return nil, p.errorf("line longer than %d bytes", maxLine)
		}
		if opt.Name != "" {
			return nil, fmt.Errorf("latencylog: %s: %w", opt.Name, err)
		}
		return nil, fmt.Errorf("latencylog: %w", err)
	}
	if p.n == 0 {
		what := "no samples"
		if p.headerSeen {
			what = "no samples after the header"
		}
		return nil, &LineError{File: opt.Name, Msg: fmt.Sprintf("%s (%d lines read)", what, p.line)}
	}
	if p.unit == 0 {
		p.unit = time.Second
	}
	p.log.Unit = p.unit
	p.log.Count = p.n
	if opt.Sample == nil {
		p.log.Samples = p.samples()
	}
	return p.log, nil
}

// parser holds the state of one Read call.
type parser struct {
	log        *Log
	opt        Options
	line       int
	unit       time.Duration // unit of bare numbers; 0 until decided
	unitSec    float64       // unit in seconds, cached
	sep        byte          // field separator; 0 means one field per line
	col        int           // index of the column to read
	started    bool          // the first content line has been seen
	headerSeen bool

	chunks [][]float64
	cur    []float64
	n      int64
}

func (p *parser) errorf(format string, args ...any) *LineError {
	return &LineError{File: p.opt.Name, Line: p.line, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) parseLine(b []byte) error {
	if p.line == 1 {
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	}
	b = trimSpace(b)
	if len(b) == 0 {
		return nil
	}
	if b[0] == '#' {
		p.comment(b[1:])
		return nil
	}
	if i := bytes.IndexByte(b, '#'); i >= 0 {
		b = trimSpace(b[:i])
	}
	if !p.started {
		p.started = true
		if err := p.first(b); err != nil || p.headerSeen {
			return err
		}
	}
	return p.data(b)
}

// comment records "source", "date" and "collected" metadata.
func (p *parser) comment(b []byte) {
	key, val, ok := bytes.Cut(b, []byte(":"))
	if !ok {
		return
	}
	k := strings.ToLower(string(trimSpace(key)))
	v := string(trimSpace(val))
	switch k {
	case "source":
		if p.log.Source == "" {
			p.log.Source = v
		}
	case "date", "collected":
		if p.log.Date == "" {
			p.log.Date = v
		}
	}
}

// first inspects the first content line: it fixes the separator, and
// consumes the line if it is a header.
func (p *parser) first(b []byte) error {
	switch {
	case bytes.IndexByte(b, ',') >= 0:
		p.sep = ','
	case bytes.IndexByte(b, '\t') >= 0:
		p.sep = '\t'
	case bytes.IndexByte(b, ';') >= 0:
		p.sep = ';'
	}
	var names []string
	header, letter := true, false
	for f := range p.fields(b) {
		if _, err := parseValue(f, 1); err == nil || errors.Is(err, errNotFinite) || errors.Is(err, errNegative) {
			header = false
			break
		}
		if len(f) > 0 && (f[0] == '_' || isLetter(f)) {
			letter = true
		}
		names = append(names, string(f))
	}
	if !header || !letter {
		// Without a header there is one value per line: reading the first
		// of several unnamed fields would silently misread "1,5" (a
		// decimal comma) as 1.
		p.sep = 0
		if p.opt.Column != "" {
			return p.errorf("column %q: the input has no header line (first row %q)", p.opt.Column, excerpt(b))
		}
		p.col = 0
		return nil
	}
	p.headerSeen = true
	p.col = -1
	if p.opt.Column == "" {
		p.col = 0
	} else {
		for i, n := range names {
			if n == p.opt.Column {
				p.col = i
				break
			}
		}
		if p.col < 0 {
			for i, n := range names {
				if strings.EqualFold(n, p.opt.Column) {
					p.col = i
					break
				}
			}
		}
		if p.col < 0 {
			return p.errorf("column %q: not in header %q", p.opt.Column, names)
		}
	}
	p.log.Column = names[p.col]
	if p.unit == 0 {
		p.unit = unitFromHeader(names[p.col])
	}
	return nil
}

// data parses one data row and stores its sample.
func (p *parser) data(b []byte) error {
	if p.unit == 0 {
		p.unit = time.Second
	}
	if p.unitSec == 0 {
		p.unitSec = p.unit.Seconds()
	}
	f, ok := b, true
	if p.sep != 0 {
		f, ok = p.field(b, p.col)
		if !ok {
			return p.errorf("row has %d fields, want at least %d for column %s", bytes.Count(b, []byte{p.sep})+1, p.col+1, p.colName())
		}
	}
	v, err := parseValue(f, p.unitSec)
	if err != nil {
		hint := ""
		if err == errSyntax && bytes.ContainsAny(f, ",;\t") {
			hint = " (several values on a line need a header line naming the columns; decimal commas are not supported)"
		}
		if p.log.Column != "" {
			return p.errorf("column %q: %v %q%s", p.log.Column, err, excerpt(f), hint)
		}
		return p.errorf("%v %q%s", err, excerpt(f), hint)
	}
	if v > MaxLatency.Seconds() {
		return p.errorf("%q is too long: at most %v (100 years, the longest duration a scenario takes)", excerpt(f), MaxLatency)
	}
	if p.opt.Sample != nil {
		p.opt.Sample(v)
		p.n++
		return nil
	}
	if p.n >= int64(p.opt.MaxSamples) {
		e := p.errorf("more than %d samples", p.opt.MaxSamples)
		e.Err = ErrTooManySamples
		return e
	}
	p.push(v)
	return nil
}

func (p *parser) colName() string {
	if p.log.Column != "" {
		return strconv.Quote(p.log.Column)
	}
	return strconv.Itoa(p.col + 1)
}

func (p *parser) push(v float64) {
	if len(p.cur) == cap(p.cur) {
		if p.cur != nil {
			p.chunks = append(p.chunks, p.cur)
		}
		p.cur = make([]float64, 0, chunkLen)
	}
	p.cur = append(p.cur, v)
	p.n++
}

// samples joins the chunks into one slice of exactly p.n elements.
func (p *parser) samples() []float64 {
	if len(p.chunks) == 0 {
		// Shrink a sparsely used single chunk; keep a full one as is.
		if cap(p.cur)-len(p.cur) > len(p.cur)/8 {
			return append([]float64(nil), p.cur...)
		}
		return p.cur
	}
	out := make([]float64, 0, int(p.n))
	for _, c := range p.chunks {
		out = append(out, c...)
	}
	return append(out, p.cur...)
}

// fields yields the trimmed, unquoted fields of b.
func (p *parser) fields(b []byte) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		if p.sep == 0 {
			yield(unquote(b))
			return
		}
		for {
			i := bytes.IndexByte(b, p.sep)
			if i < 0 {
				yield(unquote(trimSpace(b)))
				return
			}
			if !yield(unquote(trimSpace(b[:i]))) {
				return
			}
			b = b[i+1:]
		}
	}
}

// field returns field i of b, trimmed and unquoted, and whether b has it.
func (p *parser) field(b []byte, i int) ([]byte, bool) {
	for ; i > 0; i-- {
		j := bytes.IndexByte(b, p.sep)
		if j < 0 {
			return nil, false
		}
		b = b[j+1:]
	}
	if j := bytes.IndexByte(b, p.sep); j >= 0 {
		b = b[:j]
	}
	return unquote(trimSpace(b)), true
}

var (
	errNegative  = errors.New("negative duration")
	errNotFinite = errors.New("not a finite number")
	errSyntax    = errors.New("not a number or duration")
	errEmpty     = errors.New("empty value")
)

// units maps a unit suffix to its length in seconds, longest suffixes first
// so that "ms" is tried before "s".
var units = [...]struct {
	name string
	sec  float64
}{
	{"ns", 1e-9}, {"us", 1e-6}, {"µs", 1e-6}, {"μs", 1e-6}, {"ms", 1e-3},
	{"s", 1}, {"m", 60}, {"h", 3600},
}

// parseValue parses one field into seconds; unitSec is the length of the
// default unit, in seconds, for bare numbers. The error is one of the
// sentinels above, to be followed by the quoted field.
func parseValue(f []byte, unitSec float64) (float64, error) {
	if len(f) == 0 {
		return 0, errEmpty
	}
	num, mul, hasUnit := f, unitSec, false
	if c := f[len(f)-1]; c >= 'a' && c <= 'z' && !hasFloatWordSuffix(f) {
		for _, u := range units {
			if bytes.HasSuffix(f, []byte(u.name)) {
				num, mul, hasUnit = trimSpace(f[:len(f)-len(u.name)]), u.sec, true
				break
			}
		}
	}
	if hasUnit && len(num) > 0 && num[len(num)-1] >= '0' && num[len(num)-1] <= '9' && bytes.ContainsAny(num, "hmsuµμn") {
		// Compound Go durations such as "1m30s" or "1h2m".
		d, err := time.ParseDuration(string(f))
		if err != nil {
			return 0, errSyntax
		}
		if d < 0 {
			return 0, errNegative
		}
		return d.Seconds(), nil
	}
	v, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange && math.IsInf(v, 0) {
			return 0, errNotFinite // "1e400"
		}
		return 0, errSyntax
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errNotFinite
	}
	v = float64(v * mul)
	if math.IsInf(v, 0) {
		return 0, errNotFinite // "1e308h"
	}
	if v < 0 {
		return 0, errNegative
	}
	return v + 0, nil // + 0 turns -0 into +0
}

// hasFloatWordSuffix reports whether f ends like a word that strconv parses
// as a float ("inf", "infinity", "nan", any case), so that "Inf" is reported
// as not finite rather than as a bad unit.
func hasFloatWordSuffix(f []byte) bool {
	s := f
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return bytes.EqualFold(s, []byte("inf")) || bytes.EqualFold(s, []byte("infinity")) || bytes.EqualFold(s, []byte("nan"))
}

// headerUnits maps unit words at the end of a column name to durations.
var headerUnits = map[string]time.Duration{
	"ns": time.Nanosecond, "nanos": time.Nanosecond,
	"us": time.Microsecond, "µs": time.Microsecond, "μs": time.Microsecond, "micros": time.Microsecond,
	"ms": time.Millisecond, "millis": time.Millisecond,
	"s": time.Second, "sec": time.Second, "secs": time.Second, "seconds": time.Second,
}

// unitFromHeader returns the unit named at the end of a column header, or
// time.Second if there is none.
func unitFromHeader(name string) time.Duration {
	s := strings.ToLower(strings.TrimSpace(name))
	s = strings.TrimRight(s, ")] ")
	s = s[strings.LastIndexAny(s, "_-. ([")+1:] // whole name if no separator
	if u, ok := headerUnits[s]; ok {
		return u
	}
	return time.Second
}

// excerpt shortens b for an error message.
func excerpt(b []byte) string {
	const max = 40
	if len(b) <= max {
		return string(b)
	}
	i := max
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return string(b[:i]) + "..."
}

func isLetter(f []byte) bool {
	r, _ := utf8.DecodeRune(f)
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > utf8.RuneSelf
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

func unquote(b []byte) []byte {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return trimSpace(b[1 : len(b)-1])
	}
	return b
}

// scanLines is a bufio.SplitFunc that ends lines at LF, CRLF or a lone CR.
func scanLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		// CR: a CRLF pair ends one line; wait to see the next byte.
		if i+1 < len(data) {
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		if atEOF {
			return i + 1, data[:i], nil
		}
		return 0, nil, nil
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}
