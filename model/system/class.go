package system

import (
	"time"

	"github.com/budgetsim/budgetsim/model/arrival"
	"github.com/budgetsim/budgetsim/sim"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Classes of work. A scenario may split its runs into classes (chat turns
// and research runs, free and paying tenants), each with its own plan of
// steps and deadline. A run's class is drawn at its arrival, by the
// classes' weights, from a stream of its own keyed by the run (so a
// scenario without classes draws nothing, and its other draws do not
// move); or each class has its own arrival process and the runs' arrivals
// are the superposition of them.
//
// The model compiles the classes into one flat step table (Config.PlanSteps:
// the top-level steps, then each class's own) and a classPlan per class
// saying which of those steps its runs take. A scenario without classes is
// one implicit class over the top-level steps: the handlers read the class
// table either way.

// Class is one class of work.
type Class struct {
	// Name is the class's name, unique in the scenario.
	Name string
	// Weight is the class's share of the top-level arrivals, relative to
	// the other classes' weights (> 0). It is 0 when Arrivals is set.
	Weight float64
	// Arrivals, when set, is the class's own arrival process, an open one
	// (Poisson, Constant or Open). Then every class has its own, and
	// Config.Arrivals is their superposition: Process Open, Rate the sum
	// of their rates, Source nil.
	Arrivals *Arrivals
	// Steps is the class's plan; nil means Config.Steps.
	Steps []Step
	// Deadline is each of the class's runs' budget from arrival; 0 means
	// none. The loader sets it to Config.Deadline unless the class gives
	// its own.
	Deadline time.Duration
	// Priority orders the classes for a priority discipline: 0 is served
	// first.
	Priority int
	// Tenant names the tenant the class's runs belong to, for fairness
	// between tenants; the loader defaults it to the class's name.
	Tenant string
}

// classPlan is a class compiled: which steps of the flat table its runs
// take, its deadline, priority and tenant (an index of Config.TenantNames).
type classPlan struct {
	first, end int32
	deadline   time.Duration
	priority   int32
	tenant     int32
}

// ClassStepSep joins a class's name and its own step's name in
// Config.PlanSteps, so that every step of the flat table has a name of its
// own ("research/search").
const ClassStepSep = "/"

// PlanSteps returns every step a run can take, the index space of the
// per-step results (Result.StepLatency, …) and of stage times: the
// top-level steps, then each class's own steps in class order, named
// CLASS/STEP. It returns Config.Steps itself when no class has steps of
// its own.
func (c *Config) PlanSteps() []Step {
	own := 0
	for i := range c.Classes {
		own += len(c.Classes[i].Steps)
	}
	if own == 0 {
		return c.Steps
	}
	out := make([]Step, 0, len(c.Steps)+own)
	out = append(out, c.Steps...)
	for i := range c.Classes {
		for _, st := range c.Classes[i].Steps {
			st.Name = c.Classes[i].Name + ClassStepSep + st.Name
			out = append(out, st)
		}
	}
	return out
}

// ClassSteps returns the range [first, end) of PlanSteps that class k's
// runs take; without classes (k = 0), the top-level steps.
func (c *Config) ClassSteps(k int) (first, end int) {
	if k >= len(c.Classes) {
		return 0, len(c.Steps)
	}
	first = len(c.Steps)
	for i := range k {
		first += len(c.Classes[i].Steps)
	}
	if len(c.Classes[k].Steps) == 0 {
		return 0, len(c.Steps)
	}
	return first, first + len(c.Classes[k].Steps)
}

// StepsOf returns class k's plan (Config.Steps without classes).
func (c *Config) StepsOf(k int) []Step {
	if k < len(c.Classes) && len(c.Classes[k].Steps) > 0 {
		return c.Classes[k].Steps
	}
	return c.Steps
}

// DeadlineOf returns class k's deadline (Config.Deadline without classes).
func (c *Config) DeadlineOf(k int) time.Duration {
	if k < len(c.Classes) {
		return c.Classes[k].Deadline
	}
	return c.Deadline
}

// TenantNames returns the classes' tenants, each once, in the order of the
// classes that first name them; nil without classes.
func (c *Config) TenantNames() []string {
	var out []string
	for i := range c.Classes {
		if !containsString(out, c.Classes[i].Tenant) {
			out = append(out, c.Classes[i].Tenant)
		}
	}
	return out
}

// TenantOf returns the index in TenantNames of class k's tenant (0 without
// classes).
func (c *Config) TenantOf(k int) int {
	if k >= len(c.Classes) {
		return 0
	}
	for i, t := range c.TenantNames() {
		if t == c.Classes[k].Tenant {
			return i
		}
	}
	return 0
}

// ClassShares returns each class's expected share of the arrivals: its
// weight over the weights' sum, or its own arrival rate over the sum of
// the rates; nil without classes.
func (c *Config) ClassShares() []float64 {
	if len(c.Classes) == 0 {
		return nil
	}
	out := make([]float64, len(c.Classes))
	total := 0.0
	for i := range c.Classes {
		v := c.Classes[i].Weight
		if a := c.Classes[i].Arrivals; a != nil {
			v = a.Rate
		}
		out[i] = v
		total += v
	}
	for i := range out {
		if total > 0 {
			out[i] /= total
		}
	}
	return out
}

// OwnClassArrivals reports whether the classes have arrival processes of
// their own (then all of them do).
func (c *Config) OwnClassArrivals() bool {
	return len(c.Classes) > 0 && c.Classes[0].Arrivals != nil
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// compileClasses builds the model's class table (one implicit class
// without classes) and, for classes drawn by weight, the cumulative
// weights the draw compares against.
func (m *Model) compileClasses(seed uint64) {
	cfg := m.cfg
	n := max(len(cfg.Classes), 1)
	m.classes = make([]classPlan, n)
	for k := range n {
		first, end := cfg.ClassSteps(k)
		m.classes[k] = classPlan{
			first:    int32(first),
			end:      int32(end),
			deadline: cfg.DeadlineOf(k),
			tenant:   int32(cfg.TenantOf(k)),
		}
		if k < len(cfg.Classes) {
			m.classes[k].priority = int32(cfg.Classes[k].Priority)
		}
	}
	if len(cfg.Classes) == 0 {
		return
	}
	if cfg.OwnClassArrivals() {
		m.arr.merge = newClassMerge(cfg, seed)
		return
	}
	m.arr.classRng = sim.NewStream(seed, "classes")
	m.arr.classCum = make([]float64, len(cfg.Classes))
	total := 0.0
	for k := range cfg.Classes {
		total += cfg.Classes[k].Weight
	}
	acc := 0.0
	for k := range cfg.Classes {
		acc += cfg.Classes[k].Weight
		m.arr.classCum[k] = acc / total
	}
	m.arr.classCum[len(m.arr.classCum)-1] = 1
}

// drawClass returns the class of run id, drawn by weight from the classes
// stream keyed by the run: the same run gets the same class whatever
// happened before it.
func (m *Model) drawClass(id int64) int32 {
	m.arr.classRng.Key(uint64(id), 0xc1a55, 0)
	u := m.arr.classRng.Float64()
	for k, c := range m.arr.classCum {
		if u < c {
			return int32(k)
		}
	}
	return int32(len(m.arr.classCum) - 1)
}

// classMerge superposes the classes' own arrival processes: each class's
// next instant comes from its own stream ("arrivals:NAME") and its own
// previous instant, and the earliest of them (the lowest class on a tie)
// arrives next.
type classMerge struct {
	src     []arrival.Process
	rng     []*sim.Stream
	n       []int64         // each class's arrivals so far, scheduled one included
	next    []time.Duration // each class's next instant
	ok      []bool          // the class has a next arrival
	pending int32           // the class of the arrival scheduled next
}

func newClassMerge(cfg *Config, seed uint64) *classMerge {
	k := len(cfg.Classes)
	c := &classMerge{
		src:  make([]arrival.Process, k),
		rng:  make([]*sim.Stream, k),
		n:    make([]int64, k),
		next: make([]time.Duration, k),
		ok:   make([]bool, k),
	}
	for i := range cfg.Classes {
		a := cfg.Classes[i].Arrivals
		src := a.Source
		if src != nil {
			src = arrival.Instance(src) // a Markov-modulated process: this replication's own state
		} else {
			var err error
			switch a.Process {
			case Poisson:
				src, err = arrival.Poisson(a.Rate)
			case Constant:
				src, err = arrival.Constant(a.Rate)
			}
			if err != nil || src == nil {
				panic("system: invalid arrivals of class " + cfg.Classes[i].Name + " (the loader validates them)")
			}
		}
		c.src[i] = src
		c.rng[i] = sim.NewStream(seed, "arrivals:"+cfg.Classes[i].Name)
		c.advance(i, cfg.Horizon)
	}
	return c
}

// advance draws class i's next instant.
func (c *classMerge) advance(i int, horizon time.Duration) {
	at, ok := c.src[i].Next(c.n[i], c.next[i], c.rng[i].Rand())
	if ok && horizon > 0 && at >= horizon {
		ok = false
	}
	c.next[i], c.ok[i] = at, ok
	c.n[i]++
}

// pop returns the next arrival's instant and class, and draws that class's
// following one; false when every class's arrivals have ended.
func (c *classMerge) pop(horizon time.Duration) (time.Duration, int32, bool) {
	best := -1
	for i := range c.next {
		if c.ok[i] && (best < 0 || c.next[i] < c.next[best]) {
			best = i
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	at := c.next[best]
	c.advance(best, horizon)
	return at, int32(best), true
}

// ClassResult is what one simulation measured of one class's runs, after
// the warm-up: the class's part of Result's pooled figures.
type ClassResult struct {
	// Runs are the class's outcome counts.
	Runs Counts
	// Latency is arrival → completion of its completed runs, Wait arrival
	// → start of service of its runs that got a worker (seconds); Waited
	// counts those whose wait was > 0.
	Latency *stats.Histogram
	Wait    *stats.Histogram
	Waited  int64
	// Attempts and Retries count its runs' dialed attempts and the part
	// of them that were retries.
	Attempts int64
	Retries  int64
	// Cost is the settled usage of its runs' calls.
	Cost float64
	// SojournSum is the total time in system of its runs that ended.
	SojournSum float64
	// BusySeconds is the worker-seconds held by its runs that ended after
	// getting a worker (discipline.go).
	BusySeconds float64
}

// newClassResults returns the per-class results of a scenario with n
// classes; nil without classes.
func newClassResults(n int) []ClassResult {
	if n == 0 {
		return nil
	}
	out := make([]ClassResult, n)
	for i := range out {
		out[i].Latency = NewHistogram()
		out[i].Wait = NewHistogram()
	}
	return out
}

func (c *ClassResult) started(wait float64) {
	c.Wait.Add(wait)
	if wait > 0 {
		c.Waited++
	}
}

func (c *ClassResult) ended(o RunOutcome, sojourn float64) {
	c.Runs.add(o)
	c.SojournSum += sojourn
	if o == Completed {
		c.Latency.Add(sojourn)
	}
}

func (c *ClassResult) attempt(retry bool) {
	c.Attempts++
	if retry {
		c.Retries++
	}
}

// EveryRunHasDeadline reports whether every run has a deadline: the
// scenario's, or each class's.
func (c *Config) EveryRunHasDeadline() bool {
	if len(c.Classes) == 0 {
		return c.Deadline > 0
	}
	for i := range c.Classes {
		if c.Classes[i].Deadline <= 0 {
			return false
		}
	}
	return true
}

// StepHasDeadline reports whether every run that takes step i of
// PlanSteps has a deadline.
func (c *Config) StepHasDeadline(i int) bool {
	if len(c.Classes) == 0 {
		return c.Deadline > 0
	}
	for k := range c.Classes {
		if first, end := c.ClassSteps(k); i >= first && i < end && c.Classes[k].Deadline <= 0 {
			return false
		}
	}
	return true
}

// stepShares returns, for each step of PlanSteps, the expected number of
// times a run takes it (the share of the runs whose class's plan holds
// it; 1 for every step without classes).
func (c *Config) stepShares() []float64 {
	steps := c.PlanSteps()
	out := make([]float64, len(steps))
	if len(c.Classes) == 0 {
		for i := range out {
			out[i] = 1
		}
	} else {
		for k, share := range c.ClassShares() {
			first, end := c.ClassSteps(k)
			for i := first; i < end; i++ {
				out[i] += share
			}
		}
	}
	// A loop's compaction call is made only in the turns whose context
	// has passed its threshold, which the plan does not say: it is left
	// out rather than counted in every turn.
	for _, l := range c.Loops {
		if l.Context != nil && l.Context.AtWindow == WindowCompact {
			out[l.First] = 0
		}
	}
	return out
}

// className is class k's name, for traces; "" without classes.
func (m *Model) className(k int32) string {
	if int(k) < len(m.cfg.Classes) {
		return m.cfg.Classes[k].Name
	}
	return ""
}
