package ratelimit

import (
	"strings"
	"testing"
	"time"
)

func newLimiter(t *testing.T, ls TokenLimits) *TokenLimiter {
	t.Helper()
	m, err := NewTokenLimiter(ls)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTokenLimiterBinding(t *testing.T) {
	// 60 rpm refills one request per second; 6000 tpm refills 100 tokens
	// per second. Both buckets start full.
	m := newLimiter(t, TokenLimits{RPM: 60, TPM: 6000})
	// Spend 5900 tokens over 1 request: the next 200-token call waits for
	// 100 tokens, 1s, on tpm; rpm has 59 requests left.
	if _, ok, err := m.AcquireAt(0, Usage{Input: 5000, Output: 900}, 0); !ok || err != nil {
		t.Fatalf("first call: ok=%v err=%v", ok, err)
	}
	w, l, err := m.WaitAt(0, Usage{Input: 100, Output: 100})
	if err != nil || w != time.Second || l != TPM {
		t.Fatalf("WaitAt = %v, %v, %v; want 1s, tpm", w, l, err)
	}
	// Small calls exhaust rpm first: 59 more calls of 1 token fit in tpm
	// (100 left) but the 61st request of the minute waits 1s on rpm.
	for i := 0; i < 59; i++ {
		if _, ok, _ := m.AcquireAt(0, Usage{Input: 1}, 0); !ok {
			t.Fatalf("call %d refused", i+2)
		}
	}
	w, l, _ = m.WaitAt(0, Usage{Input: 1})
	if w != time.Second || l != RPM {
		t.Fatalf("WaitAt after 60 calls = %v, %v; want 1s, rpm", w, l)
	}
}

func TestTokenLimiterProviderRejects(t *testing.T) {
	m := newLimiter(t, TokenLimits{TPM: 600, OTPM: 120}) // 10 tok/s, 2 out tok/s
	if _, _, ok, _ := m.TryAcquireAt(0, Usage{Input: 100, Output: 120}); !ok {
		t.Fatal("full buckets refused a call")
	}
	// otpm is empty: 20 output tokens need 10s; tpm has 380 left.
	r, retry, ok, err := m.TryAcquireAt(0, Usage{Input: 10, Output: 20})
	if ok || err != nil || retry != 10*time.Second || r.Binding != OTPM {
		t.Fatalf("TryAcquireAt = %+v, %v, %v, %v; want rejected, retry 10s on otpm", r, retry, ok, err)
	}
	// Nothing was taken: tpm still holds 380 tokens.
	if got, _ := m.TokensAt(0, TPM); got != 380 {
		t.Fatalf("tpm after rejection = %v, want 380", got)
	}
	// One nanosecond early is still rejected; at the retry-after it passes.
	if _, _, ok, _ := m.TryAcquireAt(retry-1, Usage{Input: 10, Output: 20}); ok {
		t.Fatal("admitted before retry-after")
	}
	if _, _, ok, _ := m.TryAcquireAt(retry, Usage{Input: 10, Output: 20}); !ok {
		t.Fatal("rejected at retry-after")
	}
}

func TestTokenLimiterClientWait(t *testing.T) {
	m := newLimiter(t, TokenLimits{TPM: 60}) // 1 token per second
	if _, ok, _ := m.AcquireAt(0, Usage{Input: 60}, 0); !ok {
		t.Fatal("full bucket refused")
	}
	// A run with 5s left is refused a 10s wait up front; nothing taken.
	r, ok, _ := m.AcquireAt(0, Usage{Input: 10}, 5*time.Second)
	if ok || r.Wait != 10*time.Second || r.Binding != TPM {
		t.Fatalf("AcquireAt(5s) = %+v, %v; want refused with wait 10s on tpm", r, ok)
	}
	// With 20s left it takes the tokens and waits 10s; the next caller
	// queues behind it (FIFO): 10 more tokens, 20s.
	r, ok, _ = m.AcquireAt(0, Usage{Input: 10}, 20*time.Second)
	if !ok || r.Wait != 10*time.Second {
		t.Fatalf("AcquireAt(20s) = %+v, %v; want wait 10s", r, ok)
	}
	if w, _, _ := m.WaitAt(0, Usage{Input: 10}); w != 20*time.Second {
		t.Fatalf("next wait = %v, want 20s", w)
	}
	// More than a minute's allowance can never be granted.
	r, ok, _ = m.AcquireAt(0, Usage{Input: 61}, InfDuration-1)
	if ok || r.Wait != InfDuration {
		t.Fatalf("AcquireAt(61 > tpm) = %+v, %v; want refused with InfDuration", r, ok)
	}
}

func TestTokenLimiterSettle(t *testing.T) {
	m := newLimiter(t, TokenLimits{TPM: 6000, OTPM: 3000})
	// Reserve max_tokens 2000; the call used 500.
	r, ok, _ := m.AcquireAt(0, Usage{Input: 1000, Output: 2000}, 0)
	if !ok {
		t.Fatal("refused")
	}
	if got, _ := m.TokensAt(0, OTPM); got != 1000 {
		t.Fatalf("otpm after reserve = %v, want 1000", got)
	}
	if err := m.Settle(0, r, Usage{Input: 1000, Output: 500}); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.TokensAt(0, OTPM); got != 2500 {
		t.Fatalf("otpm after settle = %v, want 2500", got)
	}
	if got, _ := m.TokensAt(0, TPM); got != 4500 {
		t.Fatalf("tpm after settle = %v, want 4500", got)
	}
	// Returned tokens never overfill: after a minute the buckets are full,
	// and settling an old over-reservation leaves them full.
	if err := m.Settle(time.Minute, TokenReservation{Reserved: Usage{Output: 1000}}, Usage{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.TokensAt(time.Minute, OTPM); got != 3000 {
		t.Fatalf("otpm after over-return = %v, want 3000 (full)", got)
	}
	// Usage beyond an estimate is debt: an estimate of 100 output tokens
	// that turned out 3100 leaves otpm at -100 (50 tok/s: 2s to reach 0).
	r, _, _ = m.AcquireAt(time.Minute, Usage{Output: 100}, 0)
	if err := m.Settle(time.Minute, r, Usage{Output: 3100}); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.TokensAt(time.Minute, OTPM); got != -100 {
		t.Fatalf("otpm after debt = %v, want -100", got)
	}
	if w, l, _ := m.WaitAt(time.Minute, Usage{Output: 50}); w != 3*time.Second || l != OTPM {
		t.Fatalf("wait after debt = %v %v, want 3s otpm", w, l)
	}
	// rpm is never corrected.
	m2 := newLimiter(t, TokenLimits{RPM: 2})
	r, _, _ = m2.AcquireAt(0, Usage{Input: 5}, 0)
	_ = m2.Settle(0, r, Usage{})
	if got, _ := m2.TokensAt(0, RPM); got != 1 {
		t.Fatalf("rpm after settle = %v, want 1", got)
	}
}

func TestTokenLimiterErrors(t *testing.T) {
	if _, err := NewTokenLimiter(TokenLimits{OTPM: -1}); err == nil || !strings.Contains(err.Error(), "otpm") {
		t.Errorf("NewTokenLimiter(otpm -1) = %v, want an error naming otpm", err)
	}
	m := newLimiter(t, TokenLimits{})
	if _, _, err := m.AcquireAt(0, Usage{Output: -3}, 0); err == nil || !strings.Contains(err.Error(), "reserve.Output") {
		t.Errorf("AcquireAt(Output -3) = %v, want an error naming reserve.Output", err)
	}
	if err := m.Settle(0, TokenReservation{}, Usage{Input: -1}); err == nil || !strings.Contains(err.Error(), "actual.Input") {
		t.Errorf("Settle(Input -1) = %v, want an error naming actual.Input", err)
	}
	// No limits: everything passes at once.
	if r, ok, _ := m.AcquireAt(0, Usage{Input: 1 << 40}, 0); !ok || r.Wait != 0 {
		t.Errorf("unlimited AcquireAt = %+v, %v", r, ok)
	}
	if _, ok := m.TokensAt(0, TPM); ok {
		t.Error("TokensAt reports an unenforced limit")
	}
	if s := (TokenLimits{RPM: 5, ITPM: 7}).String(); s != "rpm=5 itpm=7" {
		t.Errorf("String = %q", s)
	}
}

// Under provider enforcement and a backlog that always retries at its
// retry-after, the admitted tokens over a long horizon are the bucket size
// plus tpm per minute: the throughput cap is tpm / tokens per call.
func TestTokenLimiterLongRunCap(t *testing.T) {
	const tpm = 12000
	m := newLimiter(t, TokenLimits{TPM: tpm})
	u := Usage{Input: 150, Output: 50}
	var now time.Duration
	calls := 0
	horizon := 10 * time.Minute
	for now <= horizon {
		_, retry, ok, _ := m.TryAcquireAt(now, u)
		if ok {
			calls++
			continue
		}
		now += retry
	}
	want := (tpm + tpm*10) / 200 // the first minute's burst, then 10 minutes of refill
	if calls != want {
		t.Fatalf("calls in 10 min = %d, want %d", calls, want)
	}
}

// Extreme counts are refused with an error naming the field, and
// corrections saturate instead of overflowing the clock.
func TestTokenLimiterExtremes(t *testing.T) {
	m := newLimiter(t, TokenLimits{TPM: 1}) // one token per minute
	if _, _, err := m.AcquireAt(0, Usage{Input: MaxCallTokens + 1}, 0); err == nil || !strings.Contains(err.Error(), "reserve.Input") {
		t.Errorf("Input 2^40+1: err = %v, want one naming reserve.Input", err)
	}
	if err := m.Settle(0, TokenReservation{Reserved: Usage{Output: -1}}, Usage{}); err == nil || !strings.Contains(err.Error(), "Reserved.Output") {
		t.Errorf("Reserved.Output -1: err = %v, want one naming Reserved.Output", err)
	}
	// 2^40 tokens of debt at one minute each is beyond the clock: the debt
	// saturates at about 146 years, and later reservations still see a
	// wait of that order, not an overflowed one.
	if err := m.Settle(0, TokenReservation{}, Usage{Output: MaxCallTokens}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		r, ok, _ := m.AcquireAt(time.Hour, Usage{Input: 1}, InfDuration)
		if !ok || r.Wait < 100*365*24*time.Hour || r.Binding != TPM {
			t.Errorf("reservation %d after a huge debt: %+v ok=%v, want a wait over 100 years on tpm", i, r, ok)
		}
	}
	// A call beyond a limit's allowance is refused even by a caller that
	// would wait forever, and the other buckets keep their tokens.
	m3 := newLimiter(t, TokenLimits{RPM: 10, TPM: 100})
	if r, ok, _ := m3.AcquireAt(0, Usage{Input: 101}, InfDuration); ok || r.Wait != InfDuration || r.Binding != TPM {
		t.Errorf("AcquireAt(101 > tpm, wait forever) = %+v ok=%v, want refused on tpm", r, ok)
	}
	if got, _ := m3.TokensAt(0, RPM); got != 10 {
		t.Errorf("rpm after a refused call = %v, want 10", got)
	}
	// Returning 2^40 tokens fills the bucket and no more.
	m2 := newLimiter(t, TokenLimits{TPM: 10})
	r, _, _ := m2.AcquireAt(0, Usage{Input: 10}, 0)
	r.Reserved.Input = MaxCallTokens
	if err := m2.Settle(0, r, Usage{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := m2.TokensAt(0, TPM); got != 10 {
		t.Errorf("after a huge return: %v tokens, want 10 (full)", got)
	}
}
