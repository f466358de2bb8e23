package analytic

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestTokenThroughputCapHand(t *testing.T) {
	ok := val(t)
	// 90,000 tokens per minute is 1,500 per second: 3 calls/s of 500.
	if c := ok(TokenThroughputCap(90000, 500)); !near(c, 3, 1e-15) {
		t.Errorf("cap = %v, want 3", c)
	}
	if _, err := TokenThroughputCap(90000, 0); err == nil || !strings.Contains(err.Error(), "meanTokens") {
		t.Errorf("meanTokens 0: err = %v", err)
	}
	l := TokenLimits{RPM: 300, TPM: 90000, OTPM: 12000}
	// rpm: 5/s; tpm: 1500/(400+200) = 2.5/s; otpm: 200/200 = 1/s.
	c, b, err := l.CallCap(400, 200)
	if err != nil || !near(c, 1, 1e-15) || b != "otpm" {
		t.Errorf("CallCap = %v %q %v, want 1 otpm", c, b, err)
	}
	// Short answers: otpm 200/20 = 10/s, tpm 1500/420 ≈ 3.6/s, rpm 5/s.
	c, b, _ = l.CallCap(400, 20)
	if !near(c, 1500.0/420, 1e-15) || b != "tpm" {
		t.Errorf("CallCap(400, 20) = %v %q, want %v tpm", c, b, 1500.0/420)
	}
	c, b, _ = l.CallCap(10, 10)
	if !near(c, 5, 1e-15) || b != "rpm" {
		t.Errorf("CallCap(10, 10) = %v %q, want 5 rpm", c, b)
	}
	c, b, _ = TokenLimits{}.CallCap(10, 10)
	if !math.IsInf(c, 1) || b != "none" {
		t.Errorf("no limits: %v %q", c, b)
	}
	if _, _, err := (TokenLimits{ITPM: -1}).CallCap(1, 1); err == nil || !strings.Contains(err.Error(), "itpm") {
		t.Errorf("itpm -1: err = %v", err)
	}
}

// Tokens uniform on {100, …, 900} at 750 tokens/s: E[S] = 500/750 s,
// E[N²] = (801² − 1)/12 + 500² tokens², and λ = 1 gives ρ = 2/3.
func TestTokenQueueHand(t *testing.T) {
	ok := val(t)
	m2 := (801.0*801-1)/12 + 250000
	q, err := TokenQueue(1, 750, 500, m2)
	if err != nil {
		t.Fatal(err)
	}
	if r := ok(q.Rho()); !near(r, 2.0/3, 1e-15) {
		t.Errorf("rho = %v", r)
	}
	want := m2 / 750 / 750 / (2 * (1 - 2.0/3))
	if w := ok(q.MeanWait()); !near(w, want, 1e-12) {
		t.Errorf("Wq = %v, want %v", w, want)
	}
	over := must[MG1](t)(TokenQueue(2, 750, 500, m2))
	if _, err := over.MeanWait(); !errors.Is(err, ErrUnstable) {
		t.Errorf("λE[N] > rate: %v, want ErrUnstable", err)
	}
	if _, err := TokenQueue(1, 750, 500, 1000); err == nil || !strings.Contains(err.Error(), "secondMomentTokens") {
		t.Errorf("E[N²] < E[N]²: err = %v", err)
	}
	if _, err := TokenQueue(1, 0, 500, m2); err == nil || !strings.Contains(err.Error(), "tokensPerSecond") {
		t.Errorf("rate 0: err = %v", err)
	}
}
