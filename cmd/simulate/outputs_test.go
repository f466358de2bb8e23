package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/plan/compare"
	"github.com/budgetsim/budgetsim/plan/search"
	"github.com/budgetsim/budgetsim/plan/sweep"
)

// jsonTypes reads each JSON file into the type its writer wrote and
// writes it again.
var jsonTypes = map[*outputs.File]func(*testing.T, []byte) []byte{
	outputs.SummaryJSON: jsonAgain[summaryFile],
	outputs.CompareJSON: jsonAgain[[]compare.Summary],
	outputs.SweepJSON:   jsonAgain[[]sweep.PointFile],
	outputs.PlanJSON:    jsonAgain[search.PlanFile],
	outputs.GridJSON:    jsonAgain[search.GridPlanFile],
}

func jsonAgain[T any](t *testing.T, data []byte) []byte {
	t.Helper()
	v, err := outputs.ReadJSON[T](bytes.NewReader(data), "file")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := outputs.WriteJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestOutputsRoundTrip holds the commands to the contract of package
// outputs: every file a command's --out writes is declared there; each
// declared file is written by every command its declaration names (by
// one of the runs below that has the feature the file is for: outages,
// breakers, adaptive limits, classes); and every file written reads back
// through its declared reader with its declared columns, and a JSON file
// into its writer's type as written, byte for byte.
func TestOutputsRoundTrip(t *testing.T) {
	tmp := t.TempDir()
	dirs := map[string][]string{} // command → the directories it wrote
	out := func(cmd string, args ...string) {
		dir := filepath.Join(tmp, cmd+"-"+string(rune('a'+len(dirs[cmd]))))
		mustRun(t, append(append([]string{cmd}, args...), "--out", dir)...)
		dirs[cmd] = append(dirs[cmd], dir)
	}
	// circuit-breaker: outages and breakers; adaptive-concurrency:
	// limits and tools; two-classes: classes of work.
	out("run", "circuit-breaker", "--set", "horizon=60s", "--set", "warmup=10s")
	out("run", "adaptive-concurrency", "--set", "horizon=90s", "--set", "warmup=10s")
	out("run", "two-classes", "--runs", "2000", "--set", "warmup=200")
	out("compare", "circuit-breaker", "--set", "horizon=60s", "--set", "warmup=10s", "--vary", "workers=4,8", "--replications", "2")
	out("compare", "adaptive-concurrency", "--set", "horizon=90s", "--set", "warmup=10s", "--vary", "workers=4,8")
	out("compare", "two-classes", "--runs", "2000", "--set", "warmup=200", "--vary", "workers=2,3")
	out("sweep", "mmc", "--vary", "workers=10,12", "--runs", "2000", "--set", "warmup=200")
	out("plan", "mmc", "--slo", "p99<=6s", "--search", "workers=10..14", "--runs", "2000", "--set", "warmup=200")
	out("plan", "coding-agent", "--slo", "success>=0.9", "--minimize", "cost", "--over", "tools.model.concurrency=24,48",
		"--set", "runs=300", "--set", "warmup=50", "--replications", "2", "--max-replications", "2")
	shards := filepath.Join(tmp, "shards")
	for _, i := range []string{"0/2", "1/2"} {
		mustRun(t, "sweep", "mmc", "--vary", "workers=10,12", "--runs", "2000", "--set", "warmup=200", "--shard", i, "--out", shards)
	}
	out("merge", shards)

	declared := map[string]*outputs.File{}
	for _, f := range outputs.All {
		declared[f.Name] = f
	}
	wrote := map[string]map[*outputs.File]bool{} // command → files
	for cmd, ds := range dirs {
		wrote[cmd] = map[*outputs.File]bool{}
		for _, d := range ds {
			entries, err := os.ReadDir(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				f, ok := declared[e.Name()]
				if !ok {
					t.Errorf("%s --out wrote %s, which package outputs does not declare", cmd, e.Name())
					continue
				}
				if !slices.Contains(f.WrittenBy, cmd) {
					t.Errorf("%s --out wrote %s, whose declaration says it is written by %v", cmd, f.Name, f.WrittenBy)
				}
				wrote[cmd][f] = true
				data, err := os.ReadFile(filepath.Join(d, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if err := f.Check(bytes.NewReader(data)); err != nil {
					t.Errorf("%s --out: %v", cmd, err)
				}
				if rt, ok := jsonTypes[f]; ok {
					if again := rt(t, data); !bytes.Equal(again, data) {
						t.Errorf("%s --out: %s does not read back into its writer's type as written", cmd, f.Name)
					}
				}
			}
		}
	}
	for _, f := range outputs.All {
		if len(f.WrittenBy) == 0 {
			t.Errorf("%s: declared, but no command writes it", f.Name)
		}
		for _, cmd := range f.WrittenBy {
			if !wrote[cmd][f] {
				t.Errorf("%s: declared as written by %s, which did not write it here", f.Name, cmd)
			}
		}
	}
}
