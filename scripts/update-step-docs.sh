#!/usr/bin/env bash
# Regenerates the step reference in docs/steps.md (the part between
# its "BEGIN step reference" and "END step reference" markers) from
# `assetforge steps --markdown`, with the build's own plugins only. Run it after
# changing a step's or a stage's parameters; cli:"the step reference in
# docs/steps.md is what assetforge steps --markdown prints" fails until then.
#   scripts/update-step-docs.sh [build-dir]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
af=${1:-build}/bin/assetforge
doc=docs/steps.md
begin='^<!-- BEGIN step reference'
end='^<!-- END step reference'
grep -q "$begin" "$doc" && grep -q "$end" "$doc" || { echo "$doc: step reference markers missing" >&2; exit 1; }
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.doc"' EXIT
env -u ASSETFORGE_PLUGIN_PATH "$af" steps --markdown > "$tmp"
awk -v generated="$tmp" -v begin="$begin" -v end="$end" '
  $0 ~ begin { print; while ((getline line < generated) > 0) print line; skipping = 1; next }
  $0 ~ end { skipping = 0 }
  !skipping { print }' "$doc" > "$tmp.doc"
cat "$tmp.doc" > "$doc"
echo "updated the step reference in $doc"
