package calibrate_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/calibrate"
	"github.com/budgetsim/budgetsim/calibrate/observe"
)

// A call log whose rate changes by the hour (0.2/s, then 1/s, repeating
// over 4 hours) is fitted with a schedule, whose hourly rates are the
// truth within 4 Poisson standard deviations, and the scenario loads.
func TestScheduleFromCallLog(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var b strings.Builder
	const start = 1796029200.0
	at, run := 0.0, 0
	for at < 4*3600 {
		rate := 0.2
		if int(at/3600)%2 == 1 {
			rate = 1
		}
		d := 0.1 + r.Float64()
		fmt.Fprintf(&b, `{"run": %d, "tool": "api", "start": %.6f, "end": %.6f, "status": 200}`+"\n", run, start+at, start+at+d)
		run++
		at += r.ExpFloat64() / rate // the first run at 0: the hours are the bins
	}
	p := filepath.Join(t.TempDir(), "calls.jsonl")
	os.WriteFile(p, []byte(b.String()), 0o644)
	res, err := calibrate.Calibrate([]string{p}, calibrate.Options{Observe: observe.Options{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Obs.Partial != 0 {
		t.Errorf("%d partial runs: a call log has no roots to miss", res.Obs.Partial)
	}
	a := res.Arrivals
	if a.Process != "schedule" || len(a.Bins) < 4 {
		t.Fatalf("arrivals %s (%s), %d bins", a.Process, a.Why, len(a.Bins))
	}
	for i, bin := range a.Bins[:3] {
		want := 0.2
		if i%2 == 1 {
			want = 1
		}
		if se := math.Sqrt(want / 3600); math.Abs(bin.Value-want) > 4*se {
			t.Errorf("hour %d: rate %.4g, want %v ± %.3g", i, bin.Value, want, 4*se)
		}
		if !(bin.CI.Lo < bin.Value && bin.Value < bin.CI.Hi) {
			t.Errorf("hour %d: interval %v does not hold its estimate", i, bin.CI)
		}
	}
	sc := res.Scenario("sched")
	if !strings.Contains(string(sc.YAML), "process: schedule") {
		t.Fatalf("no schedule:\n%s", sc.YAML)
	}
	if _, err := sc.Load("sched.yaml"); err != nil {
		t.Fatalf("%v\n%s", err, sc.YAML)
	}
}

// A model call log without token counts or times to first token is
// described by its latency, the missing attributes counted; a tool that
// times out gets a hang probability and its step a timeout.
func TestMissingAttributesAndTimeouts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var b strings.Builder
	const start = 1796029200.0
	for i := range 500 {
		at := start + float64(i)
		d := 0.5 + r.Float64()
		fmt.Fprintf(&b, `{"run": %d, "tool": "llm", "op": "chat", "start": %.6f, "end": %.6f}`+"\n", i, at, at+d)
		if i%10 == 0 {
			fmt.Fprintf(&b, `{"run": %d, "tool": "db", "start": %.6f, "end": %.6f, "status": "error", "error_type": "timeout"}`+"\n", i, at+d, at+d+2)
		} else {
			fmt.Fprintf(&b, `{"run": %d, "tool": "db", "start": %.6f, "end": %.6f}`+"\n", i, at+d, at+d+0.01+0.01*r.Float64())
		}
	}
	p := filepath.Join(t.TempDir(), "calls.jsonl")
	os.WriteFile(p, []byte(b.String()), 0o644)
	res, err := calibrate.Calibrate([]string{p}, calibrate.Options{Observe: observe.Options{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Obs.Missing["gen_ai.usage.input_tokens"]; n != 500 {
		t.Errorf("missing input tokens counted %d times, want 500", n)
	}
	text := string(res.Scenario("m").YAML)
	for _, want := range []string{"  llm:  # MEASURED: 500 calls (chat)\n    latency: ", "{name: db, tool: db, timeout: 2s}", "hang: 0.1  # MEASURED: 50/500 calls timed out"} {
		if !strings.Contains(text, want) {
			t.Errorf("scenario lacks %q:\n%s", want, text)
		}
	}
	if _, err := res.Scenario("m").Load("m.yaml"); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
}
