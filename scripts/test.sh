#!/usr/bin/env bash
# Installs what the tests need (scripts/setup.sh first), builds the test suite into ./build and runs it, then holds
# the run to the test cases written (scripts/check_test_runs.py: every Catch2 case has one CTest entry and ran once).
#   scripts/test.sh [ctest arguments, e.g. -R 'evr:']
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/packages.sh
ensure_packages "${build_packages[@]}" "${test_packages[@]}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DAF_WERROR=ON -DAF_BUILD_TESTS=ON ${AF_CMAKE_ARGS:-} > /dev/null
cmake --build build -j "${AF_JOBS:-2}"
# The whole output of a passing test is kept in ctest's log (by default only its first 1 KiB), so the summary line
# check_test_runs.py reads is there.
status=0
ctest --test-dir build --output-on-failure --test-output-size-passed 1048576 -j "${AF_JOBS:-2}" "$@" || status=$?
# With no ctest arguments the run is the whole suite, and every entry must have run.
whole=()
[ $# -eq 0 ] && whole=(--all)
python3 scripts/check_test_runs.py "${whole[@]}" build || status=1
exit $status
