#!/usr/bin/env bash
# One clang build under AddressSanitizer + UndefinedBehaviorSanitizer, build-asan: the whole test suite runs there,
# and the libFuzzer harnesses are built from the same objects (AF_FUZZ: every object carries the fuzzer's coverage
# hooks), so `fuzz/run.sh -b build-asan` runs them without a second build. After scripts/test.sh, which installs
# the test packages.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/packages.sh
ensure_packages "${build_packages[@]}" "${test_packages[@]}" "${fuzz_packages[@]}"
# -O1 -g1, asserts on: builds in under half the time of -O2 -g, and line tables are all a sanitizer report needs.
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" -DAF_SANITIZE=ON -DAF_FUZZ=ON \
  -DAF_WERROR=ON -DAF_BUILD_TESTS=ON ${AF_CMAKE_ARGS:-} > /dev/null
cmake --build build-asan -j "${AF_JOBS:-2}"
# --build-only: the build alone, as .ci/run starts it in the background while other tests run.
[ "${1:-}" = --build-only ] && exit 0
# max_allocation_size_mb: no single allocation above 4 GiB anywhere in the suite. Hostile sizes must be refused
# before anything is allocated; a test that only checks the error message would otherwise pass while the code
# zeroes gigabytes first on a machine with the memory (the TGA example's reader did, unnoticed for a wave).
# intercept_tls_get_addr=0: the runtime can take a thread's dynamic TLS block for one with the header of glibc
# before 2.25 whenever the block's address modulo 4096 happens to equal that header's size, and then records a
# range that spans terabytes; LeakSanitizer's stop-the-world tracer walks it at a process's exit and dies
# ("Tracer caught signal 11", seen here with GCC 12's runtime). The runtime's advice for that bug
# (google/sanitizers#1322) is this flag; it could hide only a leak held through a plugin's dynamic TLS alone.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:max_allocation_size_mb=4096:intercept_tls_get_addr=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Left out here, run by the release stage (AF_SANITIZE_ALL=1 runs everything):
# - the end-to-end scripts (an out-of-tree plugin build, Slurm, Chromium, nginx, a shell round trip, real game
#   trees): they drive the host code the other tests reach while mostly waiting on outside programs (the exports
#   check stays: it reads this build's plugins);
# - the tests whose subject is peak memory on large images (4300², 4096² pairs, 2048²): a sanitizer's allocator
#   makes RSS meaningless, so their bound is lifted in this build, and what is left is the banded code that smaller
#   tests reach, at a size that cost 179 of the stage's 822 test-seconds on a CI run (large images alone: 114).
exclude=()
[ "${AF_SANITIZE_ALL:-0}" = 1 ] ||
  exclude=(-E '^(real-tree:|slurm:|e2e:(out-of-tree|slurm|--report|cmake --install| the nginx| a linked)|cli:build: (large legitimate images|an image whose estimate exceeds)|cli:convert: --memory-budget refuses|cli:compare: two 4096)')
# A failed test runs up to twice more, as a guard against the tracer crash above; a real error fails all three
# runs, and the first failure stays in the log.
status=0
ctest --test-dir build-asan --output-on-failure --test-output-size-passed 1048576 -j "${AF_JOBS:-2}" --repeat until-pass:3 "${exclude[@]}" "$@" ||
  status=$?
python3 scripts/check_test_runs.py build-asan || status=1
exit $status
