package deadline

import (
	"errors"
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"
)

const (
	ms = time.Millisecond
	s  = time.Second
)

func TestLease(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		d       Deadline
		now     time.Duration
		ceiling time.Duration
		want    time.Duration
		refused bool
	}{
		// Refuse when remaining ≤ floor (remaining − floor must be > 0).
		{"remaining exactly at floor", After(0, 100*ms).WithFloor(20 * ms), 80 * ms, 250 * ms, 0, true},
		{"one ns above floor", After(0, 100*ms).WithFloor(20 * ms), 80*ms - 1, 250 * ms, 1, false},
		{"ceiling smaller", After(0, 1*s).WithFloor(20 * ms), 0, 250 * ms, 250 * ms, false},
		{"remaining−floor smaller", After(0, 1*s).WithFloor(20 * ms), 900 * ms, 250 * ms, 80 * ms, false},
		{"equal: ceiling = remaining−floor", After(0, 1*s).WithFloor(20 * ms), 730 * ms, 250 * ms, 250 * ms, false},
		{"no ceiling", After(0, 1*s).WithFloor(20 * ms), 0, 0, 980 * ms, false},
		{"negative ceiling means none", After(0, 1*s), 0, -5, 1 * s, false},
		{"expired", After(0, 1*s), 2 * s, 250 * ms, 0, true},
		// MinLease: a lease of exactly the minimum is granted.
		{"min lease exact", After(0, 1*s).WithMinLease(200 * ms), 800 * ms, 1 * s, 200 * ms, false},
		{"min lease 1ns short", After(0, 1*s).WithMinLease(200 * ms), 800*ms + 1, 1 * s, 0, true},
		{"min lease above ceiling still grants ceiling", After(0, 1*s).WithMinLease(200 * ms), 0, 100 * ms, 100 * ms, false},
		{"floor and min lease", After(0, 1*s).WithFloor(100 * ms).WithMinLease(200 * ms), 700 * ms, 1 * s, 200 * ms, false},
		{"floor and min lease, 1ns short", After(0, 1*s).WithFloor(100 * ms).WithMinLease(200 * ms), 700*ms + 1, 1 * s, 0, true},
		{"no deadline returns ceiling", None().WithFloor(20 * ms), 1 << 62, 250 * ms, 250 * ms, false},
		{"no deadline, no ceiling", Deadline{}, 0, 0, Unlimited, false},
		// A 10 ms budget below a 20 ms floor is refused before the first call.
		{"budget below floor", After(0, 10*ms).WithFloor(20 * ms), 0, 250 * ms, 0, true},
		// Queued run: budget 2 s, queued 1.2 s, ceiling 1 s, min lease 0.2 s → lease 0.8 s, not a fresh 2 s.
		{"queued run", After(0, 2*s).WithMinLease(200 * ms), 1200 * ms, 1 * s, 800 * ms, false},
	}
	for _, tt := range tests {
		got, err := tt.d.Lease(tt.now, tt.ceiling)
		if tt.refused {
			var re *RefusedError
			if !errors.Is(err, ErrRefused) || !errors.As(err, &re) || got != 0 {
				t.Errorf("%s: %v.Lease(%v, %v) = %v, %v; want 0, *RefusedError", tt.name, tt.d, tt.now, tt.ceiling, got, err)
			}
		} else if err != nil || got != tt.want {
			t.Errorf("%s: %v.Lease(%v, %v) = %v, %v; want %v, nil", tt.name, tt.d, tt.now, tt.ceiling, got, err, tt.want)
		}
		lease, ok := tt.d.TryLease(tt.now, tt.ceiling)
		if ok == tt.refused || lease != got {
			t.Errorf("%s: TryLease(%v, %v) = %v, %v; want %v, %v", tt.name, tt.now, tt.ceiling, lease, ok, got, !tt.refused)
		}
	}
}

func TestRefusedError(t *testing.T) {
	t.Parallel()
	d := After(0, 10*ms).WithFloor(20 * ms).WithMinLease(5 * ms)
	_, err := d.Lease(3*ms, 250*ms)
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("Lease(3ms, 250ms) error = %v, want *RefusedError", err)
	}
	want := RefusedError{Remaining: 7 * ms, Floor: 20 * ms, MinLease: 5 * ms, Need: 25 * ms}
	if *re != want {
		t.Errorf("Lease(3ms, 250ms) error = %+v, want %+v", *re, want)
	}
	const msg = "deadline: lease refused: 7ms remaining, need at least 25ms (floor 20ms, min lease 5ms)"
	if err.Error() != msg {
		t.Errorf("error text = %q, want %q", err.Error(), msg)
	}
	// Need is the smallest remaining that is granted.
	if _, err := d.Lease(10*ms-re.Need, 250*ms); err != nil {
		t.Errorf("Lease with remaining = Need: %v, want a lease", err)
	}
	// With no min lease, Need is floor + 1ns.
	_, err = After(0, 10*ms).WithFloor(20*ms).Lease(0, 0)
	if !errors.As(err, &re) || re.Need != 20*ms+1 {
		t.Errorf("Need without min lease = %v, want %v", re.Need, 20*ms+1)
	}
}

func TestFitsSleep(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		d          Deadline
		now, sleep time.Duration
		want       bool
	}{
		// A sleep ≥ remaining − floor leaves nothing: give up.
		{"sleep = remaining − floor", After(0, 1*s).WithFloor(20 * ms), 0, 980 * ms, false},
		{"sleep 1ns shorter", After(0, 1*s).WithFloor(20 * ms), 0, 980*ms - 1, true},
		{"negative sleep counts as 0", After(0, 1*s), 0, -1 * s, true},
		{"no deadline", None(), 0, 1 << 62, true},
		{"huge sleep saturates", After(0, 1*s), 0, math.MaxInt64, false},
		// remaining < sleep + min lease: give up; equality fits.
		{"sleep + min lease = remaining", After(0, 2*s).WithMinLease(200 * ms), 1 * s, 800 * ms, true},
		{"sleep + min lease = remaining + 1ns", After(0, 2*s).WithMinLease(200 * ms), 1 * s, 800*ms + 1, false},
		// Queued run: budget 2 s, queued 1.2 s, Retry-After 1 s, min lease 0.2 s → give up.
		{"queued run: Retry-After 1s", After(0, 2*s).WithMinLease(200 * ms), 1200 * ms, 1 * s, false},
		// Budget 3 s, queued 1 s, Retry-After 1.5 s: min lease 0.6 s → no retry …
		{"3s budget, min lease 0.6s", After(0, 3*s).WithMinLease(600 * ms), 1 * s, 1500 * ms, false},
		// … min lease 0.4 s → retry.
		{"3s budget, min lease 0.4s", After(0, 3*s).WithMinLease(400 * ms), 1 * s, 1500 * ms, true},
	}
	for _, tt := range tests {
		if got := tt.d.FitsSleep(tt.now, tt.sleep); got != tt.want {
			t.Errorf("%s: %v.FitsSleep(%v, %v) = %v, want %v", tt.name, tt.d, tt.now, tt.sleep, got, tt.want)
		}
	}
}

// TestQueuedRetryAfterLease follows the 3 s case to the lease granted after the
// sleep: budget 3 s, queued 1 s, Retry-After 1.5 s, min lease 0.4 s, ceiling
// 1 s → lease 0.5 s (3 − 1 − 1.5).
func TestQueuedRetryAfterLease(t *testing.T) {
	t.Parallel()
	d := After(0, 3*s).WithMinLease(400 * ms)
	now := 1 * s
	if !d.FitsSleep(now, 1500*ms) {
		t.Fatalf("FitsSleep(1s, 1.5s) = false, want true")
	}
	now += 1500 * ms
	if got, err := d.Lease(now, 1*s); err != nil || got != 500*ms {
		t.Errorf("Lease(2.5s, 1s) = %v, %v; want 500ms, nil", got, err)
	}
}

func TestRemainingExpired(t *testing.T) {
	t.Parallel()
	d := After(5*s, 2*s)
	tests := []struct {
		now     time.Duration
		rem     time.Duration
		expired bool
	}{
		{5 * s, 2 * s, false},
		{7*s - 1, 1, false},
		{7 * s, 0, true},
		{8 * s, -1 * s, true},
	}
	for _, tt := range tests {
		if got := d.Remaining(tt.now); got != tt.rem {
			t.Errorf("%v.Remaining(%v) = %v, want %v", d, tt.now, got, tt.rem)
		}
		if got := d.Expired(tt.now); got != tt.expired {
			t.Errorf("%v.Expired(%v) = %v, want %v", d, tt.now, got, tt.expired)
		}
	}
	var zero Deadline
	if got := zero.Remaining(1 << 62); got != Unlimited {
		t.Errorf("Deadline{}.Remaining = %v, want Unlimited", got)
	}
	if zero.Expired(math.MaxInt64) {
		t.Errorf("Deadline{}.Expired(max) = true, want false")
	}
	if _, ok := zero.Instant(); ok {
		t.Errorf("Deadline{}.Instant() ok = true, want false")
	}
	if at, ok := d.Instant(); !ok || at != 7*s {
		t.Errorf("Instant() = %v, %v; want 7s, true", at, ok)
	}
	if None() != zero {
		t.Errorf("None() = %v, want the zero Deadline", None())
	}
}

func TestSaturation(t *testing.T) {
	t.Parallel()
	if at, _ := After(1, math.MaxInt64).Instant(); at != math.MaxInt64 {
		t.Errorf("After(1, max).Instant() = %v, want max", at)
	}
	if got := At(math.MaxInt64).Remaining(-1 << 62); got != math.MaxInt64 {
		t.Errorf("At(max).Remaining(-2^62) = %v, want max (saturated)", got)
	}
	if got := At(math.MinInt64).Remaining(1 << 62); got != math.MinInt64 {
		t.Errorf("At(min).Remaining(2^62) = %v, want min (saturated)", got)
	}
	if _, ok := At(math.MinInt64).WithFloor(1<<62).TryLease(1<<62, 0); ok {
		t.Errorf("TryLease far past the deadline = ok, want refused")
	}
}

func TestWithin(t *testing.T) {
	t.Parallel()
	parent := At(10 * s).WithFloor(20 * ms)
	tests := []struct {
		name  string
		child Deadline
		want  Deadline
	}{
		{"later child is clamped", At(20 * s), At(10 * s).WithFloor(20 * ms)},
		{"earlier child kept", At(5 * s).WithFloor(5 * ms), At(5 * s).WithFloor(20 * ms)},
		{"child without deadline", None().WithMinLease(100 * ms), At(10 * s).WithFloor(20 * ms).WithMinLease(100 * ms)},
	}
	for _, tt := range tests {
		if got := tt.child.Within(parent); got != tt.want {
			t.Errorf("%s: %v.Within(%v) = %v, want %v", tt.name, tt.child, parent, got, tt.want)
		}
	}
	if got := At(3 * s).Within(None()); got != At(3*s) {
		t.Errorf("At(3s).Within(None()) = %v, want At(3s)", got)
	}
}

// TestWithinNeverGrantsMore checks the Within contract on random inputs: the
// child refuses whenever either deadline refuses, and never leases longer.
func TestWithinNeverGrantsMore(t *testing.T) {
	t.Parallel()
	gen := func(t *rapid.T, label string) Deadline {
		d := None()
		if rapid.Bool().Draw(t, label+" set") {
			d = At(time.Duration(rapid.Int64Range(-1e10, 1e10).Draw(t, label+" at")))
		}
		return d.WithFloor(time.Duration(rapid.Int64Range(0, 1e9).Draw(t, label+" floor"))).
			WithMinLease(time.Duration(rapid.Int64Range(0, 1e9).Draw(t, label+" min")))
	}
	rapid.Check(t, func(t *rapid.T) {
		child, parent := gen(t, "child"), gen(t, "parent")
		now := time.Duration(rapid.Int64Range(-1e10, 1e10).Draw(t, "now"))
		ceiling := time.Duration(rapid.Int64Range(-1, 1e10).Draw(t, "ceiling"))
		w := child.Within(parent)
		lw, okw := w.TryLease(now, ceiling)
		for _, d := range []Deadline{child, parent} {
			l, ok := d.TryLease(now, ceiling)
			if okw && (!ok || lw > l) {
				t.Fatalf("%v.Within(%v).TryLease(%v, %v) = %v, true; but %v gives %v, %v", child, parent, now, ceiling, lw, d, l, ok)
			}
		}
	})
}

// TestLeaseProperties checks, on random inputs, that a lease never exceeds
// the ceiling or remaining − floor, is never below the min lease unless capped
// by the ceiling, and that FitsSleep(now, s) is TryLease(now+s) succeeding.
func TestLeaseProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		d := At(time.Duration(rapid.Int64Range(0, 1e10).Draw(t, "at"))).
			WithFloor(time.Duration(rapid.Int64Range(0, 1e9).Draw(t, "floor"))).
			WithMinLease(time.Duration(rapid.Int64Range(0, 1e9).Draw(t, "min")))
		now := time.Duration(rapid.Int64Range(0, 1e10).Draw(t, "now"))
		ceiling := time.Duration(rapid.Int64Range(1, 1e10).Draw(t, "ceiling"))
		sleep := time.Duration(rapid.Int64Range(0, 1e10).Draw(t, "sleep"))
		l, ok := d.TryLease(now, ceiling)
		if ok {
			avail := d.Remaining(now) - d.Floor()
			if l <= 0 || l > ceiling || l > avail || (l < d.MinLease() && l != ceiling) {
				t.Fatalf("%v.TryLease(%v, %v) = %v: outside (0, min(ceiling, %v)] or below min lease", d, now, ceiling, l, avail)
			}
		}
		_, okAfter := d.TryLease(now+sleep, ceiling)
		if got := d.FitsSleep(now, sleep); got != okAfter {
			t.Fatalf("%v.FitsSleep(%v, %v) = %v, but TryLease at %v ok = %v", d, now, sleep, got, now+sleep, okAfter)
		}
	})
}

func TestPropagateFromWire(t *testing.T) {
	t.Parallel()
	d := After(0, 2*s).WithFloor(20 * ms)
	if got, ok := d.Propagate(1500 * ms); !ok || got != 500*ms {
		t.Errorf("Propagate(1.5s) = %v, %v; want 500ms, true", got, ok)
	}
	if got, ok := d.Propagate(3 * s); !ok || got != 0 {
		t.Errorf("Propagate(3s) = %v, %v; want 0 (clamped), true", got, ok)
	}
	if got, ok := None().Propagate(0); ok || got != 0 {
		t.Errorf("None().Propagate(0) = %v, %v; want 0, false", got, ok)
	}
	// The receiver's clock has another origin: only the duration crosses.
	recv := FromWire(1000*s, 500*ms, 10*ms)
	if got := recv.Remaining(1000 * s); got != 490*ms {
		t.Errorf("FromWire(1000s, 500ms, 10ms).Remaining(1000s) = %v, want 490ms", got)
	}
	if recv.Floor() != 0 || recv.MinLease() != 0 {
		t.Errorf("FromWire floor, min lease = %v, %v; want 0, 0", recv.Floor(), recv.MinLease())
	}
	if !FromWire(7*s, -1*s, 0).Expired(7 * s) {
		t.Errorf("FromWire with negative remaining is not expired on arrival")
	}
	if !FromWire(7*s, 5*ms, 10*ms).Expired(7 * s) {
		t.Errorf("FromWire with transit > remaining is not expired on arrival")
	}
}

func TestWithPanics(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func(){
		"WithFloor(-1)":    func() { None().WithFloor(-1) },
		"WithMinLease(-1)": func() { None().WithMinLease(-1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		d    Deadline
		want string
	}{
		{None(), "no deadline"},
		{After(1*s, 1*s).WithFloor(20 * ms), "deadline at 2s (floor 20ms, min lease 0s)"},
	} {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestLeaseAllocs(t *testing.T) {
	d := After(0, 2*s).WithFloor(20 * ms).WithMinLease(100 * ms)
	var sink time.Duration
	allocs := testing.AllocsPerRun(1000, func() {
		l, err := d.Lease(500*ms, 250*ms)
		if err != nil {
			panic(err)
		}
		l2, _ := d.TryLease(1950*ms, 250*ms)
		if d.FitsSleep(0, 1*s) {
			sink += l + l2
		}
	})
	if allocs != 0 {
		t.Errorf("Lease/TryLease/FitsSleep allocate %v times per run, want 0", allocs)
	}
	_ = sink
}

func BenchmarkLease(b *testing.B) {
	d := After(0, 2*s).WithFloor(20 * ms).WithMinLease(100 * ms)
	b.ReportAllocs()
	var sink time.Duration
	for i := 0; b.Loop(); i++ {
		l, _ := d.TryLease(time.Duration(i&1023)*ms, 250*ms)
		sink += l
	}
	_ = sink
}
