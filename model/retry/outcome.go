package retry

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Outcome classifies how one attempt ended. The zero value is OK, so a zero
// Result is a success, like a nil error.
type Outcome int

// The outcome classes.
const (
	// OK: the attempt succeeded.
	OK Outcome = iota
	// Timeout: the lease ran out before an answer (or a gateway timed out
	// waiting for its upstream, HTTP 504). The server may have done the work.
	Timeout
	// Transient: the server said it could not serve the request now
	// (HTTP 502, 503, 408).
	Transient
	// RateLimited: the server refused the request for exceeding a rate
	// limit (HTTP 429).
	RateLimited
	// Permanent: the request itself is wrong (HTTP 400 and other client
	// errors); sending it again cannot help. Fix the input instead.
	Permanent
	// Refused: the attempt was refused locally, before dialing, because too
	// little of the deadline remained (deadline.ErrRefused).
	Refused
	// Overloaded: the provider turned the request away for lack of its
	// own capacity, not for a limit of the caller's (Anthropic's HTTP 529
	// overloaded_error). Unlike a 429 it usually carries no Retry-After:
	// it is retried as a transient error, after the caller's own backoff.
	Overloaded
)

var outcomeNames = [...]string{"ok", "timeout", "transient", "rate_limited", "permanent", "refused", "overloaded"}

// String returns the name ParseOutcome accepts ("ok", "timeout",
// "transient", "rate_limited", "permanent", "refused", "overloaded"), or
// "Outcome(n)".
func (o Outcome) String() string {
	if o >= 0 && int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// ParseOutcome returns the Outcome named s (see String).
func ParseOutcome(s string) (Outcome, error) {
	for i, n := range outcomeNames {
		if s == n {
			return Outcome(i), nil
		}
	}
	return 0, fmt.Errorf("outcome: want one of %s, got %q", strings.Join(outcomeNames[:], ", "), s)
}

// MarshalText implements encoding.TextMarshaler.
func (o Outcome) MarshalText() ([]byte, error) {
	if o < 0 || int(o) >= len(outcomeNames) {
		return nil, fmt.Errorf("outcome: unknown value %d", int(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseOutcome.
func (o *Outcome) UnmarshalText(b []byte) error {
	v, err := ParseOutcome(string(b))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// Retryable reports whether sending the request again might succeed:
// Timeout, Transient, RateLimited and Overloaded. OK needs no retry;
// Permanent cannot succeed unchanged; Refused means the deadline has no
// room left.
func (o Outcome) Retryable() bool {
	return o == Timeout || o == Transient || o == RateLimited || o == Overloaded
}

// MayHaveExecuted reports whether the server may have carried out the
// request although the caller saw no success, so that a retry may execute it
// twice. Timeout: yes, the answer may simply not have arrived in time.
// Transient, RateLimited and Overloaded: no; a 503, 429 or 529 is taken to mean the request
// was turned away before it ran (RFC 9110 §15.6.4, RFC 6585 §4). That is the
// usual reading but not a guarantee: a proxy can answer 502/503 after its
// upstream did the work, which is why Decide still refuses to retry an unsafe
// request after any failure unless Policy.AllowUnsafe is set. Refused: no, it
// was never sent. OK and Permanent: yes and no respectively, but neither is
// retried.
func (o Outcome) MayHaveExecuted() bool {
	return o == Timeout || o == OK
}

// OutcomeForStatus classifies an HTTP status code: 1xx–3xx OK; 429
// RateLimited; 529 Overloaded (Anthropic's overloaded_error; a provider
// that signals overload with 503 is classified Transient, as its status
// cannot tell the two apart); 408, 502 and 503 Transient; 504 Timeout (a gateway gave up on
// its upstream, which may have done the work); every other status
// Permanent, including 500, which says the server failed while handling the
// request: retrying it is the caller's call, made by mapping it itself.
func OutcomeForStatus(code int) Outcome {
	switch {
	case code < 400:
		return OK
	case code == 429:
		return RateLimited
	case code == 529:
		return Overloaded
	case code == 408 || code == 502 || code == 503:
		return Transient
	case code == 504:
		return Timeout
	}
	return Permanent
}

// HeaderRetryAfter is the HTTP response header a server uses to say how long
// to wait before retrying (RFC 9110 §10.2.3).
const HeaderRetryAfter = "Retry-After"

// ParseRetryAfter decodes a Retry-After value (RFC 9110 §10.2.3): either
// delay-seconds (ASCII digits) or an HTTP-date in any of the three formats
// RFC 9110 §5.6.7 requires recipients to accept (those of net/http's
// ParseTime), which is converted to a
// delay against date, the response's Date header if present or else the
// local wall clock when the response arrived (the caller reads it; this
// package does not). A date in the past gives 0. ok is false for an empty or
// malformed value, which the caller should treat as absent.
func ParseRetryAfter(value string, date time.Time) (d time.Duration, ok bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if value[0] >= '0' && value[0] <= '9' {
		n, err := strconv.ParseUint(value, 10, 63)
		if err != nil {
			return 0, false
		}
		if n > uint64(1<<63-1)/uint64(time.Second) {
			return 1<<63 - 1, true
		}
		return time.Duration(n) * time.Second, true
	}
	for _, layout := range httpDateLayouts {
		if t, err := time.Parse(layout, value); err == nil {
			return max(t.Sub(date), 0), true
		}
	}
	return 0, false
}

// httpDateLayouts are the HTTP-date formats of RFC 9110 §5.6.7: IMF-fixdate,
// then the obsolete RFC 850 and asctime formats. They are net/http's
// TimeFormat, time.RFC850 and time.ANSIC, spelled out here so that this
// package, which the simulator's hot path links, does not pull in net/http
// (and with it TLS, x509 and their package initialisers).
var httpDateLayouts = [...]string{
	"Mon, 02 Jan 2006 15:04:05 GMT",
	time.RFC850,
	time.ANSIC,
}
