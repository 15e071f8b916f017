#!/usr/bin/env bash
# Runs the whole test suite (build first with scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
ctest --test-dir build --output-on-failure -j "${AF_JOBS:-2}" "$@"
