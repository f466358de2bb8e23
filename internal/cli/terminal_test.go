package cli_test

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/internal/cli"
)

// fakeTerminal is a buffer that says it is a terminal.
type fakeTerminal struct{ bytes.Buffer }

func (*fakeTerminal) IsTerminal() bool { return true }

// clock is a fake clock moved by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// TestProgressOnTerminal: on a terminal, nothing in the first two seconds;
// then points, replications and the time left (elapsed × left/done); at
// most ten redraws a second, but always the last; Done erases the line.
func TestProgressOnTerminal(t *testing.T) {
	var term fakeTerminal
	c := &clock{time.Unix(0, 0)}
	p := cli.NewProgress(&term, "sweep", c.now)
	c.t = c.t.Add(time.Second)
	p.Update(1, 10, 10, 100)
	if term.Len() != 0 {
		t.Fatalf("drew %q within the first %v", term.String(), cli.ProgressDelay)
	}
	c.t = c.t.Add(3 * time.Second) // 4 s elapsed, a quarter done: 12 s left
	p.Update(2, 10, 25, 100)
	if got, want := term.String(), "\rsweep: 2/10 points, 25/100 replications, 12s left\033[K"; got != want {
		t.Fatalf("drew %q, want %q", got, want)
	}
	term.Reset()
	c.t = c.t.Add(50 * time.Millisecond)
	p.Update(2, 10, 26, 100)
	if term.Len() != 0 {
		t.Errorf("redrew %q 50ms after the last line", term.String())
	}
	p.Update(10, 10, 100, 100)
	if got, want := term.String(), "\rsweep: 10/10 points, 100/100 replications\033[K"; got != want {
		t.Errorf("last update drew %q, want %q", got, want)
	}
	term.Reset()
	p.Done()
	if term.String() != "\r\033[K" {
		t.Errorf("Done wrote %q, want the line erased", term.String())
	}
	// Without points: replications alone.
	var term2 fakeTerminal
	c2 := &clock{time.Unix(0, 0)}
	p2 := cli.NewProgress(&term2, "compare", c2.now)
	c2.t = c2.t.Add(20 * time.Minute)
	p2.Update(0, 0, 1, 4)
	if got, want := term2.String(), "\rcompare: 1/4 replications, 1h0m0s left\033[K"; got != want {
		t.Errorf("drew %q, want %q", got, want)
	}
}

// TestProgressStatus: a status line for work without a known total follows
// Update's rules (nothing in the first two seconds, at most ten redraws a
// second) and shows no time left.
func TestProgressStatus(t *testing.T) {
	var term fakeTerminal
	c := &clock{time.Unix(0, 0)}
	p := cli.NewProgress(&term, "plan", c.now)
	c.t = c.t.Add(time.Second)
	p.Status("1 values probed; workers=12: 3/8 replications")
	if term.Len() != 0 {
		t.Fatalf("drew %q within the first %v", term.String(), cli.ProgressDelay)
	}
	c.t = c.t.Add(2 * time.Second)
	p.Status("2 values probed; workers=6: 5/8 replications")
	if got, want := term.String(), "\rplan: 2 values probed; workers=6: 5/8 replications\033[K"; got != want {
		t.Fatalf("drew %q, want %q", got, want)
	}
	term.Reset()
	c.t = c.t.Add(50 * time.Millisecond)
	p.Status("2 values probed; workers=6: 6/8 replications")
	if term.Len() != 0 {
		t.Errorf("redrew %q 50ms after the last line", term.String())
	}
	c.t = c.t.Add(100 * time.Millisecond)
	p.Status("2 values probed; workers=6: 7/8 replications")
	if got, want := term.String(), "\rplan: 2 values probed; workers=6: 7/8 replications\033[K"; got != want {
		t.Errorf("drew %q, want %q", got, want)
	}
	term.Reset()
	p.Done()
	if term.String() != "\r\033[K" {
		t.Errorf("Done wrote %q, want the line erased", term.String())
	}
	var buf bytes.Buffer
	q := cli.NewProgress(&buf, "plan", c.now)
	c.t = c.t.Add(time.Hour)
	q.Status("anything")
	if buf.Len() != 0 {
		t.Errorf("drew %q on a buffer that is not a terminal", buf.String())
	}
}

// TestProgressSilent: a pipe, a file or a buffer gets no progress, however
// long the work; nor does a nil Progress fail.
func TestProgressSilent(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(t.TempDir() + "/log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	for _, out := range []interface{ Write([]byte) (int, error) }{w, f, &buf} {
		if cli.IsTerminal(out) {
			t.Errorf("IsTerminal(%T) = true", out)
		}
		c := &clock{time.Unix(0, 0)}
		p := cli.NewProgress(out, "sweep", c.now)
		c.t = c.t.Add(time.Hour)
		p.Update(1, 2, 3, 4)
		p.Done()
	}
	if st, _ := f.Stat(); st.Size() != 0 || buf.Len() != 0 {
		t.Errorf("progress written to a file (%d bytes) or a buffer (%q)", st.Size(), buf.String())
	}
	var nilP *cli.Progress
	nilP.Update(1, 2, 3, 4)
	nilP.Done()
}

// TestColour: colour needs a terminal and NO_COLOR unset or empty.
func TestColour(t *testing.T) {
	var term fakeTerminal
	t.Setenv("NO_COLOR", "")
	if !cli.Colour(&term) {
		t.Error("Colour(terminal) = false with NO_COLOR empty")
	}
	if cli.Colour(&bytes.Buffer{}) {
		t.Error("Colour(buffer) = true")
	}
	t.Setenv("NO_COLOR", "1")
	if cli.Colour(&term) {
		t.Error("Colour(terminal) = true with NO_COLOR=1")
	}
}

// TestFlagTypo: a misspelt flag is one line naming the closest flag, with
// a hint naming the command's help; the usage is not printed.
func TestFlagTypo(t *testing.T) {
	var stderr bytes.Buffer
	fs := cli.NewFlagSet("prog", "cmd", &stderr, "cmd SCENARIO")
	var sf cli.ScenarioFlags
	sf.Register(fs)
	_, err := cli.Parse(fs, []string{"mmc", "--replicatons", "3"})
	ue, ok := err.(cli.UsageError)
	if !ok || ue.Msg != "cmd: unknown flag --replicatons (did you mean --replications?)" || ue.Hint != "run 'prog help cmd' for its flags" {
		t.Errorf("Parse = %#v", err)
	}
	if stderr.Len() != 0 {
		t.Errorf("printed on a typo:\n%s", stderr.String())
	}
	if _, err := cli.Parse(fs, []string{"-h"}); err == nil || !strings.HasPrefix(stderr.String(), "Usage: prog cmd SCENARIO") {
		t.Errorf("-h: %v, printed %q", err, stderr.String())
	}
}

// sizedTerminal is a terminal that knows its width.
type sizedTerminal struct{ fakeTerminal }

func (*sizedTerminal) Width() int { return 64 }

// TestTerminalWidth: a terminal's own width; 0 for what is not a
// terminal.
func TestTerminalWidth(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv("TERM", "xterm")
	if w := cli.TerminalWidth(&sizedTerminal{}); w != 64 {
		t.Errorf("TerminalWidth(64-column terminal) = %d", w)
	}
	if w := cli.TerminalWidth(&bytes.Buffer{}); w != 0 {
		t.Errorf("TerminalWidth(buffer) = %d, want 0", w)
	}
}
