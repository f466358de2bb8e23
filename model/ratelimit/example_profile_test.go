package ratelimit_test

import (
	"fmt"
	"time"

	"github.com/budgetsim/budgetsim/model/ratelimit"
)

// Azure OpenAI evaluates a standard deployment's requests per minute over
// short windows: a 600 RPM deployment watched over 1 s answers 429 to more
// than 10 requests in one second, although a continuous bucket of 600
// would take them all.
func ExampleProfile_azureOpenAI() {
	azure, _ := ratelimit.NewProfileLimiter(ratelimit.TokenLimits{RPM: 600}, ratelimit.LookupProfile("azure-openai"))
	generic, _ := ratelimit.NewTokenLimiter(ratelimit.TokenLimits{RPM: 600})
	var a, g int
	var retry time.Duration
	for range 30 { // a burst of 30 requests at one instant
		if _, ra, ok, _ := azure.TryAdmitAt(0, ratelimit.Request{}); ok {
			a++
		} else {
			retry = ra
		}
		if _, _, ok, _ := generic.TryAdmitAt(0, ratelimit.Request{}); ok {
			g++
		}
	}
	h, _ := ratelimit.LookupProfile("azure-openai").RetryAfter.Header(retry)
	fmt.Printf("azure-openai admits %d of 30, then 429 with retry-after-ms %d\n", a, h.Milliseconds())
	fmt.Printf("continuous bucket admits %d of 30\n", g)
	// Output:
	// azure-openai admits 10 of 30, then 429 with retry-after-ms 1000
	// continuous bucket admits 30 of 30
}

// Amazon Bedrock reserves input + maxTokens when a call starts: with a
// 2,000,000 TPM quota and 500 input tokens, maxTokens 1,000 admits 1,333
// calls at once, and a 64,000 default maxTokens only 31.
func ExampleProfile_bedrock() {
	for _, maxTokens := range []int{1000, 64_000} {
		m, _ := ratelimit.NewProfileLimiter(ratelimit.TokenLimits{TPM: 2_000_000}, ratelimit.LookupProfile("bedrock"))
		n := 0
		for {
			if _, _, ok, _ := m.TryAdmitAt(0, ratelimit.Request{Usage: ratelimit.Usage{Input: 500}, MaxTokens: maxTokens}); !ok {
				break
			}
			n++
		}
		fmt.Printf("maxTokens %d: %d concurrent calls\n", maxTokens, n)
	}
	// Output:
	// maxTokens 1000: 1333 concurrent calls
	// maxTokens 64000: 31 concurrent calls
}
