#!/usr/bin/env bash
# Installs AssetForge into a temporary prefix, builds the example plugin out of
# tree against the installed SDK, and checks that the installed host loads it
# from $ASSETFORGE_PLUGIN_PATH and reads, writes and describes its files.
set -euo pipefail
build=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$src/examples/plugin-sdk" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
# assetforge_add_plugin() of the installed SDK exports the entry symbol only.
"$src/tests/plugin_exports_test.sh" "$work/build/af_rawrgba.so"
af="$work/prefix/bin/assetforge"
export ASSETFORGE_PLUGIN_PATH="$work/build"
"$af" plugins | tee "$work/plugins.txt"
grep -q '^rawrgba 1.0.0' "$work/plugins.txt"
grep -q 'container rawrgba' "$work/plugins.txt"
# The installed host finds the installed in-tree plugins too.
for p in dds bc xtf vtpages; do
  if [ -f "$build/lib/assetforge/plugins/af_$p.so" ]; then grep -q "^$p " "$work/plugins.txt"; fi
done
# A 2x1 file written by hand: magic, width, height, format 28, 8 texel bytes.
printf 'AFRW\002\000\000\000\001\000\000\000\034\000\000\000\001\002\003\004\005\006\007\010' > "$work/t.afr"
"$af" info "$work/t.afr" | tee "$work/info.txt"
grep -q 'dimensions: 2x1' "$work/info.txt"
# Truncated file: exit code 1 and a message naming the file.
head -c 20 "$work/t.afr" > "$work/bad.afr"
set +e
"$af" info "$work/bad.afr" 2> "$work/err.txt"; rc=$?
set -e
[ "$rc" = 1 ] || { echo "expected exit 1, got $rc"; exit 1; }
grep -q "bad.afr" "$work/err.txt"
if "$af" --help | grep -q ' convert '; then
  "$af" convert "$work/t.afr" "$work/t.png"
  # The PNG is untagged (colour of unstated space) and reads back as sRGB: --like
  # re-encodes exactly as the original (format 28, one level).
  "$af" convert "$work/t.png" "$work/back.afr" --like "$work/t.afr"
  cmp "$work/t.afr" "$work/back.afr"
fi
echo "sdk plugin test passed"
