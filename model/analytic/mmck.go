package analytic

import (
	"fmt"
	"math"
)

// MMcK is the M/M/c/K queue: Poisson arrivals at rate Lambda per second, C
// exponential servers at rate Mu per second each, and room for at most K
// runs in the system (waiting plus in service); an arrival that finds K
// present is blocked and lost (Gross et al., Fundamentals of Queueing
// Theory, 4th ed., §2.5; Kleinrock, Queueing Systems Vol. 1, §3.6 for c = 1
// and §3.7 for K = c, the Erlang loss system).
//
// Lambda and Mu must be finite and > 0, C >= 1 and K >= C. Because the
// state space is finite the steady state exists at any load, so rho >= 1 is
// valid and no method returns ErrUnstable. An MMcK is an immutable value,
// safe for concurrent use. Every method costs O(K) (less when the
// probabilities underflow away from the mode); only Distribution allocates.
type MMcK struct {
	Lambda float64 // arrival rate offered, per second (before blocking)
	Mu     float64 // service rate of one server, per second
	C      int     // number of servers
	K      int     // system capacity, including runs in service; K >= C
}

func (q MMcK) validate() error {
	if err := checkRate("lambda", q.Lambda); err != nil {
		return err
	}
	if err := checkRate("mu", q.Mu); err != nil {
		return err
	}
	if err := checkServers("c", q.C); err != nil {
		return err
	}
	if q.K < q.C {
		return fmt.Errorf("k: must be >= c (%d), got %d", q.C, q.K)
	}
	return nil
}

// Rho returns the offered utilisation rho = lambda/(c mu). Unlike the
// infinite queues it may be >= 1; the carried utilisation is
// Throughput/(c mu).
func (q MMcK) Rho() (float64, error) {
	if err := q.validate(); err != nil {
		return 0, err
	}
	return q.Lambda / q.Mu / float64(q.C), nil
}

// mode returns an index n* maximising the unnormalised birth–death weights
// q_n, whose ratio q_n/q_{n-1} = A/min(n, c) is >= 1 up to the mode and
// <= 1 after it.
func (q MMcK) mode() int {
	a := q.Lambda / q.Mu
	if a >= float64(q.C) {
		return q.K // rho >= 1: weights never decrease
	}
	return int(math.Floor(a)) // < c <= K
}

// mmckSums holds the unnormalised sums behind every MMcK metric; weights
// are scaled so that the mode has weight 1.
type mmckSums struct {
	z     float64 // sum_n q_n
	n     float64 // sum_n n q_n
	queue float64 // sum_n max(n-c, 0) q_n
	busy  float64 // sum_n min(n, c) q_n
	last  float64 // q_K
}

func (s *mmckSums) add(q MMcK, n int, w float64) {
	s.z += w
	s.n += float64(float64(n) * w)
	s.queue += float64(float64(max(n-q.C, 0)) * w)
	s.busy += float64(float64(min(n, q.C)) * w)
	if n == q.K {
		s.last = w
	}
}

// sums walks the weights outward from the mode, so every weight is <= 1 and
// nothing overflows however large A or K; walks stop once weights underflow
// to 0 (they only shrink further).
func (q MMcK) sums() (mmckSums, error) {
	if err := q.validate(); err != nil {
		return mmckSums{}, err
	}
	a := q.Lambda / q.Mu
	m := q.mode()
	var s mmckSums
	w := 1.0
	for n := m; n >= 0 && w > 0; n-- {
		s.add(q, n, w)
		w = float64(w * (float64(min(n, q.C)) / a)) // q_{n-1} = q_n min(n,c)/A; float64(): no fused multiply-add
	}
	w = 1.0
	for n := m + 1; n <= q.K; n++ {
		w = float64(w * (a / float64(min(n, q.C)))) // q_n = q_{n-1} A/min(n,c)
		if w == 0 {
			break
		}
		s.add(q, n, w)
	}
	return s, nil
}

// Distribution returns the stationary distribution p_0..p_K of the number
// in the system (a new slice of length K+1):
//
//	p_n ∝ A^n / n!                 for 0 <= n <= c,
//	p_n ∝ A^c / c! · rho^(n-c)     for c < n <= K,
//
// with A = lambda/mu and rho = A/c (Gross et al., 4th ed., §2.5). It is
// computed by the birth–death ratios q_n/q_{n-1} = A/min(n, c) walked
// outward from the mode, so no factorial or power overflows.
func (q MMcK) Distribution() ([]float64, error) {
	s, err := q.sums()
	if err != nil {
		return nil, err
	}
	a := q.Lambda / q.Mu
	m := q.mode()
	p := make([]float64, q.K+1)
	w := 1.0
	for n := m; n >= 0 && w > 0; n-- {
		p[n] = w / s.z
		w *= float64(min(n, q.C)) / a
	}
	w = 1.0
	for n := m + 1; n <= q.K; n++ {
		w *= a / float64(min(n, q.C))
		if w == 0 {
			break
		}
		p[n] = w / s.z
	}
	return p, nil
}

// BlockingProbability returns p_K, the probability that an arrival finds
// the system full and is lost (PASTA; Gross et al., 4th ed., §2.5). With
// K = c it is Erlang's loss formula B(c, A) (§2.6).
func (q MMcK) BlockingProbability() (float64, error) {
	s, err := q.sums()
	if err != nil {
		return 0, err
	}
	return s.last / s.z, nil
}

// MeanInSystem returns L = sum_n n p_n, the mean number in the system
// (Gross et al., 4th ed., §2.5).
func (q MMcK) MeanInSystem() (float64, error) {
	s, err := q.sums()
	if err != nil {
		return 0, err
	}
	return s.n / s.z, nil
}

// MeanQueue returns Lq = sum_{n>c} (n - c) p_n, the mean number waiting
// (Gross et al., 4th ed., §2.5).
func (q MMcK) MeanQueue() (float64, error) {
	s, err := q.sums()
	if err != nil {
		return 0, err
	}
	return s.queue / s.z, nil
}

// Throughput returns the rate of admitted (and, in steady state, completed)
// runs per second, lambda (1 - p_K) (Gross et al., 4th ed., §2.5). It is
// computed by the equal carried-load form mu · E[min(N, c)] (flow balance:
// what is admitted is what the busy servers complete), which keeps full
// relative precision when p_K is close to 1 under heavy overload.
func (q MMcK) Throughput() (float64, error) {
	s, err := q.sums()
	if err != nil {
		return 0, err
	}
	return q.Mu * s.busy / s.z, nil
}

// MeanSojourn returns the mean time in the system of admitted runs,
// W = L / (lambda (1 - p_K)) seconds, by Little's law applied to the
// admitted stream (Gross et al., 4th ed., §2.5). Blocked runs are not
// counted. W - Wq = 1/mu exactly.
func (q MMcK) MeanSojourn() (float64, error) {
	s, err := q.sums()
	if err != nil {
		return 0, err
	}
	if s.busy == 0 {
		return 1 / q.Mu, nil // lambda/mu below the float64 range: no queue
	}
	return s.n / (q.Mu * s.busy), nil
}

// MeanWait returns the mean time in queue of admitted runs,
// Wq = Lq / (lambda (1 - p_K)) seconds (Little's law; Gross et al., 4th
// ed., §2.5).
func (q MMcK) MeanWait() (float64, error) {
	s, err := q.sums()
	if err != nil {
		return 0, err
	}
	if s.busy == 0 {
		return 0, nil // lambda/mu below the float64 range: no queue
	}
	return s.queue / (q.Mu * s.busy), nil
}
