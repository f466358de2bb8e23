package report

import (
	"time"

	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/model/system"
)

// unlimitedLease is the smallest lease taken to mean "no timeout at all"
// (neither a ceiling nor a deadline), the threshold internal/trace uses.
const unlimitedLease = time.Duration(1) << 60

// SlowestRun is a system.Tracer that keeps only the traced run that spent
// the longest in the system (ended − arrived; the lowest run id on ties,
// as charts.Trace.Slowest) and its attempts, in the order they started.
// It buffers the attempts of runs still in the system, so its memory is
// bounded by the runs in flight, not by the runs simulated: every run of a
// long simulation can be traced. Runs still in the system when the
// simulation stops never end and are not candidates.
//
// The zero value is ready to use. A SlowestRun is not safe for concurrent
// use: give it to one simulation (replicate.All gives the tracer to
// replication 0 only).
type SlowestRun struct {
	pending  map[int64][]charts.TraceAttempt
	free     [][]charts.TraceAttempt
	best     charts.TraceRun
	attempts []charts.TraceAttempt
	found    bool
	runs     int64
}

var _ system.Tracer = (*SlowestRun)(nil)

// Attempt records one attempt (or local refusal) of a run still in the
// system.
func (t *SlowestRun) Attempt(rec *system.AttemptRecord) {
	if t.pending == nil {
		t.pending = map[int64][]charts.TraceAttempt{}
	}
	a := charts.TraceAttempt{
		Run: rec.Run, Step: rec.Step, Tool: rec.Tool, Attempt: rec.Attempt,
		Start: rec.Start, Granted: rec.Granted, Remaining: -1,
		Outcome: rec.Outcome.String(), Latency: rec.Latency, Backoff: rec.Backoff,
		ResendCount: rec.ResendCount, Decision: rec.Decision,
	}
	if a.Granted >= unlimitedLease {
		a.Granted = charts.Unlimited
	}
	if rec.HasDeadline {
		a.Remaining = rec.Remaining
	}
	as, ok := t.pending[rec.Run]
	if !ok && len(t.free) > 0 {
		as, t.free = t.free[len(t.free)-1], t.free[:len(t.free)-1]
	}
	t.pending[rec.Run] = append(as, a)
}

// Run records the end of a run: it becomes the slowest if it spent longer
// in the system than the slowest so far.
func (t *SlowestRun) Run(rec system.RunRecord) {
	t.runs++
	as := t.pending[rec.Run]
	delete(t.pending, rec.Run)
	r := charts.TraceRun{ID: rec.Run, Arrived: rec.Arrived, Started: rec.Started, Ended: rec.Ended,
		Outcome: rec.Outcome.String(), Deadline: rec.Deadline}
	d, bd := r.Ended-r.Arrived, t.best.Ended-t.best.Arrived
	if t.found && (d < bd || d == bd && r.ID > t.best.ID) {
		t.recycle(as)
		return
	}
	t.recycle(t.attempts)
	t.best, t.attempts, t.found = r, as, true
}

func (t *SlowestRun) recycle(as []charts.TraceAttempt) {
	if cap(as) > 0 {
		t.free = append(t.free, as[:0])
	}
}

// Slowest returns the slowest run that ended and its attempts (a copy),
// and false if no traced run ended.
func (t *SlowestRun) Slowest() (charts.TraceRun, []charts.TraceAttempt, bool) {
	return t.best, append([]charts.TraceAttempt(nil), t.attempts...), t.found
}

// Runs returns the number of traced runs that ended.
func (t *SlowestRun) Runs() int64 { return t.runs }
