package arrival

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestTraceReplay(t *testing.T) {
	const ms = time.Millisecond
	in := []time.Duration{0, 5 * ms, 5 * ms, 5 * ms, 12 * ms, 1000 * ms}
	p, err := Trace(in)
	if err != nil {
		t.Fatal(err)
	}
	in[1] = 999 * ms // Trace copied the slice
	want := []time.Duration{0, 5 * ms, 5 * ms, 5 * ms, 12 * ms, 1000 * ms}
	if got := generate(t, p, newRand(), time.Hour); !slices.Equal(got, want) {
		t.Errorf("Trace replay = %v, want %v", got, want)
	}
	// Next depends on n only.
	if got, ok := p.Next(4, time.Hour, nil); got != 12*ms || !ok {
		t.Errorf("Next(4, 1h) = %v, %v, want 12ms, true", got, ok)
	}
	if got, ok := p.Next(6, 0, nil); ok {
		t.Errorf("Next(6, 0) = %v, true; want false (6 arrivals)", got)
	}
	counts := []struct {
		from, to time.Duration
		want     float64
	}{
		{0, time.Hour, 6},
		{5 * ms, 12 * ms, 3},
		{5 * ms, 12*ms + 1, 4},
		{6 * ms, 12 * ms, 0},
		{12 * ms, 5 * ms, 0},
	}
	for _, c := range counts {
		if got := p.Expected(c.from, c.to); got != c.want {
			t.Errorf("Expected(%v, %v) = %g, want %g", c.from, c.to, got, c.want)
		}
	}
}

func TestReadTrace(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name, in string
		want     []time.Duration
	}{
		{"durations", "0s\n250ms\n1.5s\n1m\n", []time.Duration{0, 250 * ms, 1500 * ms, time.Minute}},
		{"seconds", "0\n.25\n1.5\n90\n", []time.Duration{0, 250 * ms, 1500 * ms, 90 * time.Second}},
		{"mixed offsets", "1\n1.5s\n2\n", []time.Duration{time.Second, 1500 * ms, 2 * time.Second}},
		{"nanosecond exact", "1.000000001\n1234567.123456789\n",
			[]time.Duration{time.Second + 1, 1234567123456789 * time.Nanosecond}},
		{"comments, blanks, CRLF, BOM", "\uFEFF# arrivals\r\n\r\n  1s  # first\r\n2s\r\n\n# end\n",
			[]time.Duration{time.Second, 2 * time.Second}},
		{"duplicates", "1s\n1s\n1s\n", []time.Duration{time.Second, time.Second, time.Second}},
		{"rfc3339", "2024-06-01T09:00:00Z\n2024-06-01T09:00:00.25Z\n2024-06-01T11:00:01+02:00\n2024-06-01T09:00:01Z\n",
			[]time.Duration{0, 250 * ms, time.Second, time.Second}},
		{"no trailing newline", "3s", []time.Duration{3 * time.Second}},
	}
	for _, tt := range tests {
		got, err := ReadTrace(strings.NewReader(tt.in), tt.name)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ReadTrace(%q) = %v, %v, want %v, nil", tt.in, got, err, tt.want)
		}
	}
}

func TestReadTraceErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "t.txt: no arrival instants"},
		{"# only a comment\n\n", "t.txt: no arrival instants"},
		{"1s\nabc\n", `t.txt:2: cannot parse "abc": want a duration (250ms, 1.5s), seconds (1.5) or an RFC 3339 timestamp`},
		{"1e3\n", `t.txt:1: cannot parse "1e3": want a duration (250ms, 1.5s), seconds (1.5) or an RFC 3339 timestamp`},
		{"1s\n2s\n\n1.5s\n", `t.txt:4: out of order: "1.5s" is before "2s" on line 2`},
		{"-1s\n", `t.txt:1: offset "-1s" is negative: instants start at 0`},
		{"-0.5\n", `t.txt:1: offset "-0.5" is negative: instants start at 0`},
		{"99999999999999\n", `t.txt:1: "99999999999999" seconds is out of range (more than 292 years)`},
		{"2024-06-01T09:00:00Z\n2024-06-01T08:59:59Z\n",
			`t.txt:2: out of order: "2024-06-01T08:59:59Z" is before "2024-06-01T09:00:00Z" on line 1`},
		{"2024-06-01 09:00:00\n", `t.txt:1: "2024-06-01 09:00:00" is not an RFC 3339 timestamp (like 2006-01-02T15:04:05.999Z or with an offset +02:00)`},
		{"2024-06-01T09:00:00Z\n1s\n", `t.txt:2: offset "1s" in a trace of RFC 3339 timestamps (line 1 is "2024-06-01T09:00:00Z"): use one kind per file`},
		{"0s\n# x\n2024-06-01T09:00:00Z\n", `t.txt:3: RFC 3339 timestamp "2024-06-01T09:00:00Z" in a trace of offsets (line 1 is "0s"): use one kind per file`},
		{"1800-01-01T00:00:00Z\n2200-01-01T00:00:00Z\n", `t.txt:2: "2200-01-01T00:00:00Z" is too far from the first timestamp "1800-01-01T00:00:00Z" (more than 292 years)`},
		{"1s\n" + strings.Repeat("x", MaxTraceLineBytes+1) + "\n", "t.txt:2: line longer than 65536 bytes"},
	}
	for _, tt := range tests {
		got, err := ReadTrace(strings.NewReader(tt.in), "t.txt")
		if err == nil {
			t.Errorf("ReadTrace(%.40q) = %v, nil; want error %q", tt.in, got, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("ReadTrace(%.40q) error = %q, want %q", tt.in, err, tt.want)
		}
		var le *LineError
		if !errors.As(err, &le) {
			t.Errorf("ReadTrace(%.40q) error is %T, want *LineError", tt.in, err)
		}
	}

	// I/O errors are wrapped, not turned into line errors.
	boom := errors.New("boom")
	_, err := ReadTrace(iotest.ErrReader(boom), "t.txt")
	if !errors.Is(err, boom) || err.Error() != "t.txt: boom" {
		t.Errorf("ReadTrace(failing reader) error = %v, want \"t.txt: boom\" wrapping boom", err)
	}
}

func TestReadTraceFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "arrivals.txt")
	if err := os.WriteFile(path, []byte("0\n0.5\n0.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadTraceFile(path)
	if want := path + `:3: out of order: "0.25" is before "0.5" on line 2`; err == nil || err.Error() != want {
		t.Errorf("ReadTraceFile(%q) error = %v, want %q", path, err, want)
	}
	if _, err := ReadTraceFile(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadTraceFile(missing) error = %v, want os.ErrNotExist", err)
	}
}

func TestLineErrorForms(t *testing.T) {
	tests := []struct {
		e    LineError
		want string
	}{
		{LineError{"f", 3, "bad"}, "f:3: bad"},
		{LineError{"f", 0, "bad"}, "f: bad"},
		{LineError{"", 3, "bad"}, "line 3: bad"},
		{LineError{"", 0, "bad"}, "bad"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%#v.Error() = %q, want %q", tt.e, got, tt.want)
		}
	}
}

// FuzzReadTrace feeds arbitrary text to ReadTrace: it must not panic, and
// must return either a *LineError (or a read error) or instants that
// Trace accepts (non-empty, from ≥ 0, never decreasing).
func FuzzReadTrace(f *testing.F) {
	for _, s := range []string{
		"0\n1.5\n2s\n", "# header\n250ms # first\n\n1h2m\n",
		"2024-06-01T09:00:00.250Z\n2024-06-01T09:00:01Z\n", "\ufeff.25\r\n90\r\n",
		"1\n0.5\n", "-1\n", "1\n2024-06-01T09:00:00Z\n", "", "1e3\n", "9999999999h\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		times, err := ReadTrace(strings.NewReader(s), "f.txt")
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || err.Error() == "" {
				t.Fatalf("ReadTrace(%q) error %T %q, want a *LineError with a message", s, err, err)
			}
			return
		}
		if _, err := Trace(times); err != nil {
			t.Fatalf("ReadTrace(%q) = %v, which Trace refuses: %v", s, times, err)
		}
	})
}
