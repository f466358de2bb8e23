package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/model/backoff"
	"github.com/budgetsim/budgetsim/model/dist"
	"github.com/budgetsim/budgetsim/model/hedge"
	"github.com/budgetsim/budgetsim/model/latencylog"
	"github.com/budgetsim/budgetsim/model/ratelimit"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/model/system"
)

// This file is the scenario format's table of keys: what each key is, its
// unit, default and range, and what it does. The loader reads a key only
// through the table (fields.get panics on a key the table does not list),
// takes its range, its words and whether it is required from the table
// (the typed getters in decode.go, bounds.go), and, when a mapping decodes
// cleanly, checks that it read every key the table lists for it, so the
// table cannot drift from what the loader accepts. docs/scenario-reference.md and scenarios/schema.json are
// generated from it (reference.go; go generate ./scenarios regenerates
// them, and a test fails when they are stale).

//go:generate go test -run ^TestGenerated$ -update

// Kind is the type of a key's value.
type Kind int

// The kinds of values.
const (
	KindString       Kind = iota + 1 // a single word or text
	KindInteger                      // a whole number ("1e6" and "1_000_000" too)
	KindNumber                       // a finite number
	KindBoolean                      // true or false (also yes/no, on/off)
	KindDuration                     // a duration with a unit: 250ms, 1.5s, 2h; or 0
	KindRate                         // N/s, N/m or N/h
	KindAmount                       // a cost amount in abstract units, up to 6 decimals
	KindWord                         // one of Key.Values
	KindWords                        // a word, or a list of words
	KindWarmup                       // a number of runs, or a duration
	KindMapping                      // a mapping of the keys of Key.Section
	KindList                         // a list of mappings of the keys of Key.Section
	KindNamed                        // a mapping from names of the user's choice to mappings of Key.Section
	KindDistribution                 // a distribution of durations (section "distribution")
	KindUsage                        // a distribution of plain numbers (section "distribution")
	KindWait                         // one of Key.Values, or a mapping of the keys of Key.Section
)

var kindNames = map[Kind]string{
	KindString: "string", KindInteger: "integer", KindNumber: "number", KindBoolean: "boolean",
	KindDuration: "duration", KindRate: "rate", KindAmount: "amount", KindWord: "word",
	KindWords: "word or list of words", KindWarmup: "integer or duration", KindMapping: "mapping",
	KindList: "list of mappings", KindNamed: "mapping of names to mappings",
	KindDistribution: "distribution of durations", KindUsage: "distribution of numbers",
	KindWait: "word or mapping",
}

// String returns the kind's name as the reference prints it.
func (k Kind) String() string { return kindNames[k] }

// Cond limits a key to mappings where another key of the same mapping has
// one of some values (a distribution's parameters depend on its dist:).
type Cond struct {
	Key    string
	Values []string
}

// Key documents one key of the scenario format.
type Key struct {
	// Name is the key as written.
	Name string
	// Kind is the type of its value.
	Kind Kind
	// Section names the section of a mapping's, list's or named mapping's
	// keys.
	Section string
	// Values are the words a KindWord (or KindWords) key accepts; empty
	// for free words (tool names, capabilities).
	Values []string
	// Min and Max bound a KindInteger, KindNumber or KindWarmup value,
	// inclusive, when Min < Max; with MinExclusive the value must be above
	// Min. A KindDuration or KindRate key with MinExclusive must be above
	// 0 (and a duration at most MaxDuration). The loader checks these, with
	// one message for every key (bounds.go).
	Min, Max     float64
	MinExclusive bool
	// Unit says what a number counts or measures, when the kind does not.
	Unit string
	// Default is what an absent key means, in words; "" for a required key.
	Default string
	// Required is set for a key that must be present (when When holds).
	// The loader reports a missing one as "required" followed by Missing.
	Required bool
	Missing  string
	// When, if set, limits the key to mappings where When holds.
	When *Cond
	// Example is a valid value, as written in YAML (used by the tests and
	// the reference).
	Example string
	// Doc says what the key does.
	Doc string
}

// Section is a mapping of the scenario format.
type Section struct {
	// Name identifies the section ("tool", "retry", …).
	Name string
	// Path is where it appears in a scenario, e.g. "tools.NAME.rate_limit".
	Path string
	// Doc says what the mapping is.
	Doc string
	// Keys are the section's own keys.
	Keys []Key
	// Include names sections whose keys the mapping also takes (a step
	// takes every retry key).
	Include []string
}

// section returns the section named name; it panics on an unknown name,
// a programming error.
func section(name string) *Section {
	s, ok := sectionIndex()[name]
	if !ok {
		panic("scenarios: no section " + name + " in the key table")
	}
	return s
}

// key returns the key name of s or of a section s includes.
func (s *Section) key(name string) (Key, bool) {
	for _, k := range s.Keys {
		if k.Name == name {
			return k, true
		}
	}
	for _, inc := range s.Include {
		if k, ok := section(inc).key(name); ok {
			return k, true
		}
	}
	return Key{}, false
}

// tableKey returns key name of section sec, for a value the loader splits
// off a mapping by hand (a mixture component's weight, a cost dimension's
// price); it panics on a key the table does not list.
func tableKey(sec, name string) Key {
	k, ok := section(sec).key(name)
	if !ok {
		panic("scenarios: the key table (keys.go) does not list " + sec + "." + name)
	}
	return k
}

// allKeys returns s's keys followed by those of the sections it includes.
func (s *Section) allKeys() []Key {
	keys := slices.Clone(s.Keys)
	for _, inc := range s.Include {
		keys = append(keys, section(inc).allKeys()...)
	}
	return keys
}

// Sections returns the scenario format's sections, the root first. The
// result is shared: do not modify it.
func Sections() []*Section { return sectionList() }

var sectionList = sync.OnceValue(buildSections)

var sectionIndex = sync.OnceValue(func() map[string]*Section {
	m := map[string]*Section{}
	for _, s := range sectionList() {
		m[s.Name] = s
	}
	return m
})

func buildSections() []*Section {
	processes := []string{"poisson", "constant", "batch", "schedule", "diurnal", "trace", "closed", "renewal", "mmpp"}
	when := func(key string, values ...string) *Cond { return &Cond{Key: key, Values: values} }
	return []*Section{
		{Name: "scenario", Path: "", Doc: "The top level of a scenario file.", Keys: []Key{
			{Name: "name", Kind: KindString, Required: true, Example: "agent-service",
				Doc: "The scenario's name, printed in every output."},
			{Name: "description", Kind: KindString, Default: "none", Example: `"An agent service"`,
				Doc: "One line saying what the scenario shows; `simulate list` prints it."},
			{Name: "seed", Kind: KindInteger, Min: 0, Max: math.MaxInt64, Default: "1", Example: "7",
				Doc: "Seeds every random stream. The same scenario and seed give the same output, byte for byte."},
			{Name: "runs", Kind: KindInteger, Min: 1, Max: MaxRuns, Unit: "arrivals", Default: "100000 (when horizon is absent too); a trace's length for a trace", Example: "20000",
				Doc: "How many runs arrive, warm-up included, and are measured. A closed population keeps looping past them, unmeasured, until the last has ended. Give runs or horizon, not both; a batch sets it itself."},
			{Name: "horizon", Kind: KindDuration, MinExclusive: true, Default: "none: the scenario is bounded by runs", Example: "2h",
				Doc: "Simulated time to run for, instead of a number of runs."},
			{Name: "warmup", Kind: KindWarmup, Min: 0, Max: MaxRuns, Default: "0", Example: "2000",
				Doc: "Runs (a number) or simulated time (a duration) at the start that are left out of every statistic, because the system starts empty. Must be below runs or horizon."},
			{Name: "arrivals", Kind: KindMapping, Section: "arrivals", Default: "none: required unless every class has arrivals of its own", Example: "{rate: 9/s}",
				Doc: "When runs arrive."},
			{Name: "workers", Kind: KindInteger, Min: 1, Max: MaxWorkers, Unit: "runs", Required: true, Missing: ": how many runs are served at once (≥ 1)", Example: "32",
				Doc: "How many runs are served at once. A run holds a worker from when it leaves the queue to its end."},
			{Name: "queue", Kind: KindMapping, Section: "queue", Default: "an unbounded queue", Example: "{capacity: 200}",
				Doc: "The waiting room for runs when every worker is busy."},
			{Name: "deadline", Kind: KindDuration, Default: "none: runs have no time limit", Example: "20s",
				Doc: "Each run's time limit, from its arrival. Queueing, calls and backoff sleeps all spend it. A run still queued at its deadline expires; a call's lease never outlasts it."},
			{Name: "floor", Kind: KindDuration, Default: "0", Example: "100ms",
				Doc: "Time held back at the end of the deadline: a lease is min(timeout, remaining − floor), and a call with less than the floor remaining is refused locally, never dialed."},
			{Name: "min_lease", Kind: KindDuration, Default: "0", Example: "300ms",
				Doc: "The shortest lease worth dialing: a call whose lease would be shorter is refused locally."},
			{Name: "retry", Kind: KindMapping, Section: "retry", Default: "1 attempt: no retries", Example: "{attempts: 3, idempotent: true}",
				Doc: "The retry policy of every step; a step may override any of its keys."},
			{Name: "tools", Kind: KindNamed, Section: "tool", Required: true, Missing: ": the backends the steps call", Example: "{search: {latency: {dist: exponential, mean: 300ms}}}",
				Doc: "The backends the steps call, by name."},
			{Name: "steps", Kind: KindList, Section: "step", Default: "none: required unless every class has steps of its own", Example: "[{name: search, tool: search, timeout: 2s}]",
				Doc: "The plan each run executes: its calls, in order. A run completes when its last step succeeds."},
			{Name: "classes", Kind: KindList, Section: "class", Default: "none: every run follows steps", Example: "[{name: chat, weight: 3}, {name: research, weight: 1, deadline: 5m}]",
				Doc: "Classes of work: each run belongs to one, drawn at its arrival by the classes' weights (or each class has arrivals of its own), and follows the class's steps under its deadline. Every output is given per class as well as pooled, and `plan --slo 'CLASS: …'` holds a class to its objective."},
			{Name: "guards", Kind: KindMapping, Section: "guards", Default: "the defaults of each guard", Example: "{max_wall: 1m}",
				Doc: "Limits that stop a runaway simulation with a partial result and a warning."},
			{Name: "cost", Kind: KindMapping, Section: "budget_cost", Default: "no budgets", Example: "{run_budget: 100}",
				Doc: "Cost budgets over the metered tools' calls (tools.NAME.cost)."},
			{Name: "scheduling", Kind: KindMapping, Section: "scheduling", Default: "first come, first served", Example: "{workers: fair}",
				Doc: "The order in which waiting runs get a worker: first come first served, by priority, or fair across tenants."},
			{Name: "tenants", Kind: KindNamed, Section: "tenant", Default: "none: every run is the one tenant's", Example: "{free: {weight: 1, max_in_flight: 4}, paying: {weight: 3}}",
				Doc: "The parties whose runs share the workers, by name, with their weights under fair scheduling and their caps on runs holding a worker."},
		}},
		{Name: "scheduling", Path: "scheduling", Doc: "How waiting runs are handed to workers. A run's priority and tenant are its class's.", Keys: []Key{
			{Name: "workers", Kind: KindWord, Values: system.Disciplines(), Default: "fifo", Example: "fair",
				Doc: "fifo: first come, first served. priority: strict, non-preemptive priority: the waiting run of the lowest priority value first (0 before 1), first come first served within a priority; a run holding a worker is never interrupted. fair: weighted fair queuing across tenants (start-time fair queuing): while tenants have runs waiting, each is handed runs in proportion to its weight, whatever the others send, and a run that expired waiting is not counted as its tenant's turn. Expired runs are dropped when they reach the head under each. A full queue refuses the arrival under fifo and priority; under fair, the oldest waiting run of the tenant holding the most of the queue for its weight (longest queue drop), unless that is the arrival's tenant."},
		}},
		{Name: "tenant", Path: "tenants.NAME", Doc: "A tenant: a customer, a team or a tier whose runs share the workers.", Keys: []Key{
			{Name: "weight", Kind: KindNumber, Min: 0, MinExclusive: true, Max: 1e9, Unit: "share", Default: "1", Example: "3",
				Doc: "The tenant's share of the runs handed to workers under fair scheduling, relative to the other tenants with runs waiting. Other disciplines ignore it."},
			{Name: "max_in_flight", Kind: KindInteger, Min: 1, Max: MaxWorkers, Unit: "runs", Default: "no cap", Example: "4",
				Doc: "The most runs of the tenant holding a worker at once, under any discipline: a run of a tenant at its cap waits in the queue, even while workers are free, until one of the tenant's runs ends."},
		}},
		{Name: "class", Path: "classes[]", Doc: "A class of work: its share of the arrivals, its plan and deadline.", Keys: []Key{
			{Name: "name", Kind: KindString, Required: true, Example: "chat",
				Doc: "The class's name, unique: letters, digits, - and _. Outputs name the class by it, and its own steps as CLASS/STEP."},
			{Name: "weight", Kind: KindNumber, Min: 0, MinExclusive: true, Max: 1e12, Default: "1: the classes share the arrivals equally", Example: "3",
				Doc: "The class's share of the top-level arrivals, relative to the other classes' weights. Each run's class is drawn at its arrival from a random stream of its own."},
			{Name: "arrivals", Kind: KindMapping, Section: "arrivals", Default: "none: a share of the top-level arrivals, by weight", Example: "{rate: 2/s}",
				Doc: "The class's own arrival process, an open one (poisson, constant, schedule, diurnal, trace, renewal, mmpp). Either every class has its own, and the scenario has no top-level arrivals, or none has."},
			{Name: "steps", Kind: KindList, Section: "step", Default: "the top-level steps", Example: "[{name: answer, tool: search, timeout: 2s}]",
				Doc: "The class's plan. Its steps take the top-level retry keys as defaults, like the top-level steps."},
			{Name: "deadline", Kind: KindDuration, Default: "the top-level deadline", Example: "5s",
				Doc: "The time limit of each of the class's runs, from its arrival; 0 means none."},
			{Name: "priority", Kind: KindInteger, Min: 0, Max: MaxPriority, Default: "0", Example: "1",
				Doc: "The class's priority for a priority discipline: 0 is served first."},
			{Name: "tenant", Kind: KindString, Default: "the class's name", Example: "acme",
				Doc: "The tenant the class's runs belong to, for fairness between tenants; classes may share one."},
		}},
		{Name: "queue", Path: "queue", Doc: "The runs' waiting room.", Keys: []Key{
			{Name: "capacity", Kind: KindInteger, Min: 0, Max: MaxQueue, Unit: "runs", Default: "unbounded", Example: "200",
				Doc: "How many runs may wait for a worker; an arrival that finds it full is rejected. 0 means no waiting room."},
		}},
		{Name: "budget_cost", Path: "cost", Doc: "Cost budgets, in the abstract units of the tools' prices.", Keys: []Key{
			{Name: "run_budget", Kind: KindAmount, Default: "none", Example: "100",
				Doc: "What one run may spend. A call reserves its tool's `reserve` before it is dialed; a call that does not fit what is left is refused locally."},
			{Name: "scenario_budget", Kind: KindAmount, Default: "none", Example: "1000000",
				Doc: "What all runs together may spend, reserved the same way."},
			{Name: "currency", Kind: KindString, Default: "units", Example: "USD",
				Doc: "The currency of the tools' prices, for the outputs' labels only (tables, JSON, pages): a cost per successful run reads \"0.041 USD\" instead of \"0.041 units\". Nothing is converted."},
		}},
		{Name: "arrivals", Path: "arrivals", Doc: "When runs arrive. The process decides which other keys apply.", Keys: []Key{
			{Name: "process", Kind: KindWord, Values: processes, Default: "poisson", Example: "poisson",
				Doc: "poisson: independent arrivals at rate. constant: exactly every 1/rate. batch: count runs at time 0. schedule: a piecewise-constant Poisson rate. diurnal: a sinusoidal Poisson rate. trace: replayed timestamps. closed: users agents, each thinking then starting its next run when the last one ends. renewal: independent gaps drawn from interarrival (bursty when its cv > 1). mmpp: a Markov-modulated Poisson process, its rate switching between states."},
			{Name: "rate", Kind: KindRate, MinExclusive: true, Required: true, Missing: " for {process} arrivals (e.g. rate: 9/s)", When: when("process", "poisson", "constant", "diurnal"), Example: "9/s",
				Doc: "Arrivals per unit of time (the mean, for diurnal)."},
			{Name: "count", Kind: KindInteger, Min: 1, Max: 100_000_000, Unit: "runs", Required: true, Missing: " for a batch: how many runs arrive at once", When: when("process", "batch"), Example: "100",
				Doc: "How many runs arrive at once, at time 0. A batch sets runs itself."},
			{Name: "rates", Kind: KindList, Section: "rate_point", Required: true, Missing: ": a list of {at, rate}, e.g. [{at: 0h, rate: 2/s}, {at: 9h, rate: 8/s}]", When: when("process", "schedule"), Example: "[{at: 0h, rate: 2/s}, {at: 9h, rate: 8/s}]",
				Doc: "The rate from each instant on, in order of at."},
			{Name: "repeat", Kind: KindDuration, Default: "no repeat: the last rate holds", When: when("process", "schedule"), Example: "24h",
				Doc: "The schedule's period: it starts again after this long."},
			{Name: "amplitude", Kind: KindNumber, Min: 0, Max: 1, Default: "0.5", When: when("process", "diurnal"), Example: "0.5",
				Doc: "The swing around the mean: the rate is mean × (1 + amplitude · sin(…))."},
			{Name: "period", Kind: KindDuration, MinExclusive: true, Default: "24h", When: when("process", "diurnal"), Example: "24h",
				Doc: "The length of one cycle."},
			{Name: "peak", Kind: KindDuration, Default: "a quarter of the period", When: when("process", "diurnal"), Example: "14h",
				Doc: "When in the cycle the rate is highest."},
			{Name: "file", Kind: KindString, Required: true, Missing: ": a file of arrival timestamps, one per line", When: when("process", "trace"), Example: "arrivals.txt",
				Doc: "A file of arrival timestamps, one per line, relative to the scenario's directory."},
			{Name: "users", Kind: KindInteger, Min: 1, Max: 10_000_000, Unit: "agents", Required: true, Missing: " for a closed population: how many agents loop", When: when("process", "closed"), Example: "200",
				Doc: "The closed population: how many agents loop."},
			{Name: "think", Kind: KindDistribution, Required: true, Missing: ": each agent's think time between runs (e.g. {dist: exponential, mean: 30s})", When: when("process", "closed"), Example: "{dist: exponential, mean: 30s}",
				Doc: "Each agent's pause between the end of one run and the start of the next."},
			{Name: "interarrival", Kind: KindDistribution, Required: true, Missing: ": the gap between arrivals (e.g. {dist: gamma, mean: 200ms, cv: 3})", When: when("process", "renewal"), Example: "{dist: gamma, mean: 200ms, cv: 3}",
				Doc: "The time between one arrival and the next, drawn independently for each gap. A cv above 1 makes the arrivals come in bursts at the same mean rate; exponential gaps are Poisson arrivals."},
			{Name: "states", Kind: KindList, Section: "mmpp_state", Required: true, Missing: ": a list of {rate, sojourn}, e.g. [{rate: 20/s, sojourn: 30s}, {rate: 0/s, sojourn: 2m}]", When: when("process", "mmpp"), Example: "[{rate: 20/s, sojourn: 30s}, {rate: 0/s, sojourn: 2m}]",
				Doc: "The hidden states, visited in order and then again from the first: in each, Poisson arrivals at its rate for an exponential time of mean sojourn. The long-run rate is Σ rate × sojourn ÷ Σ sojourn; a replication starts in a state drawn in proportion to the sojourns."},
		}},
		{Name: "mmpp_state", Path: "arrivals.states[]", Doc: "One state of a Markov-modulated Poisson process.", Keys: []Key{
			{Name: "rate", Kind: KindRate, Required: true, Example: "20/s", Doc: "The Poisson rate while in the state (0/s: an off period)."},
			{Name: "sojourn", Kind: KindDuration, MinExclusive: true, Required: true, Example: "30s", Doc: "The mean time spent in the state at each visit (exponentially distributed)."},
		}},
		{Name: "rate_point", Path: "arrivals.rates[]", Doc: "One step of a schedule.", Keys: []Key{
			{Name: "at", Kind: KindDuration, Required: true, Example: "0h", Doc: "When this rate starts; the first point is at 0."},
			{Name: "rate", Kind: KindRate, Required: true, Example: "8/s", Doc: "The Poisson rate from then on (0/s pauses arrivals)."},
		}},
		{Name: "retry", Path: "retry", Doc: "A retry policy. The top-level retry applies to every step; a step may set any of these keys to override it.", Keys: []Key{
			{Name: "attempts", Kind: KindInteger, Min: 1, Max: MaxAttempts, Unit: "attempts", Default: "1: no retries", Example: "3",
				Doc: "The most attempts a step makes: the first call and attempts − 1 retries. A retry needs an idempotent step (or a key)."},
			{Name: "backoff", Kind: KindMapping, Section: "backoff", Default: "base 50ms, multiplier 2, cap 5s, full jitter", Example: "{base: 200ms, multiplier: 2, cap: 2s, jitter: full}",
				Doc: "The pause before each retry. A sleep that would pass the deadline ends the run instead."},
			{Name: "retry_after", Kind: KindWord, Values: []string{"honor", "ignore"}, Default: "honor", Example: "honor",
				Doc: "honor: a Retry-After on a 429 or 503 replaces the backoff (and is checked against the deadline). ignore: the backoff applies."},
			{Name: "retry_after_jitter", Kind: KindNumber, Min: 0, Max: retry.MaxRetryAfterJitter, Default: fmt.Sprint(retry.DefaultRetryAfterJitter), Example: "0.2",
				Doc: "A Retry-After sleep is Retry-After × (1 + jitter · U), U uniform in [0, 1): never shorter than the server asked, and spread so that the clients told the same instant do not all return at once."},
			{Name: "idempotent", Kind: KindBoolean, Default: "false", Example: "true",
				Doc: "Whether repeating the call is harmless. Only an idempotent step (or one sending an idempotency key) is retried, and only an idempotent step falls back to another tool after a timeout (the call may have run)."},
			{Name: "idempotency_key", Kind: KindBoolean, Default: "false", Example: "true",
				Doc: "The step sends an idempotency key, so its own tool may be retried safely. A key does not travel to a fallback tool."},
			{Name: "allow_unsafe", Kind: KindBoolean, Default: "false", Example: "true",
				Doc: "Retry a non-idempotent step anyway; each retry after a timeout is counted as a possible duplicate execution."},
			{Name: "budget", Kind: KindMapping, Section: "budget", Default: "none: retries are limited by attempts only", Example: "{kind: token_bucket}",
				Doc: "A retry budget shared by every run's retries of the step, so that retries cannot multiply the load in an outage."},
		}},
		{Name: "backoff", Path: "retry.backoff", Doc: "Capped exponential backoff: the n-th retry's ceiling is min(cap, base × multiplier^(n−1)), and the jitter draws the sleep from it.", Keys: []Key{
			{Name: "base", Kind: KindDuration, Default: "50ms", Example: "200ms", Doc: "The first retry's ceiling."},
			{Name: "multiplier", Kind: KindNumber, Min: 1, Max: 1000, Default: "2", Example: "2", Doc: "The ceiling's growth per retry."},
			{Name: "cap", Kind: KindDuration, Default: "5s", Example: "2s", Doc: "The largest ceiling; 0 means none. Must be ≥ base."},
			{Name: "jitter", Kind: KindWord, Values: []string{"none", "full", "equal", "decorrelated", "proportional"}, Default: "full", Example: "full",
				Doc: "none: sleep the ceiling. full: uniform in [0, ceiling]. equal: ceiling/2 plus uniform in [0, ceiling/2]. decorrelated: uniform in [base, 3 × the last sleep], capped (the AWS Architecture Blog's \"Exponential Backoff And Jitter\"). proportional: ceiling × (1 ± spread), as gRPC's connection backoff; it may exceed the cap by the spread."},
			{Name: "spread", Kind: KindNumber, Min: 0, Max: 1, Default: fmt.Sprintf("%g (when 0 or absent)", backoff.DefaultSpread), Example: "0.2",
				Doc: "proportional jitter's relative half-width; other jitters ignore it."},
		}},
		{Name: "budget", Path: "retry.budget", Doc: "A retry budget. kind decides which other keys apply; the defaults are those of the system each kind comes from.", Keys: []Key{
			{Name: "kind", Kind: KindWord, Values: []string{"token_bucket", "throttle", "ratio"}, Required: true, Missing: ": token_bucket (AWS SDK standard mode), throttle (gRPC) or ratio (Finagle/Envoy)", Example: "token_bucket",
				Doc: "token_bucket: the AWS SDKs' standard retry quota. throttle: gRPC retry throttling (gRFC A6). ratio: retries at most a share of requests (Finagle, Envoy)."},
			{Name: "capacity", Kind: KindInteger, Min: 1, Max: 1_000_000_000, Unit: "tokens", Default: "500", When: when("kind", "token_bucket"), Example: "500",
				Doc: "The quota's size; it starts full."},
			{Name: "retry_cost", Kind: KindInteger, Min: 1, Max: 1_000_000_000, Unit: "tokens", Default: "5", When: when("kind", "token_bucket"), Example: "5",
				Doc: "Tokens a retry after an error takes; no tokens, no retry."},
			{Name: "timeout_cost", Kind: KindInteger, Min: 1, Max: 1_000_000_000, Unit: "tokens", Default: "10", When: when("kind", "token_bucket"), Example: "10",
				Doc: "Tokens a retry after a timeout takes."},
			{Name: "success_increment", Kind: KindInteger, Min: 0, Max: 1_000_000_000, Unit: "tokens", Default: "1", When: when("kind", "token_bucket"), Example: "1",
				Doc: "Tokens a first attempt's success gives back."},
			{Name: "max_tokens", Kind: KindInteger, Min: 1, Max: 1_000_000_000, Unit: "tokens", Default: "10", When: when("kind", "throttle"), Example: "10",
				Doc: "The bucket's size; a failure takes 1 token, and retries stop while at most half remain."},
			{Name: "token_ratio", Kind: KindNumber, Min: 0.001, Max: 1000, Unit: "tokens", Default: "0.1", When: when("kind", "throttle"), Example: "0.1",
				Doc: "Tokens a success gives back."},
			{Name: "ratio", Kind: KindNumber, Min: 0, Max: 1000, Unit: "retries per request", Default: "0.2", When: when("kind", "ratio"), Example: "0.1",
				Doc: "Retries allowed per request over the window."},
			{Name: "min_per_second", Kind: KindNumber, Min: 0, Max: 1e9, Unit: "retries per second", Default: "10", When: when("kind", "ratio"), Example: "10",
				Doc: "Retries allowed whatever the ratio, so that a quiet service can still retry."},
			{Name: "ttl", Kind: KindDuration, MinExclusive: true, Default: "10s", When: when("kind", "ratio"), Example: "10s",
				Doc: "The window over which requests and retries are counted."},
		}},
		{Name: "step", Path: "steps[]", Doc: "One call of a run's plan, with its own timeout; it takes every retry key too, overriding the top-level retry.", Include: []string{"retry"}, Keys: []Key{
			{Name: "name", Kind: KindString, Required: true, Example: "search",
				Doc: "The step's name, unique in the plan; --set steps.NAME.KEY=… selects it."},
			{Name: "tool", Kind: KindString, Default: "none: required, except on a parallel step", Example: "search",
				Doc: "The tool the step calls, a name under tools."},
			{Name: "timeout", Kind: KindDuration, Default: "none: only the deadline bounds an attempt", Example: "2s",
				Doc: "The ceiling of each attempt; the lease is min(timeout, remaining − floor). On a parallel step, its members' default."},
			{Name: "first_token_timeout", Kind: KindDuration, MinExclusive: true, Default: "none: only timeout and the deadline bound a stream", Example: "10s",
				Doc: "For calls to a streaming model API (tools.NAME.stream): a call with no first token this long after it was sent is cut, a timeout; after its first token only timeout and the deadline bound it. On a parallel step, its members' default. See docs/agents.md."},
			{Name: "fallback", Kind: KindWords, Default: "none", Example: "[cheap]",
				Doc: "Tools tried in order when the step fails on its tool or is refused, if their capabilities cover requires. After a timeout only an idempotent step falls back: the call may have run."},
			{Name: "requires", Kind: KindWords, Default: "none", Example: "[text]",
				Doc: "Capabilities a tool must declare to serve the step."},
			{Name: "tokens", Kind: KindMapping, Section: "step_tokens", Default: "the tool's tokens", Example: "{output: {dist: uniform, min: 100, max: 300}}",
				Doc: "The step's own token counts for its calls to a tool with tokens."},
			{Name: "parallel", Kind: KindList, Section: "member", Default: "none: the step is one call", Example: "[{name: page1, tool: search}, {name: page2, tool: search}]",
				Doc: "Makes the step a group of calls made at once, each with its own tool, timeout, retries and lease, under the run's deadline; the run goes on when wait is met and cancels the rest. The step's retry keys and timeout are the members' defaults. See docs/parallel-and-hedging.md."},
			{Name: "wait", Kind: KindWait, Section: "wait", Values: []string{"all", "any"}, Default: "all", Example: "{first: 1}",
				Doc: "When a parallel step is done: all members succeeded, any one did, or {first: K} of them did. It fails as soon as too few can still succeed."},
			{Name: "hedge", Kind: KindMapping, Section: "hedge", Default: "none", Example: "{delay: 200ms, max_attempts: 2}",
				Doc: "Hedged requests (gRPC's hedging policy, Polly's hedging strategy): after delay with no answer another attempt starts in parallel; the first success wins and the rest are cancelled. Each hedge is an attempt: it needs a lease from the deadline and the retry budget's leave. Only an idempotent step hedges."},
			{Name: "choose", Kind: KindList, Section: "choice", Default: "none: the step calls tool", Example: "[{tool: search, weight: 3}, {tool: cheap}]",
				Doc: "Instead of tool: the tools the step may call, one drawn by weight for each of its calls (each turn of an agent loop), as a model picks a tool."},
			{Name: "calls", Kind: KindUsage, Default: "every member", Example: "{dist: uniform, min: 1, max: 3}",
				Doc: "On a parallel step: how many of its members a run launches, drawn each time, rounded and kept within 1 … the number of members (the first that many); wait counts among them. A model's k parallel tool calls."},
			{Name: "loop", Kind: KindMapping, Section: "loop", Default: "none: the step is one call", Example: "{max_turns: 8, stop: 0.25, steps: [{name: act, tool: search}]}",
				Doc: "Makes the step an agent loop: its steps are repeated turn by turn, under the run's one deadline, budgets and retries. The step's retry keys are its steps' defaults. See docs/agents.md."},
		}},
		{Name: "loop", Path: "steps[].loop", Doc: "An agent loop: a block of steps a run repeats turn by turn. A run leaves it after a drawn number of turns, or with a probability after each turn (stop), or when the model answers (answer), and after max_turns at most; with none of turns, stop and answer, every run takes max_turns turns.", Keys: []Key{
			{Name: "steps", Kind: KindList, Section: "step", Required: true, Missing: ": the steps of one turn", Example: "[{name: think, tool: search}]",
				Doc: "The steps of one turn, in order; a parallel step among them is a turn's parallel tool calls. Their names are unique in the whole plan."},
			{Name: "max_turns", Kind: KindInteger, Required: true, Missing: ": the most turns a run takes", Min: 1, Max: MaxTurns, Unit: "turns", Example: "8",
				Doc: "The most turns a run takes in the loop."},
			{Name: "turns", Kind: KindUsage, Default: "none", Example: "{dist: uniform, min: 1, max: 8}",
				Doc: "The number of turns, drawn when a run enters the loop, rounded and kept within 1 … max_turns."},
			{Name: "stop", Kind: KindNumber, Min: 0, Max: 1, Unit: "probability", Default: "none", Example: "0.25",
				Doc: "The chance that the loop ends after each full turn: geometric turns of mean 1/stop (below max_turns)."},
			{Name: "answer", Kind: KindNumber, Min: 0, Max: 1, Unit: "probability", Default: "none", Example: "0.3",
				Doc: "The chance that the turn's first step (the model call) answers: the loop ends there, without the turn's other steps (the tool calls). Runs that reach max_turns without an answer leave the loop too, and are counted."},
			{Name: "context", Kind: KindMapping, Section: "context", Default: "none: each model call draws its own input", Example: "{system: 2000, start: {dist: uniform, min: 200, max: 800}}",
				Doc: "Makes the input of the loop's model calls grow: each sends the system prompt plus everything appended so far."},
		}},
		{Name: "context", Path: "steps[].loop.context", Doc: "A loop's growing context. A model call of the loop sends system + the task's start tokens + every earlier model output and tool result of the run (a tool's result_tokens); its own tokens.input is not drawn.", Keys: []Key{
			{Name: "system", Kind: KindInteger, Min: 0, Max: maxTokensPerCall, Unit: "tokens", Default: "0", Example: "2000",
				Doc: "The system prompt (and tool definitions): sent first in every model call of the loop, the same for every run."},
			{Name: "start", Kind: KindUsage, Default: "0", Example: "{dist: uniform, min: 200, max: 800}",
				Doc: "The task's own tokens, drawn when a run enters the loop."},
			{Name: "window", Kind: KindInteger, Min: 1, Max: maxTokensPerCall, Unit: "tokens", Default: "none: no limit", Example: "200000",
				Doc: "The model's context window: the most input tokens a call may send."},
			{Name: "at_window", Kind: KindWord, Values: []string{"refuse", "truncate", "compact"}, Default: "refuse", Example: "truncate",
				Doc: "refuse: a call whose input would exceed the window is refused locally (the step fails; a fallback may take it). truncate: the oldest appended tokens are dropped so that it fits. compact: a turn whose context passes compact.at of the window begins with an extra model call that summarises it (compact); a call that still does not fit is refused."},
			{Name: "compact", Kind: KindMapping, Section: "compact", Default: "none", Example: "{output: {dist: uniform, min: 2000, max: 6000}, at: 0.8}",
				Doc: "With at_window: compact, the compaction call: the loop's first step, named LOOP_compact in the outputs, with the loop's retry keys."},
		}},
		{Name: "compact", Path: "steps[].loop.context.compact", Doc: "A loop's context compaction, as coding agents compact a long conversation: before a turn whose context (system + everything appended) passes at × window, the run makes a model call whose input is that context (at most the window) and whose output, a summary, replaces everything appended so far. The run's own cached prefix goes with it; the shared system prompt stays cached. Its attempts, latency and cost are the step LOOP_compact's.", Keys: []Key{
			{Name: "output", Kind: KindUsage, Required: true, Missing: ": the summary's tokens", Example: "{dist: uniform, min: 2000, max: 6000}",
				Doc: "The summary's tokens (the compaction call's output, cut to its tool's max_output): the context the next turns start from."},
			{Name: "at", Kind: KindNumber, Min: 0, MinExclusive: true, Max: 1, Unit: "share of the window", Default: "1", Example: "0.8",
				Doc: "The share of the window the context must pass for the turn to compact first."},
			{Name: "tool", Kind: KindString, Default: "the tool of the loop's first model call", Example: "search",
				Doc: "The model API that writes the summary, a tool with tokens."},
			{Name: "timeout", Kind: KindDuration, Default: "none: only the deadline bounds it", Example: "60s",
				Doc: "The ceiling of each attempt of the compaction call."},
		}},
		{Name: "step_tokens", Path: "steps[].tokens", Doc: "A step's token counts, overriding its tool's. The input may instead follow an earlier step's tokens: input_scale × that step's tokens + input_plus (a summary of fetched pages).", Keys: []Key{
			{Name: "input", Kind: KindUsage, Default: "the tool's", Example: "{dist: uniform, min: 2000, max: 6000}",
				Doc: "The input tokens of the step's calls."},
			{Name: "output", Kind: KindUsage, Default: "the tool's", Example: "{dist: uniform, min: 100, max: 300}",
				Doc: "The output tokens of the step's calls (cut to the tool's max_output)."},
			{Name: "input_from", Kind: KindString, Default: "none", Example: "fetch.output",
				Doc: "STEP.output or STEP.input: the input follows the tokens of that earlier step's successful call (0 if its call used no tokens)."},
			{Name: "input_scale", Kind: KindNumber, Min: 0, Max: 1e6, Default: "1", Example: "1.0",
				Doc: "The factor on input_from's tokens."},
			{Name: "input_plus", Kind: KindInteger, Min: 0, Max: maxTokensPerCall, Unit: "tokens", Default: "0", Example: "300",
				Doc: "Tokens added to input_from's (an instruction, a system prompt)."},
		}},
		{Name: "member", Path: "steps[].parallel[]", Doc: "One call of a parallel step; it takes every retry key too, overriding the step's.", Include: []string{"retry"}, Keys: []Key{
			{Name: "name", Kind: KindString, Required: true, Example: "page1",
				Doc: "The member's name, unique among the plan's steps and members."},
			{Name: "tool", Kind: KindString, Default: "none: required unless choose is given", Example: "search",
				Doc: "The tool the member calls, a name under tools."},
			{Name: "choose", Kind: KindList, Section: "choice", Default: "none: the member calls tool", Example: "[{tool: search, weight: 3}, {tool: cheap}]",
				Doc: "Instead of tool: the tools the member may call, one drawn by weight each time it is launched."},
			{Name: "timeout", Kind: KindDuration, Default: "the parallel step's", Example: "2s",
				Doc: "The ceiling of each attempt of the member."},
			{Name: "first_token_timeout", Kind: KindDuration, MinExclusive: true, Default: "the parallel step's", Example: "10s",
				Doc: "The member's first-token timeout, as a step's."},
			{Name: "fallback", Kind: KindWords, Default: "none", Example: "[cheap]",
				Doc: "Tools the member falls back to, as a step's fallback."},
			{Name: "requires", Kind: KindWords, Default: "none", Example: "[text]",
				Doc: "Capabilities a tool must declare to serve the member."},
		}},
		{Name: "choice", Path: "steps[].choose[]", Doc: "One tool a step may call, and its weight.", Keys: []Key{
			{Name: "tool", Kind: KindString, Required: true, Missing: ": a tool under tools", Example: "search",
				Doc: "The tool, a name under tools."},
			{Name: "weight", Kind: KindNumber, Min: 1e-9, Max: 1e9, Default: "1", Example: "3",
				Doc: "Its weight: it is drawn with probability weight / the sum of the weights."},
		}},
		{Name: "wait", Path: "steps[].wait", Doc: "A parallel step that waits for the first K of its members.", Keys: []Key{
			{Name: "first", Kind: KindInteger, Required: true, Missing: ": how many members must succeed", Min: 1, Max: math.MaxInt64, Unit: "members", Example: "1",
				Doc: "How many members must succeed, at most the number of members."},
		}},
		{Name: "hedge", Path: "steps[].hedge", Doc: "A step's hedging policy.", Keys: []Key{
			{Name: "delay", Kind: KindString, Required: true, Missing: ": a duration, or a percentile of observed latency such as p95", Example: "p95",
				Doc: "How long after an attempt starts the next one does: a duration (0 sends all at once), or pNN, the NN-th percentile of the step's observed first-attempt latency in the same replication (Dean and Barroso, \"The Tail at Scale\"), after min_samples of them; before that, initial_delay."},
			{Name: "max_attempts", Kind: KindInteger, Min: 1, Max: hedge.MaxAttemptsLimit, Unit: "attempts", Default: "2", Example: "3",
				Doc: "Attempts at most, the first included (gRPC's maxAttempts, Polly's MaxHedgedAttempts + 1)."},
			{Name: "min_samples", Kind: KindInteger, Min: 1, Max: 1_000_000, Unit: "first attempts", Default: "100", Example: "50",
				Doc: "With a percentile delay: the first attempts observed before the estimate is used."},
			{Name: "initial_delay", Kind: KindDuration, Default: "that percentile of the tool's latency distribution", Example: "500ms",
				Doc: "With a percentile delay: the delay until min_samples first attempts have been observed."},
		}},
		{Name: "tool", Path: "tools.NAME", Doc: "A backend. A call's outcome is drawn from errors (and hang), then outages and the script override it.", Keys: []Key{
			{Name: "latency", Kind: KindDistribution, Default: "required, unless ttft is given", Example: "{dist: lognormal, median: 300ms, p99: 1500ms}",
				Doc: "How long a call takes to answer, success or error: an error answer (503, 429, a permanent error) arrives after a latency drawn from this distribution, like a real call that fails. Only a rate limiter's 429 and a full queue's 503 answer at once."},
			{Name: "description", Kind: KindString, Default: "none", Example: `"the web search API"`,
				Doc: "What the tool is, for the reader."},
			{Name: "errors", Kind: KindMapping, Section: "errors", Default: "no errors", Example: "{transient: 0.01}",
				Doc: "The chance that a call fails, by failure class."},
			{Name: "hang", Kind: KindNumber, Min: 0, Max: 1, Unit: "probability", Default: "0", Example: "0.01",
				Doc: "The chance that a call never answers: only its lease ends it. With errors, at most 1 in total."},
			{Name: "retry_after", Kind: KindDistribution, Default: "none; a rate limiter's 429 says when its next token comes", Example: "{dist: constant, value: 1s}",
				Doc: "The Retry-After the tool sends with every 503 and 429."},
			{Name: "outages", Kind: KindList, Section: "outage", Default: "none", Example: "[{start: 30m, end: 30m30s, mode: transient}]",
				Doc: "Intervals in which every call dialed gets the outage's outcome instead of its drawn one."},
			{Name: "script", Kind: KindList, Section: "script_entry", Default: "none", Example: "[{attempt: 1, outcome: hang}]",
				Doc: "Exact outcomes of given attempts, to replay an incident; it overrides errors and outages."},
			{Name: "contention", Kind: KindBoolean, Default: "false", Example: "true",
				Doc: "Makes the tool a row under optimistic concurrency: a write conflicts (a transient error) when another write committed after it read. The experiment behind AWS's \"Exponential Backoff And Jitter\"."},
			{Name: "concurrency", Kind: KindInteger, Min: 1, Max: MaxWorkers, Unit: "calls", Default: "unlimited: every call is served at once", Example: "8",
				Doc: "How many calls the tool serves at once; the others wait in its FIFO queue, and their wait counts against their lease."},
			{Name: "queue", Kind: KindMapping, Section: "tool_queue", Default: "an unbounded queue", Example: "{capacity: 100}",
				Doc: "The tool's waiting room; needs concurrency."},
			{Name: "deadline_aware", Kind: KindBoolean, Default: "false", Example: "true",
				Doc: "The call carries its lease (as gRPC's grpc-timeout does) and the tool drops, at dequeue, work that can no longer finish in it. Otherwise the tool serves requests whose callers gave up (wasted work). Needs concurrency."},
			{Name: "drop_floor", Kind: KindDuration, Default: "the latency's median", Example: "100ms",
				Doc: "A deadline-aware tool drops a request whose remaining lease is below this."},
			{Name: "rate_limit", Kind: KindMapping, Section: "rate_limit", Default: "none", Example: "{rate: 6/s, burst: 6}",
				Doc: "A token bucket shared by every caller of the tool."},
			{Name: "cache", Kind: KindMapping, Section: "cache", Default: "none", Example: "{hit_ratio: 0.3, latency: {dist: constant, value: 2ms}}",
				Doc: "A cache in front of the tool: a hit uses no capacity, no rate-limit token and no money."},
			{Name: "adaptive_concurrency", Kind: KindMapping, Section: "adaptive_concurrency", Default: "none: callers send every call at once", Example: "{algorithm: aimd, initial: 10, min: 1, max: 50}",
				Doc: "A client-side limit on the calls in flight to the tool, shared by every caller, that adapts to the latency and loss they observe (Netflix's concurrency-limits). See docs/resilience-policies.md."},
			{Name: "cost", Kind: KindMapping, Section: "tool_cost", Default: "not metered", Example: "{reserve: 70, usage: {dist: uniform, min: 10, max: 70}}",
				Doc: "What a call costs, for the cost budgets and the cost summary."},
			{Name: "capabilities", Kind: KindWords, Default: "none: the tool serves any step", Example: "[text]",
				Doc: "What the tool can do, matched against a step's requires."},
			{Name: "tokens", Kind: KindMapping, Section: "tokens", Default: "none: calls use no tokens", Example: "{input: {dist: uniform, min: 500, max: 1500}, output: {dist: uniform, min: 100, max: 700}}",
				Doc: "Makes the tool a model API: each call uses input and output tokens, drawn per call, which count against the per-minute limits (rate_limit.tpm, …) and are billed at cost.input_token and output_token. See docs/model-apis.md."},
			{Name: "ttft", Kind: KindDistribution, Default: "none: latency is the call's whole time", Example: "{dist: lognormal, median: 400ms, p99: 2s}",
				Doc: "A model call's time to first token, instead of latency: the call takes ttft plus per_output_token × its output tokens. Give latency or ttft, not both."},
			{Name: "per_output_token", Kind: KindDistribution, Default: "none: the output takes no time of its own", Example: "{dist: constant, value: 20ms}",
				Doc: "The time per output token of a model call, drawn once per call and multiplied by its output tokens; added to its latency (or ttft). Needs tokens."},
			{Name: "per_input_token", Kind: KindDistribution, Default: "none: the input takes no time of its own", Example: "{dist: constant, value: 50us}",
				Doc: "The prefill time per input token of a model call not read from its prompt cache, drawn once per call; added to its time to first token, so a cache hit answers sooner. Needs tokens."},
			{Name: "prompt_cache", Kind: KindMapping, Section: "prompt_cache", Default: "none: every input token is prefilled and billed at input_token", Example: "{ttl: 5m, min_tokens: 1024}",
				Doc: "The provider's prompt cache: a call whose input starts with a cached prefix reads it at cost.cache_read_token and writes the rest of its cacheable prefix at cost.cache_write_token. See docs/agents.md. Needs tokens."},
			{Name: "stream", Kind: KindBoolean, Default: "false", Example: "true",
				Doc: "The model API streams its output: a step's first_token_timeout can cut a call before its first token, and a call cut after it (its timeout, its deadline, a hedge or parallel step cancelling it) bills and counts its input and the output tokens produced by then, instead of keeping its reservation. A retry sends the whole context again. Needs tokens."},
			{Name: "result_tokens", Kind: KindUsage, Default: "none: its results add nothing", Example: "{dist: lognormal, median: 1500, p99: 8000}",
				Doc: "The tokens a successful call's result adds to the context of an agent loop (steps[].loop.context); drawn per call. A model call adds its output tokens instead."},
			{Name: "circuit_breaker", Kind: KindMapping, Section: "circuit_breaker", Default: "none", Example: "{window: {type: count, size: 20}, minimum_calls: 10, failure_rate: 0.5, open_for: 10s}",
				Doc: "A client-side circuit breaker shared by every caller of the tool (resilience4j's model): while open it refuses calls locally, and the step falls back or the run ends refused."},
		}},
		{Name: "circuit_breaker", Path: "tools.NAME.circuit_breaker", Doc: "A circuit breaker, after resilience4j's CircuitBreaker (Polly's is a special case). Closed: each call's outcome enters a sliding window; once it holds minimum_calls, a failure rate or a slow-call rate at or above its threshold opens the breaker. Open: every call is refused locally, for open_for. Half-open: half_open_probes calls are let through; their rates reopen or close it. Every error answer and every timeout counts as a failure; a cache hit does not reach the breaker.", Keys: []Key{
			{Name: "enabled", Kind: KindBoolean, Default: "true", Example: "false",
				Doc: "false: no breaker at all, as if the mapping were absent (resilience4j's disabled state); for comparing with and without one: --vary tools.NAME.circuit_breaker.enabled=false,true."},
			{Name: "defaults", Kind: KindWord, Values: []string{"resilience4j", "polly"}, Default: "resilience4j", Example: "polly",
				Doc: "Whose defaults the keys not given take: resilience4j's CircuitBreakerConfig.ofDefaults() (a window of the last 100 calls, minimum 100, failure rate 0.5, slow calls over 60s at rate 1, open for 60s, 10 probes) or Polly v8's (a 30s time window of ten 3s buckets, minimum 100, failure rate 0.1, no slow-call rule, open for 5s, 1 probe)."},
			{Name: "window", Kind: KindMapping, Section: "circuit_breaker_window", Default: "as defaults says", Example: "{type: time, size: 10}",
				Doc: "The sliding window of the closed state (resilience4j's slidingWindowType and slidingWindowSize)."},
			{Name: "minimum_calls", Kind: KindInteger, Min: 1, Max: breakerMaxWindow, Unit: "calls", Default: "100", Example: "10",
				Doc: "The calls the window must hold before its rates are checked (resilience4j's minimumNumberOfCalls, Polly's MinimumThroughput); for a count window, at most its size counts."},
			{Name: "failure_rate", Kind: KindNumber, Min: 0, MinExclusive: true, Max: 1, Unit: "share of calls", Default: "0.5 (polly: 0.1)", Example: "0.5",
				Doc: "The share of failed calls in the window at or above which the breaker opens (resilience4j's failureRateThreshold ÷ 100, Polly's FailureRatio)."},
			{Name: "slow_call_rate", Kind: KindNumber, Min: 0, MinExclusive: true, Max: 1, Unit: "share of calls", Default: "1", Example: "0.8",
				Doc: "The share of slow calls, failed or not, at or above which the breaker opens (resilience4j's slowCallRateThreshold ÷ 100)."},
			{Name: "slow_call_duration", Kind: KindDuration, Default: "60s (polly: 0)", Example: "2s",
				Doc: "A call that took longer than this, as its caller measured it, is slow (resilience4j's slowCallDurationThreshold); 0: no call is slow."},
			{Name: "open_for", Kind: KindDuration, MinExclusive: true, Default: "60s (polly: 5s)", Example: "10s",
				Doc: "How long the breaker stays open before it lets probes through (resilience4j's waitDurationInOpenState, Polly's BreakDuration)."},
			{Name: "half_open_probes", Kind: KindInteger, Min: 1, Max: breakerMaxWindow, Unit: "calls", Default: "10 (polly: 1)", Example: "3",
				Doc: "The calls let through while half-open; once that many have ended, their rates reopen or close the breaker (resilience4j's permittedNumberOfCallsInHalfOpenState)."},
		}},
		{Name: "circuit_breaker_window", Path: "tools.NAME.circuit_breaker.window", Doc: "A circuit breaker's sliding window.", Keys: []Key{
			{Name: "type", Kind: KindWord, Values: []string{"count", "time"}, Default: "count (polly: time)", Example: "time",
				Doc: "count: the outcomes of the last size calls. time: the outcomes of the calls that ended in the last size buckets of bucket each, the current one included."},
			{Name: "size", Kind: KindInteger, Min: 1, Max: breakerMaxWindow, Unit: "calls or buckets", Default: "100 (polly: 10)", Example: "20",
				Doc: "The calls a count window holds, or the buckets a time window spans."},
			{Name: "bucket", Kind: KindDuration, MinExclusive: true, Default: "1s (polly: 3s)", Example: "1s",
				Doc: "The width of a time window's bucket; buckets start at multiples of it. Only for type: time."},
		}},
		{Name: "tokens", Path: "tools.NAME.tokens", Doc: "A model call's tokens. Counts are drawn per call and rounded to whole tokens; a step may override them (steps[].tokens).", Keys: []Key{
			{Name: "input", Kind: KindUsage, Required: true, Missing: ": the input (prompt) tokens of a call, a distribution of numbers", Example: "{dist: uniform, min: 500, max: 1500}",
				Doc: "The input (prompt) tokens of a call."},
			{Name: "output", Kind: KindUsage, Required: true, Missing: ": the output tokens of a call, a distribution of numbers", Example: "{dist: lognormal, median: 300, p99: 1500}",
				Doc: "The output (completion) tokens of a call, cut to max_output."},
			{Name: "max_output", Kind: KindInteger, Min: 1, Max: maxTokensPerCall, Unit: "tokens", Default: "none: the output is not cut", Example: "1024",
				Doc: "The call's max_tokens: a longer output is cut to it."},
			{Name: "reserve_output", Kind: KindInteger, Min: 0, Max: maxTokensPerCall, Unit: "tokens", Default: "max_output; without it, the output's mean rounded up", Example: "400",
				Doc: "The output tokens a call reserves against the token limits and prices into its cost reservation before it is sent, when its length is not known yet (max_tokens, or an estimate). The reservation is corrected to the actual usage when the call is answered; a call that timed out keeps it."},
		}},
		{Name: "errors", Path: "tools.NAME.errors", Doc: "Per-call failure probabilities; with hang they sum to at most 1, and the rest succeeds. An error answer arrives after the call's drawn latency.", Keys: []Key{
			{Name: "transient", Kind: KindNumber, Min: 0, Max: 1, Unit: "probability", Default: "0", Example: "0.02",
				Doc: "A 503: retryable, with the tool's Retry-After if it sends one."},
			{Name: "rate_limited", Kind: KindNumber, Min: 0, Max: 1, Unit: "probability", Default: "0", Example: "0.01",
				Doc: "A 429: retryable, with the tool's Retry-After if it sends one."},
			{Name: "permanent", Kind: KindNumber, Min: 0, Max: 1, Unit: "probability", Default: "0", Example: "0.001",
				Doc: "An error no retry can fix: the step fails (or falls back)."},
			{Name: "overloaded", Kind: KindNumber, Min: 0, Max: 1, Unit: "probability", Default: "0", Example: "0.01",
				Doc: "The provider's own overload (Anthropic's 529 overloaded_error, a 503 elsewhere), apart from the 429s of your limits: retried as a transient error but without a Retry-After (even if the tool sends one), counted as overloaded in the outputs, billed nothing, and its tokens not counted (unless the tool's rate_limit.profile never corrects its count)."},
		}},
		{Name: "tool_queue", Path: "tools.NAME.queue", Doc: "A tool's waiting room.", Keys: []Key{
			{Name: "capacity", Kind: KindInteger, Min: 0, Max: MaxQueue, Unit: "calls", Default: "unbounded", Example: "100",
				Doc: "How many calls may wait; when it is full a call gets a 503 at once: the arriving call, or under discipline fair the oldest waiting call of the tenant holding the most of the queue for its weight (longest queue drop)."},
			{Name: "discipline", Kind: KindWord, Values: system.Disciplines(), Default: "fifo", Example: "priority",
				Doc: "The order in which waiting calls are served, by the calling runs' classes: fifo, priority (a call of the lowest priority value first, never interrupting one in service) or fair (weighted fair queuing across the tenants, by their weights; their max_in_flight caps runs, not calls, and does not apply here)."},
		}},
		{Name: "rate_limit", Path: "tools.NAME.rate_limit", Doc: "A token bucket: rate tokens a second, at most burst at once; each call takes one. Or a model provider's per-minute limits (rpm, tpm, itpm, otpm), each a bucket of one minute's allowance refilled continuously, that a call must fit all at once.", Keys: []Key{
			{Name: "rate", Kind: KindRate, MinExclusive: true, Default: "required, unless per-minute limits are given", Example: "6/s", Doc: "Tokens added per unit of time."},
			{Name: "burst", Kind: KindInteger, Min: 1, Max: 1_000_000_000, Unit: "calls", Default: "1", Example: "6",
				Doc: "The bucket's size. The default of 1 admits no two calls closer than 1/rate: a 10/s limit with burst 1 turns away about a third of 5/s Poisson traffic. Set it to what the provider allows, often the rate times one second."},
			{Name: "enforce", Kind: KindWord, Values: []string{"server", "client"}, Default: "server", Example: "client",
				Doc: "server: a call over the limit gets a 429 at once, with the tool's Retry-After or else the time until the next token. client: the caller waits for a token before dialing; the wait spends its deadline, and a wait that would outlast it is refused locally."},
			{Name: "rpm", Kind: KindInteger, Min: 1, Max: maxPerMinute, Unit: "requests per minute", Default: "none", Example: "500",
				Doc: "Requests per minute: each call counts 1."},
			{Name: "tpm", Kind: KindInteger, Min: 1, Max: maxPerMinute, Unit: "tokens per minute", Default: "none", Example: "80000",
				Doc: "Tokens per minute: a call counts its input plus output tokens, reserving its input and tokens.reserve_output before it is sent and corrected to its actual usage after. Needs tokens."},
			{Name: "itpm", Kind: KindInteger, Min: 1, Max: maxPerMinute, Unit: "tokens per minute", Default: "none", Example: "60000",
				Doc: "Input tokens per minute. Needs tokens."},
			{Name: "otpm", Kind: KindInteger, Min: 1, Max: maxPerMinute, Unit: "tokens per minute", Default: "none", Example: "20000",
				Doc: "Output tokens per minute, reserved and corrected as for tpm. Needs tokens."},
			{Name: "profile", Kind: KindWord, Values: ratelimit.ProfileNames(), Default: "none: the generic rules above", Example: "azure-openai",
				Doc: "A provider's admission rules for the per-minute limits, as its documentation gives them (docs/providers.md, with sources and dates): how a call is counted when admitted (input only, + tokens.reserve_output, + max_output), whether prompt-cache reads count, whether the count is corrected when the call ends, each limit's window (continuous bucket, per-minute counter, 1 s windows, leaky bucket of utilisation), the header a 429 carries, and spill-over. anthropic: input on admission, output as generated, cache reads free, retry-after in seconds. openai: rpm in 1 s windows, max(max_output, input) against tpm, never corrected. azure-openai: rpm in 1 s windows, tpm a per-minute counter of input + max_output, never corrected, retry-after-ms. azure-ptu: a leaky bucket of utilisation that admits a call while at most 100 % and corrects it at the end; cache reads free. bedrock: input + max_output reserved (needs tokens.max_output), settled at the end, no Retry-After. vertex-pt: a call that does not fit the provisioned quota spills over to pay-as-you-go, billed at the tool's token prices, while calls within the quota bill no tokens. Needs per-minute limits."},
		}},
		{Name: "adaptive_concurrency", Path: "tools.NAME.adaptive_concurrency", Doc: "An adaptive concurrency limit, after Netflix's concurrency-limits (its AIMDLimit and Gradient2Limit; the defaults are that library's). A call holds a permit from its dial to its end; a success, or a drop (a timeout, 503 or 429), moves the limit; a permanent error does not.", Keys: []Key{
			{Name: "algorithm", Kind: KindWord, Values: []string{"aimd", "gradient"}, Required: true, Missing: ": aimd or gradient", Example: "aimd",
				Doc: "aimd: on a drop, or a call slower than timeout, the limit becomes ⌊limit × backoff_ratio⌋; on a success while at least half the limit is in use, it grows by 1. gradient: the limit follows long RTT ÷ RTT: it shrinks while latency is above rtt_tolerance × its long-term average, and grows by queue_size (smoothed) while it is not."},
			{Name: "initial", Kind: KindInteger, Min: 1, Max: MaxWorkers, Unit: "calls", Default: "20, or the nearest of min and max", Example: "10",
				Doc: "The limit before any call has ended (initialLimit). In [min, max]."},
			{Name: "min", Kind: KindInteger, Min: 1, Max: MaxWorkers, Unit: "calls", Default: "20, or initial or max if lower", Example: "1",
				Doc: "The smallest limit (minLimit)."},
			{Name: "max", Kind: KindInteger, Min: 1, Max: MaxWorkers, Unit: "calls", Default: "200, or initial or min if higher", Example: "50",
				Doc: "The largest limit (maxLimit; gradient's maxConcurrency); at least min."},
			{Name: "on_limit", Kind: KindWord, Values: []string{"wait", "reject"}, Default: "wait", Example: "reject",
				Doc: "wait: a call over the limit waits in the callers' FIFO for a slot; the wait spends the run's deadline, and a wait still going on when only the floor and min_lease are left, or after max_wait, is refused locally. reject: it is refused locally at once. A refused call goes to the step's fallback, if any."},
			{Name: "max_wait", Kind: KindDuration, Default: "0: as long as the deadline allows", Example: "5s",
				Doc: "The longest a call waits for a slot before it is refused locally (BlockingLimiter's timeout). 0 means no limit but the deadline's."},
			{Name: "backoff_ratio", Kind: KindNumber, Min: 0.5, Max: 0.99, Unit: "factor", Default: "0.9", When: when("algorithm", "aimd"), Example: "0.9",
				Doc: "What a drop multiplies the limit by (backoffRatio)."},
			{Name: "timeout", Kind: KindDuration, MinExclusive: true, Default: "5s", When: when("algorithm", "aimd"), Example: "2s",
				Doc: "A successful call slower than this counts as a drop (timeout)."},
			{Name: "smoothing", Kind: KindNumber, Min: 0, Max: 1, MinExclusive: true, Default: "0.2", When: when("algorithm", "gradient"), Example: "0.2",
				Doc: "The weight of each new estimate against the current limit (smoothing)."},
			{Name: "queue_size", Kind: KindInteger, Min: 0, Max: MaxWorkers, Unit: "calls", Default: "4", When: when("algorithm", "gradient"), Example: "4",
				Doc: "How much the limit may grow per call, before smoothing, while latency holds (queueSize)."},
			{Name: "long_window", Kind: KindInteger, Min: 1, Max: 1_000_000_000, Unit: "calls", Default: "600", When: when("algorithm", "gradient"), Example: "600",
				Doc: "The span of the long-term RTT average, in calls (longWindow)."},
			{Name: "rtt_tolerance", Kind: KindNumber, Min: 1, Max: 1e6, Unit: "factor", Default: "1.5", When: when("algorithm", "gradient"), Example: "1.5",
				Doc: "How many times the long-term RTT a call may take before the limit shrinks (rttTolerance)."},
		}},
		{Name: "cache", Path: "tools.NAME.cache", Doc: "A cache in front of a tool.", Keys: []Key{
			{Name: "hit_ratio", Kind: KindNumber, Min: 0, Max: 1, Unit: "share of calls", Required: true, Missing: ": the share of calls the cache answers, in [0, 1]", Example: "0.3",
				Doc: "The share of calls the cache answers."},
			{Name: "latency", Kind: KindDistribution, Required: true, Missing: " (e.g. latency: {dist: constant, value: 2ms})", Example: "{dist: constant, value: 2ms}",
				Doc: "How long a hit takes."},
		}},
		{Name: "prompt_cache", Path: "tools.NAME.prompt_cache", Doc: "A model API's prompt cache. The cacheable prefix of a call in an agent loop with a context is its whole input (the next turn's starts with it), of which the loop's system prompt is shared by every run; outside loops it is the shared prefix. An entry is readable once the call that writes it starts to answer (its time to first token): parallel calls sent before then miss it.", Keys: []Key{
			{Name: "ttl", Kind: KindDuration, Required: true, Missing: ": how long an entry lives (e.g. 5m)", Example: "5m",
				Doc: "How long an entry lives after it is written and, with refresh, after each read."},
			{Name: "refresh", Kind: KindBoolean, Default: "true", Example: "false",
				Doc: "Whether a read extends an entry's life by ttl (as providers document for their prompt caches)."},
			{Name: "min_tokens", Kind: KindInteger, Min: 0, Max: maxTokensPerCall, Unit: "tokens", Default: "0", Example: "1024",
				Doc: "The shortest prefix the provider caches."},
			{Name: "prefix", Kind: KindInteger, Min: 0, Max: maxTokensPerCall, Unit: "tokens", Default: "0", Example: "2000",
				Doc: "The shared prefix of calls outside agent loops (a system prompt common to every run); inside a loop it is the loop's context.system."},
		}},
		{Name: "tool_cost", Path: "tools.NAME.cost", Doc: "A metered tool. Each call reserves reserve before it is dialed and settles its usage after; a call that timed out has unknown usage, and its reservation is held, never settled as zero. Usage is capped at reserve.", Keys: []Key{
			{Name: "reserve", Kind: KindAmount, Default: "required, unless a token price is given (then 0)", Example: "70",
				Doc: "The call's declared maximum, reserved before dialing."},
			{Name: "input_token", Kind: KindNumber, Min: 0, Max: 1e9, Unit: "cost units per token", Default: "0", Example: "0.000003",
				Doc: "The price of an input token of a tool with tokens: a call reserves its input tokens at this price on top of reserve, and settles the tokens it used (a failed answer bills its input)."},
			{Name: "output_token", Kind: KindNumber, Min: 0, Max: 1e9, Unit: "cost units per token", Default: "0", Example: "0.000015",
				Doc: "The price of an output token: a call reserves tokens.reserve_output at this price and settles the output it used."},
			{Name: "cache_read_token", Kind: KindNumber, Min: 0, Max: 1e9, Unit: "cost units per token", Default: "input_token", Example: "0.0000003",
				Doc: "The price of an input token read from the tool's prompt cache (tools.NAME.prompt_cache)."},
			{Name: "cache_write_token", Kind: KindNumber, Min: 0, Max: 1e9, Unit: "cost units per token", Default: "input_token", Example: "0.00000375",
				Doc: "The price of an input token written to the tool's prompt cache."},
			{Name: "usage", Kind: KindUsage, Default: "none (then dims is required)", Example: "{dist: uniform, min: 10, max: 70}",
				Doc: "The amount a call costs, drawn per call."},
			{Name: "dims", Kind: KindNamed, Section: "cost_dim", Default: "none", Example: "{output_tokens: {price: 0.002, dist: uniform, min: 100, max: 900}}",
				Doc: "Priced dimensions of a call (input tokens, output tokens, a fee), by name: each adds its drawn units × its price."},
			{Name: "billed", Kind: KindWord, Values: []string{"request", "success"}, Default: "request", Example: "success",
				Doc: "request: every answered call is billed. success: only calls that succeed."},
		}},
		{Name: "cost_dim", Path: "tools.NAME.cost.dims.NAME", Doc: "A priced dimension: a distribution of numbers (its keys as under distribution) plus a price.", Include: []string{"distribution"}, Keys: []Key{
			{Name: "price", Kind: KindNumber, Min: 0, Max: math.MaxFloat64, Unit: "cost units per unit", Required: true, Missing: ": cost units per unit of usage", Example: "0.002",
				Doc: "What one unit of this dimension costs."},
		}},
		{Name: "outage", Path: "tools.NAME.outages[]", Doc: "An interval [start, end) of simulated time.", Keys: []Key{
			{Name: "start", Kind: KindDuration, Required: true, Example: "30m", Doc: "When the outage starts."},
			{Name: "end", Kind: KindDuration, Required: true, Example: "30m30s", Doc: "When it ends; after start."},
			{Name: "mode", Kind: KindWord, Values: []string{"hang", "transient", "rate_limited", "stall", "slow"}, Required: true, Missing: ": hang, transient, rate_limited, stall or slow", Example: "transient",
				Doc: "What a call dialed in the outage gets. hang: no answer; only its lease ends it (a timeout). transient: a 503 after the call's drawn latency, with the tool's Retry-After if it sends one: a slow failure, not a fast one. rate_limited: a 429, the same way. stall: the tool (it needs concurrency) starts no new work while calls keep queueing; they are served, or time out, after the stall. slow: the call keeps its drawn outcome, and its drawn latency is multiplied by factor (a provider slowdown)."},
			{Name: "factor", Kind: KindNumber, Min: 1, Max: 1e6, Unit: "factor", Required: true, Missing: " with mode slow: what the calls' latency is multiplied by (e.g. factor: 5)", When: when("mode", "slow"), Example: "5",
				Doc: "What the latency of a call dialed in a slow outage is multiplied by."},
		}},
		{Name: "script_entry", Path: "tools.NAME.script[]", Doc: "A fixed outcome for an attempt, to replay an incident.", Keys: []Key{
			{Name: "run", Kind: KindInteger, Min: 0, Max: MaxRuns, Unit: "run number, from 0", Default: "every run", Example: "0",
				Doc: "The run it applies to."},
			{Name: "attempt", Kind: KindInteger, Min: 1, Max: MaxAttempts, Required: true, Example: "1",
				Doc: "The attempt it applies to, from 1, of any step calling the tool."},
			{Name: "outcome", Kind: KindWord, Values: outcomeWords, Required: true, Missing: ": one of " + strings.Join(outcomeWords, ", "), Example: "hang",
				Doc: "ok, hang (no answer), transient (503), rate_limited (429) or permanent."},
			{Name: "latency", Kind: KindDuration, Default: "the drawn latency", Example: "1s",
				Doc: "How long the attempt takes to answer."},
		}},
		{Name: "guards", Path: "guards", Doc: "Limits that stop a runaway simulation. A stopped simulation reports what it measured, marked partial, with a warning.", Keys: []Key{
			{Name: "max_in_system", Kind: KindInteger, Min: 1, Max: MaxInSystemGuard, Unit: "runs", Default: fmt.Sprint(system.DefaultGuards().MaxInSystem), Example: "100000",
				Doc: "Runs in the system at once (an unbounded queue that keeps growing). About 350 bytes each: the bound keeps a runaway model within memory."},
			{Name: "max_tool_queue", Kind: KindInteger, Min: 1, Max: MaxToolQueueGuard, Unit: "calls", Default: fmt.Sprint(system.DefaultGuards().MaxToolQueue), Example: "1000000",
				Doc: "Calls waiting at one tool (abandoned work piles up there in a retry storm). About 90 bytes each."},
			{Name: "max_events", Kind: KindInteger, Min: 1, Max: math.MaxInt64, Unit: "events", Default: fmt.Sprint(system.DefaultGuards().MaxEvents), Example: "5000000000",
				Doc: "Simulation events."},
			{Name: "max_time", Kind: KindDuration, Default: shortDuration(system.DefaultGuards().MaxTime), Example: "24h",
				Doc: "Simulated time."},
			{Name: "max_wall", Kind: KindDuration, Default: shortDuration(system.DefaultGuards().MaxWall), Example: "10m",
				Doc: "Wall-clock time."},
		}},
		distributionSection(),
		{Name: "mixture_component", Path: "….of[]", Doc: "One component of a mixture: a distribution (its keys as under distribution) plus a weight.", Include: []string{"distribution"}, Keys: []Key{
			{Name: "weight", Kind: KindNumber, Min: 0, MinExclusive: true, Max: math.MaxFloat64, Required: true, Example: "0.9",
				Doc: "The component's relative weight. Weights need not sum to 1."},
		}},
	}
}

// paramDocs documents the distributions' parameters (model/dist.Params).
var paramDocs = map[string]struct{ doc, example string }{
	"value":  {"The constant value.", "10ms"},
	"mean":   {"The mean.", "1s"},
	"cv":     {"The coefficient of variation (standard deviation ÷ mean), > 0.", "0.5"},
	"median": {"The median.", "300ms"},
	"sigma":  {"The standard deviation of the logarithm, > 0; give sigma or p99, not both.", "0.5"},
	"p99":    {"The 99th percentile, above the median; give sigma or p99, not both.", "1500ms"},
	"min":    {"The smallest value (uniform, pareto).", "10ms"},
	"max":    {"The largest value (uniform), above min.", "50ms"},
	"alpha":  {"The Pareto tail index, > 0 (the mean is finite only above 1).", "2.5"},
	"scale":  {"The Weibull scale, > 0.", "1s"},
	"shape":  {"The Weibull shape, > 0 (1 is exponential).", "1.5"},
}

// distributionSection builds the distribution section from model/dist's
// own list of families and parameters.
func distributionSection() *Section {
	families := append(dist.Families(), "mixture", "empirical")
	slices.Sort(families)
	s := &Section{Name: "distribution", Path: "…latency, retry_after, think, usage, …",
		Doc: "A distribution. dist decides which other keys apply. In a distribution of durations (latency, retry_after, think) the parameters " +
			strings.Join(timeParamNames(), ", ") + " are durations and the others plain numbers; in a distribution of numbers (cost usage and dims) all are numbers."}
	s.Keys = append(s.Keys, Key{Name: "dist", Kind: KindWord, Values: families, Required: true, Missing: ": which distribution (" + strings.Join(families, ", ") + ")", Example: "exponential",
		Doc: "The family: " + strings.Join(familyDocs(), "; ") + "."})
	byParam := map[string][]string{}
	var order []string
	for _, fam := range dist.Families() {
		params, _ := dist.Params(fam)
		for _, p := range params {
			if _, seen := byParam[p]; !seen {
				order = append(order, p)
			}
			byParam[p] = append(byParam[p], fam)
		}
	}
	for _, p := range order {
		d := paramDocs[p]
		// Every parameter is required but lognormal's sigma/p99 pair
		// (model/dist.Params).
		required, def := true, ""
		if p == "sigma" || p == "p99" {
			required, def = false, "none: give sigma or p99"
		}
		s.Keys = append(s.Keys, Key{Name: p, Kind: KindNumber, Required: required, Default: def,
			When: &Cond{Key: "dist", Values: byParam[p]}, Example: d.example, Doc: d.doc})
	}
	s.Keys = append(s.Keys,
		Key{Name: "of", Kind: KindList, Section: "mixture_component", Required: true, Missing: ": a list of {weight, dist, …}", When: &Cond{Key: "dist", Values: []string{"mixture"}},
			Example: "[{weight: 0.9, dist: lognormal, median: 1s, sigma: 0.5}, {weight: 0.1, dist: constant, value: 10s}]",
			Doc:     "The mixture's components: each call draws a component by weight, then a value from it."},
		Key{Name: "file", Kind: KindString, Required: true, Missing: ": a file of durations, one per line", When: &Cond{Key: "dist", Values: []string{"empirical"}}, Example: "latencies.txt",
			Doc: "A latency log, one duration per line (or CSV), relative to the scenario's directory; values are drawn from its samples."},
		Key{Name: "max_samples", Kind: KindInteger, Min: 1000, Max: latencylog.MaxMaxSamples, Unit: "samples", Default: fmt.Sprint(latencylog.DefaultMaxSamples), When: &Cond{Key: "dist", Values: []string{"empirical"}}, Example: "20000000",
			Doc: "The most samples the file may hold (8 bytes each in memory); a longer file is an error naming this key."},
	)
	return s
}

// timeParamNames returns the parameters that are durations in a
// distribution of durations, sorted.
func timeParamNames() []string {
	var names []string
	for p := range timeParams {
		names = append(names, p)
	}
	slices.Sort(names)
	return names
}

func familyDocs() []string {
	var out []string
	for _, fam := range dist.Families() {
		params, _ := dist.Params(fam)
		out = append(out, fam+" {"+strings.Join(params, ", ")+"}")
	}
	return append(out, "mixture {of}", "empirical {file}")
}

// applies reports whether k applies in mapping f: it has no condition, or
// f's condition key (or its default) is one of the values.
func (k Key) applies(f *fields, s *Section) bool {
	return k.When == nil || slices.Contains(k.When.Values, condValue(f, s, k.When.Key))
}

// condValue returns the word of condition key ck in mapping f of section
// s, or its default when absent ("" when it is not a word).
func condValue(f *fields, s *Section, ck string) string {
	if n, ok := f.vals[ck]; ok {
		if r := resolve(n); r.Kind == yaml.ScalarNode {
			return r.Value
		}
		return ""
	}
	k, _ := s.key(ck)
	return k.Default
}

// missing is the message for key k, required and absent from mapping f of
// section s: "required" and k.Missing, where {KEY} stands for the word of
// k's condition key.
func (k Key) missing(f *fields, s *Section) string {
	m := k.Missing
	if k.When != nil {
		m = strings.ReplaceAll(m, "{"+k.When.Key+"}", condValue(f, s, k.When.Key))
	}
	return "required" + m
}
