package ratelimit

import (
	"strings"
	"testing"
	"time"
)

func profileLimiter(t *testing.T, name string, ls TokenLimits) *TokenLimiter {
	t.Helper()
	p := LookupProfile(name)
	if p == nil {
		t.Fatalf("no profile %q", name)
	}
	m, err := NewProfileLimiter(ls, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// admitted counts the calls req that the provider admits at instant now,
// one after another, until the first 429, and returns that count and the
// 429's retry-after.
func admitted(t *testing.T, m *TokenLimiter, now time.Duration, req Request, limit int) (int, time.Duration) {
	t.Helper()
	for n := 0; n < limit; n++ {
		_, ra, ok, err := m.TryAdmitAt(now, req)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return n, ra
		}
	}
	return limit, 0
}

// Azure OpenAI: "if Azure OpenAI is monitoring request rate on 1-second
// intervals, then rate limiting will occur for a 600-RPM deployment if
// more than 10 requests are received during each 1-second period".
func TestAzureOpenAI600RPMIn1sWindows(t *testing.T) {
	m := profileLimiter(t, "azure-openai", TokenLimits{RPM: 600})
	start := 3 * time.Second
	n, ra := admitted(t, m, start+200*time.Millisecond, Request{}, 1000)
	if n != 10 {
		t.Errorf("azure-openai 600 RPM admits %d requests in one second, want 10", n)
	}
	if ra != 800*time.Millisecond {
		t.Errorf("the 11th request's retry-after = %v, want 800ms (the next 1 s window)", ra)
	}
	if n, _ := admitted(t, m, start+time.Second, Request{}, 1000); n != 10 {
		t.Errorf("the next second admits %d, want 10 again", n)
	}
	// The generic continuous bucket admits the whole minute's 600 at once.
	g, _ := NewTokenLimiter(TokenLimits{RPM: 600})
	if n, _ := admitted(t, g, start, Request{}, 1000); n != 600 {
		t.Errorf("generic 600 RPM admits %d at once, want 600", n)
	}
}

// OpenAI: "60,000 requests/minute may be enforced as 1,000
// requests/second".
func TestOpenAI60000RPMAs1000PerSecond(t *testing.T) {
	m := profileLimiter(t, "openai", TokenLimits{RPM: 60_000})
	if n, _ := admitted(t, m, 0, Request{}, 5000); n != 1000 {
		t.Errorf("openai 60,000 RPM admits %d in one second, want 1000", n)
	}
	if n, _ := admitted(t, m, 999*time.Millisecond, Request{}, 5000); n != 0 {
		t.Errorf("later in the same second: %d admitted, want 0", n)
	}
	if n, _ := admitted(t, m, time.Second, Request{}, 5000); n != 1000 {
		t.Errorf("the next second admits %d, want 1000", n)
	}
}

// OpenAI: a request counts max(max_tokens, estimated tokens) against TPM,
// and the count is not corrected.
func TestOpenAICountsMaxOfMaxTokensAndInput(t *testing.T) {
	p := LookupProfile("openai")
	if got := p.Charges(Request{Usage: Usage{Input: 300, Output: 50}, MaxTokens: 2000})[TPM]; got != 2000 {
		t.Errorf("TPM charge with max_tokens 2000, input 300 = %d, want 2000", got)
	}
	if got := p.Charges(Request{Usage: Usage{Input: 3000, Output: 50}, MaxTokens: 2000})[TPM]; got != 3000 {
		t.Errorf("TPM charge with max_tokens 2000, input 3000 = %d, want 3000", got)
	}
	m := profileLimiter(t, "openai", TokenLimits{TPM: 10_000})
	r, _, ok, _ := m.TryAdmitAt(0, Request{Usage: Usage{Input: 100}, MaxTokens: 4000})
	if !ok {
		t.Fatal("first call refused")
	}
	if err := m.Settle(time.Millisecond, r, Usage{Input: 100, Output: 10}); err != nil {
		t.Fatal(err)
	}
	if left, _ := m.TokensAt(time.Millisecond, TPM); left > 6001 {
		t.Errorf("after settling, TPM has %v left, want about 6000: openai does not correct", left)
	}
}

// Amazon Bedrock reserves InputTokens + CacheWriteInputTokens +
// CacheReadInputTokens + maxTokens at the start: with a 2M TPM quota,
// maxTokens 1000 and 500 input tokens reserve 1,500 (about 1,333
// concurrent requests); maxTokens at a 64K default reserves about 64,500
// (about 31 concurrent requests).
func TestBedrockMaxTokensCutsConcurrency(t *testing.T) {
	for _, c := range []struct {
		maxTokens, want int
	}{{1000, 1333}, {64_000, 31}} {
		m := profileLimiter(t, "bedrock", TokenLimits{TPM: 2_000_000})
		req := Request{Usage: Usage{Input: 500, Output: 300}, MaxTokens: c.maxTokens}
		if n, _ := admitted(t, m, 0, req, 10_000); n != c.want {
			t.Errorf("bedrock, maxTokens %d: %d calls admitted at once, want %d", c.maxTokens, n, c.want)
		}
	}
	// Cache reads count in the reservation.
	p := LookupProfile("bedrock")
	if got := p.Charges(Request{Usage: Usage{Input: 1500, CacheRead: 1000, CacheWrite: 200}, MaxTokens: 100})[TPM]; got != 1600 {
		t.Errorf("bedrock TPM charge = %d, want 1600 (cache reads counted)", got)
	}
	// Settlement returns the unused maxTokens.
	m := profileLimiter(t, "bedrock", TokenLimits{TPM: 100_000})
	r, _, _, _ := m.TryAdmitAt(0, Request{Usage: Usage{Input: 500}, MaxTokens: 64_000})
	if err := m.Settle(0, r, Usage{Input: 500, Output: 200}); err != nil {
		t.Fatal(err)
	}
	if left, _ := m.TokensAt(0, TPM); left != 100_000-700 {
		t.Errorf("after settling, TPM has %v left, want %d", left, 100_000-700)
	}
}

// Anthropic: cache reads do not count against ITPM on most models, and
// output counts as generated, not at max_tokens.
func TestAnthropicCacheReadsAndOutputAsGenerated(t *testing.T) {
	req := Request{Usage: Usage{Input: 5000, CacheRead: 4500, Output: 800}, MaxTokens: 4096}
	m := profileLimiter(t, "anthropic", TokenLimits{ITPM: 10_000})
	if n, _ := admitted(t, m, 0, req, 100); n != 20 {
		t.Errorf("anthropic admits %d calls of 500 uncached input tokens into 10,000 ITPM, want 20", n)
	}
	g, _ := NewTokenLimiter(TokenLimits{ITPM: 10_000})
	if n, _ := admitted(t, g, 0, req, 100); n != 2 {
		t.Errorf("generic admits %d calls of 5,000 input tokens, want 2", n)
	}
	// OTPM: nothing reserved at admission; the output is taken at the end,
	// and a debt turns the next call away with a whole-second retry-after.
	m = profileLimiter(t, "anthropic", TokenLimits{OTPM: 600})
	r, _, ok, _ := m.TryAdmitAt(0, req)
	if !ok || r.Charged[OTPM] != 0 {
		t.Fatalf("admitted %v with OTPM charge %d, want admitted charging 0", ok, r.Charged[OTPM])
	}
	if err := m.Settle(time.Second, r, Usage{Input: 5000, CacheRead: 4500, Output: 700}); err != nil {
		t.Fatal(err)
	}
	_, ra, ok, _ := m.TryAdmitAt(time.Second, req)
	if ok {
		t.Fatal("a call admitted while OTPM is in debt")
	}
	// The full bucket of 600 is charged 700 at 1 s: a debt of 100 that
	// 600 OTPM (10 a second) refills in 10 s.
	if h, sent := LookupProfile("anthropic").RetryAfter.Header(ra); !sent || h != 10*time.Second {
		t.Errorf("retry-after = %v (raw %v), want 10s", h, ra)
	}
	if h, _ := RetryAfterSeconds.Header(ra - time.Millisecond); h != 10*time.Second {
		t.Errorf("retry-after of %v is sent as %v, want 10s (whole seconds, rounded up)", ra-time.Millisecond, h)
	}
}

// Azure OpenAI provisioned: a leaky bucket of utilisation. A call is
// admitted while utilisation is at most 100 %, whatever its size; above
// it, a 429 with the time to drain back; the estimate is corrected at
// completion; cached tokens do not count.
func TestAzurePTULeakyBucket(t *testing.T) {
	m := profileLimiter(t, "azure-ptu", TokenLimits{TPM: 60_000})
	big := Request{Usage: Usage{Input: 90_000, Output: 10_000}}
	r, _, ok, _ := m.TryAdmitAt(0, big)
	if !ok {
		t.Fatal("a call larger than the capacity is refused at 0 % utilisation; want admitted")
	}
	_, ra, ok, _ := m.TryAdmitAt(0, Request{Usage: Usage{Input: 1}})
	if ok {
		t.Fatal("a call admitted at 167 % utilisation")
	}
	// 100,000 tokens in a bucket of 60,000 draining 1,000 a second: 40 s
	// back to 100 %.
	if ra != 40*time.Second {
		t.Errorf("retry-after = %v, want 40s", ra)
	}
	if err := m.Settle(time.Second, r, Usage{Input: 90_000, Output: 500}); err != nil {
		t.Fatal(err)
	}
	// Corrected to 90,500 at 1 s, less 1,000 drained: 89,500 ⇒ 29.5 s.
	_, ra, _, _ = m.TryAdmitAt(time.Second, Request{Usage: Usage{Input: 1}})
	if ra != 29500*time.Millisecond {
		t.Errorf("retry-after after the correction = %v, want 29.5s", ra)
	}
	if got := LookupProfile("azure-ptu").Charges(Request{Usage: Usage{Input: 1000, CacheRead: 800, Output: 10}})[TPM]; got != 210 {
		t.Errorf("PTU charge with 800 cached of 1,000 input = %d, want 210", got)
	}
	if h, _ := RetryAfterMillis.Header(1500*time.Microsecond + 1); h != 2*time.Millisecond {
		t.Errorf("retry-after-ms rounds %v to %v, want 2ms", 1500*time.Microsecond+1, h)
	}
}

// Azure OpenAI standard: tokens per minute is a counter of the estimated
// maximum (prompt + max_tokens) reset each minute, never corrected.
func TestAzureOpenAITokensPerMinuteCounter(t *testing.T) {
	m := profileLimiter(t, "azure-openai", TokenLimits{TPM: 10_000})
	req := Request{Usage: Usage{Input: 1000, Output: 100}, MaxTokens: 1500}
	n, ra := admitted(t, m, 10*time.Second, req, 100)
	if n != 4 || ra != 50*time.Second {
		t.Errorf("admitted %d (retry-after %v), want 4 calls of 2,500 and 50s to the next minute", n, ra)
	}
	if n, _ := admitted(t, m, time.Minute, req, 100); n != 4 {
		t.Errorf("the next minute admits %d, want 4", n)
	}
}

// Vertex AI provisioned throughput compares the estimate with the quota
// and reconciles it with the actual usage; the spill is the caller's.
func TestVertexPTEstimateAndSpill(t *testing.T) {
	p := LookupProfile("vertex-pt")
	if !p.Spill || p.RetryAfter != RetryAfterNone {
		t.Fatalf("vertex-pt: Spill %v, RetryAfter %v; want spill-over and no header", p.Spill, p.RetryAfter)
	}
	m := profileLimiter(t, "vertex-pt", TokenLimits{TPM: 10_000})
	req := Request{Usage: Usage{Input: 2000, Output: 3000}, MaxTokens: 8000}
	r, _, ok, _ := m.TryAdmitAt(0, req)
	if !ok || r.Charged[TPM] != 5000 {
		t.Fatalf("admitted %v charging %d, want the estimate 5,000", ok, r.Charged[TPM])
	}
	if err := m.Settle(0, r, Usage{Input: 2000, Output: 1000}); err != nil {
		t.Fatal(err)
	}
	if left, _ := m.TokensAt(0, TPM); left != 7000 {
		t.Errorf("after reconciling, %v left, want 7,000", left)
	}
}

func TestFixedWindowWaitersFillLaterWindows(t *testing.T) {
	w := NewFixedWindow(time.Second, 2)
	for i, want := range []time.Duration{0, 0, time.Second, time.Second, 2 * time.Second} {
		if got := w.WaitAt(0, 1); got != want {
			t.Errorf("call %d waits %v, want %v", i, got, want)
		}
		w.TakeAt(0, 1)
	}
	if got := w.WaitAt(0, 3); got != InfDuration {
		t.Errorf("a charge above the allowance waits %v, want InfDuration", got)
	}
	w.AdjustAt(2*time.Second, -1)
	if got := w.AvailableAt(2 * time.Second); got != 2 {
		t.Errorf("available = %v, want 2 (a refund never goes below 0)", got)
	}
}

func TestProfilesTable(t *testing.T) {
	want := []string{"anthropic", "azure-openai", "azure-ptu", "bedrock", "openai", "vertex-pt"}
	if got := strings.Join(ProfileNames(), " "); got != strings.Join(want, " ") {
		t.Errorf("ProfileNames() = %s, want %s", got, strings.Join(want, " "))
	}
	for _, p := range Profiles() {
		if p.OverloadStatus != 529 && p.OverloadStatus != 503 {
			t.Errorf("%s: overload status %d", p.Name, p.OverloadStatus)
		}
	}
	if LookupProfile("nope") != nil {
		t.Error("LookupProfile(nope) is not nil")
	}
	if err := (Request{Usage: Usage{Input: 10, CacheRead: 8, CacheWrite: 3}}).check("r"); err == nil {
		t.Error("cache reads + writes above the input accepted")
	}
}

// A limit below one call per quantised window is evaluated over a longer
// window: 30 RPM in 1 s windows would admit 60 a minute; over 10 s
// windows it admits 5 each, 30 a minute.
func TestQuantisedWindowFitsSmallLimits(t *testing.T) {
	rule := WindowRule{Kind: Fixed, Length: time.Second}
	for _, c := range []struct {
		rpm    int
		length time.Duration
		allow  int
	}{{600, time.Second, 10}, {500, time.Second, 8}, {30, 10 * time.Second, 5}, {5, time.Minute, 5}, {1, time.Minute, 1}} {
		if l, a := rule.Fit(c.rpm); l != c.length || a != c.allow {
			t.Errorf("Fit(%d) = %v, %d; want %v, %d", c.rpm, l, a, c.length, c.allow)
		}
	}
	m := profileLimiter(t, "azure-openai", TokenLimits{RPM: 30})
	if n, ra := admitted(t, m, 0, Request{}, 100); n != 5 || ra != 10*time.Second {
		t.Errorf("30 RPM: %d admitted, retry-after %v; want 5 and 10s", n, ra)
	}
}

// A call never sent is released whole, even under a profile that never
// corrects a sent call's count.
func TestReleaseUnsentUnderNeverSettle(t *testing.T) {
	m := profileLimiter(t, "azure-openai", TokenLimits{TPM: 10_000})
	r, _, ok, _ := m.TryAdmitAt(0, Request{Usage: Usage{Input: 1000}, MaxTokens: 1500})
	if !ok {
		t.Fatal("refused")
	}
	if err := m.Settle(0, r, Usage{Input: 1000, Output: 10}); err != nil {
		t.Fatal(err)
	}
	if left, _ := m.TokensAt(0, TPM); left != 7500 {
		t.Errorf("after Settle %v left, want 7,500: azure-openai does not correct", left)
	}
	r, _, _, _ = m.TryAdmitAt(0, Request{Usage: Usage{Input: 1000}, MaxTokens: 1500})
	if err := m.Release(0, r); err != nil {
		t.Fatal(err)
	}
	if left, _ := m.TokensAt(0, TPM); left != 7500 {
		t.Errorf("after Release %v left, want 7,500 again", left)
	}
}
