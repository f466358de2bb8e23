package system_test

import (
	"testing"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

func benchScenario(b *testing.B, name string, sets ...string) {
	benchScenarioOpt(b, system.Options{}, name, sets...)
}

func benchScenarioOpt(b *testing.B, opt system.Options, name string, sets ...string) {
	sc, err := scenarios.Load(name, sets)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var events, runs, attempts float64
	for b.Loop() {
		res := system.New(sc.Config, opt).Run()
		events += float64(res.Events)
		runs += float64(res.Runs.Arrived)
		attempts += float64(res.Attempts.Attempts)
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(events/s, "events/s")
	b.ReportMetric(attempts/s, "attempts/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/events, "ns/event")
}

// BenchmarkMMc is the whole system model on M/M/c (λ = 9/s, μ = 1/s,
// c = 10), 1M runs per op: the figure the README quotes.
func BenchmarkMMc(b *testing.B) { benchScenario(b, "mmc", "runs=1000000", "warmup=10000") }

// BenchmarkMMcSpareCore is BenchmarkMMc with the arrivals and first draws
// made ahead on a goroutine of their own (Options.SpareCore), as a single
// replication runs when a core is spare.
func BenchmarkMMcSpareCore(b *testing.B) {
	benchScenarioOpt(b, system.Options{SpareCore: true}, "mmc", "runs=1000000", "warmup=10000")
}

// BenchmarkSmallReplication is one short replication of M/M/c (2100
// runs), the size sweeps and plan's probes run by the thousand: set-up,
// the first allocations and the series' fine early bins weigh here as
// they do not in 1 M runs.
func BenchmarkSmallReplication(b *testing.B) { benchScenario(b, "mmc", "runs=2100", "warmup=100") }

// BenchmarkSeedPlanLoad is the seed's three-step plan with deadlines,
// retries, a hanging fetch and a search tool rate-limited below the
// arrival rate (server-enforced: 429 + Retry-After), under a steady Poisson
// load.
func BenchmarkSeedPlanLoad(b *testing.B) {
	benchScenario(b, "seed-plan", "arrivals={rate: 50/s}", "runs=200000", "workers=100",
		"tools.fetch.script=[]", "tools.fetch.hang=0.05", "tools.fetch.errors={transient: 0.1}",
		"tools.search.rate_limit={rate: 45/s, burst: 10, enforce: server}")
}

// BenchmarkRetryStorm is the metastable-failure scenario: a capacity tool
// at 90 % load, client timeouts with retries and a 10 s stall, so queues,
// cancelled timers and abandoned requests dominate.
func BenchmarkRetryStorm(b *testing.B) { benchScenario(b, "retry-storm") }

// BenchmarkAgentFleet is a closed population (agents thinking between runs)
// over a two-step plan with retries.
func BenchmarkAgentFleet(b *testing.B) { benchScenario(b, "agent-fleet") }
