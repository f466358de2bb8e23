package charts

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/internal/outputs"
)

// TestTokenChart: a summary.json with a model API's limits gives one bar
// per limit, the binding one marked; without one, ErrNoData.
func TestTokenChart(t *testing.T) {
	const js = `{"scenario": "m", "tools": [{"name": "llm", "tokens": {"calls": 10, "binding": "tpm",
	  "limits": [{"limit": "rpm", "per_minute": 500, "used_per_s": 1, "limit_per_s": 8.33, "utilisation": 0.12},
	             {"limit": "tpm", "per_minute": 60000, "used_per_s": 990, "limit_per_s": 1000, "utilisation": 0.99}]}}]}`
	sums, err := outputs.ReadSummaries(strings.NewReader(js), "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if !HasTokenLimits(sums) {
		t.Fatal("HasTokenLimits = false for a model API with limits")
	}
	ch, err := TokenChart(sums)
	if err != nil {
		t.Fatal(err)
	}
	ticks := ch.Plot.Y.Tick.Marker.Ticks(0, 1)
	if len(ticks) != 2 || ticks[0].Label != "llm rpm" || ticks[1].Label != "llm tpm" {
		t.Errorf("bars %+v; want llm rpm, llm tpm", ticks)
	}
	var buf bytes.Buffer
	if err := ch.Render(&buf, "svg"); err != nil || !strings.Contains(buf.String(), "binds") {
		t.Errorf("render: %v; the binding limit must be marked", err)
	}
	plain, _ := outputs.ReadSummaries(strings.NewReader(`{"scenario": "p", "tools": [{"name": "api"}]}`), "summary.json")
	if _, err := TokenChart(plain); !errors.Is(err, ErrNoData) || HasTokenLimits(plain) {
		t.Errorf("no model API: %v, want ErrNoData", err)
	}
}
