package system

import (
	"time"

	"github.com/budgetsim/budgetsim/internal/container"
	"github.com/budgetsim/budgetsim/model/adaptive"
	"github.com/budgetsim/budgetsim/model/deadline"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Adaptive concurrency: a tool's client-side limit on the calls in flight
// to it, which moves with the latency and loss the callers observe
// (model/adaptive, after Netflix's concurrency-limits). Every caller of the
// tool shares one limiter, as the callers of one client library do.
//
// A call is permitted while fewer than the limit are in flight; it holds
// its permit from its dial to its end as the caller sees it (an answer, a
// refusal by the tool, or its lease running out), and its end is fed back
// as a sample: a success is concurrency-limits' onSuccess, a timeout, 503
// or 429 its onDropped, a permanent error its onIgnore (a client error
// tells nothing about the tool's load). A call over the limit waits in the
// client's FIFO (on_limit: wait): the wait spends the run's deadline, and a
// wait still going on when only the deadline's floor and minimum lease are
// left, or after max_wait, is refused locally. With on_limit: reject it is refused at once.
// Either refusal hands the step to its fallback, if any, as every local
// refusal does. A cache hit takes no permit: it never reaches the tool.

// AdaptiveAlgorithm names the rule that moves a limit.
type AdaptiveAlgorithm uint8

// The algorithms.
const (
	// AIMD is concurrency-limits' AIMDLimit (adaptive.AIMD).
	AIMD AdaptiveAlgorithm = iota + 1
	// Gradient is concurrency-limits' Gradient2Limit (adaptive.Gradient).
	Gradient
)

// String returns the algorithm's scenario name.
func (a AdaptiveAlgorithm) String() string {
	switch a {
	case AIMD:
		return "aimd"
	case Gradient:
		return "gradient"
	}
	return "unknown"
}

// AdaptiveConcurrency is a tool's client-side adaptive concurrency limit.
type AdaptiveConcurrency struct {
	Algorithm AdaptiveAlgorithm
	// AIMD configures the limit when Algorithm is AIMD; Gradient when it
	// is Gradient.
	AIMD     adaptive.AIMDConfig
	Gradient adaptive.GradientConfig
	// Reject refuses a call over the limit at once instead of queueing it
	// (on_limit: reject).
	Reject bool
	// MaxWait, when > 0, is the longest a call waits for a slot before it
	// is refused (concurrency-limits' BlockingLimiter timeout); the
	// deadline may cut a wait shorter.
	MaxWait time.Duration
}

// algorithm returns a new algorithm of c, at its initial limit.
func (c *AdaptiveConcurrency) algorithm() (adaptive.Algorithm, error) {
	if c.Algorithm == Gradient {
		return adaptive.NewGradient(c.Gradient)
	}
	return adaptive.NewAIMD(c.AIMD)
}

// Validate reports whether c's algorithm accepts its parameters.
func (c *AdaptiveConcurrency) Validate() error {
	_, err := c.algorithm()
	return err
}

// AdaptiveStats are a tool's adaptive concurrency figures over the tool
// window (ToolStats): the limit it kept, and the calls it held back.
type AdaptiveStats struct {
	// Algorithm is aimd or gradient.
	Algorithm string `json:"algorithm"`
	// MeanLimit is the time-average limit; MinLimit and MaxLimit the
	// smallest and largest it took.
	MeanLimit float64 `json:"mean_limit"`
	MinLimit  int     `json:"min_limit"`
	MaxLimit  int     `json:"max_limit"`
	// Waited counts calls that waited for a slot, WaitSeconds the time
	// they waited (their waits that ended in the window).
	Waited      int64   `json:"waited"`
	WaitSeconds float64 `json:"wait_s"`
	// RefusedWait counts waits refused because they would have outlasted
	// the deadline or max_wait; Rejected counts calls refused at the limit
	// (on_limit: reject).
	RefusedWait int64 `json:"refused_wait"`
	Rejected    int64 `json:"rejected"`
	// Drops counts the calls fed back as drops (a timeout, 503 or 429).
	Drops int64 `json:"drops"`

	// LimitSeconds and WindowSeconds are MeanLimit's integral (limit ×
	// seconds) and span, which Merge weighs replications by; a sweep's
	// shard file carries them.
	LimitSeconds  float64 `json:"-"`
	WindowSeconds float64 `json:"-"`
}

// Merge returns a with o's figures added (the mean limit weighted by
// window, the extremes taken over both); either may be nil.
func (a *AdaptiveStats) Merge(o *AdaptiveStats) *AdaptiveStats {
	if o == nil {
		return a
	}
	if a == nil {
		c := *o
		return &c
	}
	a.MinLimit = min(a.MinLimit, o.MinLimit)
	a.MaxLimit = max(a.MaxLimit, o.MaxLimit)
	a.Waited += o.Waited
	a.WaitSeconds += o.WaitSeconds
	a.RefusedWait += o.RefusedWait
	a.Rejected += o.Rejected
	a.Drops += o.Drops
	a.LimitSeconds += o.LimitSeconds
	a.WindowSeconds += o.WindowSeconds
	if a.WindowSeconds > 0 {
		a.MeanLimit = a.LimitSeconds / a.WindowSeconds
	}
	return a
}

// toolLimiter is one tool's limiter and the callers waiting for it.
type toolLimiter struct {
	lim *adaptive.Limiter
	// waiters is the FIFO of waiting callers, two entries each: the run
	// slot and its wait's number (permit.seq). A caller that gave up
	// leaves its entries behind, and they are skipped when they come up.
	waiters container.Ring
	waiting int    // callers in waiters that still wait
	seq     uint32 // the last wait's number
	limit   int    // the limit last seen
	since   time.Duration
	limitTW stats.TimeWeighted
	stats   AdaptiveStats
}

// permit is a run slot's hold on a tool's limiter, or its wait for one
// (whether it holds or waits is in its attempt's hold set).
type permit struct {
	ticket    adaptive.Ticket
	seq       uint32        // the wait's number
	waitStart time.Duration // when the wait began
}

// The reasons an adaptive limit refuses a call, as traces spell them.
const (
	refusedLimitWait = "concurrency_wait_outlasts_deadline"
	refusedLimit     = "concurrency_limit"
)

// initAdaptive builds the limiters of the tools with adaptive concurrency.
func (m *Model) initAdaptive() {
	for i := range m.cfg.Tools {
		ac := m.cfg.Tools[i].Adaptive
		if ac == nil {
			continue
		}
		alg, err := ac.algorithm()
		if err != nil {
			panic("system: invalid adaptive concurrency (the loader validates it): " + err.Error())
		}
		lim, err := adaptive.NewLimiter(alg)
		if err != nil {
			panic("system: " + err.Error())
		}
		if m.limiters == nil {
			m.limiters = make([]*toolLimiter, len(m.cfg.Tools))
			if m.res.Series.ToolLimit == nil {
				m.res.Series.ToolLimit = make([][]float64, len(m.cfg.Tools))
			}
		}
		tl := &toolLimiter{lim: lim, limit: alg.Limit()}
		tl.waiters.Init(16)
		tl.limitTW.Start(0, float64(tl.limit))
		tl.stats = AdaptiveStats{Algorithm: ac.Algorithm.String(), MinLimit: tl.limit, MaxLimit: tl.limit}
		m.limiters[i] = tl
	}
}

// admitLimit is the adaptive concurrency limit's gate: it takes a permit
// of tool r.tool's limiter for run ri's call, or makes it wait for one in
// the callers' FIFO, or refuses it.
func (m *Model) admitLimit(ri int32, r *run) admission {
	now := m.s.Now()
	tl := m.limiters[r.tool]
	p := &m.held[ri].permit
	a := &r.cur
	if tl.waiting == 0 {
		if t, ok := tl.lim.Acquire(now); ok {
			p.ticket = t
			a.held |= holdLimit
			if m.opt.Audit {
				m.auditLimit(r.tool, tl)
			}
			return admitted
		}
	}
	if m.cfg.Tools[r.tool].Adaptive.Reject {
		tl.stats.Rejected++
		m.refuse(ri, refusedLimit)
		return refused
	}
	// Wait: until a slot frees, or until only the floor and the minimum
	// lease are left of the deadline, or for max_wait.
	maxWait := waitAllowance(r, now)
	if maxWait <= 0 {
		tl.stats.RefusedWait++
		m.refuse(ri, refusedLimitWait)
		return refused
	}
	if w := m.cfg.Tools[r.tool].Adaptive.MaxWait; w > 0 {
		maxWait = min(maxWait, w)
	}
	tl.seq++
	p.seq, p.waitStart = tl.seq, now
	tl.waiters.Push(ri)
	tl.waiters.Push(int32(tl.seq))
	tl.waiting++
	a.held |= holdLimitWait
	a.state = limitWait
	if maxWait != deadline.Unlimited {
		m.arm(ri, a, now+capped(maxWait), evLimitGiveUp, false)
	}
	return waiting
}

// onLimitGiveUp ends run ri's wait for a permit when its deadline leaves no
// more time to wait, or max_wait has passed: the call is refused locally.
func (m *Model) onLimitGiveUp(ri int32) {
	r := m.runs.At(ri)
	if r.cur.held&holdLimitWait == 0 {
		m.auditf("a limit give-up for run slot %d, which does not wait for a permit", ri)
		return
	}
	tl := m.limiters[r.tool]
	m.waitEnded(ri, tl, &m.held[ri].permit)
	tl.stats.RefusedWait++
	m.refuse(ri, refusedLimitWait) // release takes it out of the queue
}

// leaveLimitQueue takes run ri's call out of its tool's limiter queue
// (release calls it): its entries stay in the FIFO and are skipped when
// they come up.
func (m *Model) leaveLimitQueue(ri int32, r *run) {
	m.limiters[r.tool].waiting--
	m.held[ri].permit.seq = 0
}

// waitEnded accounts for the end of run ri's wait.
func (m *Model) waitEnded(ri int32, tl *toolLimiter, p *permit) {
	w := m.s.Now() - p.waitStart
	tl.stats.Waited++
	tl.stats.WaitSeconds += secs(w)
	m.stepTime(ri, w)
}

// endLimit gives back run ri's permit for the attempt that just ended, as
// a sample of its outcome o (the tool's answer, before a contended write's
// conflict), and lets waiting callers in (release calls it).
func (m *Model) endLimit(ri int32, r *run, o retry.Outcome) {
	p := &m.held[ri].permit
	tl := m.limiters[r.tool]
	now := m.s.Now()
	switch o {
	case retry.OK:
		tl.lim.Success(now, p.ticket)
	case retry.Permanent:
		tl.lim.Ignore(p.ticket)
	default:
		tl.stats.Drops++
		tl.lim.Dropped(now, p.ticket)
	}
	m.limitMoved(r.tool, tl)
	m.grantLimit(tl)
}

// releaseLimit gives back a permit that run ri holds for a call it did not
// dial, or that was cancelled: no sample (release calls it).
func (m *Model) releaseLimit(ri int32, r *run) {
	tl := m.limiters[r.tool]
	tl.lim.Ignore(m.held[ri].permit.ticket)
	m.grantLimit(tl)
}

// grantLimit hands free slots of tl to its waiting callers, oldest first;
// each dials at once.
func (m *Model) grantLimit(tl *toolLimiter) {
	now := m.s.Now()
	for tl.waiting > 0 {
		if tl.lim.InFlight() >= tl.lim.Limit() {
			return
		}
		ri := tl.waiters.Pop()
		seq := uint32(tl.waiters.Pop())
		r := m.runs.At(ri)
		p := &m.held[ri].permit
		if r.cur.held&holdLimitWait == 0 || p.seq != seq {
			continue // it gave up, or was cancelled
		}
		t, ok := tl.lim.Acquire(now)
		if !ok {
			panic("system: adaptive limiter refused a free slot")
		}
		tl.waiting--
		p.ticket = t
		if m.opt.Audit {
			m.auditLimit(r.tool, tl)
		}
		r.cur.held = r.cur.held&^holdLimitWait | holdLimit
		m.waitEnded(ri, tl, p)
		m.rearm(ri, &r.cur, now, evWake) // replaces the give-up
	}
}

// limitMoved records tool t's limit if it changed: its time-average, its
// extremes and its series.
func (m *Model) limitMoved(t int32, tl *toolLimiter) {
	l := tl.lim.Limit()
	if l == tl.limit {
		return
	}
	now := m.s.Now()
	m.res.Series.addLevel(m.res.Series.ToolLimit, tl.since, now, float64(tl.limit), int(t))
	tl.limit, tl.since = l, now
	tl.limitTW.Set(now, float64(l))
	tl.stats.MinLimit = min(tl.stats.MinLimit, l)
	tl.stats.MaxLimit = max(tl.stats.MaxLimit, l)
}

// startMeasuringAdaptive restarts the limiters' figures at the end of the
// warm-up, as the tools' own.
func (m *Model) startMeasuringAdaptive(now time.Duration) {
	for _, tl := range m.limiters {
		if tl == nil {
			continue
		}
		tl.limitTW.Start(now, float64(tl.limit))
		tl.stats = AdaptiveStats{Algorithm: tl.stats.Algorithm, MinLimit: tl.limit, MaxLimit: tl.limit}
	}
}

// finishAdaptive closes the limiters' figures at end and hands them to r.
func (m *Model) finishAdaptive(r *Result, end time.Duration) {
	for t, tl := range m.limiters {
		if tl == nil {
			continue
		}
		// The last limit holds to the end of its bin, so that the bin's
		// mean is the limit in force, not diluted by the time after end.
		s := m.res.Series
		binEnd := time.Duration(s.index(end)+1) * s.Width
		s.addLevel(s.ToolLimit, tl.since, binEnd, float64(tl.limit), t)
		tl.since = end
		st := tl.stats
		if w := r.ToolWindow; w > 0 {
			st.WindowSeconds = secs(w)
			st.LimitSeconds = tl.limitTW.Integral(end) / 1e9
			st.MeanLimit = tl.limitTW.Mean(end)
		}
		r.Tools[t].Adaptive = &st
	}
}

// addLevel adds level × the overlap of [from, to) with each bin to row t
// of rows (a Series table of time integrals, such as ToolLimit).
func (s *Series) addLevel(rows [][]float64, from, to time.Duration, level float64, t int) {
	if to <= from {
		return
	}
	last := s.index(to - 1) // first: it may coarsen the series; to is excluded
	first := s.index(from)
	b := rows[t]
	for len(b) <= last {
		b = append(b, 0)
	}
	rows[t] = b
	for i := first; i <= last; i++ {
		lo := max(from, time.Duration(i)*s.Width)
		hi := min(to, time.Duration(i+1)*s.Width)
		if hi > lo {
			b[i] += float64(level * secs(hi-lo))
		}
	}
}
