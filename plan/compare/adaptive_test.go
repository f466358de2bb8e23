package compare

import (
	"testing"
)

// TestAdaptiveConcurrencyKeepsGoodput is the trade-off the bundled
// adaptive-concurrency scenario exists for, on its own variants file:
// through the provider's slowdown both adaptive limits (AIMD, gradient)
// complete more runs than a fixed limit set too high (64: the slowed
// provider's queue outgrows the timeout and goodput collapses), one set
// too low (6: capacity wasted all along) and no limit at all. Each
// difference is paired over 5 replications on common random numbers, and
// its 95 % Student-t interval must lie wholly below zero.
func TestAdaptiveConcurrencyKeepsGoodput(t *testing.T) {
	a, err := ReadVariants("testdata/adaptive-variants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	all, err := Grid([]Axis{a})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Variant{}
	for _, v := range all {
		byName[v.Label] = v
	}
	for _, adaptive := range []string{"aimd", "gradient"} {
		vs := []Variant{byName[adaptive], byName["fixed-64"], byName["fixed-6"], byName["no-limit"]}
		res, err := Run(Spec{Scenario: "adaptive-concurrency", Variants: vs, Replications: 5, Level: 0.95}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range res.Variants[1:] {
			d := v.Difference.SuccessRate
			if d == nil || !(d.Hi < 0) {
				t.Errorf("%s minus %s: success rate difference %+v, want an interval below 0", v.Name, adaptive, d)
			}
		}
		if got := res.Variants[0].Tools[0].Adaptive; got == nil || got.MinLimit >= got.MaxLimit {
			t.Errorf("%s: adaptive figures %+v, want a limit that moved", adaptive, got)
		}
	}
}
