package ratelimit

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// A Limit names one of the per-minute limits a model provider sells: a
// count of requests, of tokens, or of input or output tokens alone.
type Limit int

// The limits of a [TokenLimiter], in the order it checks them. When two
// limits would make a call wait equally long, the earlier one is reported
// as binding.
const (
	None Limit = -1       // no limit: reported as binding when a call need not wait
	RPM  Limit = iota - 1 // requests per minute: each call counts 1
	TPM                   // tokens per minute: input plus output tokens
	ITPM                  // input tokens per minute
	OTPM                  // output tokens per minute
	numLimits
)

// String returns the limit's scenario key: "rpm", "tpm", "itpm" or "otpm",
// or "none".
func (l Limit) String() string {
	switch l {
	case None:
		return "none"
	case RPM:
		return "rpm"
	case TPM:
		return "tpm"
	case ITPM:
		return "itpm"
	case OTPM:
		return "otpm"
	}
	return fmt.Sprintf("Limit(%d)", int(l))
}

// Usage is a model call's token count: the input (prompt) tokens and the
// output (completion) tokens. CacheRead and CacheWrite are part of Input:
// of all the input tokens, CacheRead were read from a prompt cache and
// CacheWrite written to it. Whether cache reads count against the input
// limits is a [Profile]'s rule; the generic limiter counts them.
type Usage struct {
	Input      int
	Output     int
	CacheRead  int
	CacheWrite int
}

// charge returns what u takes from the bucket of limit l.
func (u Usage) charge(l Limit) int {
	switch l {
	case RPM:
		return 1
	case TPM:
		return u.Input + u.Output
	case ITPM:
		return u.Input
	default:
		return u.Output
	}
}

// TokenLimits are a model provider's per-minute limits. A zero field means
// that limit is not enforced. Each non-zero limit L is a [TokenBucket] of
// L tokens refilled continuously at L/60 tokens per second, so a full
// minute's allowance may be spent at once and is then replenished
// gradually rather than reset at the top of each minute: the semantics
// the large model providers document for their rate limits.
type TokenLimits struct {
	RPM  int // requests per minute
	TPM  int // input + output tokens per minute
	ITPM int // input tokens per minute
	OTPM int // output tokens per minute
}

// Of returns the limit l of ls (0: not enforced).
func (ls TokenLimits) Of(l Limit) int { return ls.get(l) }

// get returns the limit l of ls.
func (ls TokenLimits) get(l Limit) int {
	switch l {
	case RPM:
		return ls.RPM
	case TPM:
		return ls.TPM
	case ITPM:
		return ls.ITPM
	default:
		return ls.OTPM
	}
}

// A TokenLimiter admits model calls against a provider's [TokenLimits]:
// one token-weighted [TokenBucket] per limit, composed so that a call is
// admitted by all of them at once or by none, and so that the limit that
// makes it wait longest is reported as the binding one.
//
// # Reserve before, settle after
//
// A call's output length is unknown until it ends. As with a cost budget
// (model/cost), a call first reserves an upper bound or an estimate of its
// output tokens (typically its max_tokens) together with its input tokens,
// and [TokenLimiter.Settle] corrects the buckets by the difference once the
// actual usage is known: unused reserved tokens are returned (never filling
// a bucket beyond its size), and usage above the reservation is taken as
// debt that later calls wait out. Providers that count a request against
// its token limits on max_tokens up front and adjust at the end behave in
// this way. The request count (RPM) is never corrected.
//
// # Provider enforcement and client wait
//
// [TokenLimiter.TryAcquireAt] is the provider's side: a call that does not
// fit is rejected, nothing is taken, and the returned retry-after is how
// long until every bucket has refilled enough for it (an HTTP 429 with a
// Retry-After header). [TokenLimiter.AcquireAt] is the client's side: it
// takes the tokens now and says how long to wait before sending the call,
// refusing up front only a wait longer than the caller's remaining time.
// A client that queues many calls and reserves an upper bound should
// reserve for the call at the head of its queue when the limiter admits it
// (TryAcquireAt, retrying at the retry-after or when a Settle returns
// tokens) rather than for every call on arrival: tokens returned by Settle
// then serve the calls still waiting, and in the long run the calls sent
// per second are the limit divided by the mean actual usage.
//
// Time is an argument, as everywhere in this package. A TokenLimiter is
// safe for concurrent use. The zero value is not usable: use
// [NewTokenLimiter].
type TokenLimiter struct {
	mu      sync.Mutex
	limits  TokenLimits
	profile *Profile         // nil: the generic rules
	meters  [numLimits]meter // nil where the limit is not enforced
}

// NewTokenLimiter returns a limiter with full buckets for the non-zero
// limits of ls. It returns an error naming the field if a limit is
// negative or too large for a bucket (above 60×[MaxRate] per minute).
// A TokenLimits with no limit set admits every call at once.
func NewTokenLimiter(ls TokenLimits) (*TokenLimiter, error) {
	return NewProfileLimiter(ls, nil)
}

// NewProfileLimiter returns a limiter for the limits ls that counts,
// settles and windows calls as the profile p says (see [Profile]); a nil
// p is [NewTokenLimiter]. Its errors are NewTokenLimiter's.
func NewProfileLimiter(ls TokenLimits, p *Profile) (*TokenLimiter, error) {
	m := &TokenLimiter{limits: ls, profile: p}
	for l := RPM; l < numLimits; l++ {
		n := ls.get(l)
		if n < 0 {
			return nil, fmt.Errorf("ratelimit: %v: must be ≥ 0 (0 for no limit), got %d", l, n)
		}
		if n == 0 {
			continue
		}
		var rule WindowRule
		if p != nil {
			rule = p.Windows[l]
		}
		switch rule.Kind {
		case Fixed:
			m.meters[l] = NewFixedWindow(rule.Fit(n))
			continue
		case Leaky:
			lb, err := NewLeakyBucket(n)
			if err != nil {
				return nil, fmt.Errorf("ratelimit: %v: %d per minute: %w", l, n, err)
			}
			m.meters[l] = lb
			continue
		}
		b, err := NewTokenBucket(float64(n)/60, n)
		if err != nil {
			return nil, fmt.Errorf("ratelimit: %v: %d per minute: %w", l, n, err)
		}
		m.meters[l] = bucketMeter{b}
	}
	return m, nil
}

// Profile returns the limiter's profile (nil: the generic rules).
func (m *TokenLimiter) Profile() *Profile { return m.profile }

// Limits returns the limits the limiter was built with.
func (m *TokenLimiter) Limits() TokenLimits { return m.limits }

// A TokenReservation records what a call took from a [TokenLimiter], to be
// corrected by [TokenLimiter.Settle] when the call's actual usage is known.
// It is a small value; the zero TokenReservation took nothing.
type TokenReservation struct {
	Reserved Usage         // the tokens taken: input and the output estimate
	Wait     time.Duration // how long after the acquiring instant the call may be sent
	Binding  Limit         // the limit that set Wait; None when Wait is 0
	// Charged is what each limit was charged, by the limiter's profile's
	// counting rule (for the generic limiter, what Reserved charges).
	Charged [numLimits]int
}

// waitLocked returns the longest wait over the buckets for u at now and
// the limit that sets it, without taking anything. It requires m.mu.
func (m *TokenLimiter) waitLocked(now time.Duration, c *[numLimits]int) (time.Duration, Limit) {
	var wait time.Duration
	binding := None
	for l, b := range m.meters {
		if b == nil {
			continue
		}
		w := b.wait(now, c[l])
		if w > wait {
			wait, binding = w, Limit(l)
		}
	}
	return wait, binding
}

// MaxCallTokens is the largest input or output token count of one call
// that a [TokenLimiter] accepts, 2^40: far beyond any model's context, and
// small enough that sums and corrections cannot overflow.
const MaxCallTokens = 1 << 40

// check validates a usage.
func (u Usage) check(field string) error {
	if u.Input < 0 || u.Input > MaxCallTokens {
		return fmt.Errorf("ratelimit: %s.Input: must be in [0, 2^40], got %d", field, u.Input)
	}
	if u.Output < 0 || u.Output > MaxCallTokens {
		return fmt.Errorf("ratelimit: %s.Output: must be in [0, 2^40], got %d", field, u.Output)
	}
	if u.CacheRead < 0 || u.CacheWrite < 0 || u.CacheRead+u.CacheWrite > u.Input {
		return fmt.Errorf("ratelimit: %s.CacheRead, CacheWrite: must be ≥ 0 and together at most Input (%d), got %d and %d", field, u.Input, u.CacheRead, u.CacheWrite)
	}
	return nil
}

// check validates a request.
func (r Request) check(field string) error {
	if err := r.Usage.check(field); err != nil {
		return err
	}
	if r.MaxTokens < 0 || r.MaxTokens > MaxCallTokens {
		return fmt.Errorf("ratelimit: %s.MaxTokens: must be in [0, 2^40], got %d", field, r.MaxTokens)
	}
	return nil
}

// WaitAt reports how long a call reserving u at now would have to wait for
// every bucket, and the limit that sets that wait, without taking
// anything. The wait is [InfDuration] if u exceeds a limit's whole
// per-minute allowance, which no wait can satisfy. It returns an error
// naming the field if a token count in u is negative or above [MaxCallTokens].
func (m *TokenLimiter) WaitAt(now time.Duration, u Usage) (time.Duration, Limit, error) {
	if err := u.check("reserve"); err != nil {
		return 0, None, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.profile.Charges(Request{Usage: u})
	w, l := m.waitLocked(now, &c)
	return w, l, nil
}

// TryAcquireAt is provider enforcement: it admits a call reserving u at
// now only if every bucket has the tokens now, and takes them. Otherwise it
// takes nothing and returns ok false with retryAfter, the time until every
// bucket would have them ([InfDuration] if u exceeds a limit's per-minute
// allowance), and the limit that sets it. It returns an error naming the
// field if a token count in u is negative or above [MaxCallTokens].
func (m *TokenLimiter) TryAcquireAt(now time.Duration, u Usage) (r TokenReservation, retryAfter time.Duration, ok bool, err error) {
	return m.TryAdmitAt(now, Request{Usage: u})
}

// TryAdmitAt is [TokenLimiter.TryAcquireAt] for a call that declares its
// max_tokens too, which the profiles that count max_tokens charge.
func (m *TokenLimiter) TryAdmitAt(now time.Duration, req Request) (r TokenReservation, retryAfter time.Duration, ok bool, err error) {
	r, ok, err = m.acquire(now, req, 0)
	if err != nil || ok {
		return r, 0, ok, err
	}
	return TokenReservation{Binding: r.Binding}, r.Wait, false, nil
}

// AcquireAt is client-side waiting: it takes u from every bucket at now and
// returns a reservation whose Wait says how long the caller must wait
// before sending the call, provided that wait is at most maxWait (pass the
// run's remaining time). If the wait is longer, or no wait is long enough
// (u exceeds a limit's per-minute allowance: Wait is [InfDuration]),
// nothing is taken, ok is false, and the reservation's Wait and Binding
// say what the wait would have been. It returns an error naming the field if a token count in u is
// negative or above [MaxCallTokens].
func (m *TokenLimiter) AcquireAt(now time.Duration, u Usage, maxWait time.Duration) (r TokenReservation, ok bool, err error) {
	return m.acquire(now, Request{Usage: u}, maxWait)
}

// AdmitAt is [TokenLimiter.AcquireAt] for a call that declares its
// max_tokens too, which the profiles that count max_tokens charge.
func (m *TokenLimiter) AdmitAt(now time.Duration, req Request, maxWait time.Duration) (r TokenReservation, ok bool, err error) {
	return m.acquire(now, req, maxWait)
}

func (m *TokenLimiter) acquire(now time.Duration, req Request, maxWait time.Duration) (TokenReservation, bool, error) {
	if err := req.check("reserve"); err != nil {
		return TokenReservation{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.profile.Charges(req)
	wait, binding := m.waitLocked(now, &c)
	r := TokenReservation{Reserved: req.Usage, Wait: wait, Binding: binding, Charged: c}
	if wait > maxWait || wait == InfDuration { // no wait grants more than a limit's allowance
		return r, false, nil
	}
	for l, b := range m.meters {
		if b != nil {
			b.take(now, c[l])
		}
	}
	return r, true, nil
}

// Settle corrects the buckets once a call admitted with r has ended and
// its actual usage is known, at now: each token bucket gets back the
// reserved tokens the call did not use (never above its size) or is
// charged the tokens it used beyond the reservation, as debt that delays
// later calls. A call that failed without using tokens settles with the
// usage the provider bills for it (often its input alone). A limiter with
// a [Profile] corrects by the profile's rules: each limit by what the
// actual usage charges less what the reservation was charged, or nothing
// at all for a profile that does not settle. Each
// reservation must be settled at most once. It returns an error naming the
// field if a token count in actual is negative or above [MaxCallTokens].
func (m *TokenLimiter) Settle(now time.Duration, r TokenReservation, actual Usage) error {
	if err := actual.check("actual"); err != nil {
		return err
	}
	if err := r.Reserved.check("Reserved"); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p := m.profile; p != nil {
		if !p.Settle {
			return nil // the admission count stands
		}
		a := p.Actual(actual)
		for l := TPM; l < numLimits; l++ {
			if b := m.meters[l]; b != nil {
				b.adjust(now, a[l]-r.Charged[l])
			}
		}
		return nil
	}
	for l := TPM; l < numLimits; l++ {
		if b := m.meters[l]; b != nil {
			b.adjust(now, actual.charge(l)-r.Reserved.charge(l))
		}
	}
	return nil
}

// Release gives back, at now, everything a call admitted with r was
// charged, whatever the limiter's profile: for a call that was never sent
// (refused or cancelled after it reserved, before it was dialed), which
// the provider never counted. The request count (RPM) stays spent. Each
// reservation must be released or settled at most once.
func (m *TokenLimiter) Release(now time.Duration, r TokenReservation) error {
	if m.profile == nil {
		return m.Settle(now, r, Usage{})
	}
	if err := r.Reserved.check("Reserved"); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for l := TPM; l < numLimits; l++ {
		if b := m.meters[l]; b != nil {
			b.adjust(now, -r.Charged[l])
		}
	}
	return nil
}

// TokensAt returns the tokens available at now for limit l (see
// [TokenBucket.TokensAt]; for a [FixedWindow], what its current window
// still admits), and false if l is not enforced.
func (m *TokenLimiter) TokensAt(now time.Duration, l Limit) (float64, bool) {
	if l < 0 || l >= numLimits || m.meters[l] == nil {
		return 0, false
	}
	return m.meters[l].available(now), true
}

// String describes the enforced limits, e.g. "rpm=500 tpm=80000".
func (ls TokenLimits) String() string {
	var parts []string
	for l := RPM; l < numLimits; l++ {
		if n := ls.get(l); n != 0 {
			parts = append(parts, fmt.Sprintf("%v=%d", l, n))
		}
	}
	if len(parts) == 0 {
		return "unlimited"
	}
	return strings.Join(parts, " ")
}

// waitFor returns how long a request for n tokens at now would wait, as
// ReserveAt would report it, without taking anything: [InfDuration] if n
// exceeds the burst or b is the zero TokenBucket. It panics if n is
// negative.
func (b *TokenBucket) waitFor(now time.Duration, n int) time.Duration {
	if n < 0 {
		panic("ratelimit: TokenBucket: negative token count")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.interval == 0 || n > b.burst {
		return InfDuration
	}
	return max(0, b.tatAt(now)+time.Duration(n)*b.interval-b.capacity-now)
}

// debtCap is the latest instant to which a correction moves a bucket's
// theoretical arrival time: about 146 years, half the range of a
// time.Duration, leaving the other half for later reservations.
const debtCap = InfDuration / 2

// adjust corrects the bucket at now by n tokens: n > 0 takes n more
// tokens whatever the bucket holds (the count may go negative, a debt
// later requests wait out), n < 0 returns −n tokens, never filling the
// bucket beyond its burst. The zero TokenBucket is left unchanged.
func (b *TokenBucket) adjust(now time.Duration, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.interval == 0 || n == 0 {
		return
	}
	tat := b.tatAt(now)
	var next time.Duration
	switch {
	case n > 0 && int64(n) > (int64(debtCap)-int64(tat))/int64(b.interval):
		next = max(tat, debtCap) // saturate: later reservations cannot overflow
	case n > 0:
		next = tat + time.Duration(n)*b.interval
	case int64(-n) > int64(tat-now)/int64(b.interval):
		next = now // returns more than the bucket lacks: full
	default:
		next = tat + time.Duration(n)*b.interval
	}
	b.tat, b.last, b.started = next, now, true
}
