#!/usr/bin/env bash
# Installs what building and running AssetForge needs from Debian packages (idempotent) and builds the tool, its
# plugins and the SDK into ./build — not the tests (scripts/test.sh installs and builds those). Run as root on
# Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/packages.sh
ensure_packages "${build_packages[@]}"
# Tests stay on in a build folder that has them (a developer's): turning them off would only drop their targets.
tests=OFF
grep -qs '^AF_BUILD_TESTS:BOOL=ON' build/CMakeCache.txt && tests=ON
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DAF_WERROR=ON -DAF_BUILD_TESTS=$tests ${AF_CMAKE_ARGS:-} > /dev/null
# The build's CPU time (user + system of the compilers and linkers) is kept for the compile-cost fence
# (scripts/compile_cost.py reads build/.compile_cpu_seconds).
python3 scripts/cpu_time.py build/.compile_cpu_seconds cmake --build build -j "${AF_JOBS:-2}"
