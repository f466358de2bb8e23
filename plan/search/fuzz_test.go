package search

import (
	"reflect"
	"testing"
)

// FuzzParseSLO: ParseSLO never panics, and an objective it accepts prints
// (String) as text that parses back to the same objective.
func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"wait_p99<=500ms", "success>=99.9%", "latency_p50 < 2s", "p99<=1", "success>=1.5", "wait_p99<=-1s", "x", "premium: p99<=5s", "free:success>=0.95", ": p99<=1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slo, err := ParseSLO(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("ParseSLO(%q): empty error", s)
			}
			return
		}
		back, err := ParseSLO(slo.String())
		if err != nil || !reflect.DeepEqual(back, slo) {
			t.Fatalf("ParseSLO(%q) = %+v; String %q parses back to %+v, %v", s, slo, slo.String(), back, err)
		}
	})
}

// FuzzParseRange: ParseRange never panics; an accepted range has lo ≤ hi
// and prints as text that parses back to the same range.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"workers=1..40", "arrivals.rate=1/s..10/s", "deadline=100ms..5s", "workers=5..1", "a=", "=1..2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRange(s)
		if err != nil {
			return
		}
		if !(r.Lo <= r.Hi) {
			t.Fatalf("ParseRange(%q) = %+v: lo > hi", s, r)
		}
		back, err := ParseRange(r.String())
		if err != nil || back.Key != r.Key || back.Lo != r.Lo || back.Hi != r.Hi {
			t.Fatalf("ParseRange(%q) = %+v; String %q parses back to %+v, %v", s, r, r.String(), back, err)
		}
	})
}
