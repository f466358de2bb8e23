package summary_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/summary"
)

// warningWith returns the first warning containing sub, or "".
func warningWith(s summary.Summary, sub string) string {
	for _, w := range s.Warnings {
		if strings.Contains(w, sub) {
			return w
		}
	}
	return ""
}

// TestRatesSayWhatHappened: an M/M/10 offered 15 runs/s serves 10/s, and
// its queue drains long after the arrivals stop. The offered rate is what
// arrived (15/s, within 5 standard errors of a Poisson count, 5/√n), not
// Little's λ over the window, which the drain pulls down to the
// throughput; a warning says so. With a waiting room of 20 the admitted
// rate is the offered one less the share rejected at the door.
func TestRatesSayWhatHappened(t *testing.T) {
	s := summarize(t, load(t, "mmc", "arrivals.rate=15/s", "runs=20000", "warmup=1000"), 1)
	r := s.Rates
	tol := 5 / math.Sqrt(float64(s.Runs.Arrived))
	if math.Abs(r.OfferedPerSecond/15-1) > tol {
		t.Errorf("offered %.4f/s, want 15/s within %.2g", r.OfferedPerSecond, tol)
	}
	if r.AdmittedPerSecond != r.OfferedPerSecond {
		t.Errorf("admitted %.4f/s ≠ offered %.4f/s with no rejection", r.AdmittedPerSecond, r.OfferedPerSecond)
	}
	if r.CompletedPerSecond != s.Little.Throughput || r.CompletedPerSecond > 10.01 {
		t.Errorf("completed %.4f/s, throughput %.4f/s: want the same, at most the 10/s the workers serve", r.CompletedPerSecond, s.Little.Throughput)
	}
	if s.Little.ArrivalRate > 0.8*r.OfferedPerSecond {
		t.Errorf("Little's λ %.4f/s: the drain should pull it well below the offered %.4f/s", s.Little.ArrivalRate, r.OfferedPerSecond)
	}
	if warningWith(s, "below the offered rate") == "" {
		t.Errorf("no warning that Little's λ is below the offered rate: %q", s.Warnings)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"offered_per_s"`, `"admitted_per_s"`, `"completed_per_s"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("summary JSON has no %s", key)
		}
	}

	k := summarize(t, load(t, "mmc", "arrivals.rate=15/s", "queue.capacity=20", "runs=20000", "warmup=1000"), 1)
	admitted := float64(k.Runs.Arrived-k.Runs.Rejected) / float64(k.Runs.Arrived)
	if k.Runs.Rejected == 0 || math.Abs(k.Rates.AdmittedPerSecond-admitted*k.Rates.OfferedPerSecond) > 1e-9 {
		t.Errorf("queue of 20: admitted %.4f/s of %.4f/s offered, %d rejected", k.Rates.AdmittedPerSecond, k.Rates.OfferedPerSecond, k.Runs.Rejected)
	}
}

// TestDeadlineBoundsAnOverload: at utilisation 1.5 a 5 s deadline drops
// every run that waited past it, so the queue stays bounded: the
// warning must not call the system unstable, and must say what share of
// the runs was shed and where. Without the deadline it is unstable.
func TestDeadlineBoundsAnOverload(t *testing.T) {
	s := summarize(t, load(t, "mmc", "arrivals.rate=15/s", "deadline=5s", "runs=20000", "warmup=1000"), 1)
	if w := warningWith(s, "unstable"); w != "" {
		t.Errorf("a deadline bounds the queue, but: %q", w)
	}
	w := warningWith(s, "keeps the queue bounded")
	shed := 0
	for _, c := range []struct {
		n     int64
		where string
	}{{s.Runs.Expired, "expired waiting for a worker"}, {s.Runs.DeadlineExceeded, "ran out of deadline in a call"}} {
		if c.n == 0 {
			continue
		}
		shed++
		if want := fmt.Sprintf("%.3g%% of the measured runs %s", 100*float64(c.n)/float64(s.Runs.Arrived), c.where); !strings.Contains(w, want) {
			t.Errorf("want a warning saying %q, got %q", want, s.Warnings)
		}
	}
	if shed == 0 {
		t.Errorf("utilisation 1.5 with a deadline shed nothing: %+v", s.Runs)
	}
	u := summarize(t, load(t, "mmc", "arrivals.rate=15/s", "runs=20000", "warmup=1000"), 1)
	if warningWith(u, "unstable") == "" {
		t.Errorf("no deadline, utilisation 1.5: want the unstable warning, got %q", u.Warnings)
	}
}

// TestDeadlineAwareToolBoundsItsQueue: a tool offered 1.2 times what it
// serves grows its queue without bound unless it drops at dequeue the
// calls it can no longer finish inside their (bounded) leases.
func TestDeadlineAwareToolBoundsItsQueue(t *testing.T) {
	sets := []string{"arrivals.rate=120/s", "horizon=60s", "warmup=5s", "tools.backend.outages=[]"}
	aware := summarize(t, load(t, "retry-storm", append(sets, "tools.backend.deadline_aware=true")...), 1)
	if w := warningWith(aware, "tool backend"); !strings.Contains(w, "deadline-aware") || !strings.Contains(w, "% of its calls at dequeue") || strings.Contains(w, "no steady state") {
		t.Errorf("deadline-aware backend at utilisation 1.2: warning %q", w)
	}
	naive := summarize(t, load(t, "retry-storm", sets...), 1)
	if w := warningWith(naive, "tool backend"); !strings.Contains(w, "no steady state") {
		t.Errorf("backend at utilisation 1.2 that serves abandoned calls: warning %q", w)
	}
}

// TestInfiniteVarianceWarns: a Pareto latency with α ≤ 2 has infinite
// variance, and an empirical latency drawn from one looks like it; the
// warning names the tool and the figures it undermines. A lognormal
// latency raises none.
func TestInfiniteVarianceWarns(t *testing.T) {
	p := summarize(t, load(t, "mm1", "runs=3000", "warmup=100", "arrivals.rate=1/s", "tools.server.latency={dist: pareto, min: 100ms, alpha: 1.5}"), 1)
	w := warningWith(p, "infinite variance")
	for _, want := range []string{"tool server", "α = 1.5", "mean time in system", "confidence intervals"} {
		if !strings.Contains(w, want) {
			t.Errorf("pareto α = 1.5: warning %q lacks %q", w, want)
		}
	}
	m := summarize(t, load(t, "mm1", "runs=3000", "warmup=100", "arrivals.rate=1/s", "tools.server.latency={dist: pareto, min: 100ms, alpha: 0.9}"), 1)
	if w := warningWith(m, "infinite mean"); !strings.Contains(w, "α = 0.9") {
		t.Errorf("pareto α = 0.9: want an infinite-mean warning, got %q", m.Warnings)
	}
	r := rand.New(rand.NewPCG(3, 4))
	xs := make([]string, 2000)
	for i := range xs {
		xs[i] = fmt.Sprintf("%.6fs", 0.1*math.Pow(1-r.Float64(), -1/1.5))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "latency.txt"), []byte(strings.Join(xs, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	scenario := filepath.Join(dir, "replay.yaml")
	text := "name: replay\nruns: 3000\nwarmup: 100\narrivals: {rate: 1/s}\nworkers: 1\nsteps: [{name: serve, tool: server}]\ntools:\n  server:\n    latency: {dist: empirical, file: latency.txt}\n"
	if err := os.WriteFile(scenario, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	e := summarize(t, load(t, scenario), 1)
	if w := warningWith(e, "infinite variance"); !strings.Contains(w, "Hill's estimate") {
		t.Errorf("empirical Pareto samples: want a Hill-estimate warning, got %q", e.Warnings)
	}
	l := summarize(t, load(t, "mm1", "runs=3000", "warmup=100"), 1)
	if w := warningWith(l, "infinite"); w != "" {
		t.Errorf("exponential latency: %q", w)
	}
}

// TestBatchLargerThanWorkersWarns: 150 runs arriving at once on 100
// workers queue 50 from the start.
func TestBatchLargerThanWorkersWarns(t *testing.T) {
	s := summarize(t, load(t, "aws-jitter", "arrivals.count=150"), 1)
	if w := warningWith(s, "a batch of 150 arrivals at once with 100 workers: 50 runs queue"); w == "" {
		t.Errorf("no batch warning: %q", s.Warnings)
	}
	if w := warningWith(summarize(t, load(t, "aws-jitter"), 1), "a batch of"); w != "" {
		t.Errorf("a batch that fits its workers: %q", w)
	}
}

// TestPooledFiguresHavePerReplicationMeans: with replications, the
// largest completion time is pooled as the maximum over replications and
// the attempts as their sum; the per-replication means sit beside them,
// with intervals, and agree with them (a mean of maxima is at most their
// maximum; a mean of counts is their sum over n).
func TestPooledFiguresHavePerReplicationMeans(t *testing.T) {
	s := summarize(t, load(t, "aws-jitter"), 6)
	p := s.Confidence.PerReplication
	if p.LatencyMax.Mean > s.Latency.Max || p.LatencyMax.Mean <= 0 || !(p.LatencyMax.Lo <= p.LatencyMax.Mean && p.LatencyMax.Mean <= p.LatencyMax.Hi) {
		t.Errorf("makespan per replication %+v, pooled max %v", p.LatencyMax, s.Latency.Max)
	}
	if math.Abs(p.Attempts.Mean*6-float64(s.Attempts.Attempts)) > 1e-6 || p.Attempts.Hi <= p.Attempts.Lo {
		t.Errorf("attempts per replication %+v, pooled sum %d", p.Attempts, s.Attempts.Attempts)
	}
	if p.PeakAttemptRate.Mean > s.Attempts.PeakRate || p.PeakInSystem.Mean > float64(s.Little.PeakInSystem) {
		t.Errorf("peaks per replication %+v %+v above the pooled maxima %v %v", p.PeakAttemptRate, p.PeakInSystem, s.Attempts.PeakRate, s.Little.PeakInSystem)
	}
}

// TestIdleDisciplineWarns: a priority queue whose classes share one
// priority, or a fair queue whose classes share one tenant, orders nothing,
// and a warning says so; with two priorities and two tenants, none does.
func TestIdleDisciplineWarns(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want string
	}{
		{[]string{"scheduling.workers=priority", "classes=[{name: a}, {name: b}]"}, "scheduling.workers is priority, but every run has the same priority"},
		{[]string{"scheduling.workers=fair", "classes=[{name: a, tenant: x}, {name: b, tenant: x}]"}, "scheduling.workers is fair, but every run belongs to one tenant"},
		{[]string{"tools.server.concurrency=4", "tools.server.queue={discipline: fair}"}, "tools.server.queue.discipline is fair, but every run belongs to one tenant"},
		{[]string{"scheduling.workers=priority", "classes=[{name: a, priority: 1}, {name: b}]"}, ""},
		{[]string{"scheduling.workers=fair", "classes=[{name: a}, {name: b}]"}, ""},
	} {
		s := summarize(t, load(t, "mmc", append([]string{"runs=2000", "warmup=100"}, tc.sets...)...), 1)
		got := warningWith(s, "first come, first served")
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%v: warning %q, want %q", tc.sets, got, tc.want)
		}
	}
}
