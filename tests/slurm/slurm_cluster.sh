#!/usr/bin/env bash
# A real one-node Slurm cluster for tests: the brief promises "Slurm array jobs across a cluster, one
# results file per task, gemm-tune merge to combine them", and that promise is only tested against
# real daemons. This script installs munge and Slurm from the distribution's packages where they are
# missing, starts munged, slurmctld and slurmd as root with no init system, everything (key, socket,
# config, state, spool, logs) in a temporary directory and on ports of its own, so it touches nothing
# of the machine's own Slurm and several copies can run side by side. It waits for the node to be
# idle, runs the test body with SLURM_CONF exported, then stops every daemon it started whatever
# happens and removes the directory.
#
#   tests/slurm/slurm_cluster.sh -- bash tests/slurm/array_smoke_test.sh
#
# The body also gets SLURM_CLUSTER_WORKDIR, an empty directory the jobs may share (one node: one
# file system). Bodies: array_smoke_test.sh checks the harness itself (an array job's tasks see
# their index and count); the test that shards `gemm-tune plan` over an array goes beside it.
# Exit status: the body's; 77 (skipped) where the packages cannot be installed or we are not root;
# 1 where the cluster does not come up (the daemons' logs are printed).
# shellcheck disable=SC2317 # teardown and what it calls run from traps, which shellcheck cannot see
set -euo pipefail

log() { echo "slurm_cluster: $*" >&2; }
skip() {
  echo "SKIPPED: $*" >&2
  exit 77
}

if [ "${1:-}" = -- ]; then shift; fi
if [ $# -eq 0 ]; then
  echo "usage: $0 -- COMMAND [ARGS...]" >&2
  exit 2
fi

# --- Packages ---------------------------------------------------------------------------------------
# Debian 12 names; the daemons live in /usr/sbin, which a non-login root shell may not have on PATH.
export PATH="$PATH:/usr/sbin:/sbin"
packages=(munge slurmctld slurmd slurm-client)
missing_packages() {
  local p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
  done
}

[ "$(id -u)" -eq 0 ] || skip "a Slurm test cluster needs root (slurmd runs jobs as their users)"
command -v dpkg-query >/dev/null || skip "not a Debian-family system (no dpkg-query)"
mapfile -t to_install < <(missing_packages)
if [ ${#to_install[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || skip "missing ${to_install[*]} and no apt-get to install them"
  log "installing ${to_install[*]}"
  # The packages' scripts would start the system's own munged and Slurm daemons; a policy-rc.d that
  # refuses every start keeps them off (only ours, installed here and removed at once, is touched).
  policy=/usr/sbin/policy-rc.d
  own_policy=false
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    own_policy=true
    trap 'rm -f "$policy"' EXIT  # also where apt-get is interrupted
  fi
  apt_install() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      -o DPkg::Lock::Timeout=300 "${to_install[@]}" >&2
  }
  installed=true
  if ! apt_install; then
    apt-get update -q -o DPkg::Lock::Timeout=300 >&2 && apt_install || installed=false
  fi
  if $own_policy; then
    rm -f "$policy"
    trap - EXIT
  fi
  $installed || skip "apt-get could not install ${to_install[*]}"
  mapfile -t to_install < <(missing_packages)
  [ ${#to_install[@]} -eq 0 ] || skip "still missing after apt-get: ${to_install[*]}"
fi
for tool in munged slurmctld slurmd sinfo sbatch scontrol squeue scancel; do
  command -v "$tool" >/dev/null || skip "$tool not found after installing ${packages[*]}"
done

# --- Teardown, armed before anything starts -----------------------------------------------------------
dir="$(mktemp -d "${TMPDIR:-/tmp}/slurm-cluster.XXXXXX")"
chmod 755 "$dir"  # munged refuses group- or world-writable directories on its paths
body_pid=""
stopped=false

stop_pid_file() {  # name, pid file: TERM, up to 15 s for it to go, then KILL
  local name="$1" file="$2" pid i
  [ -s "$file" ] || return 0
  pid="$(cat "$file")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 150; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name (pid $pid) ignored SIGTERM; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true  # reaps it where it is our child (the daemons run in the foreground)
}

# Job steps (slurmstepd and the tasks under it) are not children of slurmd once started; they are
# found by what is ours: a working directory, an open file or a command line inside $dir. Run last,
# when our daemons are gone, so it finds only what outlived them.
leftover_pids() {
  local p pid
  for p in /proc/[0-9]*; do
    pid="${p#/proc/}"
    [ "$pid" = $$ ] && continue
    if [[ "$(readlink "$p/cwd" 2>/dev/null)/" == "$dir/"* ]] ||
      [ -n "$(find "$p/fd" -maxdepth 1 -lname "$dir/*" -print -quit 2>/dev/null)" ] ||
      { tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF "$dir/"; }; then
      if [ -d "$p" ]; then echo "$pid"; fi  # still there
    fi
  done
}

teardown() {
  local status=$? pids
  $stopped && return
  stopped=true
  trap '' INT TERM
  if [ -n "$body_pid" ] && kill -0 "$body_pid" 2>/dev/null; then
    log "stopping the test body (pid $body_pid)"
    kill -TERM "$body_pid" 2>/dev/null || true
    wait "$body_pid" 2>/dev/null || true
  fi
  if [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
    scancel --quiet --partition=test 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  stop_pid_file slurmd "$dir/slurmd.pid"
  stop_pid_file slurmctld "$dir/slurmctld.pid"
  stop_pid_file munged "$dir/munged.pid"
  mapfile -t pids < <(leftover_pids)
  if [ ${#pids[@]} -gt 0 ]; then
    log "killing processes left in $dir: ${pids[*]}"
    kill -KILL "${pids[@]}" 2>/dev/null || true
  fi
  rm -rf "$dir"
  exit "$status"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail_with_logs() {
  log "$*"
  local f
  for f in "$dir"/log/*; do
    [ -s "$f" ] || continue
    echo "---- $(basename "$f") (last 40 lines)" >&2
    tail -n 40 "$f" >&2
  done
  exit 1
}

# --- Ports: two that nothing listens on, away from Slurm's defaults (6817, 6818) ------------------------
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() {
  local p i
  for ((i = 0; i < 200; i++)); do
    p=$((20000 + RANDOM % 20000))
    [ "$p" = "${1:-}" ] && continue
    port_in_use "$p" || {
      echo "$p"
      return
    }
  done
  return 1
}
ctld_port="$(pick_port)" || fail_with_logs "no free port found"
slurmd_port="$(pick_port "$ctld_port")" || fail_with_logs "no free port found"

# --- munge ------------------------------------------------------------------------------------------
mkdir -p "$dir/munge" "$dir/log" "$dir/state" "$dir/spool" "$dir/work"
chmod 700 "$dir/munge"
mungekey --create --keyfile="$dir/munge/munge.key" 2>/dev/null ||
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
socket="$dir/munge/munge.socket"
setsid munged --foreground --force --key-file="$dir/munge/munge.key" --socket="$socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munge.seed" \
  >>"$dir/log/munged.log" 2>&1 &
echo $! >"$dir/munged.pid"  # munged writes it too; this one is there at once, for the teardown
for ((i = 0; i < 100; i++)); do
  [ -S "$socket" ] && break
  kill -0 "$(cat "$dir/munged.pid")" 2>/dev/null || fail_with_logs "munged exited at start"
  sleep 0.1
done
[ -S "$socket" ] || fail_with_logs "munged did not create its socket"

# --- Slurm ------------------------------------------------------------------------------------------
node="$(hostname -s 2>/dev/null || hostname)"
cpus="$(nproc)"
export SLURM_CONF="$dir/slurm.conf"
cat >"$SLURM_CONF" <<EOF
# One-node test cluster written by tests/slurm/slurm_cluster.sh; lives and dies with $dir.
ClusterName=gemmtune-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

# Foreground daemons in the background: their pids are known at once and they are our children.
# setsid (which execs in place: a background child leads no process group) keeps them, and the jobs
# slurmd starts, out of this terminal's process group, so a Ctrl-C reaches only this script, whose
# teardown then cancels the jobs through a controller that is still up.
setsid slurmctld -D -c -f "$SLURM_CONF" >>"$dir/log/slurmctld.out" 2>&1 &
echo $! >"$dir/slurmctld.pid"
setsid slurmd -D -N "$node" -f "$SLURM_CONF" >>"$dir/log/slurmd.out" 2>&1 &
echo $! >"$dir/slurmd.pid"

state=""
for ((i = 0; i < 600; i++)); do
  kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null || fail_with_logs "slurmctld exited at start"
  kill -0 "$(cat "$dir/slurmd.pid")" 2>/dev/null || fail_with_logs "slurmd exited at start"
  state="$(sinfo -h -N -n "$node" -o %T 2>/dev/null || true)"
  [ "$state" = idle ] && break
  sleep 0.1
done
[ "$state" = idle ] || fail_with_logs "node $node not idle after 60 s (state: '${state:-no answer}')"
log "cluster up: node $node ($cpus CPUs), slurmctld port $ctld_port, slurmd port $slurmd_port, in $dir"

# --- The body ----------------------------------------------------------------------------------------
# Run in the background and waited for, so INT and TERM reach the teardown at once.
while read -r var; do unset "$var"; done < <(compgen -e | grep '^SLURM_' | grep -vx 'SLURM_CONF')
export SLURM_CLUSTER_WORKDIR="$dir/work"
"$@" &
body_pid=$!
set +e
wait "$body_pid"
status=$?
set -e
body_pid=""
exit "$status"
