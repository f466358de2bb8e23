package retry

import (
	"math"
	"sync"
	"testing"
	"time"
)

// step is one event in a budget script: an attempt result or a retry
// request, with the expected answer and token count afterwards.
type step struct {
	op      string // "attempt": OnAttempt+OnResult; "retry": AllowRetry
	at      time.Duration
	attempt int
	o, prev Outcome
	allow   bool // for "retry"
}

func runScript(t *testing.T, name string, b Budget, tokens func() float64, script []step, want []float64) {
	t.Helper()
	for i, st := range script {
		switch st.op {
		case "attempt":
			b.OnAttempt(st.at, st.attempt)
			b.OnResult(st.at, st.attempt, st.o, st.prev)
		case "retry":
			if got := b.AllowRetry(st.at, st.o); got != st.allow {
				t.Errorf("%s step %d: AllowRetry(%v, %v) = %v, want %v", name, i, st.at, st.o, got, st.allow)
			}
		}
		if got := tokens(); got != want[i] {
			t.Errorf("%s step %d (%s %v): tokens = %v, want %v", name, i, st.op, st.o, got, want[i])
		}
	}
}

func TestTokenBucket(t *testing.T) {
	t.Parallel()
	b, err := NewTokenBucket(TokenBucketConfig{Capacity: 20, RetryCost: 5, TimeoutCost: 10, NoRetryIncrement: 1})
	if err != nil {
		t.Fatal(err)
	}
	tok := func() float64 { return float64(b.Tokens()) }
	runScript(t, "token bucket", b, tok, []step{
		{op: "attempt", attempt: 1, o: OK},                  // full: +1 capped at 20
		{op: "retry", o: Timeout, allow: true},              // timeout costs 10 → 10
		{op: "attempt", attempt: 2, o: OK, prev: Timeout},   // successful retry refunds 10 → 20
		{op: "retry", o: Timeout, allow: true},              // → 10
		{op: "retry", o: Transient, allow: true},            // → 5
		{op: "retry", o: Timeout, allow: false},             // 5 < 10: denied, unchanged
		{op: "retry", o: RateLimited, allow: true},          // exactly 5 left: allowed → 0
		{op: "retry", o: Transient, allow: false},           // 0 < 5
		{op: "attempt", attempt: 3, o: Transient},           // failures change nothing
		{op: "attempt", attempt: 1, o: OK},                  // first-attempt success +1 → 1
		{op: "attempt", attempt: 2, o: OK, prev: Transient}, // refund 5 → 6
		{op: "attempt", attempt: 1, o: Permanent},           // nothing
	}, []float64{20, 10, 20, 10, 5, 5, 0, 0, 0, 1, 6, 6})
}

// TestTokenBucketAWS checks the AWS constants: a full bucket of 500 allows
// exactly 100 retries at cost 5, or 50 after timeouts at cost 10.
func TestTokenBucketAWS(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		o    Outcome
		want int
	}{{Transient, 100}, {Timeout, 50}} {
		b, err := NewTokenBucket(AWSStandard())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for b.AllowRetry(0, tt.o) {
			n++
		}
		if n != tt.want || b.Tokens() != 0 {
			t.Errorf("AWS bucket after %v: %d retries allowed, %d tokens left; want %d, 0", tt.o, n, b.Tokens(), tt.want)
		}
	}
}

// TestThrottle follows gRPC C-core's retry_throttle_test (Basic): max 4,
// ratio 1.6, threshold 2: failure → 3 (retry ok); success → 4 (capped);
// failure → 3; failure → 2, at the threshold, so no retry; success → 3.6;
// failure → 2.6 (retry ok).
func TestThrottle(t *testing.T) {
	t.Parallel()
	th, err := NewThrottle(4, 1.6)
	if err != nil {
		t.Fatal(err)
	}
	runScript(t, "throttle", th, th.Tokens, []step{
		{op: "attempt", attempt: 1, o: Transient},
		{op: "retry", o: Transient, allow: true},
		{op: "attempt", attempt: 2, o: OK, prev: Transient},
		{op: "attempt", attempt: 1, o: Timeout},
		{op: "retry", o: Timeout, allow: true},
		{op: "attempt", attempt: 2, o: RateLimited, prev: Timeout},
		{op: "retry", o: RateLimited, allow: false},
		{op: "attempt", attempt: 1, o: OK},
		{op: "attempt", attempt: 1, o: Transient},
		{op: "retry", o: Transient, allow: true},
		{op: "attempt", attempt: 1, o: Permanent}, // neither success nor failure
		{op: "attempt", attempt: 1, o: Transient},
		{op: "attempt", attempt: 1, o: Transient},
		{op: "attempt", attempt: 1, o: Transient},
		{op: "attempt", attempt: 1, o: Transient}, // not below 0
		{op: "retry", o: Transient, allow: false},
	}, []float64{3, 3, 4, 3, 3, 2, 2, 3.6, 2.6, 2.6, 2.6, 1.6, 0.6, 0, 0, 0})
}

// TestThrottleJustAbove checks the strict inequality with a ratio that does
// not divide evenly: max 10 (threshold 5); 6 failures leave 4, then 10
// successes of 0.1 make exactly 5 (no retry), one more makes 5.1 (retry).
func TestThrottleJustAbove(t *testing.T) {
	t.Parallel()
	th, err := NewThrottle(10, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	for range 6 {
		th.OnResult(0, 1, Timeout, OK)
	}
	for range 10 {
		th.OnResult(0, 1, OK, OK)
	}
	if th.Tokens() != 5 || th.AllowRetry(0, Timeout) {
		t.Errorf("at tokens %v (= max/2): AllowRetry = true, want false", th.Tokens())
	}
	th.OnResult(0, 1, OK, OK)
	if th.Tokens() != 5.1 || !th.AllowRetry(0, Timeout) {
		t.Errorf("at tokens %v (> max/2): AllowRetry = false, want true", th.Tokens())
	}
}

func TestRatio(t *testing.T) {
	t.Parallel()
	r, err := NewRatio(RatioConfig{TTL: 10 * s, Ratio: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if r.AllowRetry(0, Transient) {
		t.Errorf("empty Ratio without reserve: AllowRetry = true, want false")
	}
	for range 4 {
		r.OnAttempt(0, 1)
	}
	if r.AllowRetry(0, Transient) {
		t.Errorf("after 4 requests at ratio 0.2 (balance 0.8): AllowRetry = true, want false")
	}
	r.OnAttempt(0, 1)
	r.OnAttempt(0, 2) // retries deposit nothing
	if !r.AllowRetry(0, Transient) {
		t.Errorf("after 5 requests at ratio 0.2 (balance 1): AllowRetry = false, want true")
	}
	if r.AllowRetry(0, Transient) || r.Balance(0) != 0 {
		t.Errorf("second retry on 5 requests: allowed, or balance %v ≠ 0", r.Balance(0))
	}
	// Window expiry: 10 more requests at 5 s give 2 retries until 15 s.
	for range 10 {
		r.OnAttempt(5*s, 1)
	}
	if got := r.Balance(10*s - 1); got != 2 {
		t.Errorf("Balance(10s−1ns) = %v, want 2 (t=0 entries still count)", got)
	}
	if got := r.Balance(10 * s); got != 2 {
		t.Errorf("Balance(10s) = %v, want 2 (t=0 deposits and withdrawal, net 0, forgotten)", got)
	}
	if got := r.Balance(15*s - 1); got != 2 {
		t.Errorf("Balance(15s−1ns) = %v, want 2", got)
	}
	if got := r.Balance(15 * s); got != 0 {
		t.Errorf("Balance(15s) = %v, want 0 (t=5s deposits forgotten)", got)
	}
	// A long gap clears everything.
	if got := r.Balance(1000 * s); got != 0 {
		t.Errorf("Balance(1000s) = %v, want 0", got)
	}
}

// TestRatioWithdrawalExpires checks that a withdrawal is forgotten with its
// slot, so a spent balance comes back once the window moves past it.
func TestRatioWithdrawalExpires(t *testing.T) {
	t.Parallel()
	r, err := NewRatio(RatioConfig{TTL: 10 * s, Ratio: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	r.OnAttempt(0, 1)
	r.OnAttempt(0, 1)   // balance 1 from slot 0
	r.OnAttempt(3*s, 1) // +0.5 in slot 3
	r.OnAttempt(3*s, 1) // +0.5 in slot 3
	if !r.AllowRetry(3*s, Timeout) || !r.AllowRetry(3*s, Timeout) || r.AllowRetry(3*s, Timeout) {
		t.Fatalf("two retries on balance 2, then none: got otherwise")
	}
	// At 10 s slot 0 (+1) leaves; slot 3 (+1 −2) stays: −1.
	if got := r.Balance(10 * s); got != -1 {
		t.Errorf("Balance(10s) = %v, want −1", got)
	}
	// At 13 s slot 3 leaves too.
	if got := r.Balance(13 * s); got != 0 {
		t.Errorf("Balance(13s) = %v, want 0", got)
	}
}

// TestRatioFinagle checks Finagle's defaults: a reserve of MinPerSecond × TTL
// = 100 retries with no traffic, renewed when the window moves on, plus 20%
// of requests.
func TestRatioFinagle(t *testing.T) {
	t.Parallel()
	r, err := NewRatio(FinagleDefault())
	if err != nil {
		t.Fatal(err)
	}
	count := func(at time.Duration) int {
		n := 0
		for r.AllowRetry(at, Transient) {
			n++
		}
		return n
	}
	if n := count(0); n != 100 {
		t.Errorf("Finagle default, no requests: %d retries, want 100 (10/s × 10 s)", n)
	}
	if n := count(9 * s); n != 0 {
		t.Errorf("same window: %d more retries, want 0", n)
	}
	for range 50 {
		r.OnAttempt(9*s, 1)
	}
	if n := count(9 * s); n != 10 {
		t.Errorf("after 50 requests: %d retries, want 10 (20%%)", n)
	}
	// At 10 s the t=0 withdrawals leave the window: the reserve is back.
	if n := count(10 * s); n != 100 {
		t.Errorf("next window: %d retries, want 100", n)
	}
}

func TestRatioBackwards(t *testing.T) {
	t.Parallel()
	r, err := NewRatio(RatioConfig{TTL: 10 * s, Ratio: 1})
	if err != nil {
		t.Fatal(err)
	}
	r.OnAttempt(50*s, 1)
	r.OnAttempt(-3*s, 1) // earlier than the window: charged to the newest slot
	if got := r.Balance(50 * s); got != 2 {
		t.Errorf("Balance after a backwards deposit = %v, want 2", got)
	}
	if got := r.Balance(60 * s); got != 0 {
		t.Errorf("Balance(60s) = %v, want 0", got)
	}
	// Negative instants work (arbitrary origin).
	r2, _ := NewRatio(RatioConfig{TTL: 10 * s, Ratio: 1})
	r2.OnAttempt(-25*s, 1)
	if got := r2.Balance(-16 * s); got != 1 {
		t.Errorf("Balance(−16s) = %v, want 1", got)
	}
	if got := r2.Balance(-15 * s); got != 0 {
		t.Errorf("Balance(−15s) = %v, want 0", got)
	}
}

func TestBudgetConfigErrors(t *testing.T) {
	t.Parallel()
	tb := func(mut func(*TokenBucketConfig)) error {
		c := AWSStandard()
		mut(&c)
		_, err := NewTokenBucket(c)
		return err
	}
	rc := func(mut func(*RatioConfig)) error {
		c := FinagleDefault()
		mut(&c)
		_, err := NewRatio(c)
		return err
	}
	th := func(max int, ratio float64) error { _, err := NewThrottle(max, ratio); return err }
	for _, tt := range []struct {
		err  error
		want string
	}{
		{tb(func(c *TokenBucketConfig) { c.Capacity = 0 }), "capacity: must be ≥ 1, got 0"},
		{tb(func(c *TokenBucketConfig) { c.RetryCost = -1 }), "retry_cost: must be ≥ 1, got -1"},
		{tb(func(c *TokenBucketConfig) { c.TimeoutCost = 0 }), "timeout_cost: must be ≥ 1, got 0"},
		{tb(func(c *TokenBucketConfig) { c.NoRetryIncrement = -1 }), "no_retry_increment: must be ≥ 0, got -1"},
		{th(0, 0.1), "max_tokens: must be in [1, 1000], got 0"},
		{th(1001, 0.1), "max_tokens: must be in [1, 1000], got 1001"},
		{th(10, 0.0004), "token_ratio: must be ≥ 0.001 and finite, got 0.0004"},
		{th(10, math.NaN()), "token_ratio: must be ≥ 0.001 and finite, got NaN"},
		{th(10, math.Inf(1)), "token_ratio: must be ≥ 0.001 and finite, got +Inf"},
		{rc(func(c *RatioConfig) { c.TTL = 0 }), "ttl: must be > 0, got 0s"},
		{rc(func(c *RatioConfig) { c.MinPerSecond = -1 }), "min_per_second: must be ≥ 0 and finite, got -1"},
		{rc(func(c *RatioConfig) { c.Ratio = 1001 }), "ratio: must be in [0, 1000], got 1001"},
	} {
		if tt.err == nil || tt.err.Error() != tt.want {
			t.Errorf("error = %v, want %q", tt.err, tt.want)
		}
	}
	if err := th(1000, 0.001); err != nil {
		t.Errorf("NewThrottle(1000, 0.001) = %v, want nil", err)
	}
}

// TestBudgetsConcurrent exercises every budget from several goroutines, for
// the race detector, and checks that the TokenBucket never overdraws.
func TestBudgetsConcurrent(t *testing.T) {
	t.Parallel()
	tb, _ := NewTokenBucket(AWSStandard())
	th, _ := NewThrottle(100, 0.5)
	ra, _ := NewRatio(FinagleDefault())
	var wg sync.WaitGroup
	var mu sync.Mutex
	granted := 0
	for range 4 {
		wg.Go(func() {
			for i := range 200 {
				now := time.Duration(i) * ms
				for _, b := range []Budget{tb, th, ra} {
					b.OnAttempt(now, 1)
					b.OnResult(now, 1, Transient, OK)
					ok := b.AllowRetry(now, Transient)
					if b == Budget(tb) && ok {
						mu.Lock()
						granted++
						mu.Unlock()
					}
				}
			}
		})
	}
	wg.Wait()
	if granted != 100 || tb.Tokens() != 0 {
		t.Errorf("concurrent AWS bucket granted %d retries leaving %d tokens; want 100, 0", granted, tb.Tokens())
	}
}

func TestBudgetAllocs(t *testing.T) {
	tb, _ := NewTokenBucket(AWSStandard())
	th, _ := NewThrottle(100, 0.5)
	ra, _ := NewRatio(FinagleDefault())
	budgets := []Budget{tb, th, ra}
	now := time.Duration(0)
	allocs := testing.AllocsPerRun(1000, func() {
		now += 7 * ms
		for _, b := range budgets {
			b.OnAttempt(now, 1)
			b.OnResult(now, 1, Transient, OK)
			b.AllowRetry(now, Transient)
			b.OnResult(now, 2, OK, Transient)
		}
	})
	if allocs != 0 {
		t.Errorf("budget methods allocate %v times per run, want 0", allocs)
	}
}

func BenchmarkBudget(b *testing.B) {
	tb, _ := NewTokenBucket(AWSStandard())
	th, _ := NewThrottle(100, 0.5)
	ra, _ := NewRatio(FinagleDefault())
	for _, bb := range []struct {
		name string
		b    Budget
	}{{"TokenBucket", tb}, {"Throttle", th}, {"Ratio", ra}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				now := time.Duration(i) * ms
				bb.b.OnAttempt(now, 1)
				bb.b.OnResult(now, 1, Transient, OK)
				if bb.b.AllowRetry(now, Transient) {
					bb.b.OnResult(now, 2, OK, Transient)
				}
			}
		})
	}
}
