#!/usr/bin/env bash
# configs/echovr-retexture.yaml on sets of other layouts than the one it was
# written against: texture metadata in other frames than its texture (one
# file per frame) and sets with quirks (header-length 24, an unreferenced
# frame, a non-zero final record). For each: an unedited run finishes and
# changes nothing; one edited texture changes exactly that file; the config's
# verify (against the game's set) passes although the game's set has quirks;
# `evr install` puts the result into a copy of the game folder and
# `evr restore` gives the folder back byte for byte.
#
# usage: retexture_layouts_check.sh ASSETFORGE CONFIG DATA_DIR SET...
set -euo pipefail
AF=$(realpath "$1"); CONFIG=$(realpath "$2"); DATA=$(realpath "$3"); shift 3
PY=/usr/bin/python3
T=$(mktemp -d); trap "[ -n \"${KEEP:-}\" ] || rm -rf $T" EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
tree_sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

for SETDIR in "$@"; do
  S="$T/$SETDIR"
  mkdir -p "$S"
  cp -r "$DATA/$SETDIR" "$S/game"
  NAME=$(basename "$S"/game/manifests/*)
  build() { "$AF" build "$CONFIG" -D data="$S/game" -D set="$NAME" -D work="$S/w" "$@"; }

  # 1. No edit: the build finishes, the new set holds the same files.
  build > "$S/log1" 2>&1 || { cat "$S/log1"; fail "$SETDIR: unedited build"; }
  [ -f "$S/w/report/$NAME.verify.json" ] || fail "$SETDIR: no verify report"
  "$AF" evr extract "$S/game" "$NAME" --out "$S/x-orig" > /dev/null 2>&1
  "$AF" evr extract "$S/w/mod" "$NAME" --out "$S/x-new0" > /dev/null 2>&1
  diff <(tree_sums "$S/x-orig") <(tree_sums "$S/x-new0") > /dev/null || fail "$SETDIR: an unedited run changed the set"

  # 2. One texture_dds file edited (its PNG repainted).
  rel=$(cd "$S/w/edit" && find beac1969cb7b8861 -name '*.png' | sort | head -1)
  [ -n "$rel" ] || fail "$SETDIR: no texture_dds PNG to edit"
  "$PY" - "$S/w/edit/$rel" <<'PY'
import sys
import numpy as np
from PIL import Image
p = sys.argv[1]
a = np.asarray(Image.open(p).convert("RGBA")).copy()
a[..., 0] = 255 - a[..., 0]
a[..., 1] = (a[..., 1].astype(int) + 97) % 256
Image.fromarray(a, "RGBA").save(p)
PY
  build > "$S/log2" 2>&1 || { cat "$S/log2"; fail "$SETDIR: edited build (the config's verify against the game's set)"; }
  "$AF" evr extract "$S/w/mod" "$NAME" --out "$S/x-new" > /dev/null 2>&1
  changed=$( (diff <(tree_sums "$S/x-orig") <(tree_sums "$S/x-new") || true) | grep '^>' | awk '{print $3}' | sed 's|^\./||;s|\.dds$||')
  [ "$changed" = "${rel%.png}" ] || fail "$SETDIR: changed [$changed], edited [${rel%.png}]"
  "$AF" evr verify "$S/w/mod" "$NAME" --strict --against "$S/game" > /dev/null || fail "$SETDIR: verify --against --strict"

  # 3. Into (a copy of) the game folder, and back.
  cp -r "$S/game" "$S/gamecopy"
  before=$(tree_sums "$S/gamecopy")
  "$AF" evr install "$S/w/mod" "$S/gamecopy" "$NAME" > "$S/log3" 2>&1 || { cat "$S/log3"; fail "$SETDIR: install"; }
  "$AF" evr verify "$S/gamecopy" "$NAME" --against "$S/game" --strict > /dev/null || fail "$SETDIR: installed set"
  "$AF" evr restore "$S/gamecopy" "$NAME" > /dev/null || fail "$SETDIR: restore"
  [ "$before" = "$(tree_sums "$S/gamecopy")" ] || fail "$SETDIR: restore did not give the folder back"
  echo "ok: $SETDIR ($NAME): unedited run, one edit (${rel%.png}), install and restore"
done
