#!/usr/bin/env bash
# Regression test of slurm-cluster.sh's "is this daemon still running?" check, without Slurm: the check
# must never call a process that is still starting "exited". A daemon is started through env and setsid,
# and between those execve steps /proc/PID/cmdline reads empty for a moment; the start once gave up on a
# healthy munged that way ("munged exited", CI on a loaded 2-core machine). Each round starts a process
# the way the script starts its daemons and asks at once, then asks again once it has really exited.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=slurm-cluster.sh
source "$here/slurm-cluster.sh"

tmp=$(mktemp -d /tmp/af-live.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
layout "$tmp"
mkdir -p "$RUN"
: > "$DIR/probe.in"
rounds=${1:-25}
# A chain of execs (env → env → … → tail) holds the process in the starting state longer than a daemon's
# env → setsid → daemon does, so that the asks below land in it.
chain=()
for ((i = 0; i < 40; i++)); do chain+=(env); done
missed=0 ghosts=0
for ((i = 0; i < rounds; i++)); do
  spawn probe "$DIR/probe.out" "${chain[@]}" tail -f "$DIR/probe.in"
  for ((k = 0; k < 5; k++)); do daemon_alive probe || missed=$((missed + 1)); done
  pid=$(read_pid probe)
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  ! daemon_alive probe || ghosts=$((ghosts + 1))
done
echo "$rounds starts, 5 asks each: $missed called exited while starting, $ghosts called running after exiting"
if ((missed || ghosts)); then
  echo "0 passed, 1 failed"
  exit 1
fi
echo "1 passed, 0 failed"
