#!/usr/bin/env bash
# configs/echovr-retexture.yaml under --warnings-as-errors (issue 43, item 7):
# an unedited run of a set with the game's own quirks (header-length 24, an
# unreferenced frame) and raw textures that extract as `.bc` passes the gate,
# with those quirks still said (as information); a real loss of an edit (a
# smooth alpha stored in a BC1 original, which keeps only cut-out alpha)
# still fails it, naming the file.
#
# usage: retexture_gate_check.sh ASSETFORGE CONFIG DATA_DIR SET...
set -euo pipefail
AF=$(realpath "$1"); CONFIG=$(realpath "$2"); DATA=$(realpath "$3"); shift 3
PY=/usr/bin/python3
T=$(mktemp -d); trap "[ -n \"${KEEP:-}\" ] || rm -rf $T" EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for SETDIR in "$@"; do
  S="$T/$SETDIR"
  mkdir -p "$S"
  cp -r "$DATA/$SETDIR" "$S/game"
  NAME=$(basename "$S"/game/manifests/*)
  build() { "$AF" build "$CONFIG" -D data="$S/game" -D set="$NAME" -D work="$S/w" --warnings-as-errors "$@"; }

  # 1. Nothing edited: the gate passes; what the game's set holds is still said.
  build > "$S/log1" 2>&1 || { cat "$S/log1"; fail "$SETDIR: an unedited set fails --warnings-as-errors"; }
  if grep -q "warning(s)" "$S/log1"; then cat "$S/log1"; fail "$SETDIR: an unedited set has warnings"; fi
  grep -q "not introduced by this build" "$S/log1" || { cat "$S/log1"; fail "$SETDIR: the set's own quirks are not said"; }
  if [ -n "$(find "$S/w/original" -name '*.bc')" ]; then
    grep -q "written as .bc" "$S/log1" || { cat "$S/log1"; fail "$SETDIR: the .bc textures are not said"; }
  fi

  # 2. A smooth alpha painted into the PNG of a BC1 original: a loss of the edit, which the gate fails.
  rel=$("$PY" - "$S/w/original" <<'PY'
import os, struct, sys
root, best = sys.argv[1], None
for d, _, files in sorted(os.walk(root)):
    for f in sorted(files):
        b = open(os.path.join(d, f), "rb").read(148)
        if not f.endswith(".dds") or len(b) < 148 or b[84:88] != b"DX10":
            continue
        h, w = struct.unpack("<II", b[12:20])
        if struct.unpack("<I", b[128:132])[0] in (71, 72) and w * h >= 4 and (best is None or w * h > best[0]):
            best = (w * h, os.path.relpath(os.path.join(d, f), root)[:-4])
if best:
    print(best[1])
PY
)
  [ -n "$rel" ] || fail "$SETDIR: no BC1 texture to edit"
  "$PY" - "$S/w/edit/$rel.png" <<'PY'
import sys
import numpy as np
from PIL import Image
p = sys.argv[1]
a = np.asarray(Image.open(p).convert("RGBA")).copy()
a[..., 3] = np.linspace(0, 255, a.shape[0] * a.shape[1]).astype(np.uint8).reshape(a.shape[:2])
a[..., 0] = 255 - a[..., 0]
Image.fromarray(a, "RGBA").save(p)
PY
  if build > "$S/log2" 2>&1; then cat "$S/log2"; fail "$SETDIR: a lost alpha passed --warnings-as-errors"; fi
  grep -q "$rel.png: alpha reduced to one bit" "$S/log2" || { cat "$S/log2"; fail "$SETDIR: the loss is not named"; }
  grep -q "^1 warning(s) treated as errors" "$S/log2" ||
    { cat "$S/log2"; fail "$SETDIR: the set's own quirks counted as warnings besides the edit's loss"; }
  echo "ok: $SETDIR ($NAME): unedited set passes --warnings-as-errors, a lost alpha fails it"
done
