package sim

import (
	"math/rand/v2"
)

// Stream is a named source of randomness for one component: a math/rand/v2
// PCG generator seeded from the scenario seed and the component's name.
// A Stream is not safe for concurrent use.
type Stream struct {
	_    CacheLinePad
	base uint64
	pcg  rand.PCG
	rnd  *rand.Rand
	_    CacheLinePad
}

// NewStream returns the stream called name under seed. Two streams with
// different names are independent; the same (seed, name) always yields the
// same sequence, on every platform.
func NewStream(seed uint64, name string) *Stream {
	s := &Stream{base: Mix(seed, hashName(name))}
	s.pcg.Seed(s.base, Mix(s.base, 0x9e3779b97f4a7c15))
	s.rnd = rand.New(&s.pcg)
	return s
}

// Rand returns the stream's generator. Its sequence continues from the last
// draw, or from the last Key.
func (s *Stream) Rand() *rand.Rand { return s.rnd }

// Float64 returns a uniform draw in [0, 1).
func (s *Stream) Float64() float64 { return s.rnd.Float64() }

// Key re-seeds the stream from its base and the given keys, so the draws
// that follow depend only on (seed, name, a, b, c): counter-based randomness.
// The simulator keys a tool's draws by (run, step, attempt), so the same
// attempt of the same run sees the same latency whatever policy produced it.
func (s *Stream) Key(a, b, c uint64) {
	k := Mix(Mix(Mix(s.base, a), b), c)
	s.pcg.Seed(k, Mix(k, 0xd1b54a32d192ed03))
}

// Mix combines two 64-bit values into a well-scrambled one (the SplitMix64
// finaliser applied to a + golden-ratio·b). It is used to derive seeds.
func Mix(a, b uint64) uint64 {
	z := a + 0x9e3779b97f4a7c15*(b+1)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// ReplicationSeed returns the seed of replication i (0-based) of a scenario
// seeded with seed. Replication 0 uses seed itself, so a single run and the
// first of several replications agree.
func ReplicationSeed(seed uint64, i int) uint64 {
	if i == 0 {
		return seed
	}
	return Mix(seed, uint64(i)+0x5eed)
}

// hashName is 64-bit FNV-1a.
func hashName(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return h
}
