package summary_test

import (
	"encoding/json"
	"math"
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

// TestTenantSummaries: classes grouped into two tenants report each
// tenant's runs as the sums of its classes', and shares of the runs
// started, completed and of the workers' time that add up over the
// tenants; with both tenants flooding one worker under fair queuing, the
// light tenant's share of the runs started follows its weight, not its
// arrivals.
func TestTenantSummaries(t *testing.T) {
	cfg := load(t, "mmc", "runs=6000", "warmup=200", "arrivals.rate=3.1/s", "workers=1", "deadline=20s",
		"scheduling={workers: fair}", "tenants={light: {weight: 1}, heavy: {weight: 3}}",
		"classes=[{name: chat, tenant: heavy, weight: 0.8}, {name: batch, tenant: heavy, weight: 0.8}, {name: free, tenant: light, weight: 1.5}]")
	const reps = 2
	s := summarize(t, cfg, reps)
	if got := s.TenantNames(); len(got) != 2 || got[0] != "heavy" || got[1] != "light" {
		t.Fatalf("tenants %v, want [heavy light]", got)
	}
	h, l := s.Tenants["heavy"], s.Tenants["light"]
	if h.Weight != 3 || l.Weight != 1 || strings.Join(h.Classes, ",") != "batch,chat" || strings.Join(l.Classes, ",") != "free" {
		t.Errorf("heavy %+v, light %+v: want weights 3 and 1, classes [batch chat] and [free]", h, l)
	}
	if h.Arrived != s.Classes["chat"].Runs.Arrived+s.Classes["batch"].Runs.Arrived || l.Completed != s.Classes["free"].Runs.Completed {
		t.Errorf("tenant counts are not the sums of their classes'")
	}
	for _, sum := range []float64{h.StartedShare + l.StartedShare, h.CompletedShare + l.CompletedShare} {
		if sum < 1-1e-9 || sum > 1+1e-9 {
			t.Errorf("shares add up to %v, want 1", sum)
		}
	}
	if d := h.WorkerShare + l.WorkerShare - (s.Classes["chat"].WorkerShare + s.Classes["batch"].WorkerShare + s.Classes["free"].WorkerShare); d < -1e-9 || d > 1e-9 {
		t.Errorf("tenants' worker shares differ from their classes' by %v", d)
	}
	// First come first served, light would be started in proportion to
	// its arrivals, 1.5/3.1 of them; fair queuing starts a quarter of the
	// runs (model/system's TestFairShareHoldsWithDeadlines checks the
	// bound exactly on a trace).
	if fifo := 1.5 / 3.1; math.Abs(l.StartedShare-0.25) > math.Abs(l.StartedShare-fifo) {
		t.Errorf("light tenant's share of the runs started %v is nearer its share of the arrivals %v than its weight's 0.25", l.StartedShare, fifo)
	}
	b, _ := json.Marshal(s)
	if !strings.Contains(string(b), `"tenants":{"heavy":{"weight":3`) {
		t.Errorf("JSON has no tenants mapping: %.300s…", b)
	}
}
