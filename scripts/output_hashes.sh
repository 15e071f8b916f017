#!/usr/bin/env bash
# SHA-256 of everything a given assetforge makes of the bundled example and of the test images through `convert`
# (every block format, HDR, normal maps, mips, XTF, VTF, PNG): run it with two builds and diff the lists to show a
# change kept every output byte. The quickstart's own plugin folder is used, never the user's.
#   scripts/output_hashes.sh build/bin/assetforge > after.txt
set -euo pipefail
af=$(realpath "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset ASSETFORGE_PLUGIN_PATH
export ASSETFORGE_NOOP_RECORDS=off

cp -r "$root/examples/quickstart" "$work/quickstart"
rm -rf "$work/quickstart/build"
(cd "$work/quickstart" && "$af" build -q > /dev/null)

img=$root/tests/data/images
out=$work/convert
mkdir -p "$out"
for src in "$img"/*.png; do
  stem=$(basename "$src" .png)
  for f in auto bc1 bc3 bc4 bc5 bc7 bc6h rgba8; do
    "$af" convert -y --mips --format "$f" "$src" "$out/$stem.$f.dds" > /dev/null 2>&1 || echo "convert $stem $f: failed"
  done
  "$af" convert -y --normal-map "$src" "$out/$stem.normal.dds" > /dev/null 2>&1 || echo "convert $stem normal: failed"
  "$af" convert -y "$src" "$out/$stem.xtf" > /dev/null 2>&1 || echo "convert $stem xtf: failed"
  "$af" convert -y "$src" "$out/$stem.vtf" > /dev/null 2>&1 || echo "convert $stem vtf: failed"
  "$af" convert -y "$out/$stem.bc7.dds" "$out/$stem.back.png" > /dev/null 2>&1 || echo "convert $stem back: failed"
  "$af" convert -y --resize 37x23 --mip-filter lanczos3 "$src" "$out/$stem.small.png" > /dev/null 2>&1 ||
    echo "convert $stem resize: failed"
done
# Zip entries carry fixed timestamps; the report and state are not outputs.
(cd "$work" && find quickstart/build convert -type f ! -name '*.json' -print0 | sort -z | xargs -0 sha256sum)
