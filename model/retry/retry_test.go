package retry

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/backoff"
	"github.com/budgetsim/budgetsim/model/deadline"
)

const (
	ms = time.Millisecond
	s  = time.Second
)

// basePolicy retries an idempotent call 3 times with a 100 ms base doubling
// to 1 s and no jitter, so sleeps are exact.
func basePolicy() Policy {
	return Policy{
		Attempts:        3,
		Backoff:         backoff.Policy{Base: 100 * ms, Cap: 1 * s, Multiplier: 2},
		HonorRetryAfter: true,
		Idempotent:      true,
	}
}

// denyAll is a Budget that refuses every retry and counts the questions.
type denyAll struct{ asked int }

func (b *denyAll) OnAttempt(time.Duration, int)                  {}
func (b *denyAll) OnResult(time.Duration, int, Outcome, Outcome) {}
func (b *denyAll) AllowRetry(time.Duration, Outcome) bool        { b.asked++; return false }

func TestDecide(t *testing.T) {
	t.Parallel()
	p := basePolicy()
	unsafe := p
	unsafe.Idempotent = false
	keyed := unsafe
	keyed.IdempotencyKey = true
	forced := unsafe
	forced.AllowUnsafe = true
	ignoreRA := p
	ignoreRA.HonorRetryAfter = false
	one := p
	one.Attempts = 1
	zero := p
	zero.Attempts = 0

	// A 2 s deadline with a 20 ms floor, asked at 1 s: 1 s remains, so a
	// sleep fits iff sleep < 980 ms.
	d := deadline.After(0, 2*s).WithFloor(20 * ms)
	tests := []struct {
		name string
		in   Input
		want Decision
	}{
		{"ok", Input{Policy: p, Attempt: 1, Outcome: OK}, Decision{Reason: Success}},
		{"permanent never retried", Input{Policy: p, Attempt: 1, Outcome: Permanent}, Decision{Reason: NotRetryable}},
		{"refused never retried", Input{Policy: p, Attempt: 1, Outcome: Refused}, Decision{Reason: NotRetryable}},
		{"transient, first retry", Input{Policy: p, Attempt: 1, Outcome: Transient}, Decision{Retry: true, Sleep: 100 * ms, Reason: Retrying}},
		{"second to last attempt", Input{Policy: p, Attempt: 2, Outcome: Timeout}, Decision{Retry: true, Sleep: 200 * ms, Reason: Retrying}},
		{"last attempt", Input{Policy: p, Attempt: 3, Outcome: Transient}, Decision{Reason: AttemptsExhausted}},
		{"attempts 1", Input{Policy: one, Attempt: 1, Outcome: Transient}, Decision{Reason: AttemptsExhausted}},
		{"attempts 0 counts as 1", Input{Policy: zero, Attempt: 1, Outcome: Transient}, Decision{Reason: AttemptsExhausted}},
		{"exhaustion beats safety", Input{Policy: unsafe, Attempt: 3, Outcome: Timeout}, Decision{Reason: AttemptsExhausted}},
		// Safety.
		{"unsafe, no key", Input{Policy: unsafe, Attempt: 1, Outcome: Timeout}, Decision{Reason: Unsafe}},
		{"unsafe after 503 too", Input{Policy: unsafe, Attempt: 1, Outcome: Transient}, Decision{Reason: Unsafe}},
		{"keyed", Input{Policy: keyed, Attempt: 1, Outcome: Timeout}, Decision{Retry: true, Sleep: 100 * ms, Reason: Retrying}},
		{"forced after timeout: duplicate", Input{Policy: forced, Attempt: 1, Outcome: Timeout}, Decision{Retry: true, Sleep: 100 * ms, Reason: Retrying, Duplicate: true}},
		{"forced after 429: not executed", Input{Policy: forced, Attempt: 1, Outcome: RateLimited}, Decision{Retry: true, Sleep: 100 * ms, Reason: Retrying}},
		{"forced after 503: not executed", Input{Policy: forced, Attempt: 1, Outcome: Transient}, Decision{Retry: true, Sleep: 100 * ms, Reason: Retrying}},
		// Retry-After replaces the backoff, and is still checked.
		{"retry-after honoured", Input{Policy: p, Attempt: 1, Outcome: RateLimited, RetryAfter: 700 * ms, HasRetryAfter: true, Now: 1 * s, Deadline: d},
			Decision{Retry: true, Sleep: 700 * ms, FromRetryAfter: true, Reason: Retrying}},
		{"retry-after shorter than backoff", Input{Policy: p, Attempt: 2, Outcome: Transient, RetryAfter: 0, HasRetryAfter: true},
			Decision{Retry: true, Sleep: 0, FromRetryAfter: true, Reason: Retrying}},
		{"negative retry-after is 0", Input{Policy: p, Attempt: 1, Outcome: Transient, RetryAfter: -5 * s, HasRetryAfter: true},
			Decision{Retry: true, Sleep: 0, FromRetryAfter: true, Reason: Retrying}},
		{"retry-after = remaining − floor − 1ns", Input{Policy: p, Attempt: 1, Outcome: Transient, RetryAfter: 980*ms - 1, HasRetryAfter: true, Now: 1 * s, Deadline: d},
			Decision{Retry: true, Sleep: 980*ms - 1, FromRetryAfter: true, Reason: Retrying}},
		{"retry-after = remaining − floor", Input{Policy: p, Attempt: 1, Outcome: Transient, RetryAfter: 980 * ms, HasRetryAfter: true, Now: 1 * s, Deadline: d},
			Decision{Sleep: 980 * ms, FromRetryAfter: true, Reason: RetryAfterOutlastsDeadline}},
		{"retry-after ignored", Input{Policy: ignoreRA, Attempt: 1, Outcome: Transient, RetryAfter: 5 * s, HasRetryAfter: true, Now: 1 * s, Deadline: d},
			Decision{Retry: true, Sleep: 100 * ms, Reason: Retrying}},
		{"retry-after without the flag set", Input{Policy: p, Attempt: 1, Outcome: Transient, RetryAfter: 5 * s},
			Decision{Retry: true, Sleep: 100 * ms, Reason: Retrying}},
		// Backoff against the deadline: attempt 2's sleep is 200 ms.
		{"backoff fits", Input{Policy: p, Attempt: 2, Outcome: Transient, Now: 1780*ms - 1, Deadline: d},
			Decision{Retry: true, Sleep: 200 * ms, Reason: Retrying}},
		{"backoff = remaining − floor", Input{Policy: p, Attempt: 2, Outcome: Transient, Now: 1780 * ms, Deadline: d},
			Decision{Sleep: 200 * ms, Reason: SleepOutlastsDeadline}},
		{"forced duplicate cleared when not retrying", Input{Policy: forced, Attempt: 2, Outcome: Timeout, Now: 1780 * ms, Deadline: d},
			Decision{Sleep: 200 * ms, Reason: SleepOutlastsDeadline}},
		// Queued run: budget 2 s, queued 1.2 s, Retry-After 1 s, min lease 0.2 s → give up.
		{"queued run, retry-after 1s", Input{Policy: p, Attempt: 1, Outcome: Transient, RetryAfter: 1 * s, HasRetryAfter: true, Now: 1200 * ms,
			Deadline: deadline.After(0, 2*s).WithMinLease(200 * ms)},
			Decision{Sleep: 1 * s, FromRetryAfter: true, Reason: RetryAfterOutlastsDeadline}},
		// Jitter uses U.
		{"full jitter", Input{Policy: Policy{Attempts: 5, Idempotent: true, Backoff: backoff.Policy{Base: 100 * ms, Cap: s, Multiplier: 2, Jitter: backoff.Full}},
			Attempt: 3, Outcome: Transient, U: 0.25}, Decision{Retry: true, Sleep: 100 * ms, Reason: Retrying}},
	}
	for _, tt := range tests {
		if got := Decide(tt.in); got != tt.want {
			t.Errorf("%s: Decide(attempt %d, %v, ra %v/%v, now %v) = %+v, want %+v",
				tt.name, tt.in.Attempt, tt.in.Outcome, tt.in.RetryAfter, tt.in.HasRetryAfter, tt.in.Now, got, tt.want)
		}
	}
}

// TestDecideBudgetLast checks that the budget is asked only for a retry that
// would otherwise happen, and that its refusal is BudgetExhausted.
func TestDecideBudgetLast(t *testing.T) {
	t.Parallel()
	p := basePolicy()
	d := deadline.After(0, 2*s)
	for _, tt := range []struct {
		name      string
		in        Input
		wantAsked int
		want      Reason
	}{
		{"would retry", Input{Attempt: 1, Outcome: Transient}, 1, BudgetExhausted},
		{"ok", Input{Attempt: 1, Outcome: OK}, 0, Success},
		{"permanent", Input{Attempt: 1, Outcome: Permanent}, 0, NotRetryable},
		{"last attempt", Input{Attempt: 3, Outcome: Timeout}, 0, AttemptsExhausted},
		{"sleep too long", Input{Attempt: 1, Outcome: Transient, RetryAfter: 3 * s, HasRetryAfter: true}, 0, RetryAfterOutlastsDeadline},
	} {
		b := &denyAll{}
		in := tt.in
		in.Policy, in.Deadline, in.Budget = p, d, b
		got := Decide(in)
		if got.Reason != tt.want || got.Retry || b.asked != tt.wantAsked {
			t.Errorf("%s: Decide = %+v with budget asked %d times; want %v, asked %d", tt.name, got, b.asked, tt.want, tt.wantAsked)
		}
	}
}

func TestDecidePanics(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]Input{
		"attempt 0": {Policy: basePolicy(), Attempt: 0, Outcome: Transient},
		"u = 1":     {Policy: basePolicy(), Attempt: 1, Outcome: Transient, U: 1},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Decide(%s) did not panic", name)
				}
			}()
			Decide(in)
		}()
	}
}

func TestPolicyValidate(t *testing.T) {
	t.Parallel()
	if err := basePolicy().Validate(); err != nil {
		t.Errorf("basePolicy().Validate() = %v, want nil", err)
	}
	p := basePolicy()
	p.Attempts = 0
	if err := p.Validate(); err == nil || err.Error() != "attempts: must be ≥ 1, got 0" {
		t.Errorf("Validate() with Attempts 0 = %v", err)
	}
	p = basePolicy()
	p.Backoff.Multiplier = 0
	if err := p.Validate(); err == nil || err.Error() != "backoff: multiplier: must be ≥ 1 and finite, got 0" {
		t.Errorf("Validate() with Multiplier 0 = %v", err)
	}
}

// TestRetryAfterJitter: an honoured Retry-After of 1 s with a spread of
// 0.2 sleeps 1 s × (1 + 0.2 u): never less than the server asked, 1.1 s at
// u = 0.5, below 1.2 s; and the deadline check sees the spread sleep.
func TestRetryAfterJitter(t *testing.T) {
	t.Parallel()
	p := basePolicy()
	p.RetryAfterJitter = 0.2
	d := deadline.After(0, 3*s).WithFloor(20 * ms) // at 1 s, a sleep fits iff < 1.98 s
	for _, tc := range []struct {
		u    float64
		ra   time.Duration
		want Decision
	}{
		{0, s, Decision{Retry: true, Sleep: s, FromRetryAfter: true, Reason: Retrying}},
		{0.5, s, Decision{Retry: true, Sleep: 1100 * ms, FromRetryAfter: true, Reason: Retrying}},
		{0.999, s, Decision{Retry: true, Sleep: 1199800 * time.Microsecond, FromRetryAfter: true, Reason: Retrying}},
		{0, 0, Decision{Retry: true, Sleep: 0, FromRetryAfter: true, Reason: Retrying}},
		// 1.7 s fits unspread; at u = 0.5 the spread sleep is 1.87 s, at
		// u = 0.99 2.0366 s, which the deadline refuses.
		{0.5, 1700 * ms, Decision{Retry: true, Sleep: 1870 * ms, FromRetryAfter: true, Reason: Retrying}},
		{0.99, 1700 * ms, Decision{Sleep: 2036600 * time.Microsecond, FromRetryAfter: true, Reason: RetryAfterOutlastsDeadline}},
	} {
		got := Decide(Input{Policy: p, Attempt: 1, Outcome: RateLimited, HasRetryAfter: true, RetryAfter: tc.ra, U: tc.u, Now: s, Deadline: d})
		if got != tc.want {
			t.Errorf("Retry-After %v, u = %v: Decide = %+v, want %+v", tc.ra, tc.u, got, tc.want)
		}
	}
	// A Retry-After near the largest duration saturates instead of wrapping.
	if got := retryAfterSleep(maxDuration-1, 1, 0.9); got != maxDuration {
		t.Errorf("retryAfterSleep(max-1, 1, 0.9) = %v, want the largest duration", got)
	}
	for _, bad := range []float64{-0.1, math.NaN(), math.Inf(1), MaxRetryAfterJitter + 1} {
		p.RetryAfterJitter = bad
		if err := p.Validate(); err == nil || !strings.HasPrefix(err.Error(), "retry_after_jitter: must be in [0, 1]") {
			t.Errorf("Validate() with RetryAfterJitter %v = %v", bad, err)
		}
	}
}

func TestOutcome(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		o          Outcome
		name       string
		retryable  bool
		mayHaveRun bool
	}{
		{OK, "ok", false, true},
		{Timeout, "timeout", true, true},
		{Transient, "transient", true, false},
		{RateLimited, "rate_limited", true, false},
		{Permanent, "permanent", false, false},
		{Refused, "refused", false, false},
	} {
		if got := tt.o.String(); got != tt.name {
			t.Errorf("Outcome(%d).String() = %q, want %q", int(tt.o), got, tt.name)
		}
		if got, err := ParseOutcome(tt.name); err != nil || got != tt.o {
			t.Errorf("ParseOutcome(%q) = %v, %v; want %v", tt.name, got, err, tt.o)
		}
		var back Outcome
		if b, err := tt.o.MarshalText(); err != nil || back.UnmarshalText(b) != nil || back != tt.o {
			t.Errorf("text round trip of %v failed: %q, %v", tt.o, b, err)
		}
		if got := tt.o.Retryable(); got != tt.retryable {
			t.Errorf("%v.Retryable() = %v, want %v", tt.o, got, tt.retryable)
		}
		if got := tt.o.MayHaveExecuted(); got != tt.mayHaveRun {
			t.Errorf("%v.MayHaveExecuted() = %v, want %v", tt.o, got, tt.mayHaveRun)
		}
	}
	if _, err := ParseOutcome("429"); err == nil || !strings.Contains(err.Error(), `"429"`) {
		t.Errorf(`ParseOutcome("429") error = %v, want one naming the value`, err)
	}
	if got := Outcome(9).String(); got != "Outcome(9)" {
		t.Errorf("Outcome(9).String() = %q", got)
	}
	if _, err := Outcome(9).MarshalText(); err == nil {
		t.Errorf("Outcome(9).MarshalText() error = nil, want one")
	}
	var o Outcome
	if err := o.UnmarshalText([]byte("nope")); err == nil {
		t.Errorf("UnmarshalText(nope) error = nil, want one")
	}
}

func TestReasonString(t *testing.T) {
	t.Parallel()
	want := map[Reason]string{
		Success: "success", NotRetryable: "not_retryable", AttemptsExhausted: "attempts_exhausted",
		Unsafe: "unsafe", RetryAfterOutlastsDeadline: "retry_after_outlasts_deadline",
		SleepOutlastsDeadline: "sleep_outlasts_deadline", BudgetExhausted: "budget_exhausted",
		Retrying: "retrying", 0: "Reason(0)", 99: "Reason(99)",
	}
	for r, w := range want {
		if got := r.String(); got != w {
			t.Errorf("Reason(%d).String() = %q, want %q", int(r), got, w)
		}
	}
}

func TestOutcomeForStatus(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]Outcome{
		200: OK, 204: OK, 304: OK, 400: Permanent, 404: Permanent, 408: Transient,
		429: RateLimited, 500: Permanent, 501: Permanent, 502: Transient, 503: Transient, 504: Timeout,
	} {
		if got := OutcomeForStatus(code); got != want {
			t.Errorf("OutcomeForStatus(%d) = %v, want %v", code, got, want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	date := time.Date(2015, 10, 21, 7, 28, 0, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"120", 120 * s, true},
		{" 3 ", 3 * s, true},
		{"99999999999999999", math.MaxInt64, true}, // saturates
		// RFC 9110 §10.2.3's example date, 2 minutes after date.
		{"Wed, 21 Oct 2015 07:30:00 GMT", 2 * time.Minute, true},
		{"Wednesday, 21-Oct-15 07:30:00 GMT", 2 * time.Minute, true}, // RFC 850
		{"Wed Oct 21 07:30:00 2015", 2 * time.Minute, true},          // asctime
		{"Wed, 21 Oct 2015 07:00:00 GMT", 0, true},                   // in the past
		{"", 0, false},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
	} {
		got, ok := ParseRetryAfter(tt.in, date)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDecideAllocs(t *testing.T) {
	b, err := NewTokenBucket(AWSStandard())
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Policy: basePolicy(), Attempt: 1, Outcome: Transient, U: 0.5, Now: 0,
		Deadline: deadline.After(0, 10*s).WithFloor(20 * ms), Budget: b}
	var sink time.Duration
	allocs := testing.AllocsPerRun(1000, func() {
		b.OnResult(0, 2, OK, Transient) // refund, so the bucket never runs dry
		d := Decide(in)
		sink += d.Sleep
	})
	if allocs != 0 {
		t.Errorf("Decide allocates %v times per run, want 0", allocs)
	}
	_ = sink
}

func BenchmarkDecide(b *testing.B) {
	in := Input{
		Policy:  Policy{Attempts: 5, Idempotent: true, HonorRetryAfter: true, Backoff: backoff.Policy{Base: 100 * ms, Cap: 10 * s, Multiplier: 2, Jitter: backoff.Full}},
		Outcome: Transient, Deadline: deadline.After(0, 10*s).WithFloor(20 * ms),
	}
	b.ReportAllocs()
	var sink time.Duration
	for i := 0; b.Loop(); i++ {
		in.Attempt = i&3 + 1
		in.U = float64(i&1023) / 1024
		sink += Decide(in).Sleep
	}
	_ = sink
}

// TestMayRetry: only an idempotent or keyed request, or one forced by
// AllowUnsafe, may ever be retried; Decide says Unsafe for the rest.
func TestMayRetry(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		want bool
	}{
		{Policy{}, false},
		{Policy{Idempotent: true}, true},
		{Policy{IdempotencyKey: true}, true},
		{Policy{AllowUnsafe: true}, true},
	} {
		tc.p.Attempts = 3
		if got := tc.p.MayRetry(); got != tc.want {
			t.Errorf("%+v: MayRetry = %v, want %v", tc.p, got, tc.want)
		}
		d := Decide(Input{Policy: tc.p, Attempt: 1, Outcome: Transient})
		if (d.Reason == Unsafe) == tc.want {
			t.Errorf("%+v: Decide reason %v, inconsistent with MayRetry %v", tc.p, d.Reason, tc.want)
		}
	}
}
