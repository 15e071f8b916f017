#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (ASan+UBSan) and runs each one.
#   fuzz/run.sh                 every harness, 20000 runs each (a smoke run)
#   fuzz/run.sh -t 600          every harness for 600 seconds each
#   fuzz/run.sh -t 600 fuzz_dds one harness
#   fuzz/run.sh -s 1 -r 4000    a fixed seed: the same inputs on every run of the same code
#   fuzz/run.sh -b build-asan   the harnesses of an existing clang AF_FUZZ build (CI: scripts/test-sanitize.sh's)
# Crashes land in fuzz/findings/<harness>/; copy each into the owning plugin's
# tests as a regression case once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/packages.sh
ensure_packages "${build_packages[@]}" "${fuzz_packages[@]}"
runs=20000 secs=0 seed=() build=build-fuzz
while getopts "r:t:s:b:" o; do
  case $o in r) runs=$OPTARG ;; t) secs=$OPTARG ;; s) seed=(-seed="$OPTARG") ;; b) build=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
if [ "$build" = build-fuzz ]; then
  # -O1 -g1, as the sanitizer stage and OSS-Fuzz build: the harnesses compile in well under the time of -O2 -g, and
  # line tables are all a crash report needs. AF_FUZZ gives every object the fuzzer's coverage hooks.
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAF_FUZZ=ON \
    -DAF_SANITIZE=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DAF_BUILD_TESTS=OFF -DAF_WERROR=OFF ${AF_CMAKE_ARGS:-} > /dev/null
elif ! grep -qs '^AF_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "fuzz: $build is not a build configured with AF_FUZZ=ON" >&2
  exit 2
fi
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  mapfile -t harnesses < <(ninja -C "$build" -t targets all | sed -n 's/^\(fuzz_[a-z0-9_]*\): .*/\1/p' | sort -u)
  # Every fuzz/fuzz_*.cpp must have become a target: a harness whose plugin target was renamed would
  # otherwise drop out of every run without a word.
  mapfile -t sources < <(cd fuzz && ls fuzz_*.cpp | sed 's/\.cpp$//' | sort)
  if [ "${sources[*]}" != "${harnesses[*]}" ]; then
    echo "fuzz: harness sources (${sources[*]}) and build targets (${harnesses[*]}) differ" >&2
    exit 1
  fi
fi
ninja -C "$build" -j "${AF_JOBS:-2}" "${harnesses[@]}"
failed=()
for h in "${harnesses[@]}"; do
  corpus=$build/corpus/$h findings=fuzz/findings/$h
  mkdir -p "$corpus" "$findings"
  seeds=fuzz/seeds/${h#fuzz_}
  [ -d "$seeds" ] && cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true
  limit=(-runs="$runs")
  [ "$secs" != 0 ] && limit=(-max_total_time="$secs")
  echo "== $h"
  # libFuzzer exits non-zero on a crash, leak, timeout or OOM: that fails the run (CI builds and smoke-runs
  # every harness through this script), after the report lines are shown.
  status=0
  "$build/bin/$h" "${limit[@]}" "${seed[@]}" -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$findings/" -print_final_stats=1 \
    "$corpus" > "$build/$h.log" 2>&1 || status=$?
  grep -E 'stat::number_of_executed_units|ERROR|SUMMARY|Done' "$build/$h.log" || true
  if [ "$status" != 0 ]; then
    echo "fuzz: $h failed (exit $status); log $build/$h.log, input in $findings/" >&2
    tail -n 40 "$build/$h.log" >&2
    failed+=("$h")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failing harnesses: ${failed[*]}" >&2
  exit 1
fi
