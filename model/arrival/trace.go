package arrival

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Trace returns a process that replays recorded arrival instants: arrival n
// is at times[n], and there are len(times) arrivals. Instants may repeat
// (several arrivals in the same nanosecond); Next ignores prev and draws
// nothing from r. times must not be empty, times[0] must be ≥ 0 and the
// instants must not decrease; the error names the first index out of order.
// The slice is copied.
func Trace(times []time.Duration) (Process, error) {
	if len(times) == 0 {
		return nil, paramErr("times", "must not be empty")
	}
	if times[0] < 0 {
		return nil, paramErr("times[0]", "must be ≥ 0, got %v", times[0])
	}
	for i := 1; i < len(times); i++ {
		if times[i] < times[i-1] {
			return nil, paramErr(index("times", i), "out of order: %v is before times[%d] = %v",
				times[i], i-1, times[i-1])
		}
	}
	return &trace{times: slices.Clone(times)}, nil
}

type trace struct{ times []time.Duration }

func (t *trace) Next(n int64, prev time.Duration, r *rand.Rand) (time.Duration, bool) {
	checkN(n)
	if n >= int64(len(t.times)) {
		return 0, false
	}
	return t.times[n], true
}

// MeanRate returns (len − 1)/(last − first) in arrivals per second: the
// reciprocal of the mean gap. It is 0 for a single arrival or a trace whose
// arrivals share one instant.
func (t *trace) MeanRate() float64 {
	first, last := t.times[0], t.times[len(t.times)-1]
	if last == first {
		return 0
	}
	return float64(len(t.times)-1) / (last - first).Seconds()
}

func (t *trace) Expected(from, to time.Duration) float64 {
	if to <= from {
		return 0
	}
	lo, _ := slices.BinarySearch(t.times, from) // first index ≥ from
	hi, _ := slices.BinarySearch(t.times, to)
	return float64(hi - lo)
}

func (t *trace) String() string {
	return "trace(n=" + strconv.Itoa(len(t.times)) + ", first=" + t.times[0].String() +
		", last=" + t.times[len(t.times)-1].String() + ")"
}

// LineError reports a bad line of a trace. Line is 1-based; Line 0 means
// the input as a whole (for example: no timestamps).
type LineError struct {
	Name string // the name passed to ReadTrace, often a file path; may be ""
	Line int    // 1-based line number; 0 for the whole input
	Msg  string // what is wrong, quoting the offending text
}

// Error formats the error as "name:line: msg", the form editors and
// terminals turn into links. Missing parts are left out.
func (e *LineError) Error() string {
	switch {
	case e.Name != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg)
	case e.Name != "":
		return e.Name + ": " + e.Msg
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	default:
		return e.Msg
	}
}

// MaxTraceLineBytes is the longest line ReadTrace accepts: 64 KiB, far more
// than a timestamp and a comment need.
const MaxTraceLineBytes = 64 << 10

// MaxTraceInstants is the most instants ReadTrace accepts: 50 million,
// 400 MB as time.Durations, and about 2.2 GB at the peak while the trace is
// read and compiled into a scenario (append's growth and the copies), so
// that a trace fits in a 4 GB address space.
const MaxTraceInstants = 50_000_000

// ReadTrace parses recorded arrival instants, one per line, for [Trace].
// name labels errors (a file path, or "" for an unnamed stream). A line
// holds one of:
//
//   - an offset as a Go duration: "1.5s", "250ms", "1h2m";
//   - an offset as a bare decimal number of seconds: "1.5", "90", ".25";
//   - an RFC 3339 timestamp, "2024-06-01T09:00:00.250Z" (time.RFC3339Nano).
//
// Offsets are instants on the simulation clock as written (0 is the start).
// Timestamps are converted to offsets from the first line's timestamp, which
// becomes 0; a file must use one kind throughout. Blank lines and "#"
// comments (whole-line or trailing) are skipped, and surrounding spaces, a
// CR before the LF and a UTF-8 byte order mark are ignored. Numbers are
// parsed by time.ParseDuration and time.Parse, in integers: exact when they
// stop at the nanosecond, not rounded through float64 seconds.
//
// Errors are [*LineError] values naming the line: text that is none of the
// above, a negative offset, an instant before the previous one, mixed kinds,
// a line longer than [MaxTraceLineBytes], more than [MaxTraceInstants]
// instants, and an input without instants.
// I/O errors from r are returned wrapped, prefixed by name.
func ReadTrace(r io.Reader, name string) ([]time.Duration, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256), MaxTraceLineBytes)
	var (
		times    []time.Duration
		stamps   bool      // the first instant was an RFC 3339 timestamp
		origin   time.Time // the first timestamp
		prevLine int       // line of the previous instant, 0 before the first
		prevText string
	)
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if line == 1 {
			s = strings.TrimPrefix(s, "\uFEFF")
		}
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		lineErr := func(format string, args ...any) error {
			return &LineError{Name: name, Line: line, Msg: fmt.Sprintf(format, args...)}
		}
		var at time.Duration
		if isTimestamp(s) {
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				return nil, lineErr("%q is not an RFC 3339 timestamp (like 2006-01-02T15:04:05.999Z or with an offset +02:00)", s)
			}
			switch {
			case prevLine == 0:
				stamps, origin = true, t
			case !stamps:
				return nil, lineErr("RFC 3339 timestamp %q in a trace of offsets (line %d is %q): use one kind per file", s, prevLine, prevText)
			}
			at = t.Sub(origin)
			if !origin.Add(at).Equal(t) { // Sub saturated
				return nil, lineErr("%q is too far from the first timestamp %q (more than 292 years)", s, origin.Format(time.RFC3339Nano))
			}
		} else {
			d, err := parseOffset(s)
			if err != nil {
				return nil, lineErr("%v", err)
			}
			if prevLine != 0 && stamps {
				return nil, lineErr("offset %q in a trace of RFC 3339 timestamps (line %d is %q): use one kind per file", s, prevLine, prevText)
			}
			if d < 0 {
				return nil, lineErr("offset %q is negative: instants start at 0", s)
			}
			at = d
		}
		if prevLine != 0 && at < times[len(times)-1] {
			return nil, lineErr("out of order: %q is before %q on line %d", s, prevText, prevLine)
		}
		if len(times) == MaxTraceInstants {
			return nil, lineErr("more than %d arrival instants, the most a trace holds: split the trace, or simulate its rate (arrivals: {process: schedule, …})", MaxTraceInstants)
		}
		times = append(times, at)
		prevLine, prevText = line, s
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &LineError{Name: name, Line: line + 1, Msg: fmt.Sprintf("line longer than %d bytes", MaxTraceLineBytes)}
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(times) == 0 {
		return nil, &LineError{Name: name, Msg: "no arrival instants"}
	}
	return times, nil
}

// ReadTraceFile is ReadTrace on the file at path, named path in errors.
func ReadTraceFile(path string) ([]time.Duration, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTrace(f, path)
}

// isTimestamp reports whether s starts like an RFC 3339 date, "dddd-".
func isTimestamp(s string) bool {
	if len(s) < 5 || s[4] != '-' {
		return false
	}
	for i := range 4 {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseOffset parses a Go duration or a bare decimal number of seconds,
// both exactly (time.ParseDuration works in integers).
func parseOffset(s string) (time.Duration, error) {
	if isDecimal(s) {
		d, err := time.ParseDuration(s + "s")
		if err != nil { // the only failure left for a decimal
			return 0, fmt.Errorf("%q seconds is out of range (more than 292 years)", s)
		}
		return d, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("cannot parse %q: want a duration (250ms, 1.5s), seconds (1.5) or an RFC 3339 timestamp", s)
	}
	return d, nil
}

// isDecimal reports whether s is an optionally signed decimal number without
// exponent: "1", "1.5", ".5", "-2.".
func isDecimal(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	digits, dots := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return false
		}
	}
	return digits > 0 && dots <= 1
}
