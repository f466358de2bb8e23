#!/bin/bash
# budgetsim: a parameter sweep as a SLURM job array, then a merge.
#
# On the login node:
#   deploy/slurm-array.sh submit      # submits the array and a merge job that runs after it
# SLURM then runs this script once per array task; task i runs slice i of the
# sweep (SLURM_ARRAY_TASK_ID, 0-based) and writes $OUT/shards/shard-i-of-N.json
# to shared storage; the merge job writes $OUT/sweep.csv and sweep.json,
# byte-identical to running the whole sweep on one machine.
#
# Edit SCENARIO, the sweep flags and N (the array must be 0-(N-1)). Every
# task must run the same flags: the shards refuse to merge otherwise.
#SBATCH --job-name=budgetsim-sweep
#SBATCH --array=0-7
#SBATCH --cpus-per-task=4
#SBATCH --mem=2G
#SBATCH --time=04:00:00
#SBATCH --output=budgetsim-%A_%a.log
set -euo pipefail

N=8
SCENARIO=${SCENARIO:-$HOME/budgetsim/scenario.yaml} # on shared storage
OUT=${OUT:-$HOME/budgetsim/sweep-out}               # on shared storage
SIMULATE=${SIMULATE:-simulate}
SWEEP_FLAGS=(--vary 'arrivals.rate=5/s..9.5/s:10' --vary 'workers=10,11,12' --replications 20)

if [[ "${1:-}" == submit ]]; then
	mkdir -p "$OUT/shards"
	array=$(sbatch --parsable --array="0-$((N - 1))" --export=ALL,SCENARIO="$SCENARIO",OUT="$OUT" "$0")
	sbatch --dependency="afterok:${array}" --job-name=budgetsim-merge --output=budgetsim-merge-%j.log \
		--wrap "$SIMULATE merge '$OUT/shards' --out '$OUT'"
	echo "submitted array job $array and its merge"
	exit 0
fi

: "${SLURM_ARRAY_TASK_ID:?run through sbatch (deploy/slurm-array.sh submit)}"
if [[ "${SLURM_ARRAY_TASK_COUNT:-$N}" != "$N" ]]; then
	echo "array has ${SLURM_ARRAY_TASK_COUNT} tasks but N=$N" >&2
	exit 2
fi
exec "$SIMULATE" sweep "$SCENARIO" "${SWEEP_FLAGS[@]}" \
	--shard "${SLURM_ARRAY_TASK_ID}/${N}" --parallel "${SLURM_CPUS_PER_TASK:-0}" \
	--out "$OUT/shards"
