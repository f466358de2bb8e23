#!/usr/bin/env bash
# Regenerates results/: the outputs (summary JSON/CSV, CDF and time series,
# traces and charts) of every bundled scenario, plus the comparisons and the
# sweep the README discusses. Deterministic: same code, same bytes. CI runs it
# and fails if anything under results/ changed.
#
#   bash results/regenerate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
# Outputs record the build that wrote them (internal/buildinfo). These files
# cannot name the commit that holds them (its hash depends on them), so they
# record "in-tree": the code of the same commit. See docs/provenance.md.
export BUDGETSIM_VERSION=in-tree
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/simulate" ./cmd/simulate
go build -o "$bin/plot" ./cmd/plot
sim="$bin/simulate"
plot() { "$bin/plot" --format png "$@" >/dev/null; }

rm -rf results/scenarios results/compare results/sweep results/plan
mkdir -p results/scenarios results/compare results/sweep results/plan

for s in $("$sim" list --names); do
	out="results/scenarios/$s"
	mkdir -p "$out"
	"$sim" run "$s" --out "$out" --trace "$out/trace.jsonl" --trace-runs 200 --format json >/dev/null
	plot "$out"
	plot --trace "$out/trace.jsonl" --out "$out"
	echo "results: $s"
done

compare() {
	name=$1; shift
	"$sim" compare "$@" --out "results/compare/$name" >"results/compare/$name.txt"
	plot "results/compare/$name"
	echo "results: compare $name"
}
mkdir -p results/compare
compare aws-jitter aws-jitter --vary retry.backoff.jitter=none,full,equal,decorrelated --replications 20
compare tool-bottleneck-workers tool-bottleneck --vary workers=20,40,80
compare tool-bottleneck-fixes tool-bottleneck --vary tools.search.rate_limit.rate=2/s,4/s,6/s
compare retry-storm retry-storm --vary tools.backend.deadline_aware=false,true --vary retry.attempts=1,3
compare retry-storm-load retry-storm --vary arrivals.rate=20/s,30/s,40/s,60/s,90/s
compare noisy-neighbour noisy-neighbour --vary scheduling.workers=fifo,fair
compare model-api-tiers model-api --vary tools.llm.rate_limit.tpm=100000,150000,300000
compare agent-product-tiers agent-product --set workers=14 --vary 'tools.llm.rate_limit=tier1={rpm: 500, tpm: 30000},tier2={rpm: 5000, tpm: 450000},tier3={rpm: 5000, tpm: 800000},tier4={rpm: 10000, tpm: 2000000}'
compare circuit-breaker circuit-breaker --vary tools.llm.circuit_breaker.enabled=no-breaker=false,breaker=true --replications 10
compare two-classes-workers two-classes --vary workers=9,10,12 --replications 4
compare adaptive-concurrency adaptive-concurrency --variants plan/compare/testdata/adaptive-variants.yaml --replications 5
compare fan-out fan-out --vary 'steps.fetch.wait=all=all,first4={first: 4},first3={first: 3},any=any' --replications 10
compare hedging hedging --vary 'steps.answer.hedge=off={delay: 0s, max_attempts: 1},p50={delay: 400ms},p95={delay: p95}' --replications 10

# plan exits 1 when no value in the range meets the objectives: its table
# and files are the result then too.
plan() {
	name=$1; shift
	rc=0
	"$sim" plan "$@" --out "results/plan/$name" >"results/plan/$name.txt" 2>"$bin/plan.err" || rc=$?
	if [ "$rc" -ne 0 ] && ! grep -q "meets every objective" "$bin/plan.err"; then
		cat "$bin/plan.err" >&2
		exit "$rc"
	fi
	plot "results/plan/$name"
	echo "results: plan $name"
}
for tier in tier1:500:30000 tier2:5000:450000 tier3:5000:800000 tier4:10000:2000000; do
	IFS=: read -r t rpm tpm <<<"$tier"
	plan "agent-product-$t" agent-product --slo 'chat: p99<=10s' --slo 'research: success>=0.99' --search workers=4..64 \
		--set tools.llm.rate_limit.rpm="$rpm" --set tools.llm.rate_limit.tpm="$tpm"
done

"$sim" sweep mmc --vary workers=10..16:7 --replications 8 --runs 100000 --out results/sweep/mmc-workers >results/sweep/mmc-workers.txt 2>/dev/null
plot results/sweep/mmc-workers
echo "results: sweep mmc-workers"
