// Package trace writes the simulator's per-attempt records: JSON lines (one
// per attempt, refusal and run) or the Chrome Trace Event format, which
// Perfetto (ui.perfetto.dev) and chrome://tracing open as a timeline.
package trace

import (
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/budgetsim/budgetsim/model/system"
)

// JSONL writes one JSON object per line: "event":"attempt" lines carry
// run, step, tool, attempt, start_s, granted_s, remaining_s (before the
// attempt; null without a deadline), outcome, latency_s, backoff_s (the sleep
// chosen after the attempt, null if none), resend_count (OpenTelemetry's
// http.request.resend_count) and decision; "event":"run" lines carry the
// run's arrival, start of service, end, outcome and deadline.
type JSONL struct {
	w   io.Writer
	buf []byte
	err error
}

// NewJSONL returns a tracer writing to w.
func NewJSONL(w io.Writer) *JSONL { return &JSONL{w: w} }

// Err returns the first write error.
func (t *JSONL) Err() error { return t.err }

// unlimited is the lease of a call with neither ceiling nor deadline.
const unlimited = time.Duration(1) << 60

func secs(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// Attempt writes one attempt line.
func (t *JSONL) Attempt(r *system.AttemptRecord) {
	b := t.buf[:0]
	if r.Group {
		b = append(b, `{"event":"group","run":`...)
	} else {
		b = append(b, `{"event":"attempt","run":`...)
	}
	b = strconv.AppendInt(b, r.Run, 10)
	b = append(b, `,"step":`...)
	b = appendString(b, r.Step)
	b = append(b, `,"tool":`...)
	b = appendString(b, r.Tool)
	b = append(b, `,"attempt":`...)
	b = strconv.AppendInt(b, int64(r.Attempt), 10)
	b = append(b, `,"start_s":`...)
	b = append(b, secs(r.Start)...)
	b = append(b, `,"granted_s":`...)
	if r.Granted >= unlimited {
		b = append(b, "null"...) // no ceiling and no deadline
	} else {
		b = append(b, secs(r.Granted)...)
	}
	b = append(b, `,"remaining_s":`...)
	if r.HasDeadline {
		b = append(b, secs(r.Remaining)...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"outcome":`...)
	b = appendString(b, r.Outcome.String())
	b = append(b, `,"latency_s":`...)
	b = append(b, secs(r.Latency)...)
	b = append(b, `,"backoff_s":`...)
	if r.Backoff >= 0 {
		b = append(b, secs(r.Backoff)...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"resend_count":`...)
	b = strconv.AppendInt(b, int64(r.ResendCount), 10)
	if r.Turn > 0 {
		b = append(b, `,"turn":`...)
		b = strconv.AppendInt(b, int64(r.Turn), 10)
	}
	b = append(b, `,"decision":`...)
	b = appendString(b, r.Decision)
	if r.Lane > 0 {
		b = append(b, `,"lane":`...)
		b = strconv.AppendInt(b, int64(r.Lane), 10)
	}
	b = append(b, "}\n"...)
	t.write(b)
}

// Run writes one run line.
func (t *JSONL) Run(r system.RunRecord) {
	b := t.buf[:0]
	b = append(b, `{"event":"run","run":`...)
	b = strconv.AppendInt(b, r.Run, 10)
	b = append(b, `,"arrived_s":`...)
	b = append(b, secs(r.Arrived)...)
	b = append(b, `,"started_s":`...)
	if r.Started >= 0 {
		b = append(b, secs(r.Started)...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"ended_s":`...)
	b = append(b, secs(r.Ended)...)
	b = append(b, `,"outcome":`...)
	b = appendString(b, r.Outcome.String())
	b = append(b, `,"deadline_s":`...)
	if r.Deadline >= 0 {
		b = append(b, secs(r.Deadline)...)
	} else {
		b = append(b, "null"...)
	}
	if r.Class != "" {
		b = append(b, `,"class":`...)
		b = appendString(b, r.Class)
	}
	b = append(b, "}\n"...)
	t.write(b)
}

func (t *JSONL) write(b []byte) {
	t.buf = b
	if t.err == nil {
		_, t.err = t.w.Write(b)
	}
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
