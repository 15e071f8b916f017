#!/usr/bin/env bash
# A throw-away single-node Slurm "cluster" for tests: munged, slurmctld and
# slurmd on this machine, with every config, key, socket, state, spool, log
# and pid file under one directory. Nothing in /etc/slurm, /etc/munge, /var,
# /run or $HOME is read or written, and the system's own munge/slurm services
# (if any) are neither used nor touched.
#
#   slurm-cluster.sh start DIR [--owner PID|--no-owner]
#       Starts the cluster and prints `export SLURM_CONF=DIR/slurm.conf` on
#       stdout (everything else goes to stderr), so a caller does
#           eval "$(tests/slurm/slurm-cluster.sh start "$dir")"
#       and then uses sbatch/squeue/scontrol as usual. A leftover cluster of
#       an earlier run in the same DIR is stopped first and its state wiped.
#       A watchdog stops the cluster when the owner process (by default the
#       caller, i.e. our parent) exits or DIR/slurm.conf is removed, so a
#       killed test does not leave daemons behind. --no-owner keeps it up
#       until `stop` (or the removal of DIR).
#   slurm-cluster.sh stop DIR
#       Cancels the cluster's jobs, stops slurmd, slurmctld and munged (only
#       the processes whose pids DIR recorded and whose command line names
#       DIR) and waits for them to exit.
#   slurm-cluster.sh wait-job DIR JOBID [TIMEOUT_S]
#       Waits (default 300 s) until the job - every task of an array job -
#       has finished. Exits 0 if every task COMPLETED with exit code 0,
#       1 otherwise (failed, cancelled, timed out, or the wait timed out),
#       printing each task's state on stderr.
#
# Needs Debian packages: slurmctld slurmd slurm-client munge (and iproute2
# for ss). Tested as root on Debian 12 (Slurm 22.05, munge 0.5.15).
# Environment: SLURM_CLUSTER_START_TIMEOUT (seconds, default 60).
set -euo pipefail

prog=$(basename "$0")
self=$(readlink -f "$0")

die() { echo "$prog: $*" >&2; exit 1; }
log() { echo "$prog: $*" >&2; }

usage() {
  sed -n '/^#   slurm-cluster.sh/,/^# Needs/p' "$self" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# The cluster's layout inside DIR.
layout() {
  DIR=$1
  CONF=$DIR/slurm.conf
  KEY=$DIR/munge.key
  SOCK=$DIR/munge.socket
  STATE=$DIR/state
  SPOOL=$DIR/spool
  LOGS=$DIR/log
  RUN=$DIR/run
}

# Runs a Slurm command against this cluster only: SLURM_CONF points at DIR,
# and no SLURM_*/SBATCH_*/... variable of the caller (say, a test that itself
# runs inside a real Slurm job) leaks in.
ENVCMD=()
slurm_env() {
  if ((${#ENVCMD[@]} == 0)); then
    local v
    ENVCMD=(env)
    while read -r v; do ENVCMD+=(-u "$v"); done < <(compgen -e | grep -E '^(SLURM|SBATCH|SALLOC|SRUN|SQUEUE|SINFO|SCONTROL|SACCT|SCANCEL)_' || true)
    ENVCMD+=(SLURM_CONF="$CONF")
  fi
  "${ENVCMD[@]}" "$@"
}

# True if PID is alive and its command line names DIR, i.e. it is one of
# this cluster's processes and not an unrelated one that reused the pid.
ours() {
  local pid=$1 cmdline
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ -r /proc/$pid/cmdline ]] || return 1
  cmdline=$({ tr '\0' ' ' < "/proc/$pid/cmdline"; } 2>/dev/null) || return 1
  [[ $cmdline == *"$DIR/"* || $cmdline == *"$DIR "* ]]
}

# Sends SIGTERM to each of our PIDs, waits up to 15 s, then SIGKILLs the rest.
terminate() {
  local pids=() pid i
  for pid in "$@"; do ours "$pid" && pids+=("$pid"); done
  ((${#pids[@]})) || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for ((i = 0; i < 150; i++)); do
    local alive=0
    for pid in "${pids[@]}"; do ours "$pid" && alive=1; done
    ((alive)) || return 0
    sleep 0.1
  done
  for pid in "${pids[@]}"; do
    if ours "$pid"; then
      log "pid $pid did not exit on SIGTERM; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

read_pid() {
  if [[ -f $RUN/$1.pid ]]; then tr -dc '0-9' < "$RUN/$1.pid" 2>/dev/null || true; fi
}

# A TCP port nothing on this machine listens on (nor was handed out in this
# call). Ports are drawn at random from 20000-59999 so that two clusters
# starting at once are unlikely to pick the same ones; start retries with
# new ports if a daemon still fails to bind.
declare -A taken_ports=()
free_port() {
  local p i
  for ((i = 0; i < 200; i++)); do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    [[ -n ${taken_ports[$p]:-} ]] && continue
    if [[ -z $(ss -Htan "( sport = :$p or dport = :$p )" 2>/dev/null) ]]; then
      taken_ports[$p]=1
      echo "$p"
      return 0
    fi
  done
  die "no free TCP port found"
}

dump_logs() {
  local f
  for f in "$LOGS"/*; do
    [[ -f $f ]] || continue
    echo "----- $f (last 40 lines) -----" >&2
    tail -n 40 "$f" >&2 || true
  done
}

# Polls COMMAND until it succeeds; fails when DEADLINE (epoch seconds)
# passes or the daemon NAME has exited.
wait_until() {
  local deadline=$1 name=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    if ! daemon_alive "$name"; then
      log "$name exited"
      return 1
    fi
    (($(date +%s) < deadline)) || return 1
    sleep 0.2
  done
}

munge_ok() { munge -n -S "$SOCK" | unmunge -S "$SOCK"; }
ctld_up() { slurm_env timeout 3 scontrol ping | grep -q 'is UP'; }
node_idle() {
  local s
  s=$(slurm_env timeout 3 sinfo -h -N -n "$NODE" -o '%T') || return 1
  [[ $s == idle ]]
}
# True while the daemon NAME runs or is still starting. spawn starts it through env and setsid, and until the
# last execve its command line is this script's, env's, or (during each execve) empty, so `ours` alone can say
# "exited" of a healthy daemon (it did, of munged, on a loaded machine). A child of this shell that is not a
# zombie is one we spawned and is still there.
daemon_alive() {
  local pid fields
  pid=$(read_pid "$1")
  ours "$pid" && return 0
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  # /proc/PID/stat after the command name: state, parent pid, ...
  fields=$({ sed 's/.*) //' "/proc/$pid/stat"; } 2>/dev/null) || return 1
  read -r -a fields <<< "$fields"
  [[ ${fields[0]:-Z} != [ZX] && ${fields[1]:-} == "$$" ]]
}

stop_cluster() {
  local d m c
  d=$(read_pid slurmd); c=$(read_pid slurmctld); m=$(read_pid munged)
  # Cancel what still runs so slurmd's job steps (slurmstepd, which detach
  # from slurmd) end with it.
  if ours "$c" && [[ -f $CONF ]]; then
    local jobs
    jobs=$(slurm_env timeout 10 squeue -h -o %A 2>/dev/null < /dev/null | sort -u | tr '\n' ' ') || true
    if [[ -n ${jobs// /} ]]; then
      # shellcheck disable=SC2086
      slurm_env timeout 10 scancel $jobs 2>/dev/null || true
      local i
      for ((i = 0; i < 50; i++)); do
        [[ -z $(slurm_env timeout 5 squeue -h -t running,completing -o %A 2>/dev/null) ]] && break
        sleep 0.2
      done
    fi
  fi
  terminate "$(read_pid watchdog)"
  terminate "$d"
  terminate "$c"
  terminate "$m"
  rm -f "$RUN"/*.pid 2>/dev/null || true
}

write_conf() {
  local ctld_port=$1 slurmd_port=$2 cpus mem user
  cpus=$(nproc)
  # Well below what the machine has: slurmd drains a node whose RealMemory
  # is more than it finds.
  mem=$(awk '/^MemTotal:/ { m = int($2 / 1024 / 2); print (m < 1024 ? m : 1024) }' /proc/meminfo)
  user=$(id -un)
  cat > "$CONF" <<EOF
# Generated by tests/slurm/slurm-cluster.sh for a throw-away test cluster.
ClusterName=aftest$$
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
StateSaveLocation=$STATE
SlurmdSpoolDir=$SPOOL
SlurmctldPidFile=$RUN/slurmctld.conf.pid
SlurmdPidFile=$RUN/slurmd.conf.pid
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups, no systemd: works in a container.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobContainerType=job_container/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# Dependent jobs start as soon as their dependency is met; a job whose
# dependency can never be met is cancelled instead of pending forever.
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
DependencyParameters=kill_invalid_depend
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
# No mail program on test machines (slurmctld logs an error without one).
MailProg=/bin/true
# Finished jobs stay visible to scontrol (wait-job) for an hour.
MinJobAge=3600
ReturnToService=2
SlurmdParameters=config_overrides
SlurmdTimeout=30
SlurmctldTimeout=30
InactiveLimit=0
KillWait=5
Waittime=0
NodeName=$NODE NodeAddr=127.0.0.1 NodeHostname=$NODE CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
}

# Starts "$@" detached (own session, stdio to LOGFILE) and records its pid.
spawn() {
  local name=$1 logfile=$2; shift 2
  # Not a process group leader (no job control here), so setsid execs in
  # place and $! is the daemon's own pid.
  slurm_env true
  "${ENVCMD[@]}" setsid "$@" < /dev/null >> "$logfile" 2>&1 &
  echo $! > "$RUN/$name.pid"
}

start_once() {
  local deadline=$1 ctld_port slurmd_port
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  write_conf "$ctld_port" "$slurmd_port"

  spawn slurmctld "$LOGS/slurmctld.out" slurmctld -D -f "$CONF"
  if ! wait_until "$deadline" slurmctld ctld_up; then
    log "slurmctld did not come up (port $ctld_port)"
    return 1
  fi
  spawn slurmd "$LOGS/slurmd.out" slurmd -D -f "$CONF" -N "$NODE"
  if ! wait_until "$deadline" slurmd node_idle; then
    log "node $NODE did not become idle (slurmd port $slurmd_port)"
    return 1
  fi
}

start_cluster() {
  local owner=$1 timeout=${SLURM_CLUSTER_START_TIMEOUT:-60} t0 deadline attempt
  t0=$(date +%s)
  deadline=$((t0 + timeout))
  for cmd in munged mungekey munge unmunge slurmctld slurmd sbatch scontrol sinfo squeue scancel ss setsid; do
    command -v "$cmd" > /dev/null || die "$cmd not found (apt-get install slurmctld slurmd slurm-client munge iproute2)"
  done
  # Unix socket paths are limited to 108 bytes; slurmstepd puts
  # "<node>_<jobid>.<stepid>" sockets in the spool directory.
  ((${#DIR} <= 60)) || die "DIR path too long for Unix sockets (${#DIR} > 60 chars): $DIR"

  # A leftover of an earlier run in this DIR: stop it and forget its state.
  if [[ -d $RUN ]]; then
    local name
    for name in watchdog slurmd slurmctld munged; do
      if daemon_alive "$name"; then
        log "stopping a leftover cluster in $DIR"
        stop_cluster
        break
      fi
    done
  fi
  rm -rf "$STATE" "$SPOOL" "$LOGS" "$RUN" "$SOCK" "$SOCK.lock" "$DIR/munged.seed" "$KEY"
  mkdir -p "$STATE" "$SPOOL" "$LOGS" "$RUN"
  chmod 700 "$STATE" "$SPOOL" "$LOGS" "$RUN"

  # munged: its own key, socket, pid, log and seed files in DIR. -f: it
  # refuses to start when any parent of DIR is writable by others (e.g. /tmp)
  # unless forced.
  mungekey -c -k "$KEY" 2>> "$LOGS/munged.out" || dd if=/dev/urandom of="$KEY" bs=1024 count=1 status=none
  chmod 600 "$KEY"
  spawn munged "$LOGS/munged.out" munged -F -f \
    --socket="$SOCK" --key-file="$KEY" --pid-file="$RUN/munged.conf.pid" \
    --log-file="$LOGS/munged.log" --seed-file="$DIR/munged.seed"
  if ! wait_until "$deadline" munged munge_ok; then
    log "munged did not come up"
    dump_logs
    stop_cluster
    exit 1
  fi

  for attempt in 1 2 3; do
    if start_once "$deadline"; then
      break
    fi
    if ((attempt < 3)) && (($(date +%s) < deadline)) &&
       grep -qs 'Address already in use' "$LOGS/slurmctld.log" "$LOGS/slurmd.log" "$LOGS/slurmctld.out" "$LOGS/slurmd.out"; then
      log "port clash; retrying with other ports"
      terminate "$(read_pid slurmd)" "$(read_pid slurmctld)"
      rm -rf "$STATE" "$SPOOL"; mkdir -p "$STATE" "$SPOOL"; chmod 700 "$STATE" "$SPOOL"
      for f in "$LOGS"/slurm*; do mv "$f" "$f.attempt$attempt"; done
      continue
    fi
    dump_logs
    stop_cluster
    exit 1
  done

  # The watchdog keeps the pids in its own memory, so it can still stop the
  # daemons after DIR was removed. (Read them here: the words of a command
  # run with & are expanded in the child, possibly after DIR is gone.)
  local pids
  pids=("$(read_pid slurmd)" "$(read_pid slurmctld)" "$(read_pid munged)")
  setsid "$self" __watchdog "$DIR" "$owner" "${pids[@]}" \
    < /dev/null >> "$LOGS/watchdog.log" 2>&1 &
  echo $! > "$RUN/watchdog.pid"
  log "cluster up in $(($(date +%s) - t0)) s: node $NODE, slurmctld port $(sed -n 's/^SlurmctldPort=//p' "$CONF"), conf $CONF"
  printf 'export SLURM_CONF=%q\n' "$CONF"
}

watchdog() {
  local owner=$1; shift
  local pids=("$@")
  while [[ -f $CONF ]] && { [[ $owner == 0 ]] || kill -0 "$owner" 2>/dev/null; }; do
    sleep 1
  done
  if [[ -f $CONF ]]; then
    echo "$(date): owner $owner exited; stopping the cluster"
    stop_cluster_from_watchdog "${pids[@]}"
  else
    echo "$(date): $CONF removed; stopping the cluster" 2>/dev/null || true
    terminate "${pids[@]}"
  fi
}

stop_cluster_from_watchdog() {
  rm -f "$RUN/watchdog.pid"
  stop_cluster
  terminate "$@"
}

# One line per job record: "JobId ArrayTaskId JobState ExitCode Reason".
job_records() {
  slurm_env scontrol -o show job "$1" | awk '{
    id = ""; task = "-"; st = ""; ec = ""; why = ""
    for (i = 1; i <= NF; i++) {
      split($i, kv, "=")
      if (kv[1] == "JobId") id = kv[2]
      else if (kv[1] == "ArrayTaskId") task = kv[2]
      else if (kv[1] == "JobState") st = kv[2]
      else if (kv[1] == "ExitCode") ec = kv[2]
      else if (kv[1] == "Reason") why = kv[2]
    }
    if (id != "") print id, task, st, ec, why
  }'
}

wait_job() {
  local job=$1 timeout=${2:-300} deadline recs pending out
  [[ $job =~ ^[0-9]+(_[0-9]+)?$ ]] || die "bad job id: $job"
  deadline=$(($(date +%s) + timeout))
  while :; do
    if ! out=$(job_records "$job" 2>&1) || [[ -z $out ]]; then
      # An unknown job fails at once; anything else (slurmctld busy or
      # restarting) is retried until the deadline.
      if [[ -z $out || $out == *"Invalid job id"* ]] || ! daemon_alive slurmctld ||
         (($(date +%s) >= deadline)); then
        log "scontrol show job $job failed: ${out:-no such job}"
        return 1
      fi
      sleep 1
      continue
    fi
    recs=$out
    pending=$(awk '$3 !~ /^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|PREEMPTED|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE)$/' <<< "$recs")
    [[ -z $pending ]] && break
    if (($(date +%s) >= deadline)); then
      log "timed out after ${timeout} s waiting for job $job:"
      awk '{ print "  " $0 }' <<< "$recs" >&2
      return 1
    fi
    sleep 0.5
  done
  if awk '$3 != "COMPLETED" || $4 != "0:0" { bad = 1 } END { exit bad }' <<< "$recs"; then
    return 0
  fi
  log "job $job did not succeed (JobId ArrayTaskId JobState ExitCode Reason):"
  awk '{ print "  " $0 }' <<< "$recs" >&2
  return 1
}

main() {
  (($# >= 2)) || usage
  local cmd=$1 dir=$2
  shift 2
  NODE=$(hostname -s)
  if [[ $cmd == __watchdog ]]; then
    # DIR is already absolute and may be gone by now.
    layout "$dir"
    watchdog "$@"
    return
  fi
  if [[ $cmd == start ]]; then
    mkdir -p "$dir"
  fi
  if [[ ! -d $dir ]]; then
    [[ $cmd == stop ]] && return 0  # nothing left to stop
    die "no such directory: $dir"
  fi
  layout "$(cd "$dir" && pwd -P)"
  case $cmd in
    start)
      local owner=$PPID
      while (($#)); do
        case $1 in
          --owner) owner=${2:?--owner needs a pid}; shift 2 ;;
          --no-owner) owner=0; shift ;;
          *) usage ;;
        esac
      done
      start_cluster "$owner"
      ;;
    stop)
      (($# == 0)) || usage
      stop_cluster
      ;;
    wait-job)
      (($# >= 1 && $# <= 2)) || usage
      [[ -f $CONF ]] || die "no cluster in $DIR"
      wait_job "$@"
      ;;
    *) usage ;;
  esac
}

# Sourced by a test (tests/slurm/daemon_liveness_test.sh): functions only.
[[ ${BASH_SOURCE[0]} != "$0" ]] || main "$@"
