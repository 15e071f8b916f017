#!/usr/bin/env bash
# Smoke test of tests/slurm/slurm-cluster.sh: starts a one-node Slurm cluster
# in a fresh temporary directory, runs a two-task job array and a job that
# depends on it (afterok) and gathers the tasks' output, and checks the files.
# A failing array must cancel its dependent job and make wait-job fail.
# Needs the Debian packages slurmctld, slurmd, slurm-client and munge.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/slurm-cluster.sh

dir=$(mktemp -d /tmp/af-slurm.XXXXXX)
cleanup() {
  local rc=$?
  "$cluster" stop "$dir" || true
  rm -rf "$dir"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t0=$(date +%s.%N)
# Not eval "$(…)": that would go on after a failed start (eval of nothing succeeds).
conf=$("$cluster" start "$dir")
eval "$conf"
t1=$(date +%s.%N)
printf 'cluster started in %.1f s\n' "$(awk "BEGIN { print $t1 - $t0 }")"

out=$dir/out
mkdir -p "$out"

# shellcheck disable=SC2016  # expanded by the job, not here
array=$(sbatch --parsable --chdir="$out" --output=slurm-%A_%a.out --array=0-1 \
  --wrap 'echo task $SLURM_ARRAY_TASK_ID > '"$out"'/$SLURM_ARRAY_TASK_ID.txt')
array=${array%%;*}
gather=$(sbatch --parsable --chdir="$out" --output=slurm-%j.out \
  --dependency=afterok:"$array" \
  --wrap "cat $out/0.txt $out/1.txt > $out/gather.txt")
gather=${gather%%;*}

"$cluster" wait-job "$dir" "$array" 120
"$cluster" wait-job "$dir" "$gather" 120

fail=0
check() {
  local file=$1 want=$2 got
  got=$(cat "$file" 2>/dev/null || echo "<missing>")
  if [[ $got == "$want" ]]; then
    echo "ok: $(basename "$file")"
  else
    echo "FAIL: $file: want $(printf %q "$want"), got $(printf %q "$got")"
    fail=1
  fi
}
check "$out/0.txt" "task 0"
check "$out/1.txt" "task 1"
check "$out/gather.txt" $'task 0\ntask 1'

# A task that fails: wait-job must report it, and the afterok job must be
# cancelled rather than run or pend forever.
# shellcheck disable=SC2016  # expanded by the job, not here
bad=$(sbatch --parsable --chdir="$out" --output=/dev/null --array=0-1 \
  --wrap 'exit $SLURM_ARRAY_TASK_ID')
bad=${bad%%;*}
never=$(sbatch --parsable --chdir="$out" --output=/dev/null \
  --dependency=afterok:"$bad" --wrap "touch $out/never.txt")
never=${never%%;*}
if "$cluster" wait-job "$dir" "$bad" 120 2>/dev/null; then
  echo "FAIL: wait-job succeeded on an array with a failing task"
  fail=1
else
  echo "ok: wait-job fails on a failing array task"
fi
if "$cluster" wait-job "$dir" "$never" 120 2>/dev/null || [[ -e $out/never.txt ]]; then
  echo "FAIL: the job depending on a failed array ran"
  fail=1
else
  echo "ok: the dependent of a failed array was cancelled"
fi

t2=$(date +%s.%N)
printf 'jobs done in %.1f s\n' "$(awk "BEGIN { print $t2 - $t1 }")"
if ((fail)); then
  echo "0 passed, 1 failed"
  exit 1
fi
echo "1 passed, 0 failed"
