package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Terminal is implemented by writers that know whether a person watches
// them; tests use it to stand in for a terminal.
type Terminal interface {
	IsTerminal() bool
}

// IsTerminal reports whether w is a terminal a person watches: a Terminal
// that says so, or an *os.File that is a character device, outside CI (the
// CI variable set) and with TERM not "dumb". Pipes and files are not.
func IsTerminal(w io.Writer) bool {
	switch t := w.(type) {
	case Terminal:
		return t.IsTerminal()
	case *os.File:
		if os.Getenv("CI") != "" || os.Getenv("TERM") == "dumb" {
			return false
		}
		st, err := t.Stat()
		return err == nil && st.Mode()&os.ModeCharDevice != 0
	}
	return false
}

// TerminalWidth returns the number of columns of the terminal w is, or 0
// when w is not a terminal (IsTerminal) or its size cannot be read. A
// Terminal that also has a Width method (tests) reports its own.
func TerminalWidth(w io.Writer) int {
	if !IsTerminal(w) {
		return 0
	}
	switch t := w.(type) {
	case interface{ Width() int }:
		return t.Width()
	case *os.File:
		if cols, _, err := term.GetSize(int(t.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 0
}

// Colour reports whether output to w may use ANSI colour: w is a terminal
// (IsTerminal) and the NO_COLOR variable (no-color.org) is unset or empty.
func Colour(w io.Writer) bool {
	return os.Getenv("NO_COLOR") == "" && IsTerminal(w)
}

// ProgressDelay is how long work runs before Progress draws its line:
// shorter work finishes before a line would help.
const ProgressDelay = 2 * time.Second

// Progress draws one line on a terminal saying how far long work has got
// ("sweep: 12/40 points, 310/800 replications, 1m05s left") and erases it
// when the work is done. It draws nothing when its writer is not a terminal
// (a pipe, a file, CI), nothing during the first ProgressDelay, and at most
// ten times a second. The zero value and a nil *Progress draw nothing.
// Safe for concurrent use.
type Progress struct {
	w     io.Writer // nil: draw nothing
	what  string
	now   func() time.Time
	start time.Time

	mu    sync.Mutex
	last  time.Time
	drawn bool
}

// NewProgress returns a Progress for the work called what, drawn on w when
// w is a terminal; now is the clock (time.Now; tests pass their own).
func NewProgress(w io.Writer, what string, now func() time.Time) *Progress {
	p := &Progress{what: what, now: now}
	if IsTerminal(w) {
		p.w, p.start = w, now()
	}
	return p
}

// Update reports points of points done (0 points: the work has no points,
// only replications) and reps of repsTotal replications done. The time left
// is the elapsed time scaled by the replications still to run.
func (p *Progress) Update(pointsDone, points, reps, repsTotal int) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	elapsed := now.Sub(p.start)
	if elapsed < ProgressDelay || (now.Sub(p.last) < 100*time.Millisecond && reps < repsTotal) {
		return
	}
	var b strings.Builder
	if points > 0 {
		fmt.Fprintf(&b, "%d/%d points, ", pointsDone, points)
	}
	fmt.Fprintf(&b, "%d/%d replications", reps, repsTotal)
	if reps > 0 && reps < repsTotal {
		left := time.Duration(float64(elapsed) * float64(repsTotal-reps) / float64(reps))
		fmt.Fprintf(&b, ", %s left", roundLeft(left))
	}
	p.draw(now, b.String())
}

// Status draws text as the line's body ("plan: workers=12, 16/32
// replications"), under Update's rules: not during the first
// ProgressDelay, at most ten times a second. It is for work whose total
// is not known ahead (a search), so it shows no time left.
func (p *Progress) Status(text string) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if now.Sub(p.start) < ProgressDelay || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.draw(now, text)
}

// draw writes the line "what: text" over the previous one; p.mu is held.
func (p *Progress) draw(now time.Time, text string) {
	p.last = now
	io.WriteString(p.w, "\r"+p.what+": "+text+"\033[K") // \033[K clears what a longer line left
	p.drawn = true
}

// roundLeft rounds an estimate of the time left to what it is worth: whole
// seconds, whole minutes from ten minutes on.
func roundLeft(d time.Duration) time.Duration {
	if d >= 10*time.Minute {
		return d.Round(time.Minute)
	}
	return max(d.Round(time.Second), time.Second)
}

// Done erases the line, if one was drawn.
func (p *Progress) Done() {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		io.WriteString(p.w, "\r\033[K")
		p.drawn = false
	}
}
