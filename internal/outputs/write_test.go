package outputs

import (
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/system"
)

// TestToolRows: tools.csv has a row per bin for a tool with a capacity
// (busy time / (concurrency × width)); a rate-limited tool's rows (calls /
// (rate × width)) group bins until each holds at least 50 calls at the
// limit (a rate of 10/s in 2 s bins: 3 bins a row, the last row shorter);
// with both, the larger of the two over the grouped bins, as the summary's
// load; a tool with neither has no rows.
func TestToolRows(t *testing.T) {
	cfg := &system.Config{Tools: []system.Tool{
		{Name: "pool", Concurrency: 4},
		{Name: "fast", RateLimit: &system.RateLimit{Rate: 30}},
		{Name: "slow", RateLimit: &system.RateLimit{Rate: 10}},
		{Name: "both", Concurrency: 2, RateLimit: &system.RateLimit{Rate: 5}},
		{Name: "free"},
	}}
	s := &system.Series{Width: 2 * time.Second,
		ToolBusy:  [][]float64{{4, 8}, {1, 1}, nil, {1, 4}, {3, 3}},
		ToolCalls: [][]int64{nil, {6, 60, 30}, {5, 20, 10, 30}, {8, 2}, nil},
	}
	var b strings.Builder
	cw := csv.NewWriter(&b)
	if err := ToolRows(cw, cfg, "v", s); err != nil {
		t.Fatal(err)
	}
	cw.Flush()
	want := `v,pool,0,2,0.5
v,pool,2,2,1
v,fast,0,2,0.1
v,fast,2,2,1
v,fast,4,2,0.5
v,slow,0,6,0.5833333333333334
v,slow,6,2,1.5
v,both,0,4,0.625
`
	if got := b.String(); got != want {
		t.Errorf("tool rows:\n%s\nwant\n%s", got, want)
	}
	if !HasLimitedTools(cfg) || HasLimitedTools(&system.Config{Tools: []system.Tool{{Name: "free"}}}) {
		t.Error("HasLimitedTools: want true with a capacity or rate limit, false with neither")
	}
}
