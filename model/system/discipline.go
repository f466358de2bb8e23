package system

import (
	"time"

	"github.com/budgetsim/budgetsim/internal/container"
	"github.com/budgetsim/budgetsim/model/sched"
)

// Discipline is the order in which a queue hands waiting work to a free
// worker (or a tool's free server).
type Discipline uint8

// The disciplines.
const (
	// FIFO serves in order of arrival.
	FIFO Discipline = iota
	// PriorityOrder serves by strict, non-preemptive priority: the waiting
	// work of the lowest priority value first (0 before 1), in order of
	// arrival within a priority. Work in service is never interrupted.
	PriorityOrder
	// FairShare serves tenants by weighted fair queuing (start-time fair
	// queuing, model/sched's Fair): while tenants have work waiting, each
	// is handed runs in proportion to its weight, whatever the others
	// send.
	FairShare
)

// String returns the discipline's scenario word.
func (d Discipline) String() string {
	switch d {
	case FIFO:
		return "fifo"
	case PriorityOrder:
		return "priority"
	case FairShare:
		return "fair"
	}
	return "unknown"
}

// Disciplines returns the scenario words of the disciplines, in order.
func Disciplines() []string { return []string{"fifo", "priority", "fair"} }

// Scheduling is how waiting runs are handed to workers, and the tenants
// the runs belong to.
type Scheduling struct {
	// Workers is the worker queue's discipline.
	Workers Discipline
	// Tenants are the parties whose runs share the workers, with their
	// weights under FairShare and their caps on runs holding a worker.
	Tenants []Tenant
}

// Tenant is a party whose runs share the workers.
type Tenant struct {
	Name string
	// Weight is the tenant's share under FairShare (> 0; 0 means 1).
	Weight float64
	// MaxInFlight caps the tenant's runs holding a worker, under any
	// discipline: a run of a tenant at its cap waits in the queue even
	// when a worker is free. 0 means no cap.
	MaxInFlight int
}

// schedClass is what the disciplines read of a run's class: its priority,
// its tenant and the tenant's cap on runs holding a worker (0: none).
type schedClass struct {
	priority int
	tenant   string
	cap      int
}

// compileSchedClasses returns what the disciplines read of each class of
// cfg (Config.Classes order). A scenario without classes has one class, of
// priority 0 and the tenant "", which no scenario can declare.
func compileSchedClasses(cfg *Config) []schedClass {
	caps := make(map[string]int, len(cfg.Scheduling.Tenants))
	for _, t := range cfg.Scheduling.Tenants {
		caps[t.Name] = t.MaxInFlight
	}
	if len(cfg.Classes) == 0 {
		return []schedClass{{}}
	}
	out := make([]schedClass, len(cfg.Classes))
	for k, c := range cfg.Classes {
		out[k] = schedClass{priority: c.Priority, tenant: c.Tenant, cap: caps[c.Tenant]}
	}
	return out
}

// waitQueue is a waiting room under a discipline. FIFO without caps on
// work in flight is the ring (and costs one predictable branch per Push
// and Pop); every other discipline is a model/sched queue, which is told
// when work it handed out finishes (done), so that it can hold back a
// tenant at its cap.
type waitQueue struct {
	ring container.Ring
	q    sched.Queue[int32] // nil: the ring
}

// init makes the queue for discipline d over tenants, with room for n
// entries in the ring. With caps, the tenants' MaxInFlight apply; a tool's
// queue has none (a tenant's cap is on its runs holding workers).
func (w *waitQueue) init(d Discipline, tenants []Tenant, caps bool, n int) {
	capped := false
	st := make([]sched.Tenant, len(tenants))
	for i, t := range tenants {
		st[i] = sched.Tenant{Name: t.Name, Weight: t.Weight}
		if caps {
			st[i].MaxInFlight = t.MaxInFlight
			capped = capped || t.MaxInFlight > 0
		}
	}
	var err error
	switch {
	case d == FairShare:
		w.q, err = sched.NewFair[int32](st)
	case d == PriorityOrder || capped:
		// FIFO with caps is the priority queue with every run at
		// priority 0: first come first served among the tenants below
		// their caps.
		w.q, err = sched.NewPriority[int32](st)
	default:
		w.ring.Init(n)
	}
	if err != nil {
		panic("system: invalid tenants (the loader validates them): " + err.Error())
	}
}

// Len returns the number of entries waiting.
func (w *waitQueue) Len() int {
	if w.q == nil {
		return w.ring.Len()
	}
	return w.q.Len()
}

// push and pop branch on the discipline, and are too large for the
// compiler to inline; the hot call sites (a worker or a tool's server
// freed, a call queued) branch themselves, to the ring's inlined paths or
// to pushSched and popSched, so that FIFO pays no call.

// push adds entry v of class c at now.
func (w *waitQueue) push(now time.Duration, v int32, c *schedClass) {
	if w.q == nil {
		w.ring.Push(v)
		return
	}
	w.pushSched(now, v, c)
}

// pushSched is push under a model/sched queue.
func (w *waitQueue) pushSched(now time.Duration, v int32, c *schedClass) {
	w.pushUntil(now, v, c, 0)
}

// pushUntil is pushSched of an entry whose deadline is the instant dl (0:
// none). A fair queue hands an entry out after its deadline without
// charging its tenant (model/sched's Item.Deadline), so that runs which
// expire while they wait are not counted as their tenant's turns: the
// caller drops an expired entry it pops, with the same test.
func (w *waitQueue) pushUntil(now time.Duration, v int32, c *schedClass, dl time.Duration) {
	// Push fails only on an invalid cost, and every cost is 0 (one run).
	_ = w.q.Push(now, sched.Item[int32]{Tenant: c.tenant, Priority: c.priority, Value: v, Deadline: dl})
}

// pop removes and returns the next entry to serve at now, or false if none
// is waiting or every waiting entry's tenant is at its cap.
func (w *waitQueue) pop(now time.Duration) (int32, bool) {
	if w.q == nil {
		return w.ringPop()
	}
	return w.popSched(now)
}

// ringPop is pop of the ring (w.q == nil).
func (w *waitQueue) ringPop() (int32, bool) {
	if w.ring.Len() == 0 {
		return -1, false
	}
	return w.ring.Pop(), true
}

// popSched is pop under a model/sched queue (w.q != nil).
func (w *waitQueue) popSched(now time.Duration) (int32, bool) {
	it, ok := w.q.Pop(now)
	return it.Value, ok
}

// done reports at now that an entry of class c that pop returned has
// finished (its run ended, its request was served or dropped).
func (w *waitQueue) done(now time.Duration, c *schedClass) {
	if w.q != nil {
		w.doneSched(now, c)
	}
}

// doneSched is done under a model/sched queue.
func (w *waitQueue) doneSched(now time.Duration, c *schedClass) {
	if err := w.q.Done(now, c.tenant); err != nil {
		panic("system: " + err.Error())
	}
}

// atCap reports whether a run of class c would have to wait for its
// tenant's cap even with a worker free.
func (w *waitQueue) atCap(c *schedClass) bool {
	return c.cap > 0 && w.q.InFlight(c.tenant) >= c.cap
}

// classOf returns what the disciplines read of run r's class.
func (m *Model) classOf(r *run) *schedClass { return &m.schedClasses[r.class] }

// queueRun puts run ri of class c, arriving at now, in a worker queue
// under a discipline other than plain FIFO, and starts it at once if a
// worker is free and its tenant is below its cap. A free worker with runs
// waiting means every waiting run's tenant is at its cap, so the run
// popped is ri or none.
func (m *Model) queueRun(now time.Duration, ri int32, c *schedClass) {
	r := m.runs.At(ri)
	r.queued = true
	var dl time.Duration
	if at, set := r.dl.Instant(); set {
		// The instant the queue's caller drops the run as expired
		// (deadline.Deadline.Expired: now ≥ at), at least 1 ns: 0 means
		// none to the queue.
		dl = max(at, 1)
	}
	m.queue.pushUntil(now, ri, c, dl)
	if m.busy < m.cfg.Workers {
		if next, ok := m.queue.pop(now); ok {
			m.takeWorker(now)
			m.startService(next)
		}
	}
}

// classWorkerTime adds to its class's BusySeconds the worker time of
// measured run r, ending at now, if it held a worker: the class's share of
// the workers, which the disciplines divide among tenants.
func (m *Model) classWorkerTime(r *run, now time.Duration) {
	if !r.queued {
		m.res.Classes[r.class].BusySeconds += secs(now - r.started)
	}
}

// pushOut makes room in a full fair worker queue for an arriving run of
// class c by longest queue drop (model/sched's Fair.PushOut): the newest
// waiting run of the tenant holding the most of the queue for its weight
// ends rejected, unless that tenant is the arriving run's, which is then
// the one refused (pushOut reports false). Other disciplines refuse the
// arrival.
func (m *Model) pushOut(c *schedClass) bool {
	f, ok := m.queue.q.(*sched.Fair[int32])
	if !ok {
		return false
	}
	it, ok := f.PushOut(c.tenant)
	if !ok {
		return false
	}
	m.runs.At(it.Value).started = -1
	m.end(it.Value, Rejected)
	return true
}
