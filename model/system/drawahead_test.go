package system_test

import (
	"bytes"
	"testing"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/sweep"
)

// encoded is r in sweep's wire format: every exported figure, histograms
// bucket by bucket, series bin by bin.
func encoded(t *testing.T, r *system.Result) []byte {
	t.Helper()
	b, err := sweep.EncodeResult(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDrawAheadMatches: making the draws ahead on a spare core changes
// nothing, whatever the scenario does with them (retries, deadlines, a
// cache, a rate limit, outages, a bounded waiting room, a horizon).
func TestDrawAheadMatches(t *testing.T) {
	for _, c := range []struct {
		name string
		sets []string
	}{
		{"seed-plan", []string{"arrivals={rate: 50/s}", "runs=5000", "workers=100"}},
		{"retry-storm", nil},
		{"tool-bottleneck", []string{"runs=5000"}},
		{"aws-jitter", nil},
		{"launch-day", []string{"horizon=6h", "warmup=30m"}},
		{"mmc", []string{"runs=60000", "warmup=1000"}},
		{"mmck", []string{"runs=20000"}},
		{"mg1", []string{"runs=20000", "warmup=300s"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := load(t, c.name, c.sets...)
			want := encoded(t, system.New(cfg, system.Options{}).Run())
			got := encoded(t, system.New(cfg, system.Options{SpareCore: true}).Run())
			if !bytes.Equal(got, want) {
				t.Errorf("draw ahead changed the result")
			}
		})
	}
}
