#!/usr/bin/env bash
# Builds the engine's tests with ThreadSanitizer into build-tsan and runs them:
# the scheduler (TBB task_group, state store, progress, claims) and the
# parallel image operations it drives; and the remote cache client's tests,
# whose RemoteCache is shared by many threads. Only what these tests need is built.
#   scripts/test-tsan.sh [extra ctest arguments]
# Suppressions (third-party false positives only, each explained):
# scripts/tsan.supp.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" -DAF_SANITIZE=thread -DAF_WERROR=ON > /dev/null
cmake --build build-tsan -j "${AF_JOBS:-2}" --target engine_tests engine_build_driver remote_tests
# --build-only: the build alone, as .ci/run starts it in the background while other tests run.
[ "${1:-}" = --build-only ] && exit 0
# halt_on_error: the first race fails the test; second_deadlock_stack: both
# stacks of a lock-order inversion.
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:history_size=4:suppressions=$PWD/scripts/tsan.supp ${TSAN_OPTIONS:-}"
ctest --test-dir build-tsan --output-on-failure -j "${AF_JOBS:-2}" -R '^(engine|remote):' "$@"
