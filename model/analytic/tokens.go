package analytic

import (
	"fmt"
	"math"
)

// TokenLimits are a model provider's per-minute limits, as model/ratelimit's
// TokenLimiter enforces them: requests (RPM), input plus output tokens
// (TPM), input tokens (ITPM) and output tokens (OTPM) per minute. A zero
// field is not enforced.
type TokenLimits struct {
	RPM, TPM, ITPM, OTPM float64
}

// TokenThroughputCap returns the long-run rate of calls, per second, that a
// limit of limitPerMinute tokens per minute admits when calls use
// meanTokens tokens each on average: limitPerMinute / 60 / meanTokens.
//
// A per-minute limit replenished continuously is a token bucket of rate
// limit/60 per second, and over a time t a bucket of size B admits at most
// B + t×limit/60 tokens, so the admitted calls per second tend to the cap
// when the offered load exceeds it (the bucket's burst only shifts the
// count by B/meanTokens calls). The tokens that count are those settled:
// a reservation of max_tokens that is corrected to the actual usage
// afterwards costs, in the long run, the actual usage.
//
// It returns an error naming the argument if either is not finite and > 0.
func TokenThroughputCap(limitPerMinute, meanTokens float64) (float64, error) {
	if err := checkRate("limitPerMinute", limitPerMinute); err != nil {
		return 0, err
	}
	if err := checkRate("meanTokens", meanTokens); err != nil {
		return 0, err
	}
	return limitPerMinute / 60 / meanTokens, nil
}

// CallCap returns the long-run calls per second that the limits admit for
// calls of meanInput input and meanOutput output tokens on average: the
// smallest of RPM/60 and the [TokenThroughputCap] of each token limit, and
// the key of the limit that sets it ("rpm", "tpm", "itpm" or "otpm"; the
// first in that order on a tie). With no limit set the cap is +Inf and the
// key "none". It returns an error naming the field if a limit is negative
// or not finite, or a mean is negative or not finite, or a set token
// limit meets a mean of zero tokens that it counts.
func (l TokenLimits) CallCap(meanInput, meanOutput float64) (callsPerSecond float64, binding string, err error) {
	for _, m := range []struct {
		name string
		v    float64
	}{{"meanInput", meanInput}, {"meanOutput", meanOutput}} {
		if math.IsNaN(m.v) || math.IsInf(m.v, 0) || m.v < 0 {
			return 0, "", fmt.Errorf("%s: must be finite and >= 0, got %v", m.name, m.v)
		}
	}
	best, binding := math.Inf(1), "none"
	for _, lim := range []struct {
		name   string
		limit  float64
		tokens float64
	}{
		{"rpm", l.RPM, 1},
		{"tpm", l.TPM, meanInput + meanOutput},
		{"itpm", l.ITPM, meanInput},
		{"otpm", l.OTPM, meanOutput},
	} {
		if math.IsNaN(lim.limit) || math.IsInf(lim.limit, 0) || lim.limit < 0 {
			return 0, "", fmt.Errorf("%s: must be finite and >= 0 (0 for no limit), got %v", lim.name, lim.limit)
		}
		if lim.limit == 0 {
			continue
		}
		if lim.tokens == 0 {
			continue // calls that use none of these tokens are not limited by them
		}
		c, err := TokenThroughputCap(lim.limit, lim.tokens)
		if err != nil {
			return 0, "", fmt.Errorf("%s: %w", lim.name, err)
		}
		if c < best {
			best, binding = c, lim.name
		}
	}
	return best, binding, nil
}

// TokenQueue returns the single-server queue that a client forms when its
// calls wait for a token bucket's capacity in arrival order: Poisson calls
// at lambda per second whose token counts N have mean meanTokens and
// second moment secondMomentTokens (E[N²]), served at tokensPerSecond, so
// the service time is S = N / tokensPerSecond with E[S] = E[N]/rate and
// E[S²] = E[N²]/rate².
//
// Why it is exact: a token bucket (GCRA, model/ratelimit) keeps the
// instant tat at which it would be full again; a call of n tokens
// reserved at a advances it to max(tat, a) + n/rate, Lindley's recursion
// for the departures of a FIFO single server. So the bucket's backlog just
// after a call reserves, tat − a, is that call's sojourn in this M/G/1
// queue, with mean [MG1.MeanSojourn] (Pollaczek–Khinchine), and its wait
// before it may be sent is max(0, sojourn − B/rate) for a bucket of B
// tokens. In particular calls of a constant n tokens on a bucket of size n
// wait exactly the M/D/1 queue wait [MG1.MeanWait], and a larger bucket
// only shortens the wait: E[wait] ≤ MeanSojourn − E[S] + E[(S − B/rate)⁺].
//
// It returns an error naming the argument if lambda, tokensPerSecond or
// meanTokens is not finite and > 0, or secondMomentTokens is below
// meanTokens² or not finite. The queue's methods report an
// *UnstableError when λ E[N] ≥ rate: the calls then outrun the limit, and
// their throughput is capped by [TokenThroughputCap].
func TokenQueue(lambda, tokensPerSecond, meanTokens, secondMomentTokens float64) (MG1, error) {
	if err := checkRate("lambda", lambda); err != nil {
		return MG1{}, err
	}
	if err := checkRate("tokensPerSecond", tokensPerSecond); err != nil {
		return MG1{}, err
	}
	if err := checkRate("meanTokens", meanTokens); err != nil {
		return MG1{}, err
	}
	m2 := meanTokens * meanTokens
	if math.IsInf(secondMomentTokens, 0) || !(secondMomentTokens >= m2) {
		return MG1{}, fmt.Errorf("secondMomentTokens: must be finite and >= meanTokens² = %v, got %v", m2, secondMomentTokens)
	}
	s := meanTokens / tokensPerSecond
	q := MG1{
		Lambda:      lambda,
		MeanService: s,
		// E[N²] ≥ E[N]² was checked in tokens; dividing each side by rate²
		// rounds separately, so keep E[S²] ≥ E[S]² (equal for constant N).
		SecondMoment: max(secondMomentTokens/tokensPerSecond/tokensPerSecond, s*s),
	}
	if err := q.validate(); err != nil {
		return MG1{}, err
	}
	return q, nil
}
