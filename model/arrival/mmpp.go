package arrival

import (
	"math/rand/v2"
	"strings"
	"time"
)

// State is one state of a Markov-modulated Poisson process: arrivals at
// Rate per second while the process stays in it, for an exponential time
// of mean Sojourn.
type State struct {
	Rate    float64
	Sojourn time.Duration
}

// Stateful is a process whose next instant depends on more than the
// arrival count and the last instant: a Markov-modulated process's hidden
// state. The simulator draws each replication's arrivals from its own
// Instance, so replications stay independent and safe to run in parallel.
type Stateful interface {
	Process
	// Instance returns a fresh copy with state of its own, for one
	// replication (one sequence of Next calls with n = 0, 1, 2, …).
	Instance() Process
}

// Instance returns the process one replication draws its arrivals from:
// p.Instance() for a [Stateful] process, p itself for the others (which
// keep no state).
func Instance(p Process) Process {
	if s, ok := p.(Stateful); ok {
		return s.Instance()
	}
	return p
}

// MMPP returns a Markov-modulated Poisson process: a hidden chain moves
// through states in order (0, 1, …, k−1, 0, …), staying in state i for an
// exponential time of mean states[i].Sojourn, and arrivals are Poisson at
// states[i].Rate while it is there. Two states, one with rate 0, make an
// on–off source: bursts of traffic separated by silences.
//
// Each visit to a state lasts the same mean time, and the cycle visits
// each state once, so the chain's long-run share of time in state i is
// π_i = s_i / Σ s_j and the long-run rate is Σ π_i λ_i. A replication
// starts in a state drawn from π (the stationary chain), so Expected is
// exactly MeanRate·(to − from).
//
// Next draws, from the state it is in, competing exponentials (the next
// arrival at rate λ_i, the next switch at rate 1/s_i, memoryless, so no
// remaining sojourn is kept) until an arrival wins: two uniforms per event.
// It must be used through [Instance] (the simulator does); the process
// itself keeps one shared state and is not safe for concurrent use.
//
// There must be at least 2 states, each rate finite and ≥ 0 with at least
// one > 0, each sojourn > 0.
func MMPP(states []State) (Process, error) {
	if len(states) < 2 {
		return nil, paramErr("states", "must have at least 2 states, got %d", len(states))
	}
	m := &mmpp{states: append([]State(nil), states...)}
	var tot, rate float64
	for i, s := range states {
		if err := checkRate(index("states", i)+".rate", s.Rate, false); err != nil {
			return nil, err
		}
		if s.Sojourn <= 0 {
			return nil, paramErr(index("states", i)+".sojourn", "must be > 0, got %v", s.Sojourn)
		}
		tot += s.Sojourn.Seconds()
		rate += float64(s.Sojourn.Seconds() * s.Rate)
	}
	if rate == 0 {
		return nil, paramErr("states", "every rate is 0: no arrival would ever come")
	}
	m.mean = rate / tot
	m.pi = make([]float64, len(states))
	for i, s := range states {
		m.pi[i] = s.Sojourn.Seconds() / tot
	}
	return m.Instance(), nil
}

type mmpp struct {
	states []State
	pi     []float64
	mean   float64
}

// mmppRun is an MMPP with the state of one replication.
type mmppRun struct {
	*mmpp
	state int
}

func (m *mmpp) Instance() Process { return &mmppRun{mmpp: m} }

// Next implements Process; see MMPP.
func (m *mmppRun) Next(n int64, prev time.Duration, r *rand.Rand) (time.Duration, bool) {
	checkN(n)
	if n == 0 {
		u, acc := r.Float64(), 0.0
		m.state = len(m.pi) - 1
		for i, p := range m.pi {
			if acc += p; u < acc {
				m.state = i
				break
			}
		}
	}
	t := prev
	// A chain whose states all have rate 0 never arrives: MMPP refuses
	// it, so each cycle has an arrival with probability > 0 and the loop
	// ends with probability 1.
	for {
		s := m.states[m.state]
		leave := 1 / s.Sojourn.Seconds()
		total := s.Rate + leave
		var ok bool
		if t, ok = after(t, exp1(r)/total); !ok {
			return 0, false
		}
		if r.Float64()*total < s.Rate {
			return t, true
		}
		m.state = (m.state + 1) % len(m.states)
	}
}

func (m *mmpp) MeanRate() float64 { return m.mean }

func (m *mmpp) Expected(from, to time.Duration) float64 {
	from, to, ok := clampWindow(from, to)
	if !ok {
		return 0
	}
	return m.mean * (to - from).Seconds()
}

func (m *mmpp) String() string {
	var b strings.Builder
	b.WriteString("mmpp(")
	for i, s := range m.states {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(formatFloat(s.Rate) + "/s for " + s.Sojourn.String())
	}
	b.WriteString(")")
	return b.String()
}
