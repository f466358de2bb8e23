package scenarios_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/scenarios"
)

// unknownKeys is a scenario of n unknown top-level keys.
func unknownKeys(n int) []byte {
	var b strings.Builder
	b.WriteString("name: x\n")
	for i := range n {
		fmt.Fprintf(&b, "k%07d: 1\n", i)
	}
	return []byte(b.String())
}

// allocated is the bytes allocated while loading src.
func allocated(t *testing.T, src []byte) (uint64, error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := scenarios.Parse("t.yaml", src, nil, nil)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, err
}

// TestErrorsBounded: a file of many mistakes is reported in bounded
// memory: the first MaxErrors errors in line order, then one line counting
// the rest. The memory the errors add is checked by allocation (not time):
// beyond the first MaxErrors, a mistake costs its YAML nodes, not an
// error apiece.
func TestErrorsBounded(t *testing.T) {
	const n = 20000
	_, err := scenarios.Parse("t.yaml", unknownKeys(n), nil, nil)
	var es scenarios.Errors
	if err == nil {
		t.Fatal("loads")
	}
	es = err.(scenarios.Errors)
	if len(es) != scenarios.MaxErrors+1 {
		t.Fatalf("%d errors, want %d and one counting the rest", len(es), scenarios.MaxErrors+1)
	}
	if l := es[len(es)-2]; l.Line > scenarios.MaxErrors+1 || !strings.Contains(l.Error(), ": unknown key") {
		t.Errorf("last error listed %q, want one of the first unknown keys (the missing keys come first, at line 1)", l)
	}
	// Every key is unknown and the scenario lacks its required keys:
	// n unknown keys plus the missing ones, beyond the first MaxErrors.
	last := es[len(es)-1].Error()
	if !strings.HasPrefix(last, "t.yaml: and ") || !strings.Contains(last, "more errors, not listed") {
		t.Errorf("last error %q, want a count of the rest", last)
	}
	var rest int
	fmt.Sscanf(strings.TrimPrefix(last, "t.yaml: and "), "%d", &rest)
	if rest < n-scenarios.MaxErrors {
		t.Errorf("%d more errors counted, want at least %d", rest, n-scenarios.MaxErrors)
	}
	// Allocation per extra key, beyond the kept errors: the YAML nodes'
	// cost (two nodes and a map entry, a few hundred bytes), not an
	// error's message and suggestion (over 16 KiB each).
	small, _ := allocated(t, unknownKeys(n/10))
	large, _ := allocated(t, unknownKeys(n))
	if perKey := float64(large-small) / float64(n-n/10); perKey > 2048 {
		t.Errorf("%.0f bytes allocated per unknown key: errors beyond the first %d are kept", perKey, scenarios.MaxErrors)
	}
}
