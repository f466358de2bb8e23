package summary_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestClassSummaries: a scenario split into classes reports each class
// beside the pooled figures, and the classes add up to them; a scenario
// without classes has no classes key in its JSON.
func TestClassSummaries(t *testing.T) {
	cfg := load(t, "mmc", "runs=4000", "warmup=0", "classes=[{name: gold, weight: 1, deadline: 2s}, {name: free, weight: 3}]")
	s := summarize(t, cfg, 3)
	if got := s.ClassNames(); len(got) != 2 || got[0] != "free" || got[1] != "gold" {
		t.Fatalf("classes %v, want [free gold]", got)
	}
	var arrived, completed int64
	var latN uint64
	share := 0.0
	for _, name := range s.ClassNames() {
		c := s.Classes[name]
		arrived += c.Runs.Arrived
		completed += c.Runs.Completed
		latN += c.Latency.N
		share += c.Share
		if c.Confidence == nil {
			t.Errorf("class %s has no intervals over 3 replications", name)
		}
	}
	if arrived != s.Runs.Arrived || completed != s.Runs.Completed || latN != s.Latency.N {
		t.Errorf("classes add up to %d arrived, %d completed, %d latencies; pooled %d, %d, %d", arrived, completed, latN, s.Runs.Arrived, s.Runs.Completed, s.Latency.N)
	}
	if share < 0.999999 || share > 1.000001 {
		t.Errorf("shares add up to %g", share)
	}
	// gold's 2 s deadline cuts its completion times; free has none.
	if g, f := s.Classes["gold"], s.Classes["free"]; g.Latency.Max > 2 || f.Runs.Completed != f.Runs.Arrived {
		t.Errorf("gold's longest completion %gs (deadline 2s); free completed %d of %d (no deadline)", g.Latency.Max, f.Runs.Completed, f.Runs.Arrived)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"classes":{"free":{`) {
		t.Errorf("JSON has no classes mapping: %.300s…", b)
	}
	plain := summarize(t, load(t, "mmc", "runs=2000", "warmup=0"), 1)
	b, _ = json.Marshal(plain)
	if strings.Contains(string(b), `"classes"`) {
		t.Errorf("a scenario without classes has a classes key in its JSON")
	}
}
