// Package validate checks the simulator against closed forms of queueing
// theory: M/M/1, M/M/c (Erlang C), M/M/c/K, M/D/1 and M/G/1
// (Pollaczek–Khinchine), closed populations with one and with several
// workers (exact Mean Value Analysis), a tool with concurrency c behind more
// workers (M/M/c, first-in first-out), M/G/1 with non-preemptive priority
// classes (Cobham's mean wait of each class), a circuit breaker's refusals
// while open in a hard outage (the arrival rate), parallel steps (order
// statistics of exponential calls), a hedged lognormal call, a model API's
// token limits (the calls per second a saturated tpm limit admits, and a
// client-side itpm wait as the single-server queue of service time
// tokens / rate), and the utilisation law and Little's law on each. Every
// check simulates independent replications of a bundled
// scenario (for a closed population, agent-fleet reduced by overrides to
// the product-form model MVA solves),
// builds a Student-t confidence interval from the per-replication
// estimates, and passes when the analytic value lies inside it, widened on
// each side by the percentile sketch's stated relative error where the
// figure is a percentile. The analytic values are computed from the
// scenario's own parameters. WriteTable writes a Report as "simulate
// validate" prints it.
package validate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/budgetsim/budgetsim/model/analytic"
	"github.com/budgetsim/budgetsim/model/dist"
	"github.com/budgetsim/budgetsim/model/replicate"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Check is one comparison of a simulated figure with its closed form.
type Check struct {
	// Scenario is the validated case: a bundled scenario's name, or a
	// case name when the scenario is validated with Sets applied.
	Scenario string `json:"scenario"`
	// Sets are the overrides applied to the bundled scenario Base.
	Base   string   `json:"base,omitempty"`
	Sets   []string `json:"sets,omitempty"`
	Model  string   `json:"model"`
	Figure string   `json:"figure"`
	// Formula names the closed form the analytic value comes from.
	Formula  string  `json:"formula"`
	Analytic float64 `json:"analytic"`
	// Simulated is the mean of the per-replication estimates; [Lo, Hi] is
	// its Student-t confidence interval.
	Simulated float64 `json:"simulated"`
	Lo        float64 `json:"ci_lo"`
	Hi        float64 `json:"ci_hi"`
	// Allowance is the systematic error allowed on each side of the
	// interval (the sketch's relative error for percentiles, else 0).
	Allowance float64 `json:"allowance"`
	Pass      bool    `json:"pass"`
}

// Report is the outcome of a validation. Level is family-wise: each of the
// n checks uses a Bonferroni-corrected interval at 1 − (1 − Level)/n
// (CheckLevel), so that a correct simulator passes every check with
// probability at least Level.
type Report struct {
	Level        float64 `json:"level"`
	CheckLevel   float64 `json:"check_level"`
	Replications int     `json:"replications"`
	Checks       []Check `json:"checks"`
}

// Passed reports whether every check passed.
func (r Report) Passed() bool {
	for _, c := range r.Checks {
		if !c.Pass {
			return false
		}
	}
	return true
}

// figure extracts one replication's estimate from its result.
type figure struct {
	name, formula string
	percentile    bool
	absolute      float64 // allowance for rounding, on each side
	analytic      func(cfg *system.Config) (float64, error)
	estimate      func(r *system.Result) float64
}

type model struct {
	scenario, name string
	figures        []figure
	// base and sets, when set, load the bundled scenario base with sets
	// applied; scenario is then the case's name.
	base string
	sets []string
}

func rate(cfg *system.Config) float64 { return cfg.Arrivals.Rate }

// mu is the service rate of the scenario's single tool.
func mu(cfg *system.Config) float64 { return 1 / cfg.Tools[0].Latency.Mean() }

func mm1(cfg *system.Config) analytic.MM1 { return analytic.MM1{Lambda: rate(cfg), Mu: mu(cfg)} }
func mmc(cfg *system.Config) analytic.MMc {
	return analytic.MMc{Lambda: rate(cfg), Mu: mu(cfg), C: cfg.Workers}
}
func mmck(cfg *system.Config) analytic.MMcK {
	return analytic.MMcK{Lambda: rate(cfg), Mu: mu(cfg), C: cfg.Workers, K: cfg.Workers + cfg.QueueCapacity}
}
func mg1(cfg *system.Config) analytic.MG1 {
	s := cfg.Tools[0].Latency
	return analytic.MG1{Lambda: rate(cfg), MeanService: s.Mean(), SecondMoment: dist.SecondMoment(s)}
}

func meanSojourn(r *system.Result) float64 {
	if n := r.Runs.Ended(); n > 0 {
		return r.SojournSum / float64(n)
	}
	return math.NaN()
}
func timeAvg(r *system.Result) float64    { return r.TimeAvgInSystem }
func meanWait(r *system.Result) float64   { return r.Wait.Mean() }
func p99Sojourn(r *system.Result) float64 { return r.Latency.Quantile(0.99) }

// littleGap is (λW − L)/L with L integrated over time.
func littleGap(r *system.Result) float64 {
	w := r.Window.Seconds()
	return (float64(float64(r.Runs.Arrived)/w*meanSojourn(r)) - r.TimeAvgInSystem) / r.TimeAvgInSystem
}

// utilisation is the time-average share of busy workers over the
// measured window.
func utilisation(r *system.Result) float64 { return r.WorkerUtilisation }

// utilisationFigure is the utilisation law, U = X·E[S]/c: the carried
// load over the servers. rho gives its analytic value for a config.
func utilisationFigure(formula string, rho func(c *system.Config) (float64, error)) figure {
	return figure{name: "worker utilisation", formula: formula, analytic: rho, estimate: utilisation}
}

// closed is the closed network a closed-population scenario with one step
// is: its users think, then hold one of the workers for the step's mean
// latency.
func closed(cfg *system.Config) analytic.Closed {
	return analytic.Closed{
		N:        cfg.Arrivals.Users,
		Think:    cfg.Arrivals.Think.Mean(),
		Stations: []analytic.Station{{Demand: cfg.Tools[cfg.Steps[0].Tool].Latency.Mean(), Servers: cfg.Workers}},
	}
}

func closedMeans(cfg *system.Config) (analytic.ClosedMeans, error) { return closed(cfg).MVA() }

// throughput is the rate of ended measured runs over the measured window.
func throughput(r *system.Result) float64 {
	return float64(r.Runs.Ended()) / r.Window.Seconds()
}

// closedFigures are the checks of a closed population against exact MVA.
func closedFigures() []figure {
	return []figure{
		{name: "throughput (runs/s)", formula: "exact MVA: X(N) = N/(Z + R(N))",
			analytic: func(c *system.Config) (float64, error) { m, err := closedMeans(c); return m.Throughput, err }, estimate: throughput},
		{name: "mean time in system (s)", formula: "exact MVA: R(N), multi-server by Reiser–Lavenberg",
			analytic: func(c *system.Config) (float64, error) { m, err := closedMeans(c); return m.Response, err }, estimate: meanSojourn},
		{name: "mean runs in system", formula: "exact MVA: Q(N) = X(N) R(N)",
			analytic: func(c *system.Config) (float64, error) { m, err := closedMeans(c); return m.Queue[0], err }, estimate: timeAvg},
		utilisationFigure("utilisation law: U = X(N) E[S]/c, X from MVA", func(c *system.Config) (float64, error) {
			m, err := closedMeans(c)
			return m.Utilisation[0], err
		}),
		littleFigure,
	}
}

// closedSets reduce agent-fleet to a product-form closed network: one
// step of exponential service, no deadline and no errors, users agents
// thinking an exponential think time, workers servers.
func closedSets(users, think, workers string) []string {
	return []string{
		"arrivals.users=" + users, "arrivals.think={dist: exponential, mean: " + think + "}",
		"workers=" + workers, "deadline=0", "steps=[{name: serve, tool: model}]",
		"tools.model.latency={dist: exponential, mean: 1s}",
	}
}

var littleFigure = figure{
	name:     "(λW − L)/L (Little's law)",
	formula:  "Little: L = λW, so the relative gap is 0 (to rounding, 1e-9)",
	absolute: 1e-9,
	analytic: func(*system.Config) (float64, error) { return 0, nil },
	estimate: littleGap,
}

// models lists the validated models and their figures.
func models() []model {
	return append([]model{
		{"mm1", "M/M/1", []figure{
			{name: "mean time in system (s)", formula: "M/M/1: W = 1/(μ − λ)",
				analytic: func(c *system.Config) (float64, error) { return mm1(c).MeanSojourn() }, estimate: meanSojourn},
			{name: "p99 time in system (s)", formula: "M/M/1: sojourn ~ Exp(μ − λ), p99 = ln(100)/(μ − λ)", percentile: true,
				analytic: func(c *system.Config) (float64, error) { return mm1(c).SojournQuantile(0.99) }, estimate: p99Sojourn},
			{name: "mean runs in system", formula: "M/M/1: L = ρ/(1 − ρ)",
				analytic: func(c *system.Config) (float64, error) { return mm1(c).MeanInSystem() }, estimate: timeAvg},
			utilisationFigure("utilisation law: U = ρ = λ/μ", func(c *system.Config) (float64, error) { return mm1(c).Rho() }),
			littleFigure,
		}, "", nil},
		{"mmc", "M/M/c", []figure{
			{name: "probability of waiting", formula: "Erlang C: C(c, a), via the Erlang B recursion",
				analytic: func(c *system.Config) (float64, error) { return mmc(c).ErlangC() },
				estimate: func(r *system.Result) float64 { return float64(r.Waited) / float64(r.Wait.Count()) }},
			{name: "mean wait (s)", formula: "Erlang C: Wq = C(c, a)/(cμ − λ)",
				analytic: func(c *system.Config) (float64, error) { return mmc(c).MeanWait() }, estimate: meanWait},
			{name: "p99 time in system (s)", formula: "M/M/c: sojourn = Erlang-C wait + Exp(μ), CDF inverted by bisection", percentile: true,
				analytic: func(c *system.Config) (float64, error) { return mmc(c).SojournQuantile(0.99) }, estimate: p99Sojourn},
			{name: "mean runs in system", formula: "M/M/c: L = λ(Wq + 1/μ)",
				analytic: func(c *system.Config) (float64, error) { return mmc(c).MeanInSystem() }, estimate: timeAvg},
			utilisationFigure("utilisation law: U = λ/(cμ)", func(c *system.Config) (float64, error) { return mmc(c).Rho() }),
			littleFigure,
		}, "", nil},
		{"mmck", "M/M/c/K", []figure{
			{name: "blocking probability", formula: "M/M/c/K: p_K of the birth–death stationary distribution",
				analytic: func(c *system.Config) (float64, error) { return mmck(c).BlockingProbability() },
				estimate: func(r *system.Result) float64 { return float64(r.Runs.Rejected) / float64(r.Runs.Arrived) }},
			{name: "mean runs in system", formula: "M/M/c/K: L = Σ n p_n",
				analytic: func(c *system.Config) (float64, error) { return mmck(c).MeanInSystem() }, estimate: timeAvg},
			{name: "mean time in system, admitted (s)", formula: "M/M/c/K: W = L / (λ(1 − p_K)) (Little)",
				analytic: func(c *system.Config) (float64, error) { return mmck(c).MeanSojourn() },
				estimate: func(r *system.Result) float64 { return r.Latency.Mean() }},
			utilisationFigure("utilisation law on admitted runs: U = λ(1 − p_K)/(cμ)", func(c *system.Config) (float64, error) {
				x, err := mmck(c).Throughput()
				return x / (float64(c.Workers) * mu(c)), err
			}),
			littleFigure,
		}, "", nil},
		{"md1", "M/D/1", []figure{
			{name: "mean wait (s)", formula: "Pollaczek–Khinchine: Wq = λE[S²]/(2(1 − ρ)) with E[S²] = d²",
				analytic: func(c *system.Config) (float64, error) { return mg1(c).MeanWait() }, estimate: meanWait},
			{name: "mean runs in system", formula: "Pollaczek–Khinchine + Little: L = λ(Wq + E[S])",
				analytic: func(c *system.Config) (float64, error) { return mg1(c).MeanInSystem() }, estimate: timeAvg},
			utilisationFigure("utilisation law: U = ρ = λE[S]", func(c *system.Config) (float64, error) { return mg1(c).Rho() }),
			littleFigure,
		}, "", nil},
		{"mg1", "M/G/1 (lognormal)", []figure{
			{name: "mean wait (s)", formula: "Pollaczek–Khinchine: Wq = λE[S²]/(2(1 − ρ)), lognormal E[S²] = m²e^{2σ²}",
				analytic: func(c *system.Config) (float64, error) { return mg1(c).MeanWait() }, estimate: meanWait},
			{name: "mean runs in system", formula: "Pollaczek–Khinchine + Little: L = λ(Wq + E[S])",
				analytic: func(c *system.Config) (float64, error) { return mg1(c).MeanInSystem() }, estimate: timeAvg},
			utilisationFigure("utilisation law: U = ρ = λE[S]", func(c *system.Config) (float64, error) { return mg1(c).Rho() }),
			littleFigure,
		}, "", nil},
		{"closed-mm1", "closed M/M/1//N", closedFigures(), "agent-fleet", closedSets("10", "9s", "1")},
		{"closed-mmc", "closed M/M/c//N", closedFigures(), "agent-fleet", closedSets("200", "30s", "8")},
		{"tool-queue", "M/M/c at a tool behind more workers", []figure{
			{name: "mean time in system (s)", formula: "M/M/c with c = the tool's concurrency: W = Wq + 1/μ",
				analytic: func(c *system.Config) (float64, error) { return toolMMc(c).MeanSojourn() }, estimate: meanSojourn},
			{name: "p99 time in system (s)", formula: "FIFO M/M/c: sojourn = Erlang-C wait + Exp(μ), CDF inverted by bisection", percentile: true,
				analytic: func(c *system.Config) (float64, error) { return toolMMc(c).SojournQuantile(0.99) }, estimate: p99Sojourn},
			{name: "mean busy servers at the tool", formula: "utilisation law at the tool: λ/μ busy servers",
				analytic: func(c *system.Config) (float64, error) { q := toolMMc(c); return q.Lambda / q.Mu, nil },
				estimate: func(r *system.Result) float64 { return r.Tools[0].MeanBusy }},
			littleFigure,
		}, "mmc", []string{"workers=4", "tools.server.concurrency=2", "arrivals.rate=1.7/s"}},
		{"priority-mg1", "M/G/1 with non-preemptive priorities", []figure{
			cobhamFigure(0), cobhamFigure(1), cobhamFigure(2),
			utilisationFigure("utilisation law: U = ρ = Σ λ_k E[S_k]", func(c *system.Config) (float64, error) {
				q, _, err := priorityMG1(c)
				if err != nil {
					return 0, err
				}
				return q.Rho()
			}),
			littleFigure,
		}, "", nil},
		{"circuit-breaker-open", "a circuit breaker open in a hard outage, Poisson arrivals", []figure{
			{name: "calls refused per second while open", formula: "Poisson arrivals: λ (an open period starts and ends at instants the arrivals inside it do not decide)",
				analytic: func(c *system.Config) (float64, error) { return rate(c), nil }, estimate: refusedWhileOpen},
		}, "circuit-breaker", []string{"workers=100000", "retry.attempts=1"}},
	}, append(append(groupModels(), tokenModels()...), agentModels()...)...)
}

// refusedWhileOpen is the calls a replication's breakers refused in the
// bins of its series they spent open from end to end, per second of those
// bins. Which bins are open whole is decided by the calls before them (the
// failures that opened the breaker) and the open period's fixed length,
// not by the arrivals inside them, so with Poisson arrivals that every
// call of an open breaker refuses, their count over the bins' time is
// Poisson of mean λ × that time: an unbiased estimate of λ.
func refusedWhileOpen(r *system.Result) float64 {
	s := r.Series
	w := s.Width.Seconds()
	var refused int64
	var open float64
	for t, row := range s.BreakerOpen {
		for i, v := range row {
			if v >= w*(1-1e-9) {
				open += w
				if i < len(s.BreakerRefused[t]) {
					refused += s.BreakerRefused[t][i]
				}
			}
		}
	}
	if open == 0 {
		return math.NaN()
	}
	return float64(refused) / open
}

// priorityMG1 is the M/G/1 priority queue of a scenario with one worker,
// the priority discipline and Poisson arrivals split among classes by
// weight (each class's arrivals are then a Poisson process of their own),
// each class's plan one step: Cobham's classes in order of priority, the
// classes of equal priority pooled into one (first come first served among
// them), and each scenario class's index among Cobham's.
func priorityMG1(cfg *system.Config) (analytic.PriorityMG1, []int, error) {
	if cfg.Workers != 1 || cfg.Scheduling.Workers != system.PriorityOrder || cfg.Arrivals.Process != system.Poisson || len(cfg.Classes) == 0 || cfg.OwnClassArrivals() {
		return analytic.PriorityMG1{}, nil, fmt.Errorf("not an M/G/1 priority queue: want one worker, scheduling.workers: priority, and Poisson arrivals split among classes by weight")
	}
	shares := cfg.ClassShares()
	prios := make([]int, 0, len(cfg.Classes))
	for _, c := range cfg.Classes {
		if !slices.Contains(prios, c.Priority) {
			prios = append(prios, c.Priority)
		}
	}
	slices.Sort(prios)
	// λ, λE[S] and λE[S²] of each priority.
	lam, m1, m2 := make([]float64, len(prios)), make([]float64, len(prios)), make([]float64, len(prios))
	index := make([]int, len(cfg.Classes))
	for k, c := range cfg.Classes {
		steps := cfg.StepsOf(k)
		if len(steps) != 1 {
			return analytic.PriorityMG1{}, nil, fmt.Errorf("class %s: %d steps, want 1", c.Name, len(steps))
		}
		s := cfg.Tools[steps[0].Tool].Latency
		l := float64(cfg.Arrivals.Rate * shares[k])
		i := slices.Index(prios, c.Priority)
		index[k] = i
		lam[i] += l
		m1[i] += float64(l * s.Mean())
		m2[i] += float64(l * dist.SecondMoment(s))
	}
	q := analytic.PriorityMG1{Classes: make([]analytic.PriorityClass, len(prios))}
	for i := range prios {
		q.Classes[i] = analytic.PriorityClass{Lambda: lam[i], MeanService: m1[i] / lam[i], SecondMoment: m2[i] / lam[i]}
	}
	return q, index, nil
}

// cobhamFigure is the mean wait of the scenario's class k (in the order of
// its classes; its runs that got the worker) against Cobham's formula, σ_k
// being the load of the classes up to k's priority.
func cobhamFigure(k int) figure {
	return figure{
		name:    fmt.Sprintf("mean wait of class %d (s)", k),
		formula: "Cobham: W_k = W0/((1 − σ_{k−1})(1 − σ_k)), W0 = Σ λ_i E[S_i²]/2",
		analytic: func(c *system.Config) (float64, error) {
			q, index, err := priorityMG1(c)
			if err != nil {
				return 0, err
			}
			if k >= len(index) {
				return 0, fmt.Errorf("no class %d: the scenario has %d", k, len(index))
			}
			return q.MeanWait(index[k])
		},
		estimate: func(r *system.Result) float64 { return r.Classes[k].Wait.Mean() },
	}
}

// toolMMc is the M/M/c queue of the tool-queue case: its runs leave at
// rate μ·min(n, c) whatever the W ≥ c workers in front of the tool, so the
// whole system is an M/M/c queue with c the tool's concurrency, and FIFO
// when the worker queue and the tool's queue both are.
func toolMMc(cfg *system.Config) analytic.MMc {
	return analytic.MMc{Lambda: rate(cfg), Mu: mu(cfg), C: cfg.Tools[0].Concurrency}
}

// Options control a validation run.
type Options struct {
	// Replications per model (≥ 2; default 10).
	Replications int
	// Level is the family-wise confidence level (default 0.99).
	Level float64
	// Parallel is the number of goroutines (0: all cores).
	Parallel int
	// Only restricts the run to the named scenarios (empty: all).
	Only []string
	// Seed, when HasSeed, replaces every scenario's own seed: the checks
	// hold at their family-wise level for any seed, and repeating the
	// validation over seeds shows it.
	Seed    int64
	HasSeed bool
}

// Run simulates every model and compares it with its closed forms.
func Run(opt Options) (Report, error) {
	if opt.Replications == 0 {
		opt.Replications = 10
	}
	if opt.Replications < 2 {
		return Report{}, fmt.Errorf("replications: must be ≥ 2 for a confidence interval, got %d", opt.Replications)
	}
	if opt.Level == 0 {
		opt.Level = 0.99
	}
	if !(opt.Level > 0 && opt.Level < 1) {
		return Report{}, fmt.Errorf("level: must be in (0, 1), got %g", opt.Level)
	}
	rep := Report{Level: opt.Level, Replications: opt.Replications}
	var selected []model
	checks := 0
	for _, name := range opt.Only {
		if !slices.Contains(Scenarios(), name) {
			return rep, fmt.Errorf("only: %q is not a validated scenario (validated: %s)", name, strings.Join(Scenarios(), ", "))
		}
	}
	for _, m := range models() {
		if len(opt.Only) > 0 && !contains(opt.Only, m.scenario) {
			continue
		}
		selected = append(selected, m)
		checks += len(m.figures)
	}
	if checks == 0 {
		return rep, fmt.Errorf("only: no validated scenario among %q (validated: %s)", opt.Only, strings.Join(Scenarios(), ", "))
	}
	rep.CheckLevel = 1 - (1-opt.Level)/float64(checks)
	for _, m := range selected {
		base := m.scenario
		sets := slices.Clone(m.sets)
		if m.base != "" {
			base = m.base
		}
		if opt.HasSeed {
			sets = append(sets, "seed="+strconv.FormatInt(opt.Seed, 10))
		}
		sc, err := scenarios.Load(base, sets)
		if err != nil {
			return rep, err
		}
		cfg := sc.Config
		results := replicate.All(cfg, opt.Replications, opt.Parallel, system.Options{})
		for _, f := range m.figures {
			want, err := f.analytic(cfg)
			if err != nil {
				return rep, fmt.Errorf("%s: %s: %w", m.scenario, f.name, err)
			}
			xs := make([]float64, len(results))
			for i, r := range results {
				xs[i] = f.estimate(r)
			}
			iv := stats.MeanCI(xs, rep.CheckLevel)
			c := Check{
				Scenario: m.scenario, Base: m.base, Sets: m.sets, Model: m.name, Figure: f.name, Formula: f.formula,
				Analytic: want, Simulated: iv.Mean, Lo: iv.Lo, Hi: iv.Hi,
			}
			if f.percentile {
				c.Allowance = stats.RelativeError * math.Abs(want)
			}
			c.Allowance += f.absolute
			c.Pass = want >= c.Lo-c.Allowance && want <= c.Hi+c.Allowance
			rep.Checks = append(rep.Checks, c)
		}
	}
	return rep, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Scenarios returns the names of the cases Run validates against closed
// forms, in the order it reports them: a bundled scenario's name, or for
// a bundled scenario validated with overrides (the closed populations) the
// case's own name. Options.Only takes these names.
func Scenarios() []string {
	var names []string
	for _, m := range models() {
		names = append(names, m.scenario)
	}
	return names
}
