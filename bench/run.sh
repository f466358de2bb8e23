#!/usr/bin/env bash
# bench/run.sh: how fast budgetsim is, side by side with SimPy and a bare
# event loop (see bench/README.md).
#
# In one run of the script, on this machine:
#   0. checks that each SimPy model computes what budgetsim computes
#      (bench/check_models.py: success rate and mean latency within their
#      confidence intervals), before anything is timed;
#   1. times whole processes, budgetsim and SimPy interleaved: M/M/c
#      (1 M customers), tool-queue (bench/tool-queue.yaml) and retry-storm;
#   2. times M/M/c with 3 M customers against the bare loop
#      (bench/bareloop), interleaved;
#   3. measures peak RSS of 10 M runs;
#   4. times 8 replications on GOMAXPROCS=1 and 2 (and two one-core
#      processes of half the work each: the machine's own ceiling), and
#      checks that their outputs are byte-identical;
#   5. runs the Go benchmarks of whole scenarios for their allocations;
#   6. counts the instructions of M/M/c against the bare loop (callgrind,
#      when valgrind is installed or installable): a figure load cannot blur;
# and prints a Markdown table (the one in bench/README.md).
#
# Environment knobs (the defaults reproduce bench/README.md; minutes of work):
#   BENCH_REPEAT        budgetsim runs per round (5); medians are reported
#   BENCH_SIMPY_REPEAT  rounds, each one SimPy run after the budgetsim runs (3)
#   BENCH_CHECK_REPS    replications per side in the model check (20)
#   BENCH_NO_CHECK=1    skip the model check (its row then says so)
#   BENCH_OUT           directory for raw outputs (a fresh mktemp -d)
#   BENCH_NO_APT=1      never call apt-get (skip what is missing instead)
set -euo pipefail

cd "$(dirname "$0")/.."

load0=$(cut -d' ' -f1-3 /proc/loadavg)
# CPU seconds spent by everything on the machine (user, nice, system, irq,
# softirq), to tell at the end how much of it was not ours (contention).
cpu_busy() { awk '/^cpu / { printf "%.2f", ($2 + $3 + $4 + $7 + $8) / 100 }' /proc/stat; }
busy0=$(cpu_busy) t_start=$(date +%s%N)
REPEAT=${BENCH_REPEAT:-5}
SIMPY_REPEAT=${BENCH_SIMPY_REPEAT:-3}
CHECK_REPS=${BENCH_CHECK_REPS:-20}
OUT=${BENCH_OUT:-$(mktemp -d /tmp/budgetsim-bench.XXXXXX)}
mkdir -p "$OUT"
PY=/usr/bin/python3 # Debian's interpreter: python3-simpy3 installs for it
SIM="$OUT/simulate"
BARE="$OUT/bareloop"

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
	say "$PY not found: skipping SimPy"
fi

say "go build -o $SIM ./cmd/simulate; go build -o $BARE ./bench/bareloop"
go build -o "$SIM" ./cmd/simulate
go build -o "$BARE" ./bench/bareloop

# --- helpers -------------------------------------------------------------------

# now_ns: the wall clock in nanoseconds, read by bash itself
# ($EPOCHREALTIME) so that no process of ours starts inside an interval.
now_ns() {
	if [[ -n ${EPOCHREALTIME:-} ]]; then
		local t=${EPOCHREALTIME/,/.} # the decimal point follows the locale
		NOW_NS=${t%.*}${t#*.}000
	else
		NOW_NS=$(date +%s%N)
	fi
}

# timed OUTFILE CMD...: run CMD with stdout to OUTFILE (stderr to
# OUTFILE.err); sets WALL (seconds): the whole process (fork, exec,
# start-up, run, output, exit) as the calling shell sees it.
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
# peak resident set (KiB), or n/a without GNU time. Apart from the timed
# runs: GNU time's own fork and exec would sit inside their intervals.
peak_rss() {
	RSS=n/a
	if [[ -x /usr/bin/time ]]; then
		/usr/bin/time -f '%M' -o "$OUT/rss.tmp" "$@" >/dev/null 2>&1 && RSS=$(tail -n 1 "$OUT/rss.tmp")
	fi
}

# median X...: the median (the lower middle one of an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# range X...: "lo–hi".
range() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s–%s", lo, hi }'; }

# json FILE EXPR: a value from a budgetsim JSON summary (EXPR indexes the
# decoded object d, e.g. 'd["latency_s"]["mean"]').
json() { "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# kv FILE KEY: the value of a "key value" line of the SimPy scripts and the bare loop.
kv() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# bench_metric FILE BENCH UNIT: the value before UNIT on BENCH's result line.
bench_metric() {
	awk -v b="$2" -v u="$3" '$1 ~ "^"b"(-[0-9]+)?$" { for (i = 2; i <= NF; i++) if ($i == u) v = $(i - 1) } END { print (v == "" ? "n/a" : v) }' "$1"
}
div() { awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN { if (a == "" || b == "" || a == "n/a" || b == "n/a" || b == 0) print "n/a"; else printf f, a / b }'; }
mib() { awk -v k="$1" 'BEGIN { if (k == "n/a" || k == "") print "n/a"; else printf "%.1f MiB", k / 1024 }'; }
# steady X...: empty when the largest of X is within 20 % of the smallest,
# else a warning naming the range (a VM has slow spells of seconds).
steady() {
	printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (lo > 0 && hi / lo > 1.2) printf " (**unsteady**: %s–%s s; rerun before quoting)", lo, hi }'
}
verdict() { # verdict OK?: "met" or "**not met**"
	if [[ $1 == 1 ]]; then echo met; else echo '**not met**'; fi
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "n/a" && a + 0 >= b + 0) }' && echo 1 || echo 0; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "n/a" && a + 0 <= b + 0) }' && echo 1 || echo 0; }

# --- 0. the models agree ------------------------------------------------------------

check_row="skipped (BENCH_NO_CHECK=1)"
check_ok=0
if [[ ${BENCH_NO_CHECK:-0} != 1 && $have_simpy == 1 ]]; then
	say "bench/check_models.py --replications $CHECK_REPS (budgetsim and SimPy, $CHECK_REPS replications each)"
	if "$PY" bench/check_models.py --simulate "$SIM" --replications "$CHECK_REPS" >"$OUT/check.txt" 2>&1; then
		check_ok=1
	fi
	cat "$OUT/check.txt" >&2
	# Lines: NAME FIGURE budgetsim MEAN ± HW SimPy MEAN ± HW difference D, 95% interval ±H: agree
	check_row=$(awk '$3 == "budgetsim" { sub(/,$/, "", $12); sub(/:$/, "", $15)
		printf "%s%s %s %s vs %s (difference %s, interval %s)", (n++ ? "; " : ""), $1, $2, $4, $8, $12, $15 }' "$OUT/check.txt")
	[[ $check_ok == 1 ]] || check_row="$check_row (**a figure differs**: see $OUT/check.txt)"
elif [[ $have_simpy != 1 ]]; then
	check_row="skipped: SimPy unavailable"
fi

# --- 1. budgetsim vs SimPy, whole processes -------------------------------------

# versus NAME SIMPY_SCRIPT_ARGS... -- SIMULATE_ARGS...: SIMPY_REPEAT rounds
# of REPEAT budgetsim runs then one SimPy run, interleaved so that a slow
# spell of the machine hits both sides. Sets NAME_bs and NAME_sp (median
# walls), NAME_ratio, NAME_bs_walls, NAME_sp_walls and NAME_steady, and
# leaves the last outputs in $OUT/NAME.json and $OUT/NAME.simpy.
versus() {
	local name=$1 sp=() bs=() r b_list=() s_list=()
	shift
	while [[ $1 != -- ]]; do sp+=("$1"); shift; done
	shift
	bs=("$@")
	local rounds=$SIMPY_REPEAT
	[[ $have_simpy == 1 ]] || rounds=1
	say "$name: $rounds × ($REPEAT × simulate ${bs[*]}, then $PY ${sp[*]})"
	for ((r = 0; r < rounds; r++)); do
		for ((i = 0; i < REPEAT; i++)); do
			timed "$OUT/$name.json" "$SIM" "${bs[@]}"
			b_list+=("$WALL")
		done
		if [[ $have_simpy == 1 ]]; then
			timed "$OUT/$name.simpy" "$PY" "${sp[@]}"
			s_list+=("$WALL")
		fi
	done
	local bw sw=n/a
	bw=$(median "${b_list[@]}")
	[[ $have_simpy == 1 ]] && sw=$(median "${s_list[@]}")
	printf -v "${name}_bs" %s "$bw"
	printf -v "${name}_sp" %s "$sw"
	printf -v "${name}_ratio" %s "$(div "$sw" "$bw" %.1f)"
	printf -v "${name}_bs_walls" %s "$(range "${b_list[@]}")"
	printf -v "${name}_sp_walls" %s "$( ((${#s_list[@]})) && range "${s_list[@]}" || echo n/a)"
	printf -v "${name}_steady" %s "$(steady "${b_list[@]}")$( ((${#s_list[@]})) && steady "${s_list[@]}")"
}

versus mmc bench/simpy_mmc.py --customers 1000000 -- run mmc --runs 1000000 --set warmup=0 --format json
versus tq bench/simpy_calls.py tool-queue -- run bench/tool-queue.yaml --format json
versus rs bench/simpy_calls.py retry-storm -- run retry-storm --format json
versus rs4 bench/simpy_calls.py retry-storm --horizon 960 -- run retry-storm --set horizon=960s --format json

sp_version=n/a
[[ $have_simpy == 1 ]] && sp_version=$(kv "$OUT/mmc.simpy" simpy_version)
mmc_soj=$(json "$OUT/mmc.json" '"%.4f" % d["latency_s"]["mean"]')
mmc_sp_soj=n/a erlang=n/a
if [[ $have_simpy == 1 ]]; then
	mmc_sp_soj=$(kv "$OUT/mmc.simpy" mean_sojourn_s)
	erlang=$(kv "$OUT/mmc.simpy" erlang_c_sojourn_s)
fi
tq_events=$(json "$OUT/tq.json" 'd["events"]')
rs_events=$(json "$OUT/rs.json" 'd["events"]')
rs4_events=$(json "$OUT/rs4.json" 'd["events"]')

# --- 2. M/M/c, 3 M customers: budgetsim vs the bare loop ----------------------------

say "M/M/c 3 M customers: $REPEAT × (bareloop, simulate run mmc --runs 3000000 --set warmup=0 --format json)"
bare_list=() big_list=()
for ((i = 0; i < REPEAT; i++)); do
	timed "$OUT/bare" "$BARE" -customers 3000000
	bare_list+=("$WALL")
	timed "$OUT/mmc3m.json" "$SIM" run mmc --runs 3000000 --set warmup=0 --format json
	big_list+=("$WALL")
done
bare_wall=$(median "${bare_list[@]}") big_wall=$(median "${big_list[@]}")
bare_ratio=$(div "$big_wall" "$bare_wall" %.2f)
bare_soj=$(kv "$OUT/bare" mean_sojourn_s)
big_soj=$(json "$OUT/mmc3m.json" '"%.4f" % d["latency_s"]["mean"]')

# --- 3. memory flat in the number of runs -----------------------------------------

say "peak RSS: simulate run mmc --runs 1000000 and 10000000 --set warmup=0"
peak_rss "$SIM" run mmc --runs 1000000 --set warmup=0 --format json
rss1=$RSS
timed "$OUT/mmc10m.json" "$SIM" run mmc --runs 10000000 --set warmup=0 --format json
m10_wall=$WALL
peak_rss "$SIM" run mmc --runs 10000000 --set warmup=0 --format json
rss10=$RSS

# --- 4. replications across cores ----------------------------------------------------

# Three ways, alternating so that a drift of the machine's speed hits all
# alike: one process on one core (GOMAXPROCS=1), one on two (GOMAXPROCS=2),
# and two independent one-core processes of half the replications each,
# at once. The last shares nothing (no runtime, heap or address space):
# it is what the machine's two cores give this workload, the ceiling for
# the in-process ratio. The two in-process outputs must be byte-identical.
reps_cmd=(run mmc --runs 1000000 --set warmup=0 --format json)
say "simulate ${reps_cmd[*]} --replications 8: GOMAXPROCS=1, =2, and two one-core processes of 4 at once ($REPEAT rounds)"
l1=() l2=() lp=() reps_same=yes
for ((i = 0; i < REPEAT; i++)); do
	timed "$OUT/reps1" env GOMAXPROCS=1 "$SIM" "${reps_cmd[@]}" --replications 8
	l1+=("$WALL")
	timed "$OUT/reps2" env GOMAXPROCS=2 "$SIM" "${reps_cmd[@]}" --replications 8
	l2+=("$WALL")
	cmp -s "$OUT/reps1" "$OUT/reps2" || reps_same=no
	timed "$OUT/repsp" bash -c 'GOMAXPROCS=1 "$@" >/dev/null & GOMAXPROCS=1 "$@" >/dev/null & wait' _ \
		"$SIM" "${reps_cmd[@]}" --replications 4
	lp+=("$WALL")
done
reps_1=$(median "${l1[@]}") reps_2=$(median "${l2[@]}") reps_p=$(median "${lp[@]}")
reps_speedup=$(div "$reps_1" "$reps_2") reps_ceiling=$(div "$reps_1" "$reps_p")
reps_steady="$(steady "${l1[@]}")$(steady "${l2[@]}")"

# --- 5. allocations ------------------------------------------------------------

say "go test -run XXX -bench 'BenchmarkMMc\$|BenchmarkRetryStorm|BenchmarkSeedPlanLoad' -benchmem -benchtime 3x ./model/system/"
go test -run XXX -bench 'BenchmarkMMc$|BenchmarkRetryStorm|BenchmarkSeedPlanLoad' -benchmem -benchtime 3x ./model/system/ >"$OUT/gobench.txt" 2>&1 ||
	{ cat "$OUT/gobench.txt" >&2; say "go test failed: its row reads n/a"; }
allocs_mmc=$(bench_metric "$OUT/gobench.txt" BenchmarkMMc allocs/op)
allocs_rs=$(bench_metric "$OUT/gobench.txt" BenchmarkRetryStorm allocs/op)
allocs_seed=$(bench_metric "$OUT/gobench.txt" BenchmarkSeedPlanLoad allocs/op)
ev_mmc=$(bench_metric "$OUT/gobench.txt" BenchmarkMMc events/s)

# --- 6. instructions, which a loaded machine does not blur ------------------------

# callgrind counts the instructions a process executes: the same on a busy
# machine as on an idle one (time per instruction is what load changes).
# One core (GOMAXPROCS=1, so no draws are made ahead), asynchronous
# preemption off (its signals upset callgrind), 200 000 customers.
instr_row="skipped: valgrind not installed (apt-get install valgrind)"
if command -v valgrind >/dev/null 2>&1 || apt_install valgrind; then
	instr() { # instr CMD...: sets INSTR to the instructions CMD executed
		GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" "$@" >/dev/null 2>"$OUT/callgrind.err"
		INSTR=$(awk '/Collected :/ { print $NF }' "$OUT/callgrind.err")
	}
	say "callgrind: simulate run mmc --runs 200000 --set warmup=0, bareloop -customers 200000"
	instr "$SIM" run mmc --runs 200000 --set warmup=0 --format json
	i_bs=$INSTR
	instr "$BARE" -customers 200000
	i_bare=$INSTR
	instr_row="$(awk -v a="$i_bs" -v b="$i_bare" 'BEGIN { printf "%.0f M vs %.0f M instructions: %.2f×", a / 1e6, b / 1e6, a / b }')"
fi

# --- table ------------------------------------------------------------------------

# Contention: CPU time used by other processes while this script ran, as a
# share of the machine's capacity over the same wall time.
times >"$OUT/times" # this shell's own and its children's CPU times
ours=$(awk 'NR <= 2 { for (i = 1; i <= 2; i++) { split($i, p, "m"); s += p[1] * 60 + p[2] } } END { printf "%.2f", s }' "$OUT/times")
others=$(awk -v b0="$busy0" -v b1="$(cpu_busy)" -v o="$ours" -v t0="$t_start" -v t1="$(date +%s%N)" -v n="$(nproc)" \
	'BEGIN { x = (b1 - b0 - o) / ((t1 - t0) / 1e9 * n) * 100; if (x < 0) x = 0; printf "%.0f", x }')
contention="Other processes used ${others} % of the machine's CPU while it ran."
if ((others >= 10)); then
	contention="$contention **The figures are contended: rerun on an idle machine before quoting them.**"
fi
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
load=$(cut -d' ' -f1-3 /proc/loadavg)

cat <<EOF

### Results ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, ${cpu}, $(go version | awk '{ print $3 }'), SimPy ${sp_version})

Whole processes (fork, exec, start-up, output and exit included), timed by
the calling shell; medians of $((SIMPY_REPEAT * REPEAT)) budgetsim runs and
$SIMPY_REPEAT SimPy runs, interleaved; ranges are the lowest and highest
single walls. Load average (1, 5, 15 min) at the start: $load0; at the end:
$load. $contention

| What | Target | Measured | |
| --- | --- | --- | --- |
| The SimPy models compute what budgetsim computes (\`bench/check_models.py\`, $CHECK_REPS replications each, Welch 95 %) | agree | ${check_row} | $(verdict "$check_ok") |
| M/M/c, 1 M customers: \`simulate run mmc --runs 1000000 --set warmup=0\` vs \`simpy_mmc.py\` | ≥ 50× | ${mmc_bs} s (${mmc_bs_walls}) vs ${mmc_sp} s (${mmc_sp_walls}): **${mmc_ratio}×**${mmc_steady}; mean sojourn ${mmc_soj} s vs ${mmc_sp_soj} s (Erlang C ${erlang} s) | $(verdict "$(ge "$mmc_ratio" 50)") |
| tool-queue, 200 k runs (\`bench/tool-queue.yaml\`, ${tq_events} events) vs \`simpy_calls.py tool-queue\` | ≥ 60× | ${tq_bs} s (${tq_bs_walls}) vs ${tq_sp} s (${tq_sp_walls}): **${tq_ratio}×**${tq_steady} | $(verdict "$(ge "$tq_ratio" 60)") |
| retry-storm as bundled (240 s, ${rs_events} events) vs \`simpy_calls.py retry-storm\` | ≥ 60× | ${rs_bs} s (${rs_bs_walls}) vs ${rs_sp} s (${rs_sp_walls}): **${rs_ratio}×**${rs_steady} | $(verdict "$(ge "$rs_ratio" 60)") |
| retry-storm, \`--set horizon=960s\` (${rs4_events} events) vs \`simpy_calls.py retry-storm --horizon 960\` | ≥ 60× | ${rs4_bs} s (${rs4_bs_walls}) vs ${rs4_sp} s (${rs4_sp_walls}): **${rs4_ratio}×**${rs4_steady} | $(verdict "$(ge "$rs4_ratio" 60)") |
| M/M/c, 3 M customers: \`simulate run mmc --runs 3000000 --set warmup=0\` vs \`bench/bareloop -customers 3000000\` | ≤ 1.5× | ${big_wall} s ($(range "${big_list[@]}")) vs ${bare_wall} s ($(range "${bare_list[@]}")): **${bare_ratio}×**$(steady "${big_list[@]}")$(steady "${bare_list[@]}"); mean sojourn ${big_soj} s vs ${bare_soj} s | $(verdict "$(le "$bare_ratio" 1.5)") |
| Instructions (callgrind, one core): \`run mmc --runs 200000 --set warmup=0\` vs \`bareloop -customers 200000\` | — | ${instr_row} | |
| Peak RSS, 10 M runs of M/M/c | ≤ 64 MiB | $(mib "$rss10") (1 M runs: $(mib "$rss1")); ${m10_wall} s | $(verdict "$(le "$rss10" 65536)") |
| \`run mmc --runs 1000000 --set warmup=0 --replications 8\`, GOMAXPROCS=2 vs 1 | ≥ 1.8× | ${reps_1} s → ${reps_2} s: **${reps_speedup}×**${reps_steady}; the machine's ceiling (two one-core processes of 4): ${reps_ceiling}× | $(verdict "$(ge "$reps_speedup" 1.8)") |
| Same, output byte-identical on GOMAXPROCS=1 and 2 | identical | ${reps_same} | $(verdict "$([[ $reps_same == yes ]] && echo 1 || echo 0)") |
| Allocations per simulation (\`go test -bench -benchmem\`): \`BenchmarkMMc\` (1 M runs), \`BenchmarkRetryStorm\`, \`BenchmarkSeedPlanLoad\` | none per event | ${allocs_mmc}, ${allocs_rs}, ${allocs_seed} ($(awk -v x="$ev_mmc" 'BEGIN { if (x == "n/a") print "n/a"; else printf "%.1f M", x / 1e6 }') events/s on M/M/c, one goroutine) | |
EOF

say "raw outputs in $OUT"
