package charts

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/internal/outputs"
)

// TestReadBreakers: breakers.csv parses; a share above 1 or a negative
// count is an error naming the line and the column.
func TestReadBreakers(t *testing.T) {
	const header = "variant,tool,t_s,width_s,open,half_open,refused\n"
	got, err := outputs.ReadBreakers(strings.NewReader(header+"v,api,0,0.5,0.25,0.5,7\n"), "breakers.csv")
	want := BreakerSample{Variant: "v", Tool: "api", Start: 0, Width: 500 * time.Millisecond, Open: 0.25, HalfOpen: 0.5, Refused: 7}
	if err != nil || len(got) != 1 || got[0] != want {
		t.Errorf("ReadBreakers = %+v, %v; want [%+v]", got, err, want)
	}
	for _, tt := range []struct{ row, col string }{
		{"v,api,0,0.5,1.5,0,0\n", "open"},
		{"v,api,0,0.5,0,0,-1\n", "refused"},
		{"v,api,0,0,0,0,0\n", "width_s"},
	} {
		_, err := outputs.ReadBreakers(strings.NewReader(header+tt.row), "breakers.csv")
		if err == nil || !strings.Contains(err.Error(), "breakers.csv:2") || !strings.Contains(err.Error(), tt.col) {
			t.Errorf("row %q: %v; want an error at breakers.csv:2 naming %s", tt.row, err, tt.col)
		}
	}
}

// TestBreakerChart: the chart draws one line per variant and tool, named
// in the legend, and a file without rows draws nothing.
func TestBreakerChart(t *testing.T) {
	if _, err := BreakerChart(nil); !errors.Is(err, ErrNoData) {
		t.Errorf("no samples: %v, want ErrNoData", err)
	}
	ch, err := BreakerChart([]BreakerSample{
		{Variant: "on", Tool: "llm", Start: 0, Width: time.Second, Open: 1, Refused: 3},
		{Variant: "on", Tool: "llm", Start: time.Second, Width: time.Second, HalfOpen: 1},
		{Variant: "strict", Tool: "llm", Start: 0, Width: time.Second, Open: 1, Refused: 4},
	})
	if err != nil {
		t.Fatal(err)
	}
	var svg strings.Builder
	if err := ch.Render(&svg, "svg"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"on · llm", "strict · llm", "half-open", "7 calls"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("breaker chart lacks %q", want)
		}
	}
}
