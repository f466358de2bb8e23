package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/budgetsim/budgetsim/model/system"
)

// Chrome collects records and writes them in the Chrome Trace Event format
// (the JSON object form with a traceEvents array). Each run is a thread
// (tid = run number) of one process: its queue wait, every attempt and every
// backoff sleep are complete ("X") slices, and its deadline is an instant
// ("i") marker, so Perfetto shows the seed's story — leases shrinking as the
// deadline approaches — as a timeline. Timestamps are microseconds of
// virtual time.
type Chrome struct {
	events []chromeEvent
}

type chromeEvent struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Ph    string         `json:"ph"`
	Ts    float64        `json:"ts"`
	Dur   *float64       `json:"dur,omitempty"`
	Pid   int            `json:"pid"`
	Tid   int64          `json:"tid"`
	S     string         `json:"s,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
	order int
}

// NewChrome returns an empty Chrome trace.
func NewChrome() *Chrome { return &Chrome{} }

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
	name := fmt.Sprintf("%s #%d %s", r.Step, r.Attempt, r.Outcome)
	if r.Latency == 0 {
		c.add(chromeEvent{Name: name, Cat: "refusal", Ph: "i", S: "t", Ts: us(r.Start), Tid: r.Run, Args: args})
	} else {
		c.add(chromeEvent{Name: name, Cat: "attempt", Ph: "X", Ts: us(r.Start), Dur: dur(r.Latency), Tid: r.Run, Args: args})
	}
	if r.Backoff > 0 {
		c.add(chromeEvent{Name: "backoff", Cat: "backoff", Ph: "X", Ts: us(r.Start + r.Latency), Dur: dur(r.Backoff), Tid: r.Run,
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
	e.order = len(c.events)
	c.events = append(c.events, e)
}

// WriteTo writes the trace as one JSON object.
func (c *Chrome) WriteTo(w io.Writer) (int64, error) {
	doc := struct {
		TraceEvents     []chromeEvent `json:"traceEvents"`
		DisplayTimeUnit string        `json:"displayTimeUnit"`
	}{c.events, "ms"}
	if doc.TraceEvents == nil {
		doc.TraceEvents = []chromeEvent{}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return 0, err
	}
	b = append(b, '\n')
	n, err := w.Write(b)
	return int64(n), err
}
