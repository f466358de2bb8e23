// Package analytic holds closed-form queueing results: the numbers the
// simulator is validated against and the capacity planner starts from.
//
// # Models
//
//   - MM1: one server, Poisson arrivals, exponential service (M/M/1).
//   - MMc: c servers, infinite waiting room (M/M/c, Erlang C).
//   - MMcK: c servers, at most K runs in the system (M/M/c/K); arrivals that
//     find K present are blocked. Valid at any load.
//   - MG1: one server, general service given by its first two moments
//     (M/G/1, Pollaczek–Khinchine).
//   - Closed: a closed network of N runs that think and then visit
//     single- and multi-server stations, solved by exact Mean Value
//     Analysis; FiniteSource: its one-station case (M/M/c//N) from the
//     birth–death distribution.
//   - PriorityMG1: one server, non-preemptive priority classes, each with
//     Poisson arrivals and general service (Cobham's formula for the mean
//     wait of each class).
//   - ExpGroup: order statistics of independent exponential calls made in
//     parallel: the first (any), the k-th, and the last (all) to answer.
//   - HedgedLognormal: a lognormal call hedged by a second one after a
//     delay, without queueing: the latency min(X₁, d + X₂).
//   - Model APIs sold by the token: TokenThroughputCap and
//     TokenLimits.CallCap give the long-run call rate that per-minute
//     request and token limits allow, and which limit binds; TokenQueue is
//     the M/G/1 queue of a client that waits for token capacity.
//
// Every model is a small value type whose exported fields are its
// parameters. Its methods validate those fields on every call and return an
// error naming the field and the bad value, for example
// "lambda: must be > 0, got 0". A model that needs rho < 1 for a steady state
// returns an *UnstableError, which wraps ErrUnstable and carries rho.
// Models are immutable values and safe for concurrent use.
//
// # Units
//
// Rates (Lambda, Mu) are per second and times (waits, sojourns, quantiles,
// service moments) are float64 seconds. The rest of budgetsim keeps time as
// integer nanoseconds (time.Duration); this package is the exception because
// its formulas are continuous functions of real parameters. Convert at the
// edge: d.Seconds() going in, time.Duration(s * float64(time.Second)) coming
// out.
//
// # Terms
//
// The wait (Wq) is the time from arrival to the start of service; the
// sojourn (W) is the time from arrival to departure, wait plus service. L is
// the mean number in the system, Lq the mean number waiting. The offered
// load A = lambda/mu is in Erlangs; utilisation rho = A/c.
//
// # Sources
//
// Formulas are cited in each doc comment. The main references are:
//
//   - L. Kleinrock, Queueing Systems, Volume 1: Theory, Wiley, 1975
//     (ch. 3: birth–death queues; ch. 5: M/G/1).
//   - D. Gross, J. F. Shortle, J. M. Thompson and C. M. Harris, Fundamentals
//     of Queueing Theory, 4th ed., Wiley, 2008 (§2.2 M/M/1, §2.3 M/M/c,
//     §2.4 choosing the number of servers, §2.5 M/M/c/K, §2.6 Erlang's loss
//     formula, §5.1 M/G/1).
//   - M. Reiser and S. S. Lavenberg, "Mean-value analysis of closed
//     multichain queuing networks", Journal of the ACM 27(2):313–322, 1980;
//     G. Bolch, S. Greiner, H. de Meer and K. S. Trivedi, Queueing Networks
//     and Markov Chains, 2nd ed., Wiley, 2006 (§8.2, MVA with
//     multiple-server nodes).
//   - J. D. C. Little, "A proof for the queuing formula: L = λW",
//     Operations Research 9(3):383–387, 1961.
package analytic
