package breaker

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// State is the state of a [Breaker].
type State int

// The three states of a circuit breaker (resilience4j's CircuitBreaker.State,
// Polly's CircuitState; the forced and disabled states of resilience4j are
// left out).
const (
	// Closed: calls are permitted and their outcomes recorded in the sliding
	// window.
	Closed State = iota
	// Open: calls are refused locally until WaitInOpen has passed.
	Open
	// HalfOpen: up to PermittedInHalfOpen probe calls are permitted; their
	// outcomes decide whether the breaker closes or opens again.
	HalfOpen
)

var stateNames = [...]string{"closed", "open", "half_open"}

// String returns "closed", "open" or "half_open", or "State(n)".
func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// WindowType selects how the closed state's sliding window is kept.
type WindowType int

// The two window types of resilience4j's SlidingWindowType.
const (
	// CountBased keeps the outcomes of the last WindowSize calls
	// (resilience4j's COUNT_BASED, its default).
	CountBased WindowType = iota
	// TimeBased keeps the outcomes of the calls recorded in the last
	// WindowSize buckets of BucketWidth each, the current, partly elapsed
	// bucket included (resilience4j's TIME_BASED with one-second buckets;
	// Polly's SamplingDuration split into ten windows).
	TimeBased
)

// String returns "count_based" or "time_based", or "WindowType(n)".
func (w WindowType) String() string {
	switch w {
	case CountBased:
		return "count_based"
	case TimeBased:
		return "time_based"
	}
	return fmt.Sprintf("WindowType(%d)", int(w))
}

// Result is how a permitted call ended, as far as the breaker is concerned.
// Outcomes that should not count either way (a call cancelled by its caller,
// an error the dependency is not to blame for) are not recorded: give the
// call's permission back with [Breaker.Release] instead, as resilience4j's
// ignoreExceptions and releasePermission do.
type Result int

// The two results a breaker records.
const (
	// Success: the call succeeded. It still counts as slow if it took longer
	// than SlowCallDuration.
	Success Result = iota
	// Failure: the call failed (resilience4j's recordExceptions, Polly's
	// ShouldHandle).
	Failure
)

// String returns "success" or "failure", or "Result(n)".
func (r Result) String() string {
	switch r {
	case Success:
		return "success"
	case Failure:
		return "failure"
	}
	return fmt.Sprintf("Result(%d)", int(r))
}

// Config configures a [Breaker]. [Resilience4jDefaults] and [PollyDefaults]
// return the defaults of the two libraries; [New] validates every field.
type Config struct {
	// Window is the kind of sliding window the closed state keeps.
	Window WindowType
	// WindowSize is the number of calls a CountBased window holds, or the
	// number of buckets a TimeBased window spans (resilience4j's
	// slidingWindowSize, default 100; for TIME_BASED it counts seconds).
	// It must be ≥ 1.
	WindowSize int
	// BucketWidth is the width of one bucket of a TimeBased window; the
	// window spans WindowSize × BucketWidth. Buckets are aligned to
	// multiples of BucketWidth from the clock's origin. resilience4j uses
	// one second; Polly v8 splits its SamplingDuration into ten buckets.
	// It must be > 0 for a TimeBased window and is ignored otherwise.
	BucketWidth time.Duration
	// MinimumCalls is the number of calls the window must hold before the
	// rates are checked at all (resilience4j's minimumNumberOfCalls, default
	// 100; Polly's MinimumThroughput, default 100). For a CountBased window
	// the effective minimum is min(MinimumCalls, WindowSize), as in
	// resilience4j's CircuitBreakerMetrics. It must be ≥ 1.
	MinimumCalls int
	// FailureRateThreshold is the failure rate, in percent of the calls in
	// the window, at or above which the breaker opens (resilience4j's
	// failureRateThreshold, default 50, compared with ≥; Polly's
	// FailureRatio × 100, default 10, compared with ≥). It must be in
	// (0, 100].
	FailureRateThreshold float64
	// SlowCallRateThreshold is the slow-call rate, in percent of the calls
	// in the window, at or above which the breaker opens (resilience4j's
	// slowCallRateThreshold, default 100). A slow call counts whether it
	// succeeded or failed. It must be in (0, 100].
	SlowCallRateThreshold float64
	// SlowCallDuration is the latency above which (strictly) a call is slow
	// (resilience4j's slowCallDurationThreshold, default 60s, compared with
	// >). Zero means no call is slow; Polly has no slow-call rule. It must
	// be ≥ 0.
	SlowCallDuration time.Duration
	// WaitInOpen is how long the breaker stays open before it turns
	// half-open (resilience4j's waitDurationInOpenState, default 60s;
	// Polly's BreakDuration, default 5s). It must be > 0.
	WaitInOpen time.Duration
	// PermittedInHalfOpen is the number of probe calls permitted in the
	// half-open state; when that many have been recorded the breaker
	// closes or reopens (resilience4j's
	// permittedNumberOfCallsInHalfOpenState, default 10; Polly permits a
	// single probe). It must be ≥ 1.
	PermittedInHalfOpen int
	// OnTransition, if not nil, is called after each change of state, in
	// order, after the method that caused it has released the breaker's
	// lock (so it may call the breaker). resilience4j publishes the same
	// as CircuitBreakerOnStateTransitionEvent; Polly as OnOpened, OnClosed
	// and OnHalfOpened.
	OnTransition func(Transition)
}

// Resilience4jDefaults returns the defaults of resilience4j's
// CircuitBreakerConfig.ofDefaults(): a count-based window of 100 calls,
// minimum 100 calls, failure-rate threshold 50%, slow-call-rate threshold
// 100% with calls slower than 60s counted as slow, 60s open, 10 probe calls
// in half-open.
func Resilience4jDefaults() Config {
	return Config{
		Window:                CountBased,
		WindowSize:            100,
		BucketWidth:           time.Second,
		MinimumCalls:          100,
		FailureRateThreshold:  50,
		SlowCallRateThreshold: 100,
		SlowCallDuration:      60 * time.Second,
		WaitInOpen:            60 * time.Second,
		PermittedInHalfOpen:   10,
	}
}

// PollyDefaults returns the defaults of Polly v8's
// CircuitBreakerStrategyOptions (the successor of Polly v7's advanced
// circuit breaker): a time-based window over a 30s SamplingDuration (ten
// buckets of 3s), MinimumThroughput 100, FailureRatio 0.1 (10%), a 5s
// BreakDuration and one probe call in half-open. Polly has no slow-call
// rule, so SlowCallDuration is 0.
//
// Polly's window starts its buckets at the first call instead of at
// multiples of the bucket width, and after BreakDuration it permits a new
// probe if the previous one has not reported; a Breaker waits for the probe
// to be recorded or released.
func PollyDefaults() Config {
	return Config{
		Window:                TimeBased,
		WindowSize:            10,
		BucketWidth:           3 * time.Second,
		MinimumCalls:          100,
		FailureRateThreshold:  10,
		SlowCallRateThreshold: 100,
		SlowCallDuration:      0,
		WaitInOpen:            5 * time.Second,
		PermittedInHalfOpen:   1,
	}
}

// maxWindowSize bounds WindowSize so that a window's memory stays small and
// bounded whatever the input.
const maxWindowSize = 1 << 20

// Validate returns an error naming the first field of c that is out of
// range, or nil.
func (c Config) Validate() error {
	switch c.Window {
	case CountBased, TimeBased:
	default:
		return fmt.Errorf("breaker: Window: must be CountBased or TimeBased, got %v", c.Window)
	}
	if c.WindowSize < 1 || c.WindowSize > maxWindowSize {
		return fmt.Errorf("breaker: WindowSize: must be in [1, %d], got %d", maxWindowSize, c.WindowSize)
	}
	if c.Window == TimeBased {
		if c.BucketWidth <= 0 {
			return fmt.Errorf("breaker: BucketWidth: must be > 0 for a time-based window, got %v", c.BucketWidth)
		}
		if int64(c.BucketWidth) > math.MaxInt64/int64(c.WindowSize) {
			return fmt.Errorf("breaker: BucketWidth: WindowSize × BucketWidth overflows time.Duration, got %v", c.BucketWidth)
		}
	}
	if c.MinimumCalls < 1 {
		return fmt.Errorf("breaker: MinimumCalls: must be ≥ 1, got %d", c.MinimumCalls)
	}
	if !(c.FailureRateThreshold > 0 && c.FailureRateThreshold <= 100) {
		return fmt.Errorf("breaker: FailureRateThreshold: must be in (0, 100] percent, got %v", c.FailureRateThreshold)
	}
	if !(c.SlowCallRateThreshold > 0 && c.SlowCallRateThreshold <= 100) {
		return fmt.Errorf("breaker: SlowCallRateThreshold: must be in (0, 100] percent, got %v", c.SlowCallRateThreshold)
	}
	if c.SlowCallDuration < 0 {
		return fmt.Errorf("breaker: SlowCallDuration: must be ≥ 0 (0 = no call is slow), got %v", c.SlowCallDuration)
	}
	if c.WaitInOpen <= 0 {
		return fmt.Errorf("breaker: WaitInOpen: must be > 0, got %v", c.WaitInOpen)
	}
	if c.PermittedInHalfOpen < 1 {
		return fmt.Errorf("breaker: PermittedInHalfOpen: must be ≥ 1, got %d", c.PermittedInHalfOpen)
	}
	return nil
}

// Transition is one change of a breaker's state.
type Transition struct {
	// At is the instant of the change. For Open → HalfOpen it is the
	// instant the open period ended, which may be earlier than the call
	// that observed it.
	At time.Duration
	// From and To are the states before and after.
	From, To State
	// Window holds the calls that decided a transition out of Closed or
	// HalfOpen; it is zero for Open → HalfOpen.
	Window WindowStats
}

// WindowStats counts the calls in a sliding window.
type WindowStats struct {
	Calls    int // calls recorded
	Failures int // of which failed
	Slow     int // of which slower than SlowCallDuration, failed or not
}

// FailureRate returns the failures in percent of the calls, or 0 if there
// are none.
func (w WindowStats) FailureRate() float64 { return percent(w.Failures, w.Calls) }

// SlowCallRate returns the slow calls in percent of the calls, or 0 if
// there are none.
func (w WindowStats) SlowCallRate() float64 { return percent(w.Slow, w.Calls) }

func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// Counts are a breaker's running totals since it was made.
type Counts struct {
	Permitted uint64 // calls Allow permitted
	Rejected  uint64 // calls Allow refused: the calls the breaker saved
	Successes uint64 // Record(Success)
	Failures  uint64 // Record(Failure)
	Slow      uint64 // recorded calls slower than SlowCallDuration
	Released  uint64 // Release calls
	Late      uint64 // outcomes recorded while Open, which count for nothing
}

// A Breaker is a circuit breaker for one dependency. Make one with [New].
//
// A caller asks [Breaker.Allow] before each call, and then reports the
// call's end with [Breaker.Record] or, if the outcome should not count,
// [Breaker.Release].
//
// As in resilience4j, an outcome counts toward the state the breaker is in
// when it is recorded, whatever the state when the call was permitted: a
// call permitted while Closed that ends while HalfOpen counts as a probe
// result, and outcomes recorded while Open count for nothing (resilience4j
// records them in metrics that are discarded).
//
// If now is earlier than an instant a previous call passed (the clock went
// backwards), the breaker uses that later instant instead.
//
// A Breaker is safe for concurrent use by multiple goroutines. It must not
// be copied after first use.
type Breaker struct {
	mu   sync.Mutex
	cfg  Config
	last time.Duration // the latest now seen
	seen bool          // whether last holds an instant yet

	state    State
	openedAt time.Duration // when the current Open period began

	win    window      // the closed state's sliding window
	probe  WindowStats // outcomes recorded in HalfOpen
	issued int         // permits taken in HalfOpen, less those released

	counts  Counts
	pending [2]Transition
	npend   int
}

// New returns a closed breaker with configuration c, or an error naming the
// first field of c that is out of range.
func New(c Config) (*Breaker, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	b := &Breaker{cfg: c}
	minCalls := c.MinimumCalls
	if c.Window == CountBased {
		minCalls = min(minCalls, c.WindowSize)
		b.win.outcomes = make([]uint8, c.WindowSize)
	} else {
		b.win.buckets = make([]WindowStats, c.WindowSize)
		b.win.width = c.BucketWidth
	}
	b.win.minCalls = minCalls
	return b, nil
}

// Config returns the breaker's configuration.
func (b *Breaker) Config() Config { return b.cfg }

// Allow reports whether a call may be made at now. Closed: always. Open:
// never, until WaitInOpen has passed since the breaker opened; then the
// breaker turns half-open (at that instant) and decides as HalfOpen does.
// HalfOpen: while fewer than PermittedInHalfOpen probes are out
// (resilience4j's tryAcquirePermission in HalfOpenState).
//
// A permitted call must be followed by one Record or Release.
func (b *Breaker) Allow(now time.Duration) bool {
	b.mu.Lock()
	b.advance(now)
	ok := true
	switch b.state {
	case Open:
		ok = false
	case HalfOpen:
		ok = b.issued < b.cfg.PermittedInHalfOpen
		if ok {
			b.issued++
		}
	}
	if ok {
		b.counts.Permitted++
	} else {
		b.counts.Rejected++
	}
	b.unlock()
	return ok
}

// Record reports at now that a permitted call ended with result r after
// latency. Closed: the outcome enters the sliding window; if the window
// holds at least the minimum number of calls and its failure rate or
// slow-call rate is at or above its threshold, the breaker opens
// (resilience4j's CircuitBreakerMetrics.checkIfThresholdsExceeded). HalfOpen:
// the outcome counts as a probe; when PermittedInHalfOpen probes have been
// recorded, the breaker opens if either rate over them is at or above its
// threshold and closes otherwise (resilience4j's HalfOpenState; with one
// probe, Polly's rule: a failed probe reopens, a successful one closes).
// Open: the outcome is counted in Counts.Late and changes nothing.
//
// A call is slow if latency > SlowCallDuration and SlowCallDuration > 0.
func (b *Breaker) Record(now time.Duration, r Result, latency time.Duration) {
	b.mu.Lock()
	b.advance(now)
	failed := r == Failure
	slow := b.cfg.SlowCallDuration > 0 && latency > b.cfg.SlowCallDuration
	if failed {
		b.counts.Failures++
	} else {
		b.counts.Successes++
	}
	if slow {
		b.counts.Slow++
	}
	switch b.state {
	case Closed:
		w := b.win.record(b.last, failed, slow)
		if w.Calls >= b.win.minCalls && b.exceeds(w) {
			b.open(w)
		}
	case HalfOpen:
		b.probe.Calls++
		if failed {
			b.probe.Failures++
		}
		if slow {
			b.probe.Slow++
		}
		if b.probe.Calls >= b.cfg.PermittedInHalfOpen {
			if b.exceeds(b.probe) {
				b.open(b.probe)
			} else {
				b.close(b.probe)
			}
		}
	case Open:
		b.counts.Late++
	}
	b.unlock()
}

// Release gives back the permission of a permitted call whose outcome
// should not count (resilience4j's releasePermission): in HalfOpen it frees
// a probe slot, so another call may probe; otherwise it only counts.
func (b *Breaker) Release(now time.Duration) {
	b.mu.Lock()
	b.advance(now)
	b.counts.Released++
	if b.state == HalfOpen && b.issued > 0 {
		b.issued--
	}
	b.unlock()
}

// State returns the state at now, turning an expired Open into HalfOpen.
func (b *Breaker) State(now time.Duration) State {
	b.mu.Lock()
	b.advance(now)
	s := b.state
	b.unlock()
	return s
}

// Window returns the calls counted at now: the closed state's sliding
// window when Closed, the probes recorded so far when HalfOpen, and zero
// when Open.
func (b *Breaker) Window(now time.Duration) WindowStats {
	b.mu.Lock()
	b.advance(now)
	var w WindowStats
	switch b.state {
	case Closed:
		w = b.win.stats(b.last)
	case HalfOpen:
		w = b.probe
	}
	b.unlock()
	return w
}

// Counts returns the running totals.
func (b *Breaker) Counts() Counts {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.counts
}

// exceeds reports whether either rate of w is at or above its threshold
// (resilience4j compares both with ≥; so does Polly's FailureRatio).
func (b *Breaker) exceeds(w WindowStats) bool {
	return w.FailureRate() >= b.cfg.FailureRateThreshold || w.SlowCallRate() >= b.cfg.SlowCallRateThreshold
}

// advance moves the clock to now and applies a due Open → HalfOpen.
func (b *Breaker) advance(now time.Duration) {
	if now > b.last || !b.seen {
		b.last, b.seen = now, true
	}
	if b.state == Open && b.last-b.openedAt >= b.cfg.WaitInOpen {
		b.transition(b.openedAt+b.cfg.WaitInOpen, HalfOpen, WindowStats{})
		b.probe = WindowStats{}
		b.issued = 0
	}
}

func (b *Breaker) open(w WindowStats) {
	b.transition(b.last, Open, w)
	b.openedAt = b.last
}

func (b *Breaker) close(w WindowStats) {
	b.transition(b.last, Closed, w)
	b.win.reset()
}

func (b *Breaker) transition(at time.Duration, to State, w WindowStats) {
	if b.cfg.OnTransition != nil {
		b.pending[b.npend] = Transition{At: at, From: b.state, To: to, Window: w}
		b.npend++
	}
	b.state = to
}

// unlock releases the lock and then reports the transitions made under it.
func (b *Breaker) unlock() {
	n := b.npend
	if n == 0 {
		b.mu.Unlock()
		return
	}
	ts := b.pending
	b.npend = 0
	b.mu.Unlock()
	for _, t := range ts[:n] {
		b.cfg.OnTransition(t)
	}
}

const (
	failedBit = 1 << iota
	slowBit
)

// window is the closed state's sliding window: a ring of per-call outcome
// bits (count-based) or of per-bucket counts (time-based), with running
// totals, as resilience4j's FixedSizeSlidingWindowMetrics and
// SlidingTimeWindowMetrics keep them.
type window struct {
	minCalls int
	total    WindowStats

	// count-based
	outcomes []uint8
	next     int // ring position of the next outcome

	// time-based
	buckets []WindowStats
	width   time.Duration
	head    int64 // epoch of the newest bucket
	started bool
}

func (w *window) reset() {
	w.total = WindowStats{}
	w.next = 0
	clear(w.outcomes)
	clear(w.buckets)
	w.started = false
}

func (w *window) record(now time.Duration, failed, slow bool) WindowStats {
	var bits uint8
	if failed {
		bits |= failedBit
	}
	if slow {
		bits |= slowBit
	}
	if w.outcomes != nil {
		if w.total.Calls == len(w.outcomes) {
			w.sub(w.outcomes[w.next])
		} else {
			w.total.Calls++
		}
		w.outcomes[w.next] = bits
		w.add(bits)
		w.next = (w.next + 1) % len(w.outcomes)
		return w.total
	}
	w.slide(now)
	bk := &w.buckets[mod(w.head, len(w.buckets))]
	bk.Calls++
	w.total.Calls++
	if failed {
		bk.Failures++
	}
	if slow {
		bk.Slow++
	}
	w.add(bits)
	return w.total
}

func (w *window) add(bits uint8) {
	if bits&failedBit != 0 {
		w.total.Failures++
	}
	if bits&slowBit != 0 {
		w.total.Slow++
	}
}

func (w *window) sub(bits uint8) {
	if bits&failedBit != 0 {
		w.total.Failures--
	}
	if bits&slowBit != 0 {
		w.total.Slow--
	}
}

// stats returns the window's totals at now.
func (w *window) stats(now time.Duration) WindowStats {
	if w.buckets != nil {
		w.slide(now)
	}
	return w.total
}

// slide moves a time-based window so that its newest bucket is the one
// holding now, emptying the buckets that fall out.
func (w *window) slide(now time.Duration) {
	epoch := floorDiv(int64(now), int64(w.width))
	n := int64(len(w.buckets))
	if !w.started {
		w.started = true
		w.head = epoch
		w.buckets[mod(epoch, len(w.buckets))] = WindowStats{}
		return
	}
	if epoch <= w.head {
		return
	}
	if epoch-w.head >= n {
		clear(w.buckets)
		w.total = WindowStats{}
	} else {
		for e := w.head + 1; e <= epoch; e++ {
			bk := &w.buckets[mod(e, len(w.buckets))]
			w.total.Calls -= bk.Calls
			w.total.Failures -= bk.Failures
			w.total.Slow -= bk.Slow
			*bk = WindowStats{}
		}
	}
	w.head = epoch
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func mod(e int64, n int) int {
	m := e % int64(n)
	if m < 0 {
		m += int64(n)
	}
	return int(m)
}
