#!/usr/bin/env bash
# The main job on the bundled example (build first with scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
af=build/bin/assetforge
"$af" plugins
if [ -f examples/quickstart/pipeline.yaml ] && "$af" --help | grep -q ' build '; then
  "$af" build examples/quickstart/pipeline.yaml
  "$af" info examples/quickstart/out/*.dds 2>/dev/null | head -40 || true
else
  find examples/quickstart tests/data/images -type f \( -name '*.png' -o -name '*.dds' -o -name '*.xtf' \) -print0 |
    sort -z | xargs -0 "$af" info
fi
