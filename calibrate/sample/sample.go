// Package sample keeps a bounded, deterministic uniform sample of a stream
// of values: Vitter's reservoir sampling (Algorithm R), with exact count,
// sum, minimum and maximum of the whole stream.
//
// The reservoir's random stream is seeded from a fixed seed and the
// reservoir's name, so the same input in the same order gives the same
// sample on every run and every machine.
package sample

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// Reservoir holds at most Cap values drawn uniformly from all values added,
// each with a companion value (for example, the calls in flight when a
// latency was measured) kept with it.
type Reservoir struct {
	cap       int
	n         int64
	sum       float64
	min, max  float64
	vals, aux []float64
	r         *rand.Rand
}

// New returns an empty reservoir of capacity cap (≥ 1) whose random stream
// is derived from seed and name.
func New(cap int, seed uint64, name string) *Reservoir {
	h := fnv.New64a()
	h.Write([]byte(name))
	return &Reservoir{cap: max(cap, 1), min: math.Inf(1), max: math.Inf(-1), r: rand.New(rand.NewPCG(seed, h.Sum64()))}
}

// Add adds v with its companion a.
func (s *Reservoir) Add(v, a float64) {
	s.n++
	s.sum += v
	s.min, s.max = min(s.min, v), max(s.max, v)
	if len(s.vals) < s.cap {
		s.vals = append(s.vals, v)
		s.aux = append(s.aux, a)
		return
	}
	if j := s.r.Int64N(s.n); j < int64(s.cap) {
		s.vals[j], s.aux[j] = v, a
	}
}

// N returns how many values were added.
func (s *Reservoir) N() int64 { return s.n }

// Mean returns the exact mean of all values added (NaN when none).
func (s *Reservoir) Mean() float64 {
	if s.n == 0 {
		return math.NaN()
	}
	return s.sum / float64(s.n)
}

// Min and Max return the exact extremes of all values added (±Inf when none).
func (s *Reservoir) Min() float64 { return s.min }

// Max returns the largest value added.
func (s *Reservoir) Max() float64 { return s.max }

// Values returns the sample (a view: do not modify). It holds every value
// added while N ≤ Cap.
func (s *Reservoir) Values() []float64 { return s.vals }

// Aux returns the companions of Values, index for index.
func (s *Reservoir) Aux() []float64 { return s.aux }

// Complete reports whether the sample holds every value added.
func (s *Reservoir) Complete() bool { return s.n <= int64(s.cap) }
