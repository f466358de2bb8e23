package charts

import (
	"errors"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/internal/outputs"
)

// TestLimitChart: limits.csv parses into samples, one line per variant
// and tool, labelled by variant when there is one tool; a malformed row
// is an error naming the file, the line and the column.
func TestLimitChart(t *testing.T) {
	in := "variant,tool,t_s,width_s,limit\n" +
		"aimd,llm,0,1,16\naimd,llm,1,1,8.5\nfixed,llm,0,1,16\nfixed,llm,1,1,16\n"
	ls, err := outputs.ReadLimits(strings.NewReader(in), "limits.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 4 || ls[1].Limit != 8.5 || ls[1].Start.Seconds() != 1 || ls[2].Variant != "fixed" {
		t.Fatalf("ReadLimits = %+v", ls)
	}
	ch, err := LimitChart(ls)
	if err != nil {
		t.Fatal(err)
	}
	if got := legendLabels(ch); got != "aimd · llm | fixed · llm" {
		t.Errorf("legend = %q", got)
	}
	if _, err := LimitChart(nil); !errors.Is(err, ErrNoData) {
		t.Errorf("LimitChart(nil) error = %v, want ErrNoData", err)
	}
	for _, bad := range []struct{ row, want string }{
		{"a,llm,0,0,3", "f.csv:2: width_s"},
		{"a,llm,0,1,-3", "f.csv:2: limit"},
		{"a,,0,1,3", "f.csv:2: tool"},
	} {
		_, err := outputs.ReadLimits(strings.NewReader("variant,tool,t_s,width_s,limit\n"+bad.row+"\n"), "f.csv")
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("outputs.ReadLimits(%q) error = %v, want it to name %q", bad.row, err, bad.want)
		}
	}
}
