#!/usr/bin/env bash
# Long run of the Echo VR write side's property test: N generated sets (default 1000) at random points of
# the independent generator's parameter space, each with a random partial replacement, checked by the
# independent reader. A failing case is appended to plugins/evr/tests/property_regressions.txt (review it,
# keep it: every run, CI's included, replays that list first) and its files kept under build/evr-property/.
#   scripts/evr_property.sh [N] [MASTER_SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
SEED=${2:+--master-seed $2}
AF=${ASSETFORGE:-build/bin/assetforge}
[ -x "$AF" ] || { echo "evr_property: build first ($AF missing)" >&2; exit 2; }
mkdir -p build/evr-property
exec /usr/bin/python3 plugins/evr/tests/evr_property.py --assetforge "$AF" --cases "$N" $SEED \
  --regressions plugins/evr/tests/property_regressions.txt \
  --record plugins/evr/tests/property_regressions.txt --keep build/evr-property
