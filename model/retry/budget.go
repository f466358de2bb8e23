package retry

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// Budget is a retry budget: state shared by many calls (typically all calls
// to one backend) that bounds how many of them are retries, so that a
// struggling backend is not buried under a retry storm. Time is always an
// argument.
//
// The caller reports each dialed attempt: OnAttempt when it is dialed,
// OnResult when it ends, both before Decide, which calls AllowRetry only for
// a retry that would otherwise happen. An attempt refused locally (Refused)
// was never dialed and is not reported. Runner follows this protocol.
//
// The implementations here are safe for concurrent use.
type Budget interface {
	// OnAttempt records that attempt (1 for the first) is dialed at now.
	OnAttempt(now time.Duration, attempt int)
	// OnResult records that attempt ended at now with outcome o. prev is the
	// outcome of the attempt before it, the failure that this attempt
	// retried; it is ignored when attempt is 1.
	OnResult(now time.Duration, attempt int, o, prev Outcome)
	// AllowRetry reports whether a retry after a failure with outcome o may
	// happen at now and, if so, withdraws its cost.
	AllowRetry(now time.Duration, o Outcome) bool
}

var (
	_ Budget = (*TokenBucket)(nil)
	_ Budget = (*Throttle)(nil)
	_ Budget = (*Ratio)(nil)
)

// The AWS SDK "standard" retry mode quota, as in aws-sdk-go-v2's aws/retry
// package (DefaultRetryRateTokens, DefaultRetryCost, DefaultRetryTimeoutCost,
// DefaultNoRetryIncrement) and the AWS SDKs and Tools Reference Guide,
// "Retry behavior".
const (
	AWSRetryRateTokens  = 500 // bucket capacity and initial tokens
	AWSRetryCost        = 5   // tokens a retry costs
	AWSRetryTimeoutCost = 10  // tokens a retry after a timeout costs
	AWSNoRetryIncrement = 1   // tokens a first-attempt success adds
)

// TokenBucketConfig configures a TokenBucket. All values are token counts.
type TokenBucketConfig struct {
	// Capacity is the initial and maximum number of tokens.
	Capacity int
	// RetryCost is what a retry withdraws; TimeoutCost what a retry after
	// a Timeout withdraws. A successful retry refunds what it withdrew.
	RetryCost, TimeoutCost int
	// NoRetryIncrement is what a success on the first attempt adds.
	NoRetryIncrement int
}

// AWSStandard returns the AWS SDK standard-mode constants: capacity 500,
// retry cost 5, timeout cost 10, no-retry increment 1.
func AWSStandard() TokenBucketConfig {
	return TokenBucketConfig{
		Capacity:         AWSRetryRateTokens,
		RetryCost:        AWSRetryCost,
		TimeoutCost:      AWSRetryTimeoutCost,
		NoRetryIncrement: AWSNoRetryIncrement,
	}
}

// Validate reports the first invalid field, naming it and its value.
func (c TokenBucketConfig) Validate() error {
	switch {
	case c.Capacity < 1:
		return fmt.Errorf("capacity: must be ≥ 1, got %d", c.Capacity)
	case c.RetryCost < 1:
		return fmt.Errorf("retry_cost: must be ≥ 1, got %d", c.RetryCost)
	case c.TimeoutCost < 1:
		return fmt.Errorf("timeout_cost: must be ≥ 1, got %d", c.TimeoutCost)
	case c.NoRetryIncrement < 0:
		return fmt.Errorf("no_retry_increment: must be ≥ 0, got %d", c.NoRetryIncrement)
	}
	return nil
}

// TokenBucket is the AWS SDK standard-mode retry quota: a bucket that starts
// full; a retry withdraws RetryCost (TimeoutCost after a timeout) and is
// denied when fewer tokens remain; a successful retry refunds its cost; a
// success on the first attempt adds NoRetryIncrement; the bucket never holds
// more than Capacity. It does not refill with time, so under a sustained
// outage retries stop after Capacity/RetryCost of them (100 with the AWS
// constants) until successes return. Safe for concurrent use.
type TokenBucket struct {
	mu     sync.Mutex
	cfg    TokenBucketConfig
	tokens int
}

// NewTokenBucket returns a full bucket, or an error naming the invalid field.
func NewTokenBucket(c TokenBucketConfig) (*TokenBucket, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &TokenBucket{cfg: c, tokens: c.Capacity}, nil
}

// Tokens returns the tokens in the bucket.
func (b *TokenBucket) Tokens() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tokens
}

// cost is what a retry after outcome o withdraws.
func (b *TokenBucket) cost(o Outcome) int {
	if o == Timeout {
		return b.cfg.TimeoutCost
	}
	return b.cfg.RetryCost
}

// OnAttempt implements Budget; the bucket ignores it.
func (b *TokenBucket) OnAttempt(now time.Duration, attempt int) {}

// OnResult implements Budget: a success adds NoRetryIncrement on the first
// attempt, or refunds the retry's cost (by prev, the outcome it retried).
// Failures change nothing: their cost is withdrawn by AllowRetry.
func (b *TokenBucket) OnResult(now time.Duration, attempt int, o, prev Outcome) {
	if o != OK {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	add := b.cfg.NoRetryIncrement
	if attempt > 1 {
		add = b.cost(prev)
	}
	b.tokens = min(b.cfg.Capacity, b.tokens+add)
}

// AllowRetry implements Budget: it withdraws the retry's cost if the bucket
// holds at least that much (exactly the cost is enough, leaving 0).
func (b *TokenBucket) AllowRetry(now time.Duration, o Outcome) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.cost(o)
	if b.tokens < c {
		return false
	}
	b.tokens -= c
	return true
}

// Throttle is gRPC retry throttling (gRFC A6, "Throttling Retry Attempts and
// Hedged RPCs"): token_count starts at max_tokens; every failed attempt
// decrements it by 1 (not below 0), every success increments it by
// token_ratio (not above max_tokens), and retries are allowed only while
// token_count > max_tokens/2. Here a failure is a Retryable outcome, as in
// grpc-go, which counts only statuses in retryableStatusCodes; Permanent
// counts as neither. Tokens are kept in thousandths, like gRPC C-core, so
// the arithmetic is exact. Safe for concurrent use.
type Throttle struct {
	mu     sync.Mutex
	max    int64 // milli-tokens
	ratio  int64 // milli-tokens per success
	tokens int64 // milli-tokens
}

// NewThrottle returns a full Throttle. maxTokens must be in [1, 1000] and
// tokenRatio, rounded to the nearest thousandth, at least 0.001 (gRFC A6's
// ranges: max_tokens in (0, 1000], token_ratio > 0 with 3 decimal places).
// gRFC A6 sets no defaults.
func NewThrottle(maxTokens int, tokenRatio float64) (*Throttle, error) {
	if maxTokens < 1 || maxTokens > 1000 {
		return nil, fmt.Errorf("max_tokens: must be in [1, 1000], got %d", maxTokens)
	}
	milli := math.Round(tokenRatio * 1000)
	if !(milli >= 1) || math.IsInf(milli, 0) || milli > 1e15 {
		return nil, fmt.Errorf("token_ratio: must be ≥ 0.001 and finite, got %v", tokenRatio)
	}
	m := int64(maxTokens) * 1000
	return &Throttle{max: m, ratio: int64(milli), tokens: m}, nil
}

// Tokens returns token_count.
func (t *Throttle) Tokens() float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return float64(t.tokens) / 1000
}

// OnAttempt implements Budget; the throttle ignores it.
func (t *Throttle) OnAttempt(now time.Duration, attempt int) {}

// OnResult implements Budget: OK adds token_ratio, a Retryable failure
// removes 1, other outcomes change nothing.
func (t *Throttle) OnResult(now time.Duration, attempt int, o, prev Outcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case o == OK:
		t.tokens = min(t.max, t.tokens+t.ratio)
	case o.Retryable():
		t.tokens = max(0, t.tokens-1000)
	}
}

// AllowRetry implements Budget: it reports token_count > max_tokens/2 and
// withdraws nothing (the failure was already counted by OnResult).
func (t *Throttle) AllowRetry(now time.Duration, o Outcome) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return 2*t.tokens > t.max
}

// Finagle's RetryBudget defaults (com.twitter.finagle.service.RetryBudget):
// deposits expire after 10 s, at least 10 retries per second are allowed,
// and retries may add 20% to the requests.
const (
	FinagleTTL          = 10 * time.Second
	FinagleMinPerSecond = 10
	FinagleRatio        = 0.2
)

// RatioConfig configures a Ratio budget.
type RatioConfig struct {
	// TTL is the window: a request's deposit and a retry's withdrawal count
	// for about TTL (between 0.9·TTL and TTL, see Ratio). Must be > 0.
	TTL time.Duration
	// MinPerSecond is the retries per second allowed whatever the request
	// rate, so that a client with little traffic can still retry. Must be
	// ≥ 0.
	MinPerSecond float64
	// Ratio is the retries allowed per first attempt (Finagle's
	// percentCanRetry: 0.2 lets retries add 20%). Must be in [0, 1000].
	Ratio float64
}

// FinagleDefault returns Finagle's RetryBudget defaults: TTL 10 s,
// MinPerSecond 10, Ratio 0.2.
func FinagleDefault() RatioConfig {
	return RatioConfig{TTL: FinagleTTL, MinPerSecond: FinagleMinPerSecond, Ratio: FinagleRatio}
}

// Validate reports the first invalid field, naming it and its value.
func (c RatioConfig) Validate() error {
	switch {
	case c.TTL <= 0:
		return fmt.Errorf("ttl: must be > 0, got %v", c.TTL)
	case !(c.MinPerSecond >= 0) || math.IsInf(c.MinPerSecond, 0):
		return fmt.Errorf("min_per_second: must be ≥ 0 and finite, got %v", c.MinPerSecond)
	case !(c.Ratio >= 0 && c.Ratio <= 1000):
		return fmt.Errorf("ratio: must be in [0, 1000], got %v", c.Ratio)
	}
	return nil
}

// ratioSlots is the number of time slots in a Ratio's window (Finagle's
// WindowedAdder also uses 10).
const ratioSlots = 10

// Ratio is Finagle's RetryBudget: each first attempt deposits Ratio of a
// retry, each retry withdraws one, and a retry is allowed while the balance
// — a reserve of MinPerSecond·TTL retries plus the deposits and withdrawals
// of the last TTL — is at least one retry. So over any window retries stay
// within Ratio × requests + MinPerSecond × TTL.
//
// The window is a ring of 10 fixed slots of TTL/10 each (bounded memory, as
// Finagle's WindowedAdder): an entry made during a slot is forgotten when the
// slot 10 slots later begins, so it counts for between 0.9·TTL and TTL.
// Amounts are kept in thousandths of a retry, so Ratio and MinPerSecond·TTL
// are rounded to 0.001 retry. Time going backwards is charged to the newest
// slot. Safe for concurrent use.
type Ratio struct {
	mu      sync.Mutex
	width   time.Duration
	reserve int64 // milli-retries
	deposit int64 // milli-retries per first attempt
	slots   [ratioSlots]int64
	newest  int64 // index of the newest slot (floor(now / width))
	started bool
}

// NewRatio returns a Ratio budget with an empty window, or an error naming
// the invalid field.
func NewRatio(c RatioConfig) (*Ratio, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &Ratio{
		width:   max(c.TTL/ratioSlots, 1),
		reserve: int64(math.Round(c.MinPerSecond * c.TTL.Seconds() * 1000)),
		deposit: int64(math.Round(c.Ratio * 1000)),
	}, nil
}

// Balance returns the retries the budget would allow at now.
func (r *Ratio) Balance(now time.Duration) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.advance(now)
	return float64(r.balance()) / 1000
}

// OnAttempt implements Budget: a first attempt deposits Ratio of a retry.
func (r *Ratio) OnAttempt(now time.Duration, attempt int) {
	if attempt != 1 || r.deposit == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.advance(now)
	r.slots[mod(r.newest)] += r.deposit
}

// OnResult implements Budget; the ratio budget ignores it.
func (r *Ratio) OnResult(now time.Duration, attempt int, o, prev Outcome) {}

// AllowRetry implements Budget: it withdraws one retry if the balance holds
// at least one.
func (r *Ratio) AllowRetry(now time.Duration, o Outcome) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.advance(now)
	if r.balance() < 1000 {
		return false
	}
	r.slots[mod(r.newest)] -= 1000
	return true
}

func (r *Ratio) balance() int64 {
	b := r.reserve
	for _, v := range r.slots {
		b += v
	}
	return b
}

// advance moves the window so that its newest slot contains now, clearing
// the slots it leaves behind.
func (r *Ratio) advance(now time.Duration) {
	k := floorDiv(int64(now), int64(r.width))
	switch {
	case !r.started:
		r.newest, r.started = k, true
	case k <= r.newest:
		// Same slot, or time went backwards: charge the newest slot.
	case k-r.newest >= ratioSlots:
		r.slots = [ratioSlots]int64{}
		r.newest = k
	default:
		for i := r.newest + 1; i <= k; i++ {
			r.slots[mod(i)] = 0
		}
		r.newest = k
	}
}

func mod(i int64) int {
	m := i % ratioSlots
	if m < 0 {
		m += ratioSlots
	}
	return int(m)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
