#!/bin/bash
# budgetsim: a parameter sweep as a SLURM job array, then a merge.
#
# On the login node (OUT on storage that every node shares):
#   OUT=/shared/sweep-out SHARDS=8 deploy/slurm-array.sh submit [--wait] SCENARIO SWEEP-FLAG…
# for example
#   OUT=/shared/sweep-out deploy/slurm-array.sh submit --wait /shared/checkout.yaml \
#       --vary 'arrivals.rate=5/s..9.5/s:10' --vary 'workers=10,11,12' --replications 20
#
# submit queues a job array of SHARDS tasks (task i runs slice i of the sweep,
# `simulate sweep SCENARIO SWEEP-FLAG… --shard i/SHARDS`, and writes
# OUT/shards/shard-i-of-SHARDS.json) and a merge job that starts when every
# task has ended, succeeded or not. The merge writes OUT/sweep.csv and
# OUT/sweep.json, byte-identical to running the whole sweep on one machine;
# if a shard is missing it fails, naming the shards and the command that
# reruns just those shards and the merge. With --wait, submit waits for the
# merge and exits 0 only if it succeeded. Logs go to OUT/logs/.
#
# Environment (all optional):
#   OUT            where shards, logs and the merged sweep go [$HOME/budgetsim/sweep-out]
#   SHARDS         number of slices [8]
#   TASKS          which slices to run, in sbatch --array syntax [0-(SHARDS-1)]; set it
#                  to rerun failed shards: the merge then uses the files already in OUT
#   CPUS_PER_TASK  CPUs per shard, also its --parallel [4]; must fit on a node
#   MEM            memory per shard and for the merge [2G]; must fit on a node
#   TIME           time limit per shard [04:00:00]
#   PARTITION      partition for both jobs [the cluster's default]
#   SBATCH_ARGS    more sbatch options for both jobs, split on spaces (e.g. --account=x)
#   SIMULATE       the simulate binary, on every node's PATH or an absolute path [simulate]
#
# SCENARIO is a bundled scenario's name or a file on shared storage (made
# absolute here: the merge reloads it from that path). The sweep flags must
# not include --shard, --out or --parallel, which the tasks set.
set -euo pipefail

OUT=${OUT:-$HOME/budgetsim/sweep-out}
SHARDS=${SHARDS:-8}
CPUS_PER_TASK=${CPUS_PER_TASK:-4}
MEM=${MEM:-2G}
TIME=${TIME:-04:00:00}
SIMULATE=${SIMULATE:-simulate}

die() {
	printf 'slurm-array: %s\n' "$*" >&2
	exit 1
}
usage() {
	sed -n '4,5s/^# \{0,1\}//p' "$0" >&2
	[[ $# == 0 ]] || printf 'slurm-array: %s\n' "$*" >&2
	exit 2
}

# megabytes converts a SLURM memory size (a number with an optional K, M, G
# or T suffix; M if none) to whole megabytes.
megabytes() {
	local n=${1%[KkMmGgTt]} unit=${1##*[0-9]}
	[[ $n =~ ^[0-9]+$ ]] || die "MEM=$1: must be a number with an optional K, M, G or T suffix"
	case $unit in
	K | k) echo $((n / 1024)) ;;
	'' | M | m) echo "$n" ;;
	G | g) echo $((n * 1024)) ;;
	T | t) echo $((n * 1024 * 1024)) ;;
	esac
}

# checkfit fails, before anything is queued, when no node of the partition
# has CPUS_PER_TASK CPUs or MEM memory: SLURM would accept the array and
# leave it pending for ever (Reason=PartitionConfig).
checkfit() {
	local nodes cpus=0 mem=0 c m where=${PARTITION:+partition $PARTITION}
	nodes=$(sinfo -h -N ${PARTITION:+-p "$PARTITION"} -o '%c %m') || die "sinfo failed: is SLURM reachable?"
	[[ -n $nodes ]] || die "no nodes in ${where:-the default partition}"
	while read -r c m; do
		c=${c%+}
		m=${m%+}
		((c > cpus)) && cpus=$c
		((m > mem)) && mem=$m
	done <<<"$nodes"
	if ((CPUS_PER_TASK > cpus)); then
		die "CPUS_PER_TASK=$CPUS_PER_TASK, but the largest node in ${where:-the cluster} has $cpus CPUs: the array would pend for ever; set CPUS_PER_TASK=$cpus or less"
	fi
	if (($(megabytes "$MEM") > mem)); then
		die "MEM=$MEM, but the largest node in ${where:-the cluster} has ${mem}M: the array would pend for ever; set MEM=${mem}M or less"
	fi
}

# jobstate prints the state of job $1 (COMPLETED, FAILED, PENDING, …).
jobstate() {
	scontrol show job -o "$1" 2>/dev/null | sed -n 's/.* JobState=\([A-Z_]*\).*/\1/p' | head -1
}

submit() {
	local wait=0
	if [[ ${1:-} == --wait ]]; then
		wait=1
		shift
	fi
	(($# >= 2)) || usage "submit needs a scenario and the sweep flags"
	local scenario=$1
	shift
	local f
	for f in "$@"; do
		case $f in
		--shard | --shard=* | -shard | -shard=* | --out | --out=* | -out | -out=* | --parallel | --parallel=* | -parallel | -parallel=*)
			usage "the sweep flags must not include $f: each task sets --shard, --out and --parallel"
			;;
		esac
	done
	[[ $SHARDS =~ ^[1-9][0-9]*$ ]] || die "SHARDS=$SHARDS: must be a positive integer"
	[[ $CPUS_PER_TASK =~ ^[1-9][0-9]*$ ]] || die "CPUS_PER_TASK=$CPUS_PER_TASK: must be a positive integer"
	local tasks=${TASKS:-0-$((SHARDS - 1))} t
	for t in $(tr ',:-' '   ' <<<"${tasks%%%*}"); do
		[[ $t =~ ^[0-9]+$ ]] && ((t < SHARDS)) || die "TASKS=$tasks: slice $t is not in 0-$((SHARDS - 1))"
	done
	[[ -f $scenario ]] && scenario=$(realpath "$scenario")
	checkfit

	mkdir -p "$OUT/shards" "$OUT/logs"
	OUT=$(realpath "$OUT")
	local script extra=() common array merge
	script=$(realpath "$0")
	read -r -a extra <<<"${SBATCH_ARGS:-}"
	common=(--parsable --mem="$MEM" ${PARTITION:+--partition="$PARTITION"} "${extra[@]}")
	array=$(sbatch "${common[@]}" --job-name=budgetsim-sweep --array="$tasks" \
		--cpus-per-task="$CPUS_PER_TASK" --time="$TIME" --output="$OUT/logs/sweep-%A_%a.log" \
		"$script" task "$OUT" "$SHARDS" "$scenario" "$@")
	array=${array%%;*}
	# afterany, not afterok: the merge runs however the tasks end, and says
	# which shards are missing, instead of waiting for ever with
	# Reason=DependencyNeverSatisfied.
	merge=$(sbatch "${common[@]}" --job-name=budgetsim-merge --dependency="afterany:$array" \
		--cpus-per-task=1 --output="$OUT/logs/merge-%j.log" \
		"$script" merge "$OUT" "$SHARDS" "$array" "$script" "$scenario" "$@")
	merge=${merge%%;*}
	echo "submitted array job $array (slices $tasks of $SHARDS) and merge job $merge"
	echo "logs: $OUT/logs/sweep-${array}_<slice>.log and $OUT/logs/merge-$merge.log"
	((wait)) || return 0

	local state unknown=0
	while :; do
		state=$(jobstate "$merge")
		case $state in
		PENDING | RUNNING | CONFIGURING | COMPLETING | SUSPENDED | REQUEUED | RESIZING) unknown=0 ;;
		"") # slurmctld restarting, or the job purged (MinJobAge)
			unknown=$((unknown + 1))
			((unknown < 30)) || die "slurmctld no longer knows merge job $merge: see $OUT/logs/merge-$merge.log"
			;;
		*) break ;;
		esac
		sleep 2
	done
	scontrol show job -o "$array" | sed -n 's/.* ArrayTaskId=\([0-9]*\) .* JobState=\([A-Z_]*\) .*/slice \1: \2/p' | sort -t' ' -k2n
	echo "merge: $state"
	cat "$OUT/logs/merge-$merge.log"
	[[ $state == COMPLETED ]] || die "the sweep failed: see $OUT/logs/"
}

# task runs one slice: SLURM starts it once per array index.
task() {
	local out=$1 shards=$2 scenario=$3
	shift 3
	: "${SLURM_ARRAY_TASK_ID:?run through sbatch (deploy/slurm-array.sh submit)}"
	echo "slice $SLURM_ARRAY_TASK_ID of $shards on $(hostname): $SIMULATE sweep $scenario $*"
	exec "$SIMULATE" sweep "$scenario" "$@" \
		--shard "$SLURM_ARRAY_TASK_ID/$shards" --parallel "${SLURM_CPUS_PER_TASK:-0}" \
		--out "$out/shards"
}

# merge combines the SHARDS files, or names the missing ones and the command
# that reruns them.
merge() {
	local out=$1 shards=$2 array=$3 script=$4 scenario=$5
	shift 5
	local i files=() missing=()
	for ((i = 0; i < shards; i++)); do
		files+=("$out/shards/shard-$i-of-$shards.json")
		[[ -f ${files[i]} ]] || missing+=("$i")
	done
	if ((${#missing[@]} > 0)); then
		local list
		list=$(
			IFS=,
			echo "${missing[*]}"
		)
		echo "missing shard(s) $list of $shards: their tasks failed or were cancelled; see $out/logs/sweep-${array}_<slice>.log" >&2
		echo "rerun just those shards and the merge with:" >&2
		printf '  TASKS=%s SHARDS=%s OUT=%q' "$list" "$shards" "$out" >&2
		local v
		for v in CPUS_PER_TASK MEM TIME PARTITION SBATCH_ARGS SIMULATE; do
			[[ -z ${!v:-} ]] || printf ' %s=%q' "$v" "${!v}" >&2
		done
		printf ' %q submit %q' "$script" "$scenario" >&2
		printf ' %q' "$@" >&2
		echo >&2
		exit 1
	fi
	exec "$SIMULATE" merge "${files[@]}" --out "$out"
}

case "${1:-}" in
submit)
	shift
	submit "$@"
	;;
task)
	shift
	(($# >= 3)) || usage
	task "$@"
	;;
merge)
	shift
	(($# >= 5)) || usage
	merge "$@"
	;;
*) usage ;;
esac
