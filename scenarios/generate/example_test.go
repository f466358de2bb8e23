package generate_test

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/budgetsim/budgetsim/scenarios/generate"
)

// A scenario drawn from a seed: its YAML text and its compiled
// configuration. The same seed draws the same text.
func ExampleScenario() {
	src, cfg, err := generate.Scenario(42, generate.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	again, _, _ := generate.Scenario(42, generate.Options{})
	fmt.Println(cfg.Name, len(cfg.Tools) > 0, bytes.Equal(src, again))
	// Output: generated true true
}

// Forcing features: a hedged step calling a tool whose rate limit the
// callers enforce themselves, then the invariants checked on it.
func ExampleDraw() {
	hedge := generate.Feature{Section: "step", Key: "hedge"}
	client := generate.Feature{Section: "rate_limit", Key: "enforce", Value: "client"}
	d, err := generate.Draw(7, generate.Options{Force: []generate.Feature{hedge, client}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(slices.Contains(d.Features, hedge), slices.Contains(d.Features, client))
	fmt.Println(bytes.Contains(d.YAML, []byte("enforce: client")))
	// Output:
	// true true
	// true
}
