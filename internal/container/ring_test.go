package container

import (
	"math/rand/v2"
	"testing"
)

// TestRingIsFIFO drives the ring through growth and wrap-around against a
// slice, from sizes that are and are not powers of two.
func TestRingIsFIFO(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 3, 16, 100} {
		var q Ring
		q.Init(n)
		if l := len(q.buf); l < n || l&(l-1) != 0 {
			t.Fatalf("init(%d): buffer of %d, want a power of two ≥ %d", n, l, n)
		}
		var want []int32
		for i := range 20_000 {
			if r.IntN(3) > 0 || len(want) == 0 {
				q.Push(int32(i))
				want = append(want, int32(i))
			} else {
				got := q.Pop()
				if got != want[0] {
					t.Fatalf("init(%d), op %d: pop = %d, want %d", n, i, got, want[0])
				}
				want = want[1:]
			}
			if q.Len() != len(want) {
				t.Fatalf("init(%d), op %d: len = %d, want %d", n, i, q.Len(), len(want))
			}
		}
	}
}
