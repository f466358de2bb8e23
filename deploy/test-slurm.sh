#!/bin/bash
# Runs deploy/slurm-array.sh on a real one-node SLURM cluster
# (deploy/slurm-local.sh) and checks what a user relies on:
#   1. a sweep split into 3 shards and merged by SLURM jobs gives sweep.csv
#      and sweep.json byte-identical to the same sweep run unsharded;
#   2. CPUS_PER_TASK or MEM larger than any node fails at once, queueing nothing;
#   3. a shard that fails makes the merge job fail (not wait for ever) with
#      the command that reruns it; running that command gives the same bytes.
# Needs root; installs munge and slurm-wlm if missing. .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

step() { printf '== slurm: %s\n' "$*"; }
fail() {
	printf 'FAIL slurm: %s\n' "$*" >&2
	exit 1
}

step "install munge and slurm-wlm if missing"
bash deploy/slurm-local.sh install

work=$(mktemp -d /tmp/budgetsim-slurm.XXXXXX)
chmod 755 "$work" # munged runs as munge and needs to reach its socket in it
cleanup() {
	bash "$repo/deploy/slurm-local.sh" down "$work/cluster" || true
	rm -rf "$work"
}
trap cleanup EXIT

step "build simulate"
go build -o "$work/bin/simulate" ./cmd/simulate
export PATH="$work/bin:$PATH"

step "bring up a one-node cluster in $work/cluster"
bash deploy/slurm-local.sh up "$work/cluster"
export SLURM_CONF=$work/cluster/slurm.conf
sinfo

# A small sweep (4 points × 4 replications of a 20000-run M/M/c) from a
# scenario file given by a relative path, as a user would.
cp scenarios/mmc.yaml "$work/mmc.yaml"
cd "$work"
flags=(--set runs=20000 --set warmup=1000 --vary workers=10,11 --vary 'arrivals.rate=8/s,9/s' --replications 4)
export SHARDS=3 CPUS_PER_TASK=1 MEM=256M

step "the sweep unsharded"
# By the absolute path slurm-array.sh hands its tasks: every output
# records the scenario's path as given (its provenance), so the two runs
# name the same file the same way.
simulate sweep "$work/mmc.yaml" "${flags[@]}" --out whole >/dev/null

same() { # same DIR: DIR's merged sweep is byte-identical to the unsharded one
	cmp "$1/sweep.csv" whole/sweep.csv && cmp "$1/sweep.json" whole/sweep.json ||
		fail "$1: the merged sweep differs from the unsharded one"
	echo "$1/sweep.csv and sweep.json are byte-identical to the unsharded sweep"
}

step "CPUS_PER_TASK or MEM above the node's fails before queueing anything"
cpus=$(sinfo -h -N -o %c)
if CPUS_PER_TASK=$((cpus + 1)) OUT=$work/toobig bash "$repo/deploy/slurm-array.sh" submit mmc.yaml "${flags[@]}" 2>toobig.err; then
	fail "submit with CPUS_PER_TASK=$((cpus + 1)) on a $cpus-CPU node succeeded"
fi
cat toobig.err
grep -q "has $cpus CPUs" toobig.err || fail "the message does not name the node's CPU count"
mem=$(sinfo -h -N -o %m)
if MEM=$((mem + 1))M OUT=$work/toobig bash "$repo/deploy/slurm-array.sh" submit mmc.yaml "${flags[@]}" 2>toobig.err; then
	fail "submit with MEM=$((mem + 1))M on a node with ${mem}M succeeded"
fi
cat toobig.err
grep -q "has ${mem}M" toobig.err || fail "the message does not name the node's memory"
[[ -z $(squeue -h) ]] || fail "jobs were queued: $(squeue)"

step "submit --wait: 3 shards as a job array, then the merge job"
OUT=$work/out timeout 300 bash "$repo/deploy/slurm-array.sh" submit --wait mmc.yaml "${flags[@]}"
same out

step "a failing shard fails the merge job with the rerun command"
# The shard's file name is taken by a directory, so slice 1 cannot write
# its results (as on a full or read-only disk).
mkdir -p failed/shards/shard-1-of-3.json/taken
if OUT=$work/failed timeout 300 bash "$repo/deploy/slurm-array.sh" submit --wait mmc.yaml "${flags[@]}" >failed.out 2>&1; then
	cat failed.out
	fail "the submission succeeded although shard 1 could not be written"
fi
cat failed.out
grep -q 'slice 1: FAILED' failed.out || fail "slice 1 is not reported FAILED"
grep -q 'merge: FAILED' failed.out || fail "the merge job is not reported FAILED"
rerun=$(grep -A1 '^rerun just those shards' failed.out | tail -1)
[[ $rerun == *TASKS=1\ * ]] || fail "no rerun command for shard 1: $rerun"

step "rerun shard 1 and the merge with the command the merge printed"
rm -rf failed/shards/shard-1-of-3.json
bash -c "${rerun/ submit / submit --wait }" >rerun.out 2>&1 || {
	cat rerun.out
	fail "the rerun failed"
}
grep -E '^(slice|merge)' rerun.out
grep -q 'slice 0' rerun.out && fail "the rerun ran slice 0 again"
same failed

echo "slurm: 3 passed, 0 failed"
