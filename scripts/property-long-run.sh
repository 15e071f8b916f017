#!/usr/bin/env bash
# The long run of the property tests that CI runs bounded: `.pages` repack
# (plugins/vtpages/tests/tools) and XTF write/re-save (plugins/xtf/tests/tools),
# many cases per seed over several seeds. Failing cases keep their files in
# OUT (default ./property-failures) and print their parameters; add each one
# as a regression case.
#
# usage: scripts/property-long-run.sh [ASSETFORGE] [CASES_PER_SEED] [SEEDS] [OUT]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
AF=${1:-$ROOT/build/bin/assetforge}
CASES=${2:-500}
SEEDS=${3:-"2 3 4 5"}
OUT=${4:-property-failures}
mkdir -p "$OUT"
status=0
for s in $SEEDS; do
  /usr/bin/python3 "$ROOT/plugins/vtpages/tests/tools/repack_property.py" "$AF" --cases "$CASES" --seed "$s" \
    --keep "$OUT/pages-seed$s" || status=1
  /usr/bin/python3 "$ROOT/plugins/xtf/tests/tools/resave_property.py" "$AF" --cases "$CASES" --seed "$s" \
    --keep "$OUT/xtf-seed$s" || status=1
done
exit $status
