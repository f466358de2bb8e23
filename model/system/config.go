package system

import (
	"time"

	"github.com/budgetsim/budgetsim/model/arrival"
	"github.com/budgetsim/budgetsim/model/breaker"
	"github.com/budgetsim/budgetsim/model/cost"
	"github.com/budgetsim/budgetsim/model/dist"
	"github.com/budgetsim/budgetsim/model/retry"
)

// Config is a validated, compiled scenario: everything the simulator needs,
// in exact units (durations in nanoseconds, rates per second). The scenarios
// package builds it from YAML and checks it, reporting errors with file and
// line; the simulator relies on those checks and does not repeat them.
type Config struct {
	// Name is the scenario's name.
	Name string
	// Seed seeds every random stream (default 1).
	Seed uint64
	// Runs is the number of arrivals to generate, warm-up included.
	// Exactly one of Runs and Horizon is > 0 (a batch sets Runs itself).
	// A Closed population measures its first Runs arrivals (warm-up
	// included) and keeps every agent looping until the last of them has
	// ended, so that each measured run sees the whole population; the
	// arrivals past Runs are not measured, and the simulation stops when
	// the last measured run ends.
	Runs int64
	// Horizon stops arrivals at this virtual instant instead of a count.
	Horizon time.Duration
	// WarmupRuns arrivals (or runs arriving before WarmupTime) are simulated
	// but excluded from every statistic.
	WarmupRuns int64
	WarmupTime time.Duration
	// Arrivals is the arrival process.
	Arrivals Arrivals
	// Workers is the number of runs served concurrently (servers), ≥ 1.
	Workers int
	// QueueCapacity is the waiting room for runs: a full queue rejects at
	// once. 0 means no waiting room; Unbounded (-1) means no limit.
	QueueCapacity int
	// Deadline is each run's budget from arrival; 0 means none.
	Deadline time.Duration
	// Floor is the time held back at the end of every deadline: a lease is
	// min(ceiling, remaining − Floor), and remaining ≤ Floor refuses the call.
	Floor time.Duration
	// MinLease is the smallest lease worth dialing; a shorter one is refused.
	MinLease time.Duration
	// Steps is the plan every run executes, in order (at least one).
	Steps []Step
	// Tools are the backends the steps call, referenced by index.
	Tools []Tool
	// RunBudget is each run's cost budget (0: none); ScenarioBudget is one
	// budget shared by every run of a replication (0: none). Calls to tools
	// with a Cost reserve their declared maximum from both before dialing.
	RunBudget      cost.Amount
	ScenarioBudget cost.Amount
	// Currency labels every cost in the outputs ("USD"); "" means the
	// abstract units of the tools' prices. The simulation does not read it.
	Currency string
	// Groups are the plan's parallel steps and hedged steps: the places
	// where a run has more than one call outstanding (group.go).
	Groups []Group
	// Loops are the plan's agent loops: blocks of top-level steps a run
	// repeats turn by turn (loop.go).
	Loops []Loop
	// Guards bound a runaway model.
	Guards Guards
	// Classes split the runs into classes of work, each with its own plan
	// and deadline (class.go); none means every run follows Steps.
	Classes []Class
	// Scheduling is the worker queue's discipline and the tenants
	// (discipline.go). The zero value is FIFO without tenants.
	Scheduling Scheduling
}

// Unbounded is the QueueCapacity of a waiting room without a limit.
const Unbounded = -1

// Process names an arrival process.
type Process int

// The arrival processes.
const (
	// Poisson arrivals: exponential inter-arrival times with mean 1/Rate.
	Poisson Process = iota
	// Constant arrivals: exactly 1/Rate apart.
	Constant
	// Batch arrivals: Count runs at instant 0 (a thundering herd).
	Batch
	// Open arrivals from an arrival.Process (schedule, diurnal, trace).
	Open
	// Closed population: Users agents, each starting a new run a Think time
	// after its previous run ended.
	Closed
)

// String returns the process's scenario name.
func (p Process) String() string {
	switch p {
	case Poisson:
		return "poisson"
	case Constant:
		return "constant"
	case Batch:
		return "batch"
	case Open:
		return "open"
	case Closed:
		return "closed"
	}
	return "unknown"
}

// Arrivals describes when runs arrive.
type Arrivals struct {
	Process Process
	// Rate is arrivals per second (Poisson, Constant; for Open, the
	// process's long-run mean rate, used for utilisation estimates).
	Rate float64
	// Count is the size of a Batch.
	Count int64
	// Source generates the instants of Poisson, Constant and Open arrivals.
	Source arrival.Process
	// Users and Think define a Closed population.
	Users int
	Think dist.Dist
}

// Step is one element of a run's plan: a call to a tool, retried under a
// policy, with a per-attempt ceiling.
type Step struct {
	Name string
	// Tool indexes Config.Tools.
	Tool int
	// Timeout is the per-attempt ceiling; 0 means none (the lease is then
	// bounded only by the deadline).
	Timeout time.Duration
	// FirstTokenTimeout, when > 0, cuts a call to a streaming tool
	// (Tool.Stream) that has not sent its first token this long after it
	// was sent; once the first token is in, only the lease bounds it.
	FirstTokenTimeout time.Duration
	// Retry is the step's retry policy (Attempts ≥ 1).
	Retry retry.Policy
	// Budget is the retry budget shared by every run's retries of this step;
	// nil means none.
	Budget *BudgetSpec
	// Fallbacks are tools (indexes) tried in order when the step fails on
	// its tool or is refused locally; only those whose capabilities cover
	// Requires are ever chosen.
	Fallbacks []int
	// Requires lists the capabilities a tool must declare to serve the step.
	Requires []string
	// Tokens, when set, overrides the token counts of the step's calls to
	// tools with Tokens.
	Tokens *StepTokens
	// Group, when > 0, makes the step a member of Config.Groups[Group-1]:
	// one call of a parallel step, or a hedged step.
	Group int
	// Loop, when > 0, makes the step part of Config.Loops[Loop-1]: a step
	// of an agent loop's turn.
	Loop int
	// Choose, when not empty, draws the tool of each of the step's calls
	// (each turn of a loop, each member of a parallel step) among these
	// by weight; Tool is then the first of them.
	Choose []Choice
}

// Choice is one tool a step may call, and its weight.
type Choice struct {
	Tool   int
	Weight float64
}

// Group is a set of calls a run makes at once and waits on together.
//
// A parallel step is Members consecutive entries of Config.Steps from
// First, each a call with its own tool, timeout, retries and lease (all
// under the run's one deadline); the run goes on when K of them have
// succeeded (K = 1: any; K = Members: all) and cancels the others. It
// fails as soon as fewer than K can still succeed.
//
// A hedged step is one entry (Members = 1) with Hedge set: its first
// attempt is joined by another after the hedging delay, up to
// Hedge.MaxAttempts, and the first success wins (K = 1).
type Group struct {
	Name    string
	First   int
	Members int
	K       int
	Hedge   *Hedge
	// Calls, when set, is the number of members a run launches, drawn
	// each time it starts the group, rounded and kept within 1 …
	// Members; the first that many members are launched, and K is at most
	// that many (a model's k parallel tool calls).
	Calls dist.Dist
}

// Hedge is a step's hedging policy (model/hedge.Policy): MaxAttempts
// attempts at most, the first included, each started Delay after the one
// before; with Percentile > 0 the delay is that quantile of the step's
// observed first-attempt latency once MinSamples have been seen (Delay
// until then). An attempt that fails with an outcome the step's retry
// policy would retry starts the next one at once; any other failure ends
// the step.
type Hedge struct {
	MaxAttempts int
	Delay       time.Duration
	Percentile  float64
	MinSamples  int
}

// BudgetKind names a retry budget.
type BudgetKind int

// The retry budgets.
const (
	// TokenBucketBudget is the AWS SDK standard-mode retry quota.
	TokenBucketBudget BudgetKind = iota + 1
	// ThrottleBudget is gRPC retry throttling (gRFC A6).
	ThrottleBudget
	// RatioBudget bounds retries to a share of requests (Finagle/Envoy).
	RatioBudget
)

// BudgetSpec configures a retry budget; fields not used by Kind are zero.
type BudgetSpec struct {
	Kind BudgetKind
	// TokenBucket: Capacity, RetryCost, TimeoutCost, NoRetryIncrement.
	Capacity, RetryCost, TimeoutCost, NoRetryIncrement float64
	// Throttle: MaxTokens and TokenRatio.
	MaxTokens, TokenRatio float64
	// Ratio: Ratio of retries to requests, MinPerSecond floor, TTL window.
	Ratio, MinPerSecond float64
	TTL                 time.Duration
}

// Tool is a backend that steps call.
type Tool struct {
	Name string
	// Latency is the service-time distribution in seconds.
	Latency dist.Dist
	// Errors are per-attempt probabilities of each failure class; Hang is
	// the probability of no answer at all (only a timeout ends the attempt).
	Errors Errors
	// RetryAfter is what the server sends with a 503 or 429, in seconds;
	// nil means it sends none.
	RetryAfter dist.Dist
	// Outages override the outcome of attempts dialed inside them.
	Outages []Outage
	// Script fixes the outcome of given attempts, to replay an incident.
	Script []ScriptEntry
	// Contention, when set, makes the tool a row under optimistic
	// concurrency control: a write conflicts when another write committed
	// after it read (the experiment behind AWS's "Exponential Backoff And
	// Jitter").
	Contention bool
	// Concurrency is the tool's server-side capacity: at most this many
	// requests in service, the rest wait in its queue, in the order of its
	// Discipline. 0 means unlimited (every call is served at once).
	Concurrency int
	// QueueCapacity is the tool's waiting room when Concurrency > 0; a full
	// queue answers 503 at once. Unbounded (-1) means no limit.
	QueueCapacity int
	// Discipline is the order the tool's queue serves in (FIFO by
	// default), by the priorities and tenants of the calling runs'
	// classes; the tenants' caps do not apply at a tool.
	Discipline Discipline
	// DeadlineAware tools receive each attempt's lease as a duration (as
	// gRPC's grpc-timeout) and, at dequeue, drop work that can no longer
	// finish inside it: remaining lease < DropFloor (default: the median
	// latency). Otherwise work continues after the caller gave up, and
	// counts as wasted.
	DeadlineAware bool
	DropFloor     time.Duration
	// RateLimit, when set, is a token bucket shared by every caller.
	RateLimit *RateLimit
	// Cache, when set, answers a share of calls without reaching the tool.
	Cache *Cache
	// Adaptive, when set, is the callers' adaptive concurrency limit on
	// the tool (adaptive.go).
	Adaptive *AdaptiveConcurrency
	// Cost, when set, makes calls metered.
	Cost *ToolCost
	// Tokens, when set, makes the tool a model API whose calls use input
	// and output tokens (and, with PerOutputToken, take Latency as the
	// time to first token plus a time per output token); TokenLimit, when
	// set, is its provider's per-minute limits (tokens.go).
	Tokens     *Tokens
	TokenLimit *TokenLimit
	// ResultTokens, when set, is the tokens a successful call's result
	// adds to the context of an agent loop with a Context (loop.go); a
	// model call adds its output tokens instead.
	ResultTokens dist.Dist
	// PromptCache, when set, is a model API's prompt cache
	// (promptcache.go).
	PromptCache *PromptCache
	// Stream makes a model API's calls stream their output (stream.go):
	// the caller sees the first token after the time to first token, a
	// step's FirstTokenTimeout can cut a call that has not started, and a
	// call cut after its first token bills the tokens produced by then.
	Stream bool
	// Capabilities the tool declares (e.g. text, images), matched against
	// Step.Requires.
	Capabilities []string
	// CircuitBreaker, when set, is a client-side circuit breaker shared by
	// every caller of the tool (see breaker.go); its OnTransition is not
	// used.
	CircuitBreaker *breaker.Config
}

// RateLimit is a tool's token bucket: Rate tokens per second, Burst at most.
// With Client enforcement the caller waits for a token before dialing (the
// wait spends its deadline, and a wait that would outlast it is refused
// locally); with server enforcement a call over the limit is answered 429
// with a Retry-After of the time until the next token.
type RateLimit struct {
	Rate   float64
	Burst  int
	Client bool
}

// Cache answers HitRatio of the calls with Latency, without reaching the
// tool: no capacity, no rate-limit token, no cost.
type Cache struct {
	HitRatio float64
	Latency  dist.Dist
}

// ToolCost meters a tool's calls in abstract units. Reserve is the declared
// maximum reserved before each call; Usage is the actual usage drawn per
// call (clamped to Reserve: the maximum is the contract), plus each
// dimension's draw times its price. BillSuccessOnly bills only calls that
// succeed; otherwise every answered call is billed (billed: request). A call
// that timed out has unknown usage: its reservation is held for
// reconciliation, never settled as zero.
type ToolCost struct {
	Reserve         cost.Amount
	Usage           dist.Dist
	Dims            []CostDim
	BillSuccessOnly bool
	// InputToken and OutputToken are prices per token of a tool with
	// Tokens: a call reserves its input and reserved output tokens at
	// these prices on top of Reserve, and settles its actual tokens (a
	// failed answer bills its input alone) on top of Usage.
	InputToken, OutputToken float64
	// CacheReadToken and CacheWriteToken are the prices of input tokens
	// read from and written to a prompt cache (promptcache.go), instead
	// of InputToken.
	CacheReadToken, CacheWriteToken float64
}

// CostDim is one priced dimension of a call (input tokens, output tokens,
// cached tokens, a tool fee): Usage units drawn per call times Price.
type CostDim struct {
	Name  string
	Usage dist.Dist
	Price float64
}

// Errors are per-attempt outcome probabilities; their sum is ≤ 1 and the
// rest succeeds. Overloaded is the provider's own overload (a 529
// overloaded_error, or 503), which carries no Retry-After.
type Errors struct {
	Transient, RateLimited, Permanent, Hang float64
	Overloaded                              float64
}

// Outage is an interval [Start, End) during which every attempt dialed gets
// Mode instead of its drawn outcome; with Stall (tools with Concurrency
// only) the tool instead starts no new work while requests keep queueing;
// with Slow > 0 the attempt keeps its drawn outcome and its drawn latency
// is multiplied by Slow (a provider slowdown).
type Outage struct {
	Start, End time.Duration
	Mode       retry.Outcome // Timeout means the tool hangs
	Stall      bool
	Slow       float64
}

// ScriptEntry fixes the outcome of attempt Attempt (1-based) of the step
// calling the tool, for run Run (-1: every run).
type ScriptEntry struct {
	Run     int64
	Attempt int
	Outcome retry.Outcome // Timeout means the tool hangs
	// Latency, when > 0, replaces the drawn latency.
	Latency time.Duration
}

// Guards bound a model that runs away. Zero fields take the values of
// DefaultGuards.
type Guards struct {
	// MaxEvents stops the simulation after this many events.
	MaxEvents uint64
	// MaxTime stops it at this virtual instant.
	MaxTime time.Duration
	// MaxInSystem stops it when this many runs are in the system at once
	// (an unstable queue grows without bound).
	MaxInSystem int
	// MaxToolQueue stops it when this many requests wait at one tool.
	// Callers that give up and retry faster than a tool serves leave their
	// abandoned requests in its queue (unless it is deadline-aware or its
	// queue is bounded), which then grows without bound although the runs
	// in the system do not.
	MaxToolQueue int
	// MaxWall stops it after this much wall-clock time.
	MaxWall time.Duration
}

// DefaultGuards returns guards generous enough for any realistic scenario and
// small enough that a runaway one stops within minutes and a few hundred MB.
func DefaultGuards() Guards {
	return Guards{
		MaxEvents:    5_000_000_000,
		MaxTime:      10 * 365 * 24 * time.Hour,
		MaxInSystem:  100_000,
		MaxToolQueue: 1_000_000,
		MaxWall:      10 * time.Minute,
	}
}

// withDefaults fills zero fields from DefaultGuards.
func (g Guards) withDefaults() Guards {
	d := DefaultGuards()
	if g.MaxEvents == 0 {
		g.MaxEvents = d.MaxEvents
	}
	if g.MaxTime == 0 {
		g.MaxTime = d.MaxTime
	}
	if g.MaxInSystem == 0 {
		g.MaxInSystem = d.MaxInSystem
	}
	if g.MaxToolQueue == 0 {
		g.MaxToolQueue = d.MaxToolQueue
	}
	if g.MaxWall == 0 {
		g.MaxWall = d.MaxWall
	}
	return g
}
