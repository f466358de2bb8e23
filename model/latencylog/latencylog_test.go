package latencylog

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// approxEqual compares seconds converted from decimal text: products such as
// 250 * 1e-3 differ from the literal 0.25 in the last bit.
func approxEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12*math.Max(1, math.Abs(b[i])) {
			return false
		}
	}
	return true
}

var readTests = []struct {
	name string
	in   string
	opt  Options
	want []float64
	// Expected metadata, when not empty.
	source, date, column string
	unit                 time.Duration
}{
	{name: "durations", in: "250ms\n1.5s\n2m\n", want: []float64{0.25, 1.5, 120}},
	{
		name: "mixed units",
		in:   "250ms\n1.5s\n2m\n1m30s\n500us\n500µs\n500μs\n7ns\n1h\n0.5\n250 ms\n1e3us\n-0\n+2s\n",
		want: []float64{0.25, 1.5, 120, 90, 0.0005, 0.0005, 0.0005, 7e-9, 3600, 0.5, 0.25, 0.001, 0, 2},
		unit: time.Second,
	},
	{name: "bare numbers default to seconds", in: "0.25\n1\n", want: []float64{0.25, 1}, unit: time.Second},
	{name: "bare numbers in DefaultUnit", in: "250\n1.5s\n", opt: Options{DefaultUnit: time.Millisecond}, want: []float64{0.25, 1.5}, unit: time.Millisecond},
	{
		name: "BOM CRLF comments header",
		in: "\xef\xbb\xbf# exported at 2 a.m.\r\n# source: api.example.com /v1/chat via proxy\r\n# date: 2026-11-30\r\n\r\n" +
			"ts,latency_ms,status\r\n" +
			"2026-11-30T02:00:00Z, 250 ,200\r\n" +
			"   # a comment between rows\r\n" +
			"2026-11-30T02:00:01Z,\"1200\",503 # trailing comment\r\n" +
			"\r\n",
		opt:    Options{Column: "latency_ms"},
		want:   []float64{0.25, 1.2},
		source: "api.example.com /v1/chat via proxy", date: "2026-11-30", column: "latency_ms", unit: time.Millisecond,
	},
	{name: "collected is a date", in: "# Collected: yesterday\n# source: a\n# source: b\n1s\n", want: []float64{1}, source: "a", date: "yesterday"},
	{name: "column matched ignoring case", in: "id;Duration_S\n1;0.5\n2;2\n", opt: Options{Column: "duration_s"}, want: []float64{0.5, 2}, column: "Duration_S", unit: time.Second},
	{name: "tsv first column by default", in: "rt (us)\tid\n1500\tx\n", want: []float64{0.0015}, column: "rt (us)", unit: time.Microsecond},
	{name: "header unit overridden by DefaultUnit", in: "latency_ms\n2\n", opt: Options{DefaultUnit: time.Second}, want: []float64{2}, unit: time.Second},
	{name: "header unit word alone", in: "ms\n2\n", want: []float64{0.002}, unit: time.Millisecond},
	{name: "header without unit", in: "latency\n2\n", want: []float64{2}, unit: time.Second},
	{name: "values with units ignore header unit", in: "latency_ms\n2s\n", want: []float64{2}},
	{name: "lone CR line endings", in: "1\r2\r\r3", want: []float64{1, 2, 3}},
	{name: "no final newline", in: "1\n2", want: []float64{1, 2}},
	{name: "quoted header and values", in: "\"a\",\"b_ms\"\n\"1\",\"2\"\n", opt: Options{Column: "b_ms"}, want: []float64{0.002}},
}

func TestRead(t *testing.T) {
	for _, tt := range readTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(strings.NewReader(tt.in), tt.opt)
			if err != nil {
				t.Fatalf("Read(%q) error: %v", tt.in, err)
			}
			if !approxEqual(got.Samples, tt.want) {
				t.Errorf("Read(%q).Samples = %v, want %v", tt.in, got.Samples, tt.want)
			}
			if tt.source != "" && got.Source != tt.source {
				t.Errorf("Read(%q).Source = %q, want %q", tt.in, got.Source, tt.source)
			}
			if tt.date != "" && got.Date != tt.date {
				t.Errorf("Read(%q).Date = %q, want %q", tt.in, got.Date, tt.date)
			}
			if tt.column != "" && got.Column != tt.column {
				t.Errorf("Read(%q).Column = %q, want %q", tt.in, got.Column, tt.column)
			}
			if tt.unit != 0 && got.Unit != tt.unit {
				t.Errorf("Read(%q).Unit = %v, want %v", tt.in, got.Unit, tt.unit)
			}
			for i, v := range got.Samples {
				if math.Signbit(v) {
					t.Errorf("Read(%q).Samples[%d] = %v, want sign bit clear", tt.in, i, v)
				}
			}
		})
	}
}

// hostileTests are inputs that must be rejected, with the line that is at
// fault and a fragment of the message.
var hostileTests = []struct {
	name     string
	in       string
	opt      Options
	wantLine int
	wantMsg  string
}{
	{"negative", "1s\n\n# note\n-3ms\n", Options{}, 4, `negative duration "-3ms"`},
	{"negative bare", "1\n-0.5\n", Options{}, 2, `negative duration "-0.5"`},
	{"negative compound", "1\n-1m30s\n", Options{}, 2, `negative duration "-1m30s"`},
	{"NaN", "# c\nNaN\n", Options{}, 2, `not a finite number "NaN"`},
	{"nan with unit", "1s\nnanms\n", Options{}, 2, `not a finite number "nanms"`},
	{"Inf", "1\n2\n+Inf\n", Options{}, 3, `not a finite number "+Inf"`},
	{"Inf with unit", "1\nInfs\n", Options{}, 2, `not a finite number "Infs"`},
	{"overflow", "1\n1e400\n", Options{}, 2, `not a finite number "1e400"`},
	{"overflow by unit", "1e308h\n", Options{}, 1, `not a finite number "1e308h"`},
	{"word", "1\n2\nabc\n", Options{}, 3, `not a number or duration "abc"`},
	{"bad unit", "1\n5 parsecs\n", Options{}, 2, `not a number or duration "5 parsecs"`},
	{"uppercase unit", "1\n5MS\n", Options{}, 2, `not a number or duration "5MS"`},
	{"garbage after unit", "1\n1ms2\n", Options{}, 2, `not a number or duration "1ms2"`},
	{"decimal comma", "1,5\n", Options{}, 1, `not a number or duration "1,5" (several values`},
	{"headerless csv", "1\n2,3\n", Options{}, 2, `"2,3" (several values on a line need a header`},
	{"missing column", "a,b\n1,2\n", Options{Column: "latency"}, 1, `column "latency": not in header ["a" "b"]`},
	{"column without header", "\n1\n2\n", Options{Column: "latency"}, 2, `column "latency": the input has no header line`},
	{"short row", "a,b\n1,2\n3\n", Options{Column: "b"}, 3, `row has 1 fields, want at least 2 for column "b"`},
	{"empty value", "a,b\n1,\n", Options{Column: "b"}, 2, `column "b": empty value ""`},
	{"bad value in column", "a,b_ms\n1,2\n1,-2\n", Options{Column: "b_ms"}, 3, `column "b_ms": negative duration "-2"`},
	{"CRLF line numbers", "1\r\n2\r\n-1\r\n", Options{}, 3, `negative duration "-1"`},
	{"CR line numbers", "1\r2\r\r-1", Options{}, 4, `negative duration "-1"`},
	{"long line", "1\n" + strings.Repeat("9", 2000) + "\n", Options{MaxLineBytes: 1000}, 2, "line longer than 1000 bytes"},
	{"long line at limit plus one", "1\n" + strings.Repeat("9", 1001), Options{MaxLineBytes: 1000}, 2, "line longer than 1000 bytes"},
	{"long excerpt", "1\n" + strings.Repeat("x", 500) + "\n", Options{}, 2, `"` + strings.Repeat("x", 40) + `..."`},
	{"empty", "", Options{}, 0, "no samples (0 lines read)"},
	{"only comments", "# source: x\n\n  \n", Options{}, 0, "no samples (3 lines read)"},
	{"only header", "latency_ms\r\n", Options{}, 0, "no samples after the header"},
	{"only BOM", "\xef\xbb\xbf", Options{}, 0, "no samples"},
}

func TestReadRejects(t *testing.T) {
	for _, tt := range hostileTests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opt.Name = "latencies.txt"
			got, err := Read(strings.NewReader(tt.in), tt.opt)
			if err == nil {
				t.Fatalf("Read(%.60q) = %v, want error at line %d", tt.in, got.Samples, tt.wantLine)
			}
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("Read(%.60q) error %T %v, want *LineError", tt.in, err, err)
			}
			if le.Line != tt.wantLine || le.File != "latencies.txt" {
				t.Errorf("Read(%.60q) error at %s:%d, want latencies.txt:%d (%v)", tt.in, le.File, le.Line, tt.wantLine, err)
			}
			if !strings.Contains(le.Msg, tt.wantMsg) {
				t.Errorf("Read(%.60q) error %q, want it to contain %q", tt.in, le.Msg, tt.wantMsg)
			}
		})
	}
}

func TestLineErrorFormat(t *testing.T) {
	tests := []struct {
		e    LineError
		want string
	}{
		{LineError{"latencies.txt", 17, `negative duration "-3ms"`, nil}, `latencies.txt:17: negative duration "-3ms"`},
		{LineError{"latencies.txt", 0, "no samples", nil}, "latencies.txt: no samples"},
		{LineError{"", 3, "x", nil}, "line 3: x"},
		{LineError{"", 0, "x", nil}, "x"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%#v.Error() = %q, want %q", tt.e, got, tt.want)
		}
	}
}

func TestReadBadOptions(t *testing.T) {
	for _, opt := range []Options{{DefaultUnit: -time.Second}, {MaxLineBytes: -1}} {
		if _, err := Read(strings.NewReader("1\n"), opt); err == nil {
			t.Errorf("Read(%+v) error = nil, want an error naming the option", opt)
		}
	}
}

// A 10 MB line (no line breaks at all) must fail with an error after reading
// at most about MaxLineBytes of it, not buffer the whole line.
func TestReadHugeLine(t *testing.T) {
	r := &countingReader{n: 10 << 20}
	_, err := Read(r, Options{Name: "huge.txt"})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 1 || !strings.Contains(le.Msg, "line longer than") {
		t.Fatalf("Read(10 MB line) error = %v, want huge.txt:1: line longer than ...", err)
	}
	if limit := int64(2 * DefaultMaxLineBytes); r.read > limit {
		t.Errorf("Read(10 MB line) consumed %d bytes, want <= %d", r.read, limit)
	}
}

// countingReader yields n bytes of '7' and counts what was consumed.
type countingReader struct{ n, read int64 }

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read >= c.n {
		return 0, os.ErrClosed
	}
	k := min(int64(len(p)), c.n-c.read)
	for i := range k {
		p[i] = '7'
	}
	c.read += k
	return int(k), nil
}

// I/O errors are returned wrapped, not as LineErrors.
func TestReadIOError(t *testing.T) {
	_, err := Read(&countingReader{n: 5}, Options{Name: "x"})
	if !errors.Is(err, os.ErrClosed) {
		t.Errorf("Read(failing reader) error = %v, want it to wrap %v", err, os.ErrClosed)
	}
}

// Many rows cross the storage chunk boundaries; the result must be complete,
// in order, and of exactly the right capacity.
func TestReadManyRows(t *testing.T) {
	const n = 3*chunkLen + 17
	var b bytes.Buffer
	b.WriteString("latency_us\n")
	for i := range n {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	log, err := Read(&b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Samples) != n || cap(log.Samples) != n {
		t.Fatalf("Read(%d rows): len %d cap %d, want both %d", n, len(log.Samples), cap(log.Samples), n)
	}
	for i, v := range log.Samples {
		if want := float64(i) * 1e-6; math.Abs(v-want) > 1e-15 {
			t.Fatalf("Read(%d rows).Samples[%d] = %v, want %v", n, i, v, want)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "latencies.txt")
	if err := os.WriteFile(path, []byte("# source: s\n1s\n2s\n-3ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path, Options{})
	if err == nil || err.Error() != path+`:4: negative duration "-3ms"` {
		t.Errorf("ReadFile(%q) error = %v, want %s:4: negative duration \"-3ms\"", path, err, path)
	}
	if err := os.WriteFile(path, []byte("1s\n2s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log, err := ReadFile(path, Options{})
	if err != nil || log.File != path || !slices.Equal(log.Samples, []float64{1, 2}) {
		t.Errorf("ReadFile(%q) = %+v, %v; want File %q, Samples [1 2]", path, log, err, path)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile(missing) error = %v, want os.ErrNotExist", err)
	}
}

// parseValue sits on the per-row path: it must not allocate for the common
// forms. Compound durations ("1m30s") go through time.ParseDuration, whose
// argument escapes: one allocation, accepted for a rare form.
func TestParseValueAllocs(t *testing.T) {
	for _, in := range []string{"0.25", "250ms", "1.5 s", "7ns", "1e3us"} {
		f := []byte(in)
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := parseValue(f, 1); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("parseValue(%q) allocates %v times per call, want 0", in, allocs)
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, tt := range readTests {
		f.Add([]byte(tt.in))
	}
	for _, tt := range hostileTests {
		if len(tt.in) < 1000 {
			f.Add([]byte(tt.in))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		log, err := Read(bytes.NewReader(data), Options{MaxLineBytes: 4096})
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("Read(%q) error %T %v, want *LineError", data, err, err)
			}
			if le.Line < 0 || le.Line > bytes.Count(data, []byte("\n"))+bytes.Count(data, []byte("\r"))+1 {
				t.Fatalf("Read(%q) error line %d out of range", data, le.Line)
			}
			return
		}
		if len(log.Samples) == 0 {
			t.Fatalf("Read(%q) = no samples and no error", data)
		}
		for i, v := range log.Samples {
			if !(v >= 0) || math.IsInf(v, 0) || math.Signbit(v) {
				t.Fatalf("Read(%q).Samples[%d] = %v, want finite and >= 0", data, i, v)
			}
		}
	})
}

// genRows returns n rows of mixed bare numbers and durations.
func genRows(n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 8)
	b.WriteString("# source: bench\n")
	for i := range n {
		switch i % 3 {
		case 0:
			b.WriteString(strconv.FormatFloat(0.001*float64(i%997), 'f', -1, 64))
		case 1:
			b.WriteString(strconv.Itoa(i % 1000))
			b.WriteString("ms")
		default:
			b.WriteString("1.5s")
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkRead1M reads a million rows. retained-B/sample is the memory held
// by the result; B/op adds the chunks that are copied once at the end.
func BenchmarkRead1M(b *testing.B) {
	const n = 1_000_000
	data := genRows(n)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		log, err := Read(bytes.NewReader(data), Options{})
		if err != nil || len(log.Samples) != n {
			b.Fatal(err)
		}
		b.ReportMetric(float64(cap(log.Samples)*8)/n, "retained-B/sample")
	}
}

func BenchmarkParseValue(b *testing.B) {
	f := []byte("250ms")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseValue(f, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLimits: a value longer than MaxLatency, and one sample more than
// MaxSamples, are refused with their line; Sample streams any number.
func TestLimits(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1s\n9999999999h\n", `log.txt:2: "9999999999h" is too long: at most 876000h0m0s (100 years, the longest duration a scenario takes)`},
		{"1s\n2s\n1e308\n", `log.txt:3: "1e308" is too long: at most 876000h0m0s`},
		{"latency_ms\n1\n3153600000001\n", `log.txt:3: "3153600000001" is too long`},
		{"1s\n876001h\n", `log.txt:2: "876001h" is too long`},
	} {
		_, err := Read(strings.NewReader(tc.in), Options{Name: "log.txt"})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Read(%q) = %v, want %s…", tc.in, err, tc.want)
		}
	}
	if l, err := Read(strings.NewReader("876000h\n"), Options{}); err != nil || l.Samples[0] != MaxLatency.Seconds() {
		t.Errorf("Read(MaxLatency) = %v, %v; want it accepted", l, err)
	}
	in := "# four samples\n1\n2\n\n3\n4\n"
	_, err := Read(strings.NewReader(in), Options{Name: "log.txt", MaxSamples: 3})
	if !errors.Is(err, ErrTooManySamples) || err.Error() != "log.txt:6: more than 3 samples" {
		t.Errorf("Read(4 samples, MaxSamples 3) = %v, want log.txt:6: more than 3 samples", err)
	}
	if l, err := Read(strings.NewReader(in), Options{MaxSamples: 4}); err != nil || len(l.Samples) != 4 || l.Count != 4 {
		t.Errorf("Read(4 samples, MaxSamples 4) = %v, %v", l, err)
	}
	for _, n := range []int{-1, MaxMaxSamples + 1} {
		if _, err := Read(strings.NewReader(in), Options{MaxSamples: n}); err == nil {
			t.Errorf("MaxSamples %d accepted", n)
		}
	}
	var got []float64
	l, err := Read(strings.NewReader(in), Options{MaxSamples: 1, Sample: func(v float64) { got = append(got, v) }})
	if err != nil || l.Samples != nil || l.Count != 4 || !slices.Equal(got, []float64{1, 2, 3, 4}) {
		t.Errorf("Read with Sample = %+v, %v; passed %v", l, err, got)
	}
}
