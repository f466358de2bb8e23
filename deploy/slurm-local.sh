#!/bin/bash
# budgetsim: a single-node SLURM cluster on this machine, from Debian's
# packages, to try deploy/slurm-array.sh without a real cluster (CI runs it).
#
#   deploy/slurm-local.sh install     # apt-get the packages that are missing (as root)
#   deploy/slurm-local.sh up DIR      # start munged, slurmctld and slurmd; state and logs in DIR
#   export SLURM_CONF=DIR/slurm.conf  # then sbatch, squeue, sinfo talk to this cluster
#   deploy/slurm-local.sh down DIR    # stop the three daemons started in DIR
#
# Everything lives in DIR: slurm.conf, the munge socket, the daemons' pid
# files, spool and state directories and logs, so the cluster touches no
# system daemon and `down` stops only what `up` started. The node is this
# machine (its CPUs and memory as `slurmd -C` reports them), in one partition
# named `local`. Set SLURM_LOCAL_CPUS to advertise a different CPU count (the
# node then runs with SlurmdParameters=config_overrides). Needs root: slurmd
# starts jobs as the submitting user and munged runs as the munge user.
set -euo pipefail

usage() {
	sed -n '4,8s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

say() { printf 'slurm-local: %s\n' "$*"; }
die() {
	printf 'slurm-local: %s\n' "$*" >&2
	exit 1
}

# install brings in munge and slurm-wlm with apt-get if a command is missing.
install() {
	local missing=()
	command -v munged >/dev/null || missing+=(munge)
	for c in slurmctld slurmd sbatch; do
		command -v "$c" >/dev/null || {
			missing+=(slurm-wlm)
			break
		}
	done
	if ((${#missing[@]} == 0)); then
		say "munge and slurm-wlm are installed ($(slurmctld -V))"
		return
	fi
	say "apt-get install ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# freeport prints the first TCP port from $1 on that nothing listens on.
freeport() {
	local p=$1
	while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do
		p=$((p + 1))
	done
	echo "$p"
}

# pidalive reports whether the pid in file $1 is a running process.
pidalive() {
	[[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

up() {
	local dir=$1
	[[ $(id -u) == 0 ]] || die "up needs root (slurmd runs jobs as their user, munged as munge)"
	for c in munged slurmctld slurmd sinfo; do
		command -v "$c" >/dev/null || die "$c is not installed: run '$0 install' first"
	done
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	if pidalive "$dir/slurmctld.pid" || pidalive "$dir/slurmd.pid" || pidalive "$dir/munge/munged.pid"; then
		die "a cluster is already running in $dir: '$0 down $dir' first"
	fi
	# munged refuses a socket directory that others can write to or that it
	# cannot reach, so DIR must be traversable and munge/ belong to munge.
	chmod 755 "$dir"
	runuser -u munge -- test -x "$dir" ||
		die "the munge user cannot reach $dir: every directory above it must be searchable by others (chmod o+x)"
	mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
	chown munge:munge "$dir/munge"
	chmod 755 "$dir/munge"
	local key=/etc/munge/munge.key
	if [[ ! -s $key ]]; then
		say "creating the munge key $key"
		runuser -u munge -- mungekey --create --keyfile="$key"
	fi

	local host cpus mem ctldport dport overrides=""
	host=$(hostname -s)
	read -r cpus mem < <(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*RealMemory=\([0-9]*\).*/\1 \2/p')
	[[ -n $cpus && -n $mem ]] || die "slurmd -C did not report CPUs and RealMemory"
	if [[ -n ${SLURM_LOCAL_CPUS:-} ]]; then
		cpus=$SLURM_LOCAL_CPUS
		overrides="SlurmdParameters=config_overrides"
	fi
	ctldport=$(freeport 6817)
	dport=$(freeport $((ctldport + 1)))

	cat >"$dir/slurm.conf" <<EOF
# Written by deploy/slurm-local.sh: a one-node cluster on $host.
ClusterName=budgetsim
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctldport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=3600
$overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

	say "munged (as munge), socket $dir/munge/munge.socket"
	runuser -u munge -- munged --socket="$dir/munge/munge.socket" --key-file="$key" \
		--pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
		--seed-file="$dir/munge/munged.seed" ||
		die "munged did not start: $(tail -5 "$dir/munge/munged.log" 2>/dev/null)"

	export SLURM_CONF=$dir/slurm.conf
	say "slurmctld -D on port $ctldport, slurmd -D on port $dport (node $host: $cpus CPUs, $mem MB)"
	setsid slurmctld -D -f "$SLURM_CONF" </dev/null >>"$dir/slurmctld.out" 2>&1 &
	echo $! >"$dir/slurmctld.pid"
	setsid slurmd -D -f "$SLURM_CONF" </dev/null >>"$dir/slurmd.out" 2>&1 &
	echo $! >"$dir/slurmd.pid"

	local state="" i
	for ((i = 0; i < 60; i++)); do
		state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
		[[ $state == idle ]] && break
		if ! pidalive "$dir/slurmctld.pid" || ! pidalive "$dir/slurmd.pid"; then
			break
		fi
		sleep 0.5
	done
	if [[ $state != idle ]]; then
		tail -n 20 "$dir"/slurmctld.log "$dir"/slurmctld.out "$dir"/slurmd.log "$dir"/slurmd.out >&2 2>/dev/null || true
		down "$dir"
		die "node $host is '${state:-unknown}', not idle, 30 s after start (logs above)"
	fi
	say "node $host is idle; export SLURM_CONF=$SLURM_CONF"
}

# stop sends SIGTERM to the process in pid file $2 (named $1) and waits up
# to 10 s for it to end, then sends SIGKILL.
stop() {
	local name=$1 file=$2 pid i
	pidalive "$file" || return 0
	pid=$(cat "$file")
	say "stopping $name (pid $pid)"
	kill "$pid" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
}

down() {
	local dir=$1
	[[ -d $dir ]] || die "$dir: no such directory"
	stop slurmd "$dir/slurmd.pid"
	stop slurmctld "$dir/slurmctld.pid"
	stop munged "$dir/munge/munged.pid"
	say "down ($dir kept for its logs)"
}

case "${1:-}" in
install) install ;;
up) [[ $# == 2 ]] || usage; up "$2" ;;
down) [[ $# == 2 ]] || usage; down "$2" ;;
*) usage ;;
esac
