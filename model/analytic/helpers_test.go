package analytic

import (
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// near reports whether got is within tol of want, absolutely or relatively.
func near(got, want, tol float64) bool {
	return scalar.EqualWithinAbsOrRel(got, want, tol, tol)
}

// must returns a function that fails the test if err is not nil and
// otherwise returns v, for wrapping a (value, error) call:
// must[float64](t)(q.MeanWait()).
func must[T any](t fataler) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return v
	}
}

// val is must for float64 results, the common case.
func val(t fataler) func(v float64, err error) float64 { return must[float64](t) }

// fataler is the part of testing.TB (and *rapid.T) that must needs.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// meanModel is the mean-value surface that every model in the package
// shares; checkMeans runs the same identities on each of them.
type meanModel interface {
	Throughput() (float64, error)
	MeanWait() (float64, error)
	MeanSojourn() (float64, error)
	MeanInSystem() (float64, error)
	MeanQueue() (float64, error)
}

// checkMeans verifies the identities that hold for any work-conserving
// queue in steady state: Little's law for the system (L = X W) and for the
// queue (Lq = X Wq), W - Wq = E[S], and 0 <= Lq <= L.
func checkMeans(t *testing.T, name string, q meanModel, meanService float64) {
	t.Helper()
	ok := val(t)
	x := ok(q.Throughput())
	wq := ok(q.MeanWait())
	w := ok(q.MeanSojourn())
	l := ok(q.MeanInSystem())
	lq := ok(q.MeanQueue())
	const tol = 1e-12
	if !near(l, Little(x, w), tol) {
		t.Errorf("%s: MeanInSystem() = %v, want Little(X=%v, W=%v) = %v", name, l, x, w, x*w)
	}
	if !near(lq, Little(x, wq), tol) {
		t.Errorf("%s: MeanQueue() = %v, want Little(X=%v, Wq=%v) = %v", name, lq, x, wq, x*wq)
	}
	if !near(w-wq, meanService, tol) {
		t.Errorf("%s: MeanSojourn() - MeanWait() = %v, want E[S] = %v", name, w-wq, meanService)
	}
	if !(0 <= lq && lq <= l) {
		t.Errorf("%s: MeanQueue() = %v, MeanInSystem() = %v, want 0 <= Lq <= L", name, lq, l)
	}
}

func TestMeanIdentities(t *testing.T) {
	t.Parallel()
	mg1 := must[MG1](t)(MG1FromCV(0.7, 1, 2.5))
	md1 := must[MG1](t)(MD1(3, 0.25))
	tests := []struct {
		name        string
		q           meanModel
		meanService float64
	}{
		{"MM1{1,2}", MM1{1, 2}, 0.5},
		{"MM1{0.999,1}", MM1{0.999, 1}, 1},
		{"MMc{9,1,10}", MMc{9, 1, 10}, 1},
		{"MMc{45,0.1,500}", MMc{45, 0.1, 500}, 10},
		{"MMcK{2,1,2,3}", MMcK{2, 1, 2, 3}, 1},
		{"MMcK{50,1,10,40} overload", MMcK{50, 1, 10, 40}, 1},
		{"MMcK{0.3,2,4,4} loss", MMcK{0.3, 2, 4, 4}, 0.5},
		{"MG1FromCV(0.7,1,2.5)", mg1, 1},
		{"MD1(3,0.25)", md1, 0.25},
	}
	for _, tt := range tests {
		checkMeans(t, tt.name, tt.q, tt.meanService)
	}
}
