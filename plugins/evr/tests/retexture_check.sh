#!/usr/bin/env bash
# configs/echovr-retexture.yaml end to end on a package set: extract → PNG →
# edit five textures (BC1, BC3, BC6H, BC7, one raw BC) → re-encode → replace → verify.
# Checks that an unedited run changes nothing in the set, that after the
# edits exactly the edited textures changed, that they decode (with Pillow,
# an independent decoder) to the edit within the encoders' usual error, that
# a second build is a no-op, and that the pipeline never writes over the set
# it reads, even with --overwrite-edited.
#
# usage: retexture_check.sh ASSETFORGE CONFIG SET_DIR [TOOLS_DIR]
#   SET_DIR: a package set (manifests/NAME, packages/NAME_<N>, manifest.json)
#   TOOLS_DIR: optional folder of the independent make_evr.py / evr_read.py;
#   with it, a fresh set is generated and evr_read.py verify --against checks
#   the repack rules as well.
set -euo pipefail
AF=$(realpath "$1"); CONFIG=$(realpath "$2"); SET=$(realpath "$3"); TOOLS=${4:-}
PY=/usr/bin/python3
T=$(mktemp -d); trap "[ -n \"${KEEP:-}\" ] || rm -rf $T" EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

if [ -n "$TOOLS" ]; then
  "$PY" "$TOOLS/make_evr.py" --out "$T/game" --seed 3 --files 60 > /dev/null
else
  cp -r "$SET" "$T/game"
fi
NAME=$(basename "$T"/game/manifests/*)
build() { "$AF" build "$CONFIG" -D data="$T/game" -D set="$NAME" -D work="$T/w" "$@"; }
tree_sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

# 1. Export for editing, nothing edited: the new set holds the same files.
build > "$T/log1" 2>&1 || { cat "$T/log1"; fail "first build"; }
"$AF" evr verify "$T/w/mod" "$NAME" --strict > /dev/null || fail "verify of the unedited repack"
"$AF" evr extract "$T/game" "$NAME" --out "$T/x-orig" > /dev/null 2>&1
"$AF" evr extract "$T/w/mod" "$NAME" --out "$T/x-new0" > /dev/null 2>&1
diff <(tree_sums "$T/x-orig") <(tree_sums "$T/x-new0") > /dev/null || fail "an unedited run changed the set"
cmp -s "$T/game/packages/${NAME}_0" "$T/w/mod/packages/${NAME}_0" || fail "an unedited run rebuilt frames"
[ -f "$T/w/report/$NAME.verify.json" ] || fail "no verify report"

# 2. Edit five PNGs with smooth content (a modder's repaint), keeping alpha.
"$PY" - "$T" <<'PY' > "$T/edited"
import os, struct, subprocess, sys
import numpy as np
from PIL import Image
t = sys.argv[1]
want = {71: None, 77: None, 95: None, 98: None}  # BC1, BC3, BC6H, BC7: the largest of each
raw = None  # and the largest raw BC texture (stored without a header in the set)
for root, _, files in os.walk(f"{t}/w/original"):
    for f in files:
        p = os.path.join(root, f)
        b = open(p, "rb").read()
        if len(b) < 148 or b[84:88] != b"DX10":
            continue
        fmt, (h, w) = struct.unpack("<I", b[128:132])[0], struct.unpack("<II", b[12:20])
        rel = os.path.relpath(p, f"{t}/w/original")
        if fmt in want and w * h >= 16 and (want[fmt] is None or w * h > want[fmt][1]):
            want[fmt] = (rel, w * h)
        if rel.startswith("7f5bc1cf8ce51ffd/") and fmt in (71, 72, 77, 78, 95, 96, 98, 99):
            if raw is None or w * h > raw[2]:
                raw = (fmt, rel, w * h)
edits = [(fmt, v[0] if v else None) for fmt, v in want.items()]
if raw and raw[1] not in [r for _, r in edits]:
    edits.append(raw[:2])
for fmt, rel in edits:
    if rel is None:
        sys.exit(f"no texture of DXGI format {fmt} to edit")
    # BC6H's edit copy is an OpenEXR ({edit_ext}): oiiotool (OpenImageIO) takes it to and from an 8-bit PNG.
    hdr = fmt in (95, 96)
    rel = rel[:-4] + (".exr" if hdr else ".png")
    p = f"{t}/w/edit/{rel}"
    if hdr:
        subprocess.run(["oiiotool", p, "--ch", "R,G,B,A=1.0", "-d", "uint8", "-o", p + ".png"], check=True)
    im = Image.open(p + ".png" if hdr else p).convert("RGBA")
    a = np.asarray(im).astype(np.float64)
    h, w = a.shape[:2]
    y, x = np.mgrid[0:h, 0:w]
    a[..., 0] = 40 + 160 * x / max(1, w - 1)
    a[..., 1] = 200 - 150 * y / max(1, h - 1)
    a[..., 2] = 90 + 60 * np.sin(x / 6.0)
    Image.fromarray(np.clip(a + 0.5, 0, 255).astype(np.uint8), "RGBA").save(p + ".png" if hdr else p)
    if hdr:
        subprocess.run(["oiiotool", p + ".png", "-d", "half", "-o", p], check=True)
        os.remove(p + ".png")
    print(fmt, rel)
PY
# 3. Rebuild: the edited PNGs are kept, re-encoded and replaced; nothing else changes.
build > "$T/log2" 2>&1 || { cat "$T/log2"; fail "second build"; }
grep -q "replace" "$T/log2" || fail "the set was not rebuilt after the edits"
"$AF" evr verify "$T/w/mod" "$NAME" --strict > /dev/null || fail "verify of the edited repack"
"$AF" evr extract "$T/w/mod" "$NAME" --out "$T/x-new" > /dev/null 2>&1
changed=$( (diff <(tree_sums "$T/x-orig") <(tree_sums "$T/x-new") || true) | grep '^>' | awk '{print $3}' | sed 's|^\./||;s|\.dds$||' | sort)
expected=$(awk '{print $2}' "$T/edited" | sed -E 's/\.(png|exr)$//' | sort)
[ "$changed" = "$expected" ] || fail "changed files: [$changed], edited: [$expected]"

# 4. Each edited texture decodes to its edit: Pillow decodes the new DDS
#    (BC1/BC3 given a legacy header, which this Pillow needs).
"$PY" - "$T" <<'PY'
import io, math, subprocess, sys
import numpy as np
from PIL import Image
t = sys.argv[1]
floor = {71: 30.0, 72: 30.0, 77: 30.0, 78: 30.0, 95: 30.0, 96: 30.0, 98: 36.0, 99: 36.0}
for line in open(f"{t}/edited"):
    fmt, rel = line.split()
    fmt = int(fmt)
    b = bytearray(open(f"{t}/x-new/{rel[:-4]}.dds", "rb").read())
    assert int.from_bytes(b[128:132], "little") == fmt, f"{rel}: format changed"
    if fmt in (71, 72, 77, 78):  # DX10 -> legacy FourCC for Pillow 9
        b = b[:84] + (b"DXT1" if fmt in (71, 72) else b"DXT5") + b[88:128] + b[148:]
    got = np.asarray(Image.open(io.BytesIO(bytes(b))).convert("RGB")).astype(np.float64)
    p = f"{t}/w/edit/{rel}"
    if rel.endswith(".exr"):
        subprocess.run(["oiiotool", p, "--ch", "R,G,B,A=1.0", "-d", "uint8", "-o", f"{t}/edit.png"], check=True)
        p = f"{t}/edit.png"
    edit = np.asarray(Image.open(p).convert("RGBA")).astype(np.float64)
    ref = edit[..., :3]
    # BC1 with 1-bit alpha stores transparent texels as black: their colour is not kept.
    keep = edit[..., 3] >= 128 if fmt in (71, 72) else np.ones(edit.shape[:2], bool)
    mse = np.mean((got[keep] - ref[keep]) ** 2)
    psnr = 99.0 if mse == 0 else 10 * math.log10(255 ** 2 / mse)
    print(f"DXGI {fmt} {rel}: PSNR {psnr:.1f} dB (floor {floor[fmt]})")
    if psnr < floor[fmt]:
        sys.exit(f"{rel}: decodes {psnr:.1f} dB from the edit")
PY

# 5. A second build with nothing new is a no-op.
build > "$T/log3" 2>&1 || fail "third build"
grep -q "^0 built" "$T/log3" || { cat "$T/log3"; fail "a rebuild with no change ran actions"; }

# 6. The set the pipeline reads is an input: writing the mod over it is refused, even forced.
mkdir -p "$T/w2/mod"
cp -r "$T/game/manifests" "$T/game/packages" "$T/w2/mod/"
before=$(tree_sums "$T/w2/mod")
if "$AF" build "$CONFIG" -D data="$T/w2/mod" -D set="$NAME" -D work="$T/w2" --overwrite-edited > "$T/log4" 2>&1; then
  cat "$T/log4"; fail "a build writing over the set it reads succeeded"
fi
grep -q "input" "$T/log4" || { cat "$T/log4"; fail "no message naming the input"; }
[ "$before" = "$(tree_sums "$T/w2/mod" | grep -v '\.af-tmp')" ] || fail "the original set was changed"

# 7. With the independent reader: the repack rules (order, symbols, unknown fields, untouched frames).
if [ -n "$TOOLS" ]; then
  "$PY" "$TOOLS/evr_read.py" verify "$T/w/mod/manifests/$NAME" --against "$T/game/manifests/$NAME" --strict
fi
echo "ok: retexture flow on $NAME: $(wc -l < "$T/edited") edited textures changed, nothing else"
