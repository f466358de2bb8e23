package calibrate_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/calibrate"
	"github.com/budgetsim/budgetsim/calibrate/observe"
	"github.com/budgetsim/budgetsim/model/arrival"
)

// Runs that arrive in on–off bursts (a call log whose run starts follow a
// two-state MMPP) give a scenario whose arrivals are an mmpp with its
// fitted states, each marked FITTED, which the loader reads.
func TestScenarioMMPPArrivals(t *testing.T) {
	p, err := arrival.MMPP([]arrival.State{{Rate: 5, Sojourn: 20 * time.Second}, {Rate: 0.2, Sojourn: 40 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p = arrival.Instance(p)
	rng := rand.New(rand.NewPCG(3, 4))
	var b bytes.Buffer
	var at time.Duration
	for i := range 6000 {
		at, _ = p.Next(int64(i), at, rng)
		s := 1_800_000_000 + at.Seconds()
		fmt.Fprintf(&b, "{\"run\": %d, \"tool\": \"search\", \"start\": %.9f, \"end\": %.9f, \"status\": 200}\n", i, s, s+0.05+0.01*rng.Float64())
	}
	path := filepath.Join(t.TempDir(), "calls.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := calibrate.Calibrate([]string{path}, calibrate.Options{Observe: observe.Options{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Arrivals.Process != "mmpp" {
		t.Fatalf("arrivals %s: %s; %s", r.Arrivals.Process, r.Arrivals.Why, r.Arrivals.MMPPWhy)
	}
	sc := r.Scenario("bursty")
	text := string(sc.YAML)
	for _, want := range []string{"  process: mmpp\n", "  states:\n", "sojourn: ", "# FITTED: the busy state", "a two-state MMPP by maximum likelihood"} {
		if !strings.Contains(text, want) {
			t.Errorf("the scenario lacks %q:\n%s", want, text)
		}
	}
	if _, err := sc.Load("bursty.yaml"); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
}
