#!/usr/bin/env bash
# Regenerates the step reference in pipeline/engine/README.md (the part between
# its "BEGIN step reference" and "END step reference" markers) from
# `assetforge steps --markdown`, with the build's own plugins only. Run it after
# changing a step's or a stage's parameters; cli:"the README's step reference
# is what assetforge steps --markdown prints" fails until then.
#   scripts/update-step-docs.sh [build-dir]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
af=${1:-build}/bin/assetforge
readme=pipeline/engine/README.md
begin='^<!-- BEGIN step reference'
end='^<!-- END step reference'
grep -q "$begin" "$readme" && grep -q "$end" "$readme" || { echo "$readme: step reference markers missing" >&2; exit 1; }
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.readme"' EXIT
env -u ASSETFORGE_PLUGIN_PATH "$af" steps --markdown > "$tmp"
awk -v generated="$tmp" -v begin="$begin" -v end="$end" '
  $0 ~ begin { print; while ((getline line < generated) > 0) print line; skipping = 1; next }
  $0 ~ end { skipping = 0 }
  !skipping { print }' "$readme" > "$tmp.readme"
cat "$tmp.readme" > "$readme"
echo "updated the step reference in $readme"
