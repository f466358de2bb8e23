package charts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/budgetsim/budgetsim/internal/outputs"
)

// Unlimited is the lease of an attempt that had no timeout at all (no
// deadline and no per-step ceiling): the trace writes the largest
// time.Duration, 9223372036.854775807 s.
const Unlimited = time.Duration(math.MaxInt64)

// TraceAttempt is one "attempt" line of a JSONL trace (internal/trace):
// one call to a tool, or one local refusal, of a traced run. Instants are
// on the simulation's virtual clock (origin: the start of the replication).
type TraceAttempt struct {
	Run     int64
	Step    string
	Tool    string
	Attempt int // 1 for the first attempt of a step
	// Start is when the attempt was dialed (or refused).
	Start time.Duration
	// Granted is the lease: the per-attempt timeout actually used,
	// min(ceiling, remaining − floor); Unlimited when there was none.
	Granted time.Duration
	// Remaining is what was left of the deadline before the attempt, or -1
	// when the run has no deadline.
	Remaining time.Duration
	// Outcome is ok, timeout, transient, rate_limited, permanent or refused.
	Outcome string
	// Latency is how long the attempt took until its reply or its timeout.
	Latency time.Duration
	// Backoff is the sleep chosen after the attempt, or -1 when none.
	Backoff     time.Duration
	ResendCount int
	// Decision says why the run retried or stopped after the attempt;
	// "cancelled" for a member of a parallel or hedged step whose group
	// was decided before it answered.
	Decision string
	// Lane is 0 for a run's own calls and 1 + the member's index for the
	// calls of a parallel or hedged step's members, which overlap in time.
	Lane int
}

// TraceRun is one "run" line of a JSONL trace: a run from arrival to end.
type TraceRun struct {
	ID      int64
	Arrived time.Duration
	// Started is when the run got a worker, or -1 if it never did.
	Started time.Duration
	Ended   time.Duration
	// Outcome is completed, rejected, expired, refused, deadline_exceeded
	// or failed.
	Outcome string
	// Deadline is the run's deadline instant, or -1 when it has none.
	Deadline time.Duration
}

// Trace holds the records of a JSONL trace, in file order.
type Trace struct {
	Runs     []TraceRun
	Attempts []TraceAttempt
}

// ReadTrace reads a JSONL trace as `simulate run --trace FILE` writes it.
// Lines with another "event" are skipped, so new event kinds do not break
// old readers; a malformed line or a missing field is an error naming the
// line ("t.jsonl:3: attempt: missing start_s").
func ReadTrace(r io.Reader, name string) (*Trace, error) {
	type raw struct {
		Event       string   `json:"event"`
		Run         *int64   `json:"run"`
		Step        string   `json:"step"`
		Tool        string   `json:"tool"`
		Attempt     int      `json:"attempt"`
		StartS      *float64 `json:"start_s"`
		GrantedS    *float64 `json:"granted_s"`
		RemainingS  *float64 `json:"remaining_s"`
		Outcome     string   `json:"outcome"`
		LatencyS    *float64 `json:"latency_s"`
		BackoffS    *float64 `json:"backoff_s"`
		ResendCount int      `json:"resend_count"`
		Decision    string   `json:"decision"`
		Lane        int      `json:"lane"`
		ArrivedS    *float64 `json:"arrived_s"`
		StartedS    *float64 `json:"started_s"`
		EndedS      *float64 `json:"ended_s"`
		DeadlineS   *float64 `json:"deadline_s"`
	}
	tr := &Trace{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var e raw
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		var ferr error
		// need converts a required time field; opt an optional one (-1 if null).
		need := func(field string, v *float64) time.Duration {
			if ferr != nil {
				return 0
			}
			if v == nil {
				ferr = fmt.Errorf("%s:%d: %s: missing %s", name, line, e.Event, field)
				return 0
			}
			d, ok := outputs.SecondsToDuration(*v)
			if !ok || d < 0 {
				ferr = fmt.Errorf("%s:%d: %s: %s must be a time ≥ 0 s, got %v", name, line, e.Event, field, *v)
			}
			return d
		}
		opt := func(field string, v *float64) time.Duration {
			if v == nil {
				return -1
			}
			return need(field, v)
		}
		switch e.Event {
		case "attempt":
			if e.Run == nil {
				return nil, fmt.Errorf("%s:%d: attempt: missing run", name, line)
			}
			a := TraceAttempt{Run: *e.Run, Step: e.Step, Tool: e.Tool, Attempt: e.Attempt, Outcome: e.Outcome,
				ResendCount: e.ResendCount, Decision: e.Decision, Lane: e.Lane}
			a.Start = need("start_s", e.StartS)
			if e.GrantedS == nil || *e.GrantedS >= Unlimited.Seconds() {
				// null: neither a ceiling nor a deadline bounded the call.
				a.Granted = Unlimited
			} else {
				a.Granted = need("granted_s", e.GrantedS)
			}
			a.Latency = need("latency_s", e.LatencyS)
			a.Remaining = opt("remaining_s", e.RemainingS)
			a.Backoff = opt("backoff_s", e.BackoffS)
			if ferr == nil && a.Outcome == "" {
				ferr = fmt.Errorf("%s:%d: attempt: missing outcome", name, line)
			}
			if ferr != nil {
				return nil, ferr
			}
			tr.Attempts = append(tr.Attempts, a)
		case "run":
			if e.Run == nil {
				return nil, fmt.Errorf("%s:%d: run: missing run", name, line)
			}
			u := TraceRun{ID: *e.Run, Outcome: e.Outcome}
			u.Arrived = need("arrived_s", e.ArrivedS)
			u.Ended = need("ended_s", e.EndedS)
			u.Started = opt("started_s", e.StartedS)
			u.Deadline = opt("deadline_s", e.DeadlineS)
			if ferr == nil && u.Outcome == "" {
				ferr = fmt.Errorf("%s:%d: run: missing outcome", name, line)
			}
			if ferr == nil && u.Ended < u.Arrived {
				ferr = fmt.Errorf("%s:%d: run: ended_s must be ≥ arrived_s, got %v < %v", name, line, *e.EndedS, *e.ArrivedS)
			}
			if ferr != nil {
				return nil, ferr
			}
			tr.Runs = append(tr.Runs, u)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if len(tr.Runs) == 0 {
		return nil, fmt.Errorf("%s: no \"run\" lines (was the trace written with --trace-format jsonl?)", name)
	}
	return tr, nil
}

// Run returns run id's record and its attempts in file order (the order
// they started), or an error saying how many runs were traced, and their
// id range, if id was not.
func (t *Trace) Run(id int64) (TraceRun, []TraceAttempt, error) {
	for _, r := range t.Runs {
		if r.ID != id {
			continue
		}
		var as []TraceAttempt
		for _, a := range t.Attempts {
			if a.Run == id {
				as = append(as, a)
			}
		}
		return r, as, nil
	}
	lo, hi := t.Runs[0].ID, t.Runs[0].ID
	for _, r := range t.Runs {
		lo, hi = min(lo, r.ID), max(hi, r.ID)
	}
	return TraceRun{}, nil, fmt.Errorf("run: %d is not in the trace (%d runs traced, ids %d to %d)", id, len(t.Runs), lo, hi)
}

// Slowest returns the id of the traced run that spent the longest in the
// system (ended − arrived; the lowest id on ties) among those keep accepts
// (all runs if keep is nil), and false if keep accepts none.
func (t *Trace) Slowest(keep func(TraceRun) bool) (int64, bool) {
	var best TraceRun
	found := false
	for _, r := range t.Runs {
		if keep != nil && !keep(r) {
			continue
		}
		d, bd := r.Ended-r.Arrived, best.Ended-best.Arrived
		if !found || d > bd || d == bd && r.ID < best.ID {
			best, found = r, true
		}
	}
	return best.ID, found
}
