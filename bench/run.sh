#!/usr/bin/env bash
# bench/run.sh: budgetsim's performance comparison (see bench/README.md).
#
# Measures, on this machine, in one script run:
#   1. `simulate run mmc` (M/M/c, λ = 9/s, μ = 1/s, c = 10, N customers, no
#      warm-up) against the same system in SimPy 3 (and Ciw when importable):
#      wall time of whole processes, start-up and output included;
#   2. the Go benchmarks (engine, system model, seed plan under load);
#   3. the seed plan with retries, deadlines and a 429-answering tool, one
#      core, whole process;
#   4. peak RSS of 1 M and 10 M runs (memory must not grow with runs);
#   5. replications and sweep points on GOMAXPROCS=1 vs 2: wall-time ratio
#      and byte-identical output (cmp).
# and prints a Markdown table to paste into the README.
#
# Environment knobs (defaults reproduce the README's table, ~2 minutes):
#   BENCH_CUSTOMERS  customers in the M/M/c comparison (1000000)
#   BENCH_REPEAT     repetitions of each budgetsim process; the median wall
#                    time is reported (5; in the SimPy comparison, this many
#                    before each SimPy run)
#   BENCH_SIMPY_REPEAT  SimPy runs (3; about 8 s each)
#   BENCH_OUT        directory for raw outputs (a fresh mktemp -d)
#   BENCH_NO_APT=1   never call apt-get (skip what is missing instead)
set -euo pipefail

cd "$(dirname "$0")/.."

load0=$(cut -d' ' -f1-3 /proc/loadavg)
# CPU seconds spent by everything on the machine (user, nice, system, irq,
# softirq), to tell at the end how much of it was not ours (contention).
cpu_busy() { awk '/^cpu / { printf "%.2f", ($2 + $3 + $4 + $7 + $8) / 100 }' /proc/stat; }
busy0=$(cpu_busy) t_start=$(date +%s%N)
N=${BENCH_CUSTOMERS:-1000000}
REPEAT=${BENCH_REPEAT:-5}
SIMPY_REPEAT=${BENCH_SIMPY_REPEAT:-3}
OUT=${BENCH_OUT:-$(mktemp -d /tmp/budgetsim-bench.XXXXXX)}
mkdir -p "$OUT"
PY=/usr/bin/python3 # Debian's interpreter: python3-simpy3 installs for it, not for pyenv's
SIM="$OUT/simulate"

say() { printf '==> %s\n' "$*" >&2; }

# --- prerequisites -----------------------------------------------------------

apt_updated=0
apt_install() { # apt_install PKG: best effort, returns non-zero when impossible
	[[ ${BENCH_NO_APT:-0} == 1 ]] && return 1
	command -v apt-get >/dev/null 2>&1 || return 1
	local sudo=()
	if [[ $(id -u) != 0 ]]; then
		command -v sudo >/dev/null 2>&1 || return 1
		sudo=(sudo -n)
	fi
	if [[ $apt_updated == 0 ]]; then
		say "apt-get update"
		"${sudo[@]}" apt-get update -qq >"$OUT/apt.log" 2>&1 || return 1
		apt_updated=1
	fi
	say "apt-get install $1"
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "$1" >>"$OUT/apt.log" 2>&1
}

if [[ ! -x /usr/bin/time ]]; then
	apt_install time || say "GNU time unavailable: peak RSS will read n/a"
fi
have_simpy=0
if [[ -x $PY ]]; then
	if "$PY" -c 'import simpy' 2>/dev/null || { apt_install python3-simpy3 && "$PY" -c 'import simpy' 2>/dev/null; }; then
		have_simpy=1
	else
		say "SimPy unavailable (apt-get install python3-simpy3 failed or apt missing): skipping SimPy"
	fi
else
	say "$PY not found: skipping SimPy and Ciw"
fi

say "go build -o $SIM ./cmd/simulate"
go build -o "$SIM" ./cmd/simulate

# --- helpers -------------------------------------------------------------------

# now_ns: the wall clock in nanoseconds. Bash 5's $EPOCHREALTIME reads it
# without starting a process; `date` costs a fork and an exec (~3.5 ms
# each on this VM, inside the measured interval).
now_ns() {
	if [[ -n ${EPOCHREALTIME:-} ]]; then
		local t=${EPOCHREALTIME/,/.} # the decimal point follows the locale
		NOW_NS=${t%.*}${t#*.}000
	else
		NOW_NS=$(date +%s%N)
	fi
}

# timed OUTFILE CMD...: run CMD with stdout to OUTFILE (stderr to OUTFILE.err);
# sets WALL (seconds): the whole process (fork, exec, start-up, run, output,
# exit) as the calling shell sees it, with no helper process inside the
# interval. Peak RSS is measured apart (peak_rss): GNU time around the
# command would add its own fork and exec, ~6 ms here, to every wall.
timed() {
	local out=$1 t0
	shift
	now_ns
	t0=$NOW_NS
	"$@" >"$out" 2>"$out.err"
	now_ns
	WALL=$(awk -v a="$t0" -v b="$NOW_NS" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
}

# peak_rss CMD...: one more run of CMD, under GNU time; sets RSS to its
# peak resident set (KiB), or n/a without GNU time.
peak_rss() {
	RSS=n/a
	if [[ -x /usr/bin/time ]]; then
		/usr/bin/time -f '%M' -o "$OUT/rss.tmp" "$@" >/dev/null 2>&1 && RSS=$(tail -n 1 "$OUT/rss.tmp")
	fi
}

# median X...: the median (the lower middle one of an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# median_timed NAME COUNT CMD...: COUNT runs of CMD; sets WALL to the median
# wall time, WALLS to all of them, and leaves the last stdout in $OUT/NAME.
median_timed() {
	local name=$1 count=$2 i walls=()
	shift 2
	for ((i = 0; i < count; i++)); do
		timed "$OUT/$name" "$@"
		walls+=("$WALL")
	done
	WALL=$(median "${walls[@]}")
	WALLS="${walls[*]}"
}

# json FILE EXPR: a value from a budgetsim JSON summary (EXPR indexes the
# decoded object d, e.g. 'd["latency_s"]["mean"]').
json() { "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# kv FILE KEY: the value of a "key value" line printed by simpy_mmc.py/ciw_mmc.py.
kv() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# bench_metric FILE BENCH UNIT: the value before UNIT on BENCH's result line.
bench_metric() {
	awk -v b="$2" -v u="$3" '$1 ~ "^"b"(-[0-9]+)?$" { for (i = 2; i <= NF; i++) if ($i == u) v = $(i - 1) } END { print (v == "" ? "n/a" : v) }' "$1"
}
div() { awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN { if (a == "" || b == "" || a == "n/a" || b == "n/a" || b == 0) print "n/a"; else printf f, a / b }'; }
mega() { awk -v x="$1" 'BEGIN { if (x == "" || x == "n/a") print "n/a"; else printf "%.2f M", x / 1e6 }'; }
mib() { awk -v k="$1" 'BEGIN { if (k == "n/a" || k == "") print "n/a"; else printf "%.1f MiB", k / 1024 }'; }
# steady X...: empty when the largest of X is within 20 % of the smallest,
# else a warning naming the range (this VM has slow spells of seconds).
steady() {
	printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (lo > 0 && hi / lo > 1.2) printf " (**unsteady**: walls %s–%s s within the row; a slow spell of the VM: rerun before quoting)", lo, hi }'
}
verdict() { # verdict OK?: "met" or "**not met**"
	if [[ $1 == 1 ]]; then echo met; else echo '**not met**'; fi
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "n/a" && a + 0 >= b + 0) }' && echo 1 || echo 0; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "n/a" && a + 0 <= b + 0) }' && echo 1 || echo 0; }

# --- 1. M/M/c: budgetsim vs SimPy (and Ciw) ----------------------------------------

# This VM's speed drifts from minute to minute (other tenants; the
# hypervisor reports no steal time), so the two sides are interleaved: each
# SimPy run is preceded by REPEAT budgetsim runs, and each side's median is
# taken over all of its runs. A slow spell then hits both alike.
have_simpy_rounds=$SIMPY_REPEAT
[[ $have_simpy == 1 ]] || have_simpy_rounds=1
say "simulate run mmc --runs $N --set warmup=0 --format json ($REPEAT runs) before each of $have_simpy_rounds SimPy runs: $PY bench/simpy_mmc.py --customers $N"
bs_list=() sp_list=()
for ((round = 0; round < have_simpy_rounds; round++)); do
	median_timed mmc "$REPEAT" "$SIM" run mmc --runs "$N" --set warmup=0 --format json
	bs_list+=($WALLS)
	if [[ $have_simpy == 1 ]]; then
		timed "$OUT/simpy" "$PY" bench/simpy_mmc.py --customers "$N"
		sp_list+=("$WALL")
	fi
done
peak_rss "$SIM" run mmc --runs "$N" --set warmup=0 --format json
bs_rss=$RSS
bs_wall=$(median "${bs_list[@]}") bs_walls=${bs_list[*]}
bs_events=$(json "$OUT/mmc" 'd["events"]')
bs_sojourn=$(json "$OUT/mmc" '"%.4f" % d["latency_s"]["mean"]')
bs_eps=$(div "$bs_events" "$bs_wall" %.0f)

sp_wall=n/a sp_walls=n/a sp_eps=n/a sp_inner_eps=n/a sp_sojourn=n/a erlang=n/a sp_version=n/a
if [[ $have_simpy == 1 ]]; then
	sp_wall=$(median "${sp_list[@]}") sp_walls=${sp_list[*]}
	sp_events=$(kv "$OUT/simpy" events)
	sp_eps=$(div "$sp_events" "$sp_wall" %.0f)
	sp_inner_eps=$(kv "$OUT/simpy" events_per_s)
	sp_sojourn=$(kv "$OUT/simpy" mean_sojourn_s)
	erlang=$(kv "$OUT/simpy" erlang_c_sojourn_s)
	sp_version=$(kv "$OUT/simpy" simpy_version)
	sp_rss=$(kv "$OUT/simpy" peak_rss_kib) # its own getrusage: no second 7 s run
else
	sp_rss=n/a
fi
ratio=$(div "$sp_wall" "$bs_wall" %.1f)

ciw_row="| Ciw, same system | — | skipped: \`python3 -c 'import ciw'\` fails (Ciw is not packaged by Debian; \`pip install ciw\` to include it) | — |"
ciw_py=""
for p in python3 "$PY"; do
	if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import ciw' 2>/dev/null; then
		ciw_py=$p
		break
	fi
done
if [[ -n $ciw_py ]]; then
	say "Ciw: $ciw_py bench/ciw_mmc.py --customers $N"
	timed "$OUT/ciw" "$ciw_py" bench/ciw_mmc.py --customers "$N"
	ciw_eps=$(div "$(kv "$OUT/ciw" events)" "$WALL" %.0f)
	ciw_row="| Ciw $(kv "$OUT/ciw" ciw_version), same system, whole process | — | ${WALL} s, $(mega "$ciw_eps") events/s, mean sojourn $(kv "$OUT/ciw" mean_sojourn_s) s; budgetsim $(div "$WALL" "$bs_wall" %.1f)× faster | — |"
else
	say "Ciw not importable (python3 -c 'import ciw' fails): skipping Ciw"
fi

# --- 2. Go benchmarks -------------------------------------------------------------

say "go test -run XXX -bench 'BenchmarkEngineMMc|BenchmarkMMc|BenchmarkSeedPlanLoad' -benchmem ./sim/ ./model/system/"
go test -run XXX -bench 'BenchmarkEngineMMc|BenchmarkMMc|BenchmarkSeedPlanLoad' -benchmem ./sim/ ./model/system/ >"$OUT/gobench.txt" 2>&1 ||
	{ cat "$OUT/gobench.txt" >&2; say "go test failed: its rows read n/a"; }
say "go test -run XXX -bench BenchmarkSeedPlanLoad -benchmem -cpu 1 ./model/system/"
go test -run XXX -bench BenchmarkSeedPlanLoad -benchmem -cpu 1 ./model/system/ >"$OUT/gobench-cpu1.txt" 2>&1 ||
	{ cat "$OUT/gobench-cpu1.txt" >&2; say "go test -cpu 1 failed: its row reads n/a"; }
eng_eps=$(bench_metric "$OUT/gobench.txt" BenchmarkEngineMMc events/s)
eng_allocs=$(bench_metric "$OUT/gobench.txt" BenchmarkEngineMMc allocs/op)
sys_eps=$(bench_metric "$OUT/gobench.txt" BenchmarkMMc events/s)
sys_nsev=$(bench_metric "$OUT/gobench.txt" BenchmarkMMc ns/event)
sys_allocs=$(bench_metric "$OUT/gobench.txt" BenchmarkMMc allocs/op)
sp2_aps=$(bench_metric "$OUT/gobench.txt" BenchmarkSeedPlanLoad attempts/s)
sp1_aps=$(bench_metric "$OUT/gobench-cpu1.txt" BenchmarkSeedPlanLoad attempts/s)
sp1_allocs=$(bench_metric "$OUT/gobench-cpu1.txt" BenchmarkSeedPlanLoad allocs/op)

# --- 3. seed plan with retries, deadlines and a 429-answering tool, one core ----------

# BenchmarkSeedPlanLoad's load, plus a search tool that answers 429 to 10 %
# of attempts with a 20 ms Retry-After (honoured, and checked against the
# deadline), on GOMAXPROCS=1, whole process.
seed_sets=(--set 'arrivals={rate: 50/s}' --set runs=1000000 --set workers=100
	--set 'tools.fetch.script=[]' --set tools.fetch.hang=0.05 --set 'tools.fetch.errors={transient: 0.1}'
	--set 'tools.search.rate_limit={rate: 45/s, burst: 10, enforce: server}')
say "GOMAXPROCS=1 simulate run seed-plan ${seed_sets[*]} --format json (median of $REPEAT)"
median_timed seedplan "$REPEAT" env GOMAXPROCS=1 "$SIM" run seed-plan "${seed_sets[@]}" --format json
seed_wall=$WALL
seed_attempts=$(json "$OUT/seedplan" 'd["attempts"]["attempts"]')
seed_429=$(json "$OUT/seedplan" 'd["attempts"]["rate_limited"]')
seed_retries=$(json "$OUT/seedplan" 'd["attempts"]["retries"]')
seed_aps=$(div "$seed_attempts" "$seed_wall" %.0f)

# --- 4. memory flat in the number of runs -----------------------------------------

say "simulate run mmc --runs 10000000 --set warmup=0 --format json"
timed "$OUT/mmc10m" "$SIM" run mmc --runs 10000000 --set warmup=0 --format json
m10_wall=$WALL
peak_rss "$SIM" run mmc --runs 10000000 --set warmup=0 --format json
m10_rss=$RSS
m10_eps=$(div "$(json "$OUT/mmc10m" 'd["events"]')" "$m10_wall" %.0f)

# --- 5. replications and sweep points across cores ------------------------------

# Each workload runs three ways, alternating so that a drift in the
# machine's speed (other tenants, frequency) hits all alike; medians of
# each: one process on one core (GOMAXPROCS=1), one process on two
# (GOMAXPROCS=2), and two independent one-core processes of half the work
# each at once. The last shares nothing (no runtime, no heap, no address
# space): it is what this machine's two cores give that workload, the
# ceiling for the in-process ratio. (Two vCPUs that share a physical core's
# caches, or a busy neighbour, put it below 2.) The two in-process outputs
# must be byte-identical.
#
# scaling NAME CMD1 -- CMD2 -- HALF_A -- HALF_B: CMD1 is run under
# GOMAXPROCS=1 and =2 (stdout compared; with a trailing --out DIR, DIR1 and
# DIR2 are substituted for DIR and sweep.json/sweep.csv compared too), and
# HALF_A and HALF_B at once under GOMAXPROCS=1. Sets NAME_1, NAME_2, NAME_P
# (median walls), NAME_speedup, NAME_ceiling, NAME_identical, NAME_walls.
scaling() {
	local name=$1 i g l1=() l2=() lp=() same=yes
	shift
	local cmd=() half_a=() half_b=()
	while [[ $1 != -- ]]; do cmd+=("$1"); shift; done
	shift
	while [[ $1 != -- ]]; do half_a+=("$1"); shift; done
	shift
	half_b=("$@")
	local dirs=0
	[[ ${cmd[*]} == *' --out '* ]] && dirs=1
	for ((i = 0; i < REPEAT; i++)); do
		for g in 1 2; do
			local c=("${cmd[@]}")
			if [[ $dirs == 1 ]]; then
				rm -rf "$OUT/$name-dir$g"
				c=("${c[@]/#@OUT@/$OUT/$name-dir$g}")
			fi
			timed "$OUT/$name$g" env GOMAXPROCS=$g "$SIM" "${c[@]}"
			if [[ $g == 1 ]]; then l1+=("$WALL"); else l2+=("$WALL"); fi
		done
		cmp -s "$OUT/${name}1" "$OUT/${name}2" || same=no
		if [[ $dirs == 1 ]]; then
			cmp -s "$OUT/$name-dir1/sweep.json" "$OUT/$name-dir2/sweep.json" || same=no
			cmp -s "$OUT/$name-dir1/sweep.csv" "$OUT/$name-dir2/sweep.csv" || same=no
		fi
		rm -rf "$OUT/$name-dirp"
		timed "$OUT/${name}p" bash -c 'a=("${@:3:$1}") b=("${@:$(($1 + 3))}")
			GOMAXPROCS=1 "$2" "${a[@]}" >/dev/null &
			GOMAXPROCS=1 "$2" "${b[@]}" >/dev/null &
			wait' _ "${#half_a[@]}" "$SIM" "${half_a[@]//@OUT@/$OUT/$name-dirp/a}" "${half_b[@]//@OUT@/$OUT/$name-dirp/b}"
		lp+=("$WALL")
	done
	printf -v "${name}_1" %s "$(median "${l1[@]}")"
	printf -v "${name}_2" %s "$(median "${l2[@]}")"
	printf -v "${name}_p" %s "$(median "${lp[@]}")"
	printf -v "${name}_identical" %s "$same"
	printf -v "${name}_walls" %s "one core: ${l1[*]}; two: ${l2[*]}; two processes: ${lp[*]}"
	printf -v "${name}_steady" %s "$(steady "${l1[@]}")$(steady "${l2[@]}")"
	local one two par
	one=$(median "${l1[@]}") two=$(median "${l2[@]}") par=$(median "${lp[@]}")
	printf -v "${name}_speedup" %s "$(div "$one" "$two")"
	printf -v "${name}_ceiling" %s "$(div "$one" "$par")"
}

# The issue's system (M/M/c, N customers, no warm-up), 8 replications.
say "simulate run mmc --runs $N --set warmup=0 --replications 8 --format json: GOMAXPROCS=1, GOMAXPROCS=2, and 2 one-core processes of 4 at once, alternating ($REPEAT rounds)"
scaling reps run mmc --runs "$N" --set warmup=0 --replications 8 --format json \
	-- run mmc --runs "$N" --set warmup=0 --replications 4 --format json \
	-- run mmc --runs "$N" --set warmup=0 --replications 4 --format json
# A sweep of 8 points of the same system, one replication each (workers
# 10..17); the two halves are the points 10..13 and 14..17.
say "simulate sweep mmc --vary workers=10..17:8 --runs $N --set warmup=0: the same three ways ($REPEAT rounds)"
scaling sweep sweep mmc --vary workers=10..17:8 --runs "$N" --set warmup=0 --out @OUT@ \
	-- sweep mmc --vary workers=10..13:4 --runs "$N" --set warmup=0 --out @OUT@ \
	-- sweep mmc --vary workers=14..17:4 --runs "$N" --set warmup=0 --out @OUT@
# Many small points, as plan's probes and exploratory sweeps run them: 200
# points of 20 000 runs (workers 10..209; halves 10..109 and 110..209).
say "simulate sweep mmc --vary workers=10..209:200 --runs 20000 --set warmup=1000: the same three ways ($REPEAT rounds)"
scaling small sweep mmc --vary workers=10..209:200 --runs 20000 --set warmup=1000 --format json --out @OUT@ \
	-- sweep mmc --vary workers=10..109:100 --runs 20000 --set warmup=1000 --format json --out @OUT@ \
	-- sweep mmc --vary workers=110..209:100 --runs 20000 --set warmup=1000 --format json --out @OUT@
# Short replications, where the serial start-up weighs: mmc as bundled
# (200 k runs, 10 k of them warm-up), 8 replications.
say "simulate run mmc --replications 8 --format json (8 × 200 k runs): the same three ways ($REPEAT rounds)"
scaling short run mmc --replications 8 --format json \
	-- run mmc --replications 4 --format json \
	-- run mmc --replications 4 --format json

# --- table ------------------------------------------------------------------------

# Contention: CPU time used by other processes while this script ran, as a
# share of the machine's capacity over the same wall time.
times >"$OUT/times" # in this shell (a subshell would report its own, empty, children): self, then children
ours=$(awk 'NR <= 2 { for (i = 1; i <= 2; i++) { split($i, p, "m"); s += p[1] * 60 + p[2] } } END { printf "%.2f", s }' "$OUT/times")
others=$(awk -v b0="$busy0" -v b1="$(cpu_busy)" -v o="$ours" -v t0="$t_start" -v t1="$(date +%s%N)" -v n="$(nproc)" \
	'BEGIN { x = (b1 - b0 - o) / ((t1 - t0) / 1e9 * n) * 100; if (x < 0) x = 0; printf "%.0f", x }')
contention="Other processes used ${others} % of the machine's CPU while it ran."
if ((others >= 10)); then
	contention="$contention **The figures are contended: rerun on an idle machine before quoting them.**"
fi

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
gocpu=$(awk -F': ' '/^cpu:/ { sub(/[ \t]+$/, "", $2); print $2; exit }' "$OUT/gobench.txt")
[[ -n $gocpu && $gocpu != "$cpu" ]] && cpu="$cpu ($gocpu)"
load=$(cut -d' ' -f1-3 /proc/loadavg)

cat <<EOF

### Performance ($(date -u +%Y-%m-%d), $(nproc) cores, ${cpu}, $(go version | awk '{ print $3 }'))

M/M/c, λ = 9/s, μ = 1/s, c = 10, $N customers, no warm-up. Wall times are whole
processes (fork, exec, start-up, output and exit included), timed by the calling shell with no helper process in the interval (peak RSS from a separate run), interleaved
($REPEAT budgetsim runs before each SimPy run): medians of ${#bs_list[@]} runs for budgetsim, ${#sp_list[@]} for SimPy. Events are counted as 2 per customer (arrival +
departure) for every simulator. Load average (1, 5, 15 min) at the start: $load0; at the end: $load.
$contention

| What | Target | Measured | |
| --- | --- | --- | --- |
| \`simulate run mmc --runs $N --set warmup=0 --format json\` | — | ${bs_wall} s, $(mega "$bs_eps") events/s, peak RSS $(mib "$bs_rss"), mean sojourn ${bs_sojourn} s | |
| SimPy ${sp_version} (Debian python3-simpy3, /usr/bin/python3), same system | — | ${sp_wall} s, $(mega "$sp_eps") events/s ($(mega "$sp_inner_eps") inside env.run()), peak RSS $(mib "$sp_rss"), mean sojourn ${sp_sojourn} s | |
| budgetsim vs SimPy, whole process | ≥ 50× | ${ratio}×$(steady "${bs_list[@]}")$(steady "${sp_list[@]}") | $(verdict "$(ge "$ratio" 50)") |
${ciw_row}
| Mean sojourn, Erlang C closed form | — | ${erlang} s | |
| Engine alone, \`BenchmarkEngineMMc\` | ≥ 10 M events/s | $(mega "$eng_eps") events/s, ${eng_allocs} allocs per 200 k events | $(verdict "$(ge "$eng_eps" 10000000)") |
| System model, \`BenchmarkMMc\` (1 M runs per op) | — | $(mega "$sys_eps") events/s (${sys_nsev} ns/event), ${sys_allocs} allocs per simulation | |
| Seed plan under load, \`BenchmarkSeedPlanLoad\`, \`-cpu 1\` | ≥ 1 M attempts/s | $(mega "$sp1_aps") attempts/s ($(mega "$sp2_aps") with GOMAXPROCS=2), ${sp1_allocs} allocs per simulation | $(verdict "$(ge "$sp1_aps" 1000000)") |
| Seed plan, search rate-limited to 45/s (server: 429 + Retry-After), GOMAXPROCS=1, whole process, 1 M runs | ≥ 1 M attempts/s | ${seed_wall} s for ${seed_attempts} attempts (${seed_retries} retries, ${seed_429} answered 429): $(mega "$seed_aps") attempts/s | $(verdict "$(ge "$seed_aps" 1000000)") |
| Peak RSS, 10 M runs of M/M/c | ≤ 64 MiB | $(mib "$m10_rss") (1 M runs: $(mib "$bs_rss")); ${m10_wall} s, $(mega "$m10_eps") events/s | $(verdict "$(le "$m10_rss" 65536)") |
| \`run mmc --runs $N --set warmup=0 --replications 8\`, GOMAXPROCS=2 vs 1 | ≥ 1.8× | ${reps_1} s → ${reps_2} s: ${reps_speedup}×${reps_steady} | $(verdict "$(ge "$reps_speedup" 1.8)") |
| \`sweep mmc --vary workers=10..17:8 --runs $N --set warmup=0\`, GOMAXPROCS=2 vs 1 | ≥ 1.8× | ${sweep_1} s → ${sweep_2} s: ${sweep_speedup}×${sweep_steady} | $(verdict "$(ge "$sweep_speedup" 1.8)") |
| Same two, output byte-identical (cmp of stdout, sweep.json, sweep.csv) | identical | replications: ${reps_identical}; sweep: ${sweep_identical} | $(verdict "$([[ $reps_identical == yes && $sweep_identical == yes ]] && echo 1 || echo 0)") |
| The machine's ceiling: the same work as two independent one-core processes of half of it, at once | — | replications: ${reps_1} s → ${reps_p} s: ${reps_ceiling}×; sweep: ${sweep_1} s → ${sweep_p} s: ${sweep_ceiling}× | |
| Many small points: \`sweep mmc --vary workers=10..209:200 --runs 20000 --set warmup=1000\`, GOMAXPROCS=2 vs 1; ceiling as above | — | ${small_1} s → ${small_2} s: ${small_speedup}× (ceiling ${small_ceiling}×; identical: ${small_identical})${small_steady} | |
| Short replications: \`run mmc --replications 8\` (8 × 200 k runs as bundled), GOMAXPROCS=2 vs 1; ceiling as above | — | ${short_1} s → ${short_2} s: ${short_speedup}× (ceiling ${short_ceiling}×; identical: ${short_identical})${short_steady} | |
EOF

say "raw outputs in $OUT (budgetsim walls: $bs_walls; SimPy: $sp_walls; replications: $reps_walls; sweep: $sweep_walls; small points: $small_walls; short replications: $short_walls)"
