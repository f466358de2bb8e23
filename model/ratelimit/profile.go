package ratelimit

import (
	"fmt"
	"sort"
	"time"
)

// A Profile is a model provider's admission rules, as data: how a call is
// counted against each limit when it is admitted, whether that count is
// corrected when the call ends, over what window each limit is enforced,
// what a call that does not fit gets back (a 429 and its header, or
// admission on another lane), and which error the provider's own overload
// sends. [Profiles] lists the shipped ones; docs/providers.md gives each
// rule its source, with the date the page was read: the figures are
// dated data that providers change.
//
// A [TokenLimiter] built with [NewProfileLimiter] applies a profile. The
// generic limiter ([NewTokenLimiter], a nil *Profile) counts the input
// plus the call's output estimate, corrects it at the end, and refills
// every limit continuously.
type Profile struct {
	// Name is the profile's scenario word, e.g. "azure-openai".
	Name string
	// Provider names the provider and offering, for the reference.
	Provider string
	// Count is what a call charges to the token limits when admitted.
	Count Counting
	// CacheReadsCount says whether the input tokens read from a prompt
	// cache (Usage.CacheRead) count against the input limits (TPM and
	// ITPM). Tokens written to the cache always count.
	CacheReadsCount bool
	// Settle says whether a call's count is corrected to its actual
	// usage when it ends (unused estimate returned, output beyond it
	// taken). Without it the admission count stands, for successful and
	// failed calls alike. Requests (RPM) are never corrected.
	Settle bool
	// Windows gives, per limit (indexed by [Limit]), how the limit's
	// allowance is spent and replenished.
	Windows [numLimits]WindowRule
	// NeedsMaxTokens says that a call without max_tokens is charged the
	// model's own maximum output, which a scenario must then give.
	NeedsMaxTokens bool
	// Spill says that a call that does not fit is not turned away but
	// admitted on another lane (pay-as-you-go), not counted against these
	// limits, and billed at that lane's prices.
	Spill bool
	// RetryAfter is the header a 429 carries.
	RetryAfter RetryAfterHeader
	// OverloadStatus is the HTTP status of the provider's own overload
	// (capacity it lacks, not a limit of yours): 529 or 503.
	OverloadStatus int
}

// Counting is what a call charges to the token limits when it is
// admitted, before its output is known.
type Counting uint8

// The ways of counting a call at admission. In each, the input is the
// call's input tokens less its cache reads when the profile does not
// count them.
const (
	// CountEstimate: input + the call's output estimate (tokens.reserve_output).
	CountEstimate Counting = iota
	// CountInput: the input alone; output tokens count as they are
	// generated, when the call ends.
	CountInput
	// CountMaxTokens: input + max_tokens (the estimate when a call has no
	// max_tokens).
	CountMaxTokens
	// CountMaxOfMaxTokensAndInput: max(max_tokens, input), against the
	// tokens-per-minute limit: OpenAI's "maximum of max_tokens and the
	// estimated number of tokens based on the character count of your
	// request".
	CountMaxOfMaxTokensAndInput
)

var countingNames = [...]string{"input + estimate", "input only", "input + max_tokens", "max(max_tokens, input)"}

// String describes the counting rule.
func (c Counting) String() string {
	if int(c) < len(countingNames) {
		return countingNames[c]
	}
	return fmt.Sprintf("Counting(%d)", int(c))
}

// WindowKind is how a limit's allowance is spent and replenished.
type WindowKind uint8

// The window kinds.
const (
	// Continuous: a [TokenBucket] of one minute's allowance, refilled
	// continuously.
	Continuous WindowKind = iota
	// Fixed: a [FixedWindow] of WindowRule.Length holding the per-minute
	// allowance times Length/1min, counted from 0 again in each window:
	// one minute is a per-minute counter, a second is a limit "quantised"
	// to per-second windows (see [WindowRule.Fit] for limits below one
	// call a window).
	Fixed
	// Leaky: a [LeakyBucket] of utilisation, which admits a call while it
	// is at most 100 % whatever the call's size.
	Leaky
)

var windowNames = [...]string{"continuous bucket", "fixed window", "leaky bucket of utilisation"}

// String names the window kind.
func (k WindowKind) String() string {
	if int(k) < len(windowNames) {
		return windowNames[k]
	}
	return fmt.Sprintf("WindowKind(%d)", int(k))
}

// A WindowRule is one limit's window.
type WindowRule struct {
	Kind   WindowKind
	Length time.Duration // Fixed only
}

// String describes the rule, e.g. "fixed window of 1s".
func (w WindowRule) String() string {
	if w.Kind == Fixed {
		return fmt.Sprintf("fixed window of %v", w.Length)
	}
	return w.Kind.String()
}

// Fit returns the window length and the allowance of one window of w for
// a limit of perMinute: perMinute × length / 1 minute, rounded down. A
// limit too small to admit one call per window is evaluated over a window
// ten times longer (Azure OpenAI evaluates over 1 or 10 seconds), up to a
// minute, which admits perMinute. For the other kinds it is a minute and
// perMinute.
func (w WindowRule) Fit(perMinute int) (time.Duration, int) {
	if w.Kind != Fixed {
		return time.Minute, perMinute
	}
	length := w.Length
	for {
		a := int(int64(perMinute) * int64(length/time.Millisecond) / int64(time.Minute/time.Millisecond))
		if a >= 1 || length >= time.Minute {
			return length, max(a, 1)
		}
		length = min(10*length, time.Minute)
	}
}

// RetryAfterHeader is what a provider's 429 says about when to retry.
type RetryAfterHeader uint8

// The retry-after headers.
const (
	// RetryAfterExact: the exact time until the call fits (the generic
	// model).
	RetryAfterExact RetryAfterHeader = iota
	// RetryAfterSeconds: retry-after, in whole seconds rounded up.
	RetryAfterSeconds
	// RetryAfterMillis: retry-after-ms, in whole milliseconds rounded up.
	RetryAfterMillis
	// RetryAfterNone: no header; the client backs off on its own.
	RetryAfterNone
)

var retryAfterNames = [...]string{"exact", "retry-after (s)", "retry-after-ms", "none"}

// String names the header.
func (h RetryAfterHeader) String() string {
	if int(h) < len(retryAfterNames) {
		return retryAfterNames[h]
	}
	return fmt.Sprintf("RetryAfterHeader(%d)", int(h))
}

// Header returns what a 429 with the exact wait d carries: the wait
// rounded up to the header's unit, and false when no header is sent.
func (h RetryAfterHeader) Header(d time.Duration) (time.Duration, bool) {
	unit := time.Duration(0)
	switch h {
	case RetryAfterNone:
		return 0, false
	case RetryAfterSeconds:
		unit = time.Second
	case RetryAfterMillis:
		unit = time.Millisecond
	}
	if unit == 0 || d >= InfDuration-unit {
		return d, true
	}
	if r := d % unit; r != 0 {
		d += unit - r
	}
	return d, true
}

// The shipped profiles. Their rules are taken from the providers'
// documentation, cited with the date it was read in docs/providers.md.
var profiles = []*Profile{
	{
		// Anthropic Messages API: per-model RPM, ITPM and OTPM refilled
		// continuously; input counted on admission, output as generated;
		// cache reads not counted against ITPM on most current models;
		// 429 with retry-after (seconds); 529 overloaded_error.
		Name: "anthropic", Provider: "Anthropic API",
		Count: CountInput, CacheReadsCount: false, Settle: true,
		RetryAfter: RetryAfterSeconds, OverloadStatus: 529,
	},
	{
		// OpenAI API: RPM enforced in 1 s windows (60,000 RPM as 1,000
		// per second); a request counts max(max_tokens, estimated
		// tokens) against TPM, uncorrected, failed requests included.
		Name: "openai", Provider: "OpenAI API",
		Count: CountMaxOfMaxTokensAndInput, CacheReadsCount: true, Settle: false,
		Windows:    [numLimits]WindowRule{RPM: {Kind: Fixed, Length: time.Second}},
		RetryAfter: RetryAfterSeconds, OverloadStatus: 503,
	},
	{
		// Azure OpenAI standard deployments: TPM a per-minute counter of
		// the estimated maximum (prompt + max_tokens) reset each minute;
		// RPM evaluated over 1 s windows (600 RPM: more than 10 requests
		// in one second get a 429); retry-after-ms.
		Name: "azure-openai", Provider: "Azure OpenAI (standard deployments)",
		Count: CountMaxTokens, CacheReadsCount: true, Settle: false,
		Windows: [numLimits]WindowRule{
			RPM: {Kind: Fixed, Length: time.Second},
			TPM: {Kind: Fixed, Length: time.Minute}, ITPM: {Kind: Fixed, Length: time.Minute}, OTPM: {Kind: Fixed, Length: time.Minute},
		},
		RetryAfter: RetryAfterMillis, OverloadStatus: 503,
	},
	{
		// Azure OpenAI provisioned (PTU): a leaky bucket of utilisation;
		// a request above 100 % gets a 429 with retry-after-ms, otherwise
		// its estimate is added and corrected at completion; cached
		// tokens do not count.
		Name: "azure-ptu", Provider: "Azure OpenAI (provisioned throughput, PTU)",
		Count: CountEstimate, CacheReadsCount: false, Settle: true,
		Windows:    [numLimits]WindowRule{RPM: {Kind: Leaky}, TPM: {Kind: Leaky}, ITPM: {Kind: Leaky}, OTPM: {Kind: Leaky}},
		RetryAfter: RetryAfterMillis, OverloadStatus: 503,
	},
	{
		// Amazon Bedrock: input + cache tokens + maxTokens reserved at the
		// start, settled to the actual usage at the end; a throttled call
		// gets a ThrottlingException (429) without a Retry-After.
		Name: "bedrock", Provider: "Amazon Bedrock (on-demand)",
		Count: CountMaxTokens, CacheReadsCount: true, Settle: true, NeedsMaxTokens: true,
		RetryAfter: RetryAfterNone, OverloadStatus: 503,
	},
	{
		// Vertex AI provisioned throughput: the estimate (input + an
		// estimate of the output) is compared with the remaining quota;
		// a request that does not fit is served as pay-as-you-go, billed
		// at its price; the estimate is reconciled with the actual usage.
		Name: "vertex-pt", Provider: "Google Vertex AI (provisioned throughput)",
		Count: CountEstimate, CacheReadsCount: true, Settle: true, Spill: true,
		RetryAfter: RetryAfterNone, OverloadStatus: 503,
	},
}

// Profiles returns the shipped profiles, sorted by name. The values are
// shared: do not modify them.
func Profiles() []*Profile {
	out := append([]*Profile(nil), profiles...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ProfileNames returns the shipped profiles' names, sorted.
func ProfileNames() []string {
	var names []string
	for _, p := range Profiles() {
		names = append(names, p.Name)
	}
	return names
}

// LookupProfile returns the shipped profile called name, or nil.
func LookupProfile(name string) *Profile {
	for _, p := range profiles {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// A Request is what a model call declares before it is sent: its input
// tokens (with the cache reads and writes among them), its output
// estimate (Usage.Output) and its max_tokens (0: none).
type Request struct {
	Usage
	MaxTokens int
}

// input returns the input tokens that count against the input limits.
func (p *Profile) input(u Usage) int {
	if p == nil || p.CacheReadsCount {
		return u.Input
	}
	return u.Input - u.CacheRead
}

// Charges returns what a call declaring req is charged, per limit
// (indexed by [Limit]), when it is admitted under p; a nil p is the
// generic rule (input + estimate).
func (p *Profile) Charges(req Request) [numLimits]int {
	var c [numLimits]int
	c[RPM] = 1
	in := p.input(req.Usage)
	out := req.Output
	count := CountEstimate
	if p != nil {
		count = p.Count
	}
	switch count {
	case CountInput:
		out = 0
	case CountMaxTokens:
		if req.MaxTokens > 0 {
			out = req.MaxTokens
		}
	case CountMaxOfMaxTokensAndInput:
		mt := req.MaxTokens
		if mt == 0 {
			mt = req.Output
		}
		c[TPM] = max(mt, in)
		c[ITPM] = in
		c[OTPM] = mt
		return c
	}
	c[TPM] = in + out
	c[ITPM] = in
	c[OTPM] = out
	return c
}

// Actual returns what a call that used u is charged per limit once it has
// ended under p (the input less uncounted cache reads, and the output).
func (p *Profile) Actual(u Usage) [numLimits]int {
	var c [numLimits]int
	c[RPM] = 1
	in := p.input(u)
	c[TPM] = in + u.Output
	c[ITPM] = in
	c[OTPM] = u.Output
	return c
}
