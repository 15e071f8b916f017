#!/usr/bin/env bash
# Fails when a plugin's dynamic symbol table defines anything but the entry
# symbol: whatever else a plugin exports (template instances, typeinfo, the
# static code it links), another plugin's copy of the same code may bind to.
#   plugin_exports_test.sh FOLDER|PLUGIN.so…   (a folder: every af_*.so in it)
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 FOLDER|PLUGIN.so…" >&2; exit 2; }
plugins=()
for arg in "$@"; do
  if [ -d "$arg" ]; then plugins+=("$arg"/af_*.so); else plugins+=("$arg"); fi
done
status=0
for p in "${plugins[@]}"; do
  if [ ! -f "$p" ]; then
    echo "$p: no such plugin" >&2
    status=1
    continue
  fi
  symbols=$(nm -D --defined-only "$p" | awk '{ sub(/@.*/, "", $NF); print $NF }')
  if [ "$symbols" = assetforge_plugin_entry ]; then
    echo "$p: exports only assetforge_plugin_entry"
  else
    echo "$p: exports $(printf '%s\n' "$symbols" | grep -c .) symbols, not just assetforge_plugin_entry:" >&2
    printf '%s\n' "$symbols" | grep -vx assetforge_plugin_entry | head -n 20 | sed 's/^/  /' >&2
    status=1
  fi
done
exit "$status"
