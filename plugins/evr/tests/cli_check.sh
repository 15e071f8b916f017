#!/usr/bin/env bash
# The evr plugin through the real CLI: `assetforge evr …` and `assetforge info`
# on a manifest (the container route), on the checked-in sets.
#   cli_check.sh ASSETFORGE DATA_DIR
set -uo pipefail
af=$1 data=$2
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$af" evr list "$data/s1" 91b7584a2265b1f5) || fail "evr list exit $?"
[[ $(printf '%s\n' "$out" | head -1) == "91b7584a2265b1f5: 24 files, 4 data frames (6 records), 1 part(s)" ]] ||
  fail "evr list header: $out"

out=$("$af" info "$data/s2q/manifests/dcf4bb99f4bea973") || fail "info exit $?"
grep -q "container: evr-manifest" <<<"$out" || fail "info does not name the container: $out"
grep -q "files: 24" <<<"$out" || fail "info file count: $out"

"$af" evr extract "$data/mp" dcf4bb99f4bea973 --out "$tmp/x" > /dev/null 2>&1 || fail "evr extract exit $?"
[[ $(find "$tmp/x" -type f | wc -l) == 40 ]] || fail "evr extract wrote $(find "$tmp/x" -type f | wc -l) files, not 40"

err=$("$af" evr verify "$data/c-frame-length/manifests/91b7584a2265b1f5" 2>&1 >/dev/null)
rc=$?
[[ $rc == 1 ]] || fail "verify of a corrupt set: exit $rc"
grep -q "frame 3 (.*packages/91b7584a2265b1f5_0 @ 3733, 274 bytes): decompresses to 1320 bytes, the manifest says 1321" \
  <<<"$err" || fail "verify message: $err"
"$af" evr bogus > /dev/null 2>&1
[[ $? == 2 ]] || fail "usage error is not exit 2"
echo "ok"
