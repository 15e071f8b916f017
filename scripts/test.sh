#!/usr/bin/env bash
# Installs what the tests need (scripts/setup.sh first), builds the test suite into ./build and runs it.
#   scripts/test.sh [ctest arguments, e.g. -R 'evr:']
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/packages.sh
ensure_packages "${build_packages[@]}" "${test_packages[@]}"
# AF_UNITY_TESTS=ON compiles the tests in unity batches (a fresh build's test compile in less than half the time;
# CI sets it). Unset, the build folder keeps what it has: off by default, so one edited test file rebuilds alone.
unity=()
[ -n "${AF_UNITY_TESTS:-}" ] && unity=(-DAF_UNITY_TESTS="$AF_UNITY_TESTS")
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DAF_WERROR=ON -DAF_BUILD_TESTS=ON "${unity[@]}" ${AF_CMAKE_ARGS:-} > /dev/null
cmake --build build -j "${AF_JOBS:-2}"
ctest --test-dir build --output-on-failure -j "${AF_JOBS:-2}" "$@"
