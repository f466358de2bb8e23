package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/budgetsim/budgetsim/model/system"
)

// Chrome writes records in the Chrome Trace Event format (the JSON object
// form with a traceEvents array) as they come, so memory does not grow with
// the number of traced runs. Each run is a thread (tid = run number) of one
// process: its queue wait, every attempt and every backoff sleep are
// complete ("X") slices, and its deadline is an instant ("i") marker, so
// Perfetto shows the seed's story — leases shrinking as the deadline
// approaches — as a timeline. Timestamps are microseconds of virtual time.
// Close ends the document.
type Chrome struct {
	w   *bufio.Writer
	n   int // events written
	buf []byte
	err error
	// named holds the member lanes whose thread has been named.
	named map[int64]bool
}

// laneTid returns the thread of r's call: the run's own (tid = run number)
// or, for a member of a parallel or hedged step, whose calls overlap the
// run's and each other's, a thread of its own, numbered above every run's
// and named "run N · member", so that Perfetto draws the calls side by
// side instead of as one thread's overlapping slices.
func (c *Chrome) laneTid(r *system.AttemptRecord) int64 {
	if r.Lane == 0 {
		return r.Run
	}
	tid := laneBase + r.Run*maxLanes + int64(r.Lane)
	if !c.named[tid] {
		if c.named == nil {
			c.named = map[int64]bool{}
		}
		c.named[tid] = true
		c.add(chromeEvent{Name: "thread_name", Ph: "M", Tid: tid,
			Args: map[string]any{"name": fmt.Sprintf("run %d · %s #%d", r.Run, r.Step, r.Lane)}})
		c.add(chromeEvent{Name: "thread_sort_index", Ph: "M", Tid: tid,
			Args: map[string]any{"sort_index": r.Run*maxLanes + int64(r.Lane)}})
	}
	return tid
}

// Member threads are numbered from laneBase, maxLanes per run: a run's
// calls in a group are at most its members (system's groups hold at most
// scenarios.MaxSteps) or a hedge's attempts (at most 11).
const (
	laneBase = int64(1) << 40
	maxLanes = int64(1) << 12
)

type chromeEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int64          `json:"tid"`
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// NewChrome returns a Chrome trace writing to w.
func NewChrome(w io.Writer) *Chrome { return &Chrome{w: bufio.NewWriter(w)} }

// Err returns the first encoding or write error.
func (c *Chrome) Err() error { return c.err }

func us(d time.Duration) float64 { return float64(d) / 1e3 }

func dur(d time.Duration) *float64 { v := us(d); return &v }

// Attempt records an attempt slice and the backoff sleep after it.
func (c *Chrome) Attempt(r *system.AttemptRecord) {
	args := map[string]any{
		"attempt":      r.Attempt,
		"tool":         r.Tool,
		"outcome":      r.Outcome.String(),
		"granted_s":    r.Granted.Seconds(),
		"latency_s":    r.Latency.Seconds(),
		"resend_count": r.ResendCount,
		"decision":     r.Decision,
	}
	if r.HasDeadline {
		args["remaining_s"] = r.Remaining.Seconds()
	}
	if r.Turn > 0 {
		args["turn"] = r.Turn
	}
	name := fmt.Sprintf("%s #%d %s", r.Step, r.Attempt, r.Outcome)
	cat := "attempt"
	switch {
	case r.Group:
		name, cat = r.Step+" "+r.Decision, "group"
		delete(args, "attempt")
		delete(args, "tool")
		delete(args, "resend_count")
		delete(args, "outcome")
	case r.Decision == "cancelled":
		name = fmt.Sprintf("%s #%d cancelled", r.Step, r.Attempt)
	}
	tid := c.laneTid(r)
	if r.Latency == 0 && !r.Group {
		c.add(chromeEvent{Name: name, Cat: "refusal", Ph: "i", S: "t", Ts: us(r.Start), Tid: tid, Args: args})
	} else {
		c.add(chromeEvent{Name: name, Cat: cat, Ph: "X", Ts: us(r.Start), Dur: dur(r.Latency), Tid: tid, Args: args})
	}
	if r.Backoff > 0 {
		c.add(chromeEvent{Name: "backoff", Cat: "backoff", Ph: "X", Ts: us(r.Start + r.Latency), Dur: dur(r.Backoff), Tid: tid,
			Args: map[string]any{"sleep_s": r.Backoff.Seconds()}})
	}
}

// Run records the run's queue wait, its whole span and its deadline.
func (c *Chrome) Run(r system.RunRecord) {
	end := r.Ended
	if r.Started >= 0 {
		if r.Started > r.Arrived {
			c.add(chromeEvent{Name: "queued", Cat: "queue", Ph: "X", Ts: us(r.Arrived), Dur: dur(r.Started - r.Arrived), Tid: r.Run})
		}
	}
	c.add(chromeEvent{Name: "run " + r.Outcome.String(), Cat: "run", Ph: "X", Ts: us(r.Arrived), Dur: dur(end - r.Arrived), Tid: r.Run,
		Args: map[string]any{"outcome": r.Outcome.String()}})
	if r.Deadline >= 0 {
		c.add(chromeEvent{Name: "deadline", Cat: "deadline", Ph: "i", S: "t", Ts: us(r.Deadline), Tid: r.Run})
	}
}

func (c *Chrome) add(e chromeEvent) {
	if c.err != nil {
		return
	}
	b, err := json.Marshal(e)
	if err != nil {
		c.err = err
		return
	}
	if c.n == 0 {
		c.buf = append(c.buf[:0], `{"traceEvents":[`...)
	} else {
		c.buf = append(c.buf[:0], ',')
	}
	c.buf = append(c.buf, b...)
	c.n++
	_, c.err = c.w.Write(c.buf)
}

// Close ends the document (an empty traceEvents array if nothing was
// recorded), flushes it and returns the first error. It does not close the
// underlying writer.
func (c *Chrome) Close() error {
	if c.err != nil {
		return c.err
	}
	tail := `],"displayTimeUnit":"ms"}` + "\n"
	if c.n == 0 {
		tail = `{"traceEvents":[` + tail
	}
	if _, err := c.w.WriteString(tail); err != nil {
		c.err = err
		return err
	}
	c.err = c.w.Flush()
	return c.err
}
