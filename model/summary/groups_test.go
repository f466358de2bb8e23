package summary_test

import (
	"math"
	"strings"
	"testing"
)

// TestGroupSummary: fan-out's parallel step is one row of Groups and one
// stage of the tail, whose members' spans are listed beside the stages:
// each within its group's time, since a group cancels its members when it
// ends; the stages still partition the band's time.
func TestGroupSummary(t *testing.T) {
	t.Parallel()
	s := summarize(t, load(t, "fan-out", "runs=6000", "warmup=500"), 2)
	if len(s.Groups) != 1 {
		t.Fatalf("groups = %+v, want fan-out's fetch", s.Groups)
	}
	g := s.Groups[0]
	if g.Name != "fetch" || g.Wait != "first 3" || g.K != 3 || len(g.Members) != 5 {
		t.Fatalf("group = %+v", g)
	}
	// Each group that was satisfied before all five answered cancelled
	// the rest: at most 2 per group.
	if g.Satisfied == 0 || g.Cancelled == 0 || g.Cancelled > 2*(g.Satisfied+g.Failed) || s.Attempts.Cancelled != g.Cancelled {
		t.Fatalf("satisfied %d, failed %d, cancelled %d (attempts: %d)", g.Satisfied, g.Failed, g.Cancelled, s.Attempts.Cancelled)
	}
	var fetch float64
	var names []string
	for _, st := range s.Tail.Stages {
		names = append(names, st.Stage)
		if st.Stage == "step:fetch" {
			fetch = st.Seconds
		}
	}
	if got := strings.Join(names, ","); got != "queue,step:plan,step:fetch,step:answer,backoff" {
		t.Fatalf("tail stages %s", got)
	}
	if len(s.Tail.Members) != 5 {
		t.Fatalf("tail members %+v, want 5", s.Tail.Members)
	}
	for _, mb := range s.Tail.Members {
		if !strings.HasPrefix(mb.Stage, "step:fetch/page") || mb.Seconds <= 0 || mb.Seconds > fetch*(1+1e-12) {
			t.Errorf("member %+v: want a span in (0, %v], the group's", mb, fetch)
		}
	}
	var sum float64
	for _, sh := range s.Tail.Shares() {
		sum += sh
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("shares sum to %v", sum)
	}
}
