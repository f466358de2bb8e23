package analytic

import (
	"fmt"
	"math"
)

// Station is one service centre of a Closed network.
type Station struct {
	// Demand is the service a run needs at the station per cycle, in
	// seconds: the visits per cycle times the mean service time of a
	// visit (D = V S).
	Demand float64
	// Servers is the number of identical servers, >= 1: 1 for a
	// single-server station, c > 1 for a multi-server one, whose service
	// rate with n runs present is min(n, c)/S (load-dependent).
	Servers int
}

// Closed is a closed, single-class queueing network: N runs cycle
// forever between a think (delay) station, where each spends a mean Think
// seconds, and the Stations, first-come first-served with exponential
// service. It is the product-form network that exact Mean Value Analysis
// solves (M. Reiser and S. S. Lavenberg, "Mean-value analysis of closed
// multichain queuing networks", Journal of the ACM 27(2):313–322, 1980).
// The think time may have any distribution with that mean (a delay
// station is insensitive); the stations' service must be exponential for
// the results to be exact.
//
// N must be >= 1, Think finite and >= 0, and every station needs a finite
// Demand > 0 and Servers >= 1. A Closed value is immutable and safe for
// concurrent use (it does not alias its Stations: MVA only reads them).
type Closed struct {
	N        int
	Think    float64
	Stations []Station
}

// ClosedMeans are the exact mean values of a Closed network at its
// population N.
type ClosedMeans struct {
	// Throughput is the rate X at which runs complete a cycle (and, by
	// flow balance, start one), per second.
	Throughput float64
	// Response is the mean time R a run spends in the stations per cycle,
	// think time excluded: R = Σ Residence, and N = X (Think + R) (Little's
	// law on the whole loop).
	Response float64
	// Residence, Queue and Utilisation are per station (Stations order):
	// the mean time a run spends there per cycle (waiting and in service),
	// the mean number of runs there (waiting and in service, Q = X R_k),
	// and the mean share of its servers that are busy (U = X D/c).
	Residence   []float64
	Queue       []float64
	Utilisation []float64
}

func (q Closed) validate() error {
	if q.N < 1 {
		return fmt.Errorf("n: must be >= 1, got %d", q.N)
	}
	if math.IsNaN(q.Think) || math.IsInf(q.Think, 0) || q.Think < 0 {
		return fmt.Errorf("think: must be finite and >= 0, got %v", q.Think)
	}
	if len(q.Stations) == 0 && q.Think == 0 {
		return fmt.Errorf("stations: need at least one station or a think time > 0")
	}
	for k, s := range q.Stations {
		if err := checkRate(fmt.Sprintf("stations[%d].demand", k), s.Demand); err != nil {
			return err
		}
		if err := checkServers(fmt.Sprintf("stations[%d].servers", k), s.Servers); err != nil {
			return err
		}
	}
	return nil
}

// MVA returns the network's exact mean values at population N by Mean
// Value Analysis, the recursion over the population n = 1..N that rests on
// the arrival theorem (a run arriving at a station sees the network's
// time-average state with itself removed):
//
//	single server:  R_k(n) = D_k (1 + Q_k(n−1))
//	c servers:      R_k(n) = (D_k/c) (1 + Q_k(n−1) + Σ_{j=0}^{c−2} (c−1−j) p_k(j | n−1))
//	X(n) = n / (Z + Σ_k R_k(n)),  Q_k(n) = X(n) R_k(n)
//
// the load-dependent MVA of Reiser and Lavenberg (1980) for multi-server
// stations in the form of G. Bolch, S. Greiner, H. de Meer and K. S.
// Trivedi, Queueing Networks and Markov Chains, 2nd ed., Wiley, 2006,
// §8.2 (multiple-server nodes), which needs a station's marginal
// probabilities p_k(j | n) only below c:
//
//	p_k(j | n) = X(n) D_k p_k(j−1 | n−1) / j   for 1 <= j <= c−1.
//
// The empty-station probability is where the textbook recursions lose
// their precision: 1 − Σ_{j>=1} p_k(j | n), or Bolch's 1 − (X D_k +
// Σ (c−j) p_k(j | n))/c, cancels to nothing as the station saturates, and
// the error grows with n (8 servers and 400 runs already miss the
// throughput by 2%). Here it comes from the normalising constants instead,
// p_k(0 | n) = G_{−k}(n)/G(n), with G(n)/G(n−1) = 1/X(n) for the network
// and likewise for the network without station k (solved by the same
// method), so that
//
//	p_k(0 | n) = Π_{m=1}^{n} X(m)/X_{−k}(m),
//
// a product of positive ratios, summed in logarithms: no cancellation.
// It costs O(2^M N Σ_k c_k) time for M multi-server stations and O(N + Σ_k
// c_k) memory per network solved.
func (q Closed) MVA() (ClosedMeans, error) {
	if err := q.validate(); err != nil {
		return ClosedMeans{}, err
	}
	_, out := mva(q.N, q.Think, q.Stations)
	return out, nil
}

// mva solves the network of stations st behind think time z for
// populations 1..n and returns X(1..n) and the mean values at n. An
// empty network without think time holds no run: its X is +Inf.
func mva(n int, z float64, st []Station) (xs []float64, out ClosedMeans) {
	K := len(st)
	out = ClosedMeans{
		Residence:   make([]float64, K),
		Queue:       make([]float64, K),
		Utilisation: make([]float64, K),
	}
	xs = make([]float64, n)
	if K == 0 && z == 0 {
		for i := range xs {
			xs[i] = math.Inf(1)
		}
		return xs, out
	}
	// For a multi-server station k: p[k] holds p_k(0..c−1 | n−1) while
	// R_k(n) is computed, then p_k(0..c−1 | n); rest[k] is X(1..n) of the
	// network without k; logP0[k] is log p_k(0 | n).
	p := make([][]float64, K)
	rest := make([][]float64, K)
	logP0 := make([]float64, K)
	for k, s := range st {
		if s.Servers > 1 {
			p[k] = make([]float64, s.Servers)
			p[k][0] = 1 // population 0: the station is empty
			others := append(append([]Station(nil), st[:k]...), st[k+1:]...)
			rest[k], _ = mva(n, z, others)
		}
	}
	var x float64
	for m := 1; m <= n; m++ {
		r := z
		for k, s := range st {
			c := s.Servers
			if c == 1 {
				out.Residence[k] = s.Demand * (1 + out.Queue[k])
			} else {
				extra := 0.0
				for j := 0; j <= c-2; j++ {
					extra += float64(float64(c-1-j) * p[k][j])
				}
				out.Residence[k] = s.Demand / float64(c) * (1 + out.Queue[k] + extra)
			}
			r += out.Residence[k]
		}
		x = float64(m) / r
		xs[m-1] = x
		for k, s := range st {
			out.Queue[k] = x * out.Residence[k]
			c := s.Servers
			if c == 1 {
				continue
			}
			pk := p[k]
			for j := c - 1; j >= 1; j-- {
				pk[j] = x * s.Demand * pk[j-1] / float64(j)
			}
			// The network without k holds no run when it is empty of
			// stations and has no think time: then k holds all m.
			logP0[k] += math.Log(x) - math.Log(rest[k][m-1])
			pk[0] = math.Exp(logP0[k])
		}
	}
	out.Throughput = x
	for k, s := range st {
		out.Response += out.Residence[k]
		out.Utilisation[k] = x * s.Demand / float64(s.Servers)
	}
	return xs, out
}

// FiniteSource is the M/M/c//N queue, the machine-repairman model: N
// sources, each of which, after a mean Think seconds (exponential), sends
// one run to C exponential servers at rate Mu per second each and waits
// for it to end before thinking again (the finite-source queue of Gross et
// al., Fundamentals of Queueing Theory, 4th ed., ch. 2; Kleinrock, Queueing
// Systems Vol. 1, ch. 3, finite customer populations). It is the Closed network with one station of C servers and
// Demand 1/Mu, solved here from its birth–death stationary distribution
// instead: an independent check of MVA.
//
// N and C must be >= 1, Mu finite and > 0, Think finite and > 0. A
// FiniteSource is an immutable value, safe for concurrent use; every
// method costs O(N) and only Distribution allocates.
type FiniteSource struct {
	N     int
	C     int
	Think float64 // mean think time, seconds
	Mu    float64 // service rate of one server, per second
}

func (q FiniteSource) validate() error {
	if err := checkServers("n", q.N); err != nil {
		return err
	}
	if err := checkServers("c", q.C); err != nil {
		return err
	}
	if err := checkRate("think", q.Think); err != nil {
		return err
	}
	return checkRate("mu", q.Mu)
}

// Distribution returns p_0..p_N, the stationary probabilities of n runs at
// the servers (waiting or in service): birth rate (N − n)/Think, death
// rate min(n, C) Mu. The weights are scaled as they grow so that none
// overflows.
func (q FiniteSource) Distribution() ([]float64, error) {
	if err := q.validate(); err != nil {
		return nil, err
	}
	w := make([]float64, q.N+1)
	w[0] = 1
	for n := 1; n <= q.N; n++ {
		w[n] = w[n-1] * float64(q.N-n+1) / q.Think / (float64(min(n, q.C)) * q.Mu)
		if w[n] > 1e250 {
			for i := range n + 1 {
				w[i] *= 1e-250
			}
		}
	}
	sum := 0.0
	for _, v := range w {
		sum += v
	}
	for i := range w {
		w[i] /= sum
	}
	return w, nil
}

// Throughput returns X = Σ_n min(n, C) Mu p_n, runs per second.
func (q FiniteSource) Throughput() (float64, error) {
	return q.expect(func(n int) float64 { return float64(min(n, q.C)) * q.Mu })
}

// MeanInSystem returns L = Σ_n n p_n, the mean number of runs at the
// servers (waiting or in service).
func (q FiniteSource) MeanInSystem() (float64, error) {
	return q.expect(func(n int) float64 { return float64(n) })
}

// expect returns Σ_n g(n) p_n over the distribution Distribution returns,
// from the same scaled weights, without keeping them.
func (q FiniteSource) expect(g func(n int) float64) (float64, error) {
	if err := q.validate(); err != nil {
		return 0, err
	}
	w, total, acc := 1.0, 1.0, g(0)
	for n := 1; n <= q.N; n++ {
		w = w * float64(q.N-n+1) / q.Think / (float64(min(n, q.C)) * q.Mu)
		if w > 1e250 {
			w, total, acc = w*1e-250, total*1e-250, acc*1e-250
		}
		total += w
		acc += float64(g(n) * w)
	}
	return acc / total, nil
}

// MeanSojourn returns W = L/X seconds, the mean time a run spends at the
// servers (Little's law).
func (q FiniteSource) MeanSojourn() (float64, error) {
	l, err := q.MeanInSystem()
	if err != nil {
		return 0, err
	}
	x, err := q.Throughput()
	if err != nil {
		return 0, err
	}
	return l / x, nil
}
