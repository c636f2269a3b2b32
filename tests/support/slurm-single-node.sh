#!/usr/bin/env bash
# A private single-node Slurm cluster for tests: its own munged (own key and socket), its own slurm.conf, ports,
# state, spool and logs, all under $SLURM_TEST_DIR, so it neither touches nor depends on a system-wide Slurm or
# MUNGE, and two test runs on one machine do not meet. Runs as root, without systemd. Daemons run in the
# foreground (-F / -D) so $! is the daemon; they are stopped by their recorded PIDs only.
#
#   SLURM_TEST_DIR=DIR tests/support/slurm-single-node.sh up     # start; prints `export SLURM_CONF=...`
#   SLURM_TEST_DIR=DIR tests/support/slurm-single-node.sh down   # cancel jobs, stop the daemons it started
#   tests/support/slurm-single-node.sh install                   # apt-get the 4 packages when missing
# Exit status: 0 ok; 1 failure (a "slurm:" line on stderr says why, with the daemon logs); 3 not possible here
# (not root, or the packages are missing).
set -euo pipefail
# `install` needs no folder; `up` and `down` do (checked where they start)
W=${SLURM_TEST_DIR:-}
START_TIMEOUT=${START_TIMEOUT:-30}
export SLURM_CONF=$W/slurm.conf
need_dir() { [ -n "$W" ] || { echo "slurm: set SLURM_TEST_DIR to a private folder" >&2; exit 1; }; }

say() { echo "slurm: $*" >&2; }
logs() {
  local f
  for f in "$W"/log/*.log "$W"/log/*.out; do [ -s "$f" ] && { echo "---- tail $f"; tail -n 20 "$f"; }; done >&2
  return 0
}
die() { say "$*"; logs; exit 1; }
wait_for() { # seconds, command...
  local end=$(( $(date +%s) + $1 )); shift
  until "$@" >/dev/null 2>&1; do [ "$(date +%s)" -ge "$end" ] && return 1; sleep 0.2; done
}
have_pkgs() { command -v slurmctld && command -v slurmd && command -v sbatch && command -v munged; } >/dev/null

install() {
  have_pkgs && return 0
  [ "$(id -u)" -eq 0 ] || { say "not root: cannot install slurmctld slurmd slurm-client munge"; exit 3; }
  # the slurm-wlm metapackage with Recommends pulls ~20 -dev plugin packages: these 4 are all it takes
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge \
    >/dev/null || { apt-get update -qq >/dev/null 2>&1 || true
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client \
        munge >/dev/null; } || die "apt-get install slurmctld slurmd slurm-client munge failed"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

up() {
  need_dir
  [ "$(id -u)" -eq 0 ] || { say "needs root (slurmd runs jobs as their users)"; exit 3; }
  have_pkgs || { say "slurmctld, slurmd, sbatch or munged missing (tests/support/slurm-single-node.sh install)"; exit 3; }
  mkdir -p "$W"
  chmod 0755 "$W"
  rm -rf "$W/munge" "$W/munge-key" "$W/state" "$W/spool" "$W/log" "$W/run"
  mkdir -p "$W/munge" "$W/munge-key" "$W/state" "$W/spool" "$W/log" "$W/run"
  # munged wants its key private (0700 folder, 0400 key, owned by munge) and its socket folder searchable by
  # all but writable by none else; the key is this cluster's own
  chown munge:munge "$W/munge" "$W/munge-key"; chmod 0755 "$W/munge"; chmod 0700 "$W/munge-key"
  setpriv --reuid=munge --regid=munge --init-groups test -x "$W/munge-key" \
    || die "the munge user cannot reach $W: make its parent folders searchable (chmod o+x)"
  dd if=/dev/urandom of="$W/munge-key/munge.key" bs=1024 count=1 status=none
  chown munge:munge "$W/munge-key/munge.key"; chmod 0400 "$W/munge-key/munge.key"
  local sock=$W/munge/munge.socket
  setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged -F --socket="$sock" \
    --key-file="$W/munge-key/munge.key" --pid-file="$W/munge/munged.pid" --seed-file="$W/munge-key/munged.seed" \
    --log-file="$W/log/munged.log" >"$W/log/munged.out" 2>&1 </dev/null &
  echo $! > "$W/run/munged.pid"
  wait_for "$START_TIMEOUT" sh -c "munge -S '$sock' -n | unmunge -S '$sock' || { kill -0 $! || exit 0; exit 1; }" \
    && kill -0 $! 2>/dev/null || die "munged did not come up"

  local host node mem p1 p2
  host=$(hostname -s)
  node=$(slurmd -C | head -n1)
  mem=$(printf '%s\n' "$node" | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
  mem=$(( mem * 95 / 100 )) # RealMemory above the real value drains the node
  node=$(printf '%s\n' "$node" | sed -e 's/^NodeName=[^ ]* //' -e 's/ *RealMemory=[0-9]*//' -e 's/ *UpTime=.*//')
  p1=$(free_port); p2=$(free_port)
  while [ "$p2" = "$p1" ]; do p2=$(free_port); done
  cat > "$SLURM_CONF" <<CONF
# private single-node test cluster (tests/support/slurm-single-node.sh)
ClusterName=passmaptest
# the name must be \`hostname -s\`; the address in () avoids any name lookup
SlurmctldHost=${host}(127.0.0.1)
SlurmctldPort=$p1
SlurmdPort=$p2
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/run/slurmctld.daemon.pid
SlurmdPidFile=$W/run/slurmd.daemon.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.log
# no cgroups: works without systemd or a delegated cgroup tree
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
# default scheduling starts array tasks in waves every ~3 s; this makes it ~1 s
SchedulerParameters=sched_min_interval=0,batch_sched_delay=0,default_queue_depth=1000
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MailProg=/bin/true
KillWait=5
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
NodeName=${host} NodeAddr=127.0.0.1 NodeHostname=${host} ${node} RealMemory=${mem} State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  slurmctld -D -i >"$W/log/slurmctld.out" 2>&1 </dev/null &
  echo $! > "$W/run/slurmctld.pid"
  wait_for "$START_TIMEOUT" scontrol ping || die "slurmctld not answering after ${START_TIMEOUT}s"
  slurmd -D >"$W/log/slurmd.out" 2>&1 </dev/null &
  echo $! > "$W/run/slurmd.pid"
  wait_for "$START_TIMEOUT" sh -c "sinfo -h -N -o '%T' | grep -qx idle" \
    || { sinfo -N -l >&2 || true; die "node not idle after ${START_TIMEOUT}s"; }
  echo "export SLURM_CONF=$SLURM_CONF"
}

stop_pid() { # name
  local f=$W/run/$1.pid pid i
  [ -s "$f" ] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for i in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && { say "$1 ($pid) ignored SIGTERM for 15 s: SIGKILL"; kill -9 "$pid" 2>/dev/null || true; }
  fi
  rm -f "$f"
}

down() {
  need_dir
  local i
  if [ -s "$W/run/slurmctld.pid" ] && kill -0 "$(cat "$W/run/slurmctld.pid")" 2>/dev/null; then
    # slurmstepd outlives slurmd: cancel the jobs and wait for them first
    squeue -h -o %A 2>/dev/null | xargs -r scancel 2>/dev/null || true
    for i in $(seq 1 60); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.25; done
  fi
  stop_pid slurmd
  stop_pid slurmctld
  stop_pid munged
}

case "${1:-}" in
  install) install ;;
  up) up ;;
  down) down ;;
  *) echo "usage: SLURM_TEST_DIR=DIR $0 install|up|down" >&2; exit 2 ;;
esac
