#!/usr/bin/env bash
# Installs AssetForge into a temporary prefix, builds the example plugin out of
# tree against the installed SDK, and checks that the installed host loads it
# from $ASSETFORGE_PLUGIN_PATH and reads, writes and describes its files.
set -euo pipefail
build=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
# The install carries the plugin guide and its two examples (a container and a stage)…
guide=$work/prefix/share/doc/AssetForge/examples/plugin-sdk
for f in README.md tga/tga_reader.cpp channels/channels_split.cpp channels/tests/channels_test.cpp; do
  [ -f "$guide/$f" ] || { echo "the install lacks examples/plugin-sdk/$f"; exit 1; }
done
# … and every page the guide links to: a link that works in the source tree works in the install.
links=$(grep -o '](\([^)#]*\)' "$guide/README.md" | sed 's/^](//; s/)$//' | grep -v '^[a-z]*://' | sort -u)
[ -n "$links" ] || { echo "no relative links found in the guide (the check would pass on nothing)"; exit 1; }
for l in $links; do
  [ -e "$guide/$l" ] || { echo "the installed guide links to $l, which is not installed"; exit 1; }
done
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

# The TGA plugin built beside it: its FakeHost tests, then every kind Pillow writes, read by us and compared with
# Pillow's own reading; and our files (raw and RLE) read by Pillow.
grep -q '^tga 1.0.0' "$work/plugins.txt"
if [ -x "$work/build/tga/tga_tests" ]; then "$work/build/tga/tga_tests"; fi
mkdir -p "$work/tga/src"
/usr/bin/python3 - "$work/tga/src" <<'PY'
import os, sys
from PIL import Image
d = sys.argv[1]
w, h = 37, 23  # odd sizes: no row padding assumptions
base = Image.new("RGBA", (w, h))
base.putdata([((x * 7) % 256, (y * 11) % 256, ((x + y) * 5) % 256, 255 if (x + y) % 5 else (x * 3) % 256)
              for y in range(h) for x in range(w)])
flat = Image.new("RGBA", (w, h), (30, 60, 90, 255))
flat.paste((200, 10, 10, 128), (5, 5, 30, 15))
for name, img in (("noise", base), ("flat", flat)):
    for mode in ("L", "RGB", "RGBA", "P"):
        m = img.convert(mode) if mode != "P" else img.convert("RGB").quantize(64)
        for comp in (None, "tga_rle"):
            for orient in (1, -1):
                m.save(os.path.join(d, f"{name}_{mode}_{comp or 'raw'}_{'top' if orient > 0 else 'bottom'}.tga"),
                       compression=comp, orientation=orient)
PY
n=0
for f in "$work"/tga/src/*.tga; do
  "$af" convert "$f" "${f%.tga}.png" > /dev/null
  n=$((n + 1))
done
[ "$n" -eq 32 ] || { echo "expected 32 Pillow TGA files, got $n"; exit 1; }
# Our files: a pipeline writes each PNG back as TGA, raw and RLE.
cat > "$work/tga/pipeline.yaml" <<'YAML'
assetforge: 1
jobs:
  raw:
    inputs: "src/*.png"
    steps: [ write ]
    output: "raw/{stem}.tga"
  rle:
    inputs: "src/*.png"
    steps: [ { write: { rle: true } } ]
    output: "rle/{stem}.tga"
  back:
    inputs: "src/*.tga"
    output: "back/{stem}.png"
YAML
(cd "$work/tga" && "$af" build -q)
/usr/bin/python3 - "$work/tga" <<'PY'
import glob, os, sys
from PIL import Image
root = sys.argv[1]
bad = []
for tga in sorted(glob.glob(os.path.join(root, "src", "*.tga"))):
    stem = os.path.basename(tga)[:-4]
    want = list(Image.open(tga).convert("RGBA").getdata())
    for got_file in (os.path.join(root, "src", stem + ".png"), os.path.join(root, "back", stem + ".png")):
        if list(Image.open(got_file).convert("RGBA").getdata()) != want:
            bad.append(f"{stem}: our reading ({os.path.relpath(got_file, root)}) differs from Pillow's")
    for kind in ("raw", "rle"):
        ours = os.path.join(root, kind, stem + ".tga")
        head = open(ours, "rb").read()
        im = Image.open(tga)
        # Ours, not a copy of the PNG: the 18-byte header of a 32-bit TGA, the footer, and raw files' exact size.
        if head[2] != (10 if kind == "rle" else 2) or head[16] != 32 or not head.endswith(b"TRUEVISION-XFILE.\0"):
            bad.append(f"{stem}: {kind}/{stem}.tga is not a 32-bit TGA of ours")
        if kind == "raw" and len(head) != 18 + im.width * im.height * 4 + 26:
            bad.append(f"{stem}: raw/{stem}.tga has {len(head)} bytes")
        if list(Image.open(ours).convert("RGBA").getdata()) != want:
            bad.append(f"{stem}: Pillow reads our {kind} TGA differently")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("tga: 32 Pillow files read as Pillow reads them; our raw and RLE files read back by Pillow")
PY
[ "$(stat -c %s "$work/tga/rle/flat_RGBA_raw_top.tga")" -lt "$(stat -c %s "$work/tga/raw/flat_RGBA_raw_top.tga")" ] ||
  { echo "RLE did not shrink a flat image"; exit 1; }

# A picture in, a texture container out: the TGA container declares its files pictures, so convert encodes them
# (auto) as it does PNG, and its summary names the format the DDS holds.
"$af" convert "$work/tga/src/noise_RGBA_raw_top.tga" "$work/noise.dds" | tee "$work/tga2dds.txt"
grep -q ': BC[1-7]_UNORM' "$work/tga2dds.txt" || { echo "a TGA was not encoded for DDS"; exit 1; }
# -O reaches the TGA writer; without it the writer's default comes from its declared option table (raw).
"$af" convert "$work/tga/src/flat_RGBA_raw_top.png" "$work/flat_rle.tga" -O rle=true > /dev/null
"$af" convert "$work/tga/src/flat_RGBA_raw_top.png" "$work/flat_raw.tga" > /dev/null
[ "$(od -An -tu1 -j2 -N1 "$work/flat_rle.tga" | tr -d ' ')" = 10 ] || { echo "-O rle=true did not write RLE"; exit 1; }
[ "$(od -An -tu1 -j2 -N1 "$work/flat_raw.tga" | tr -d ' ')" = 2 ] || { echo "the default was not raw"; exit 1; }
set +e
"$af" convert "$work/tga/src/flat_RGBA_raw_top.png" "$work/x.tga" -O rel=true > "$work/bad_define.txt" 2>&1; rc=$?
set -e
[ "$rc" = 2 ] && grep -q "did you mean 'rle'" "$work/bad_define.txt" || { cat "$work/bad_define.txt"; exit 1; }

# The stage example: channels.split in a pipeline, checked against Pillow's own split of the same pictures.
if [ -x "$work/build/channels/channels_tests" ]; then "$work/build/channels/channels_tests"; fi
grep -q '^channels 1.0.0' "$work/plugins.txt"
mkdir -p "$work/split/src"
cp "$work/tga/src/noise_RGBA_raw_top.png" "$work/tga/src/flat_RGBA_raw_top.png" "$work/split/src/"
cat > "$work/split/pipeline.yaml" <<'YAML'
assetforge: 1
jobs:
  split:
    inputs: "src/*.png"
    steps: [ { channels.split: { channels: [r, a] } } ]
    output: "out/{channel}/{stem}.png"
YAML
# A third-party plugin loads only sealed in workers, and its stage runs there.
(cd "$work/split" && "$af" build -q)
/usr/bin/python3 - "$work/split" <<'PY'
import os, sys
from PIL import Image
root = sys.argv[1]
bad = []
for stem in ("noise_RGBA_raw_top", "flat_RGBA_raw_top"):
    src = Image.open(os.path.join(root, "src", stem + ".png")).convert("RGBA")
    for ch, band in (("r", 0), ("a", 3)):
        got = Image.open(os.path.join(root, "out", ch, f"{stem}_{ch}.png"))
        if list(got.convert("RGBA").getdata(0)) != list(src.getdata(band)):
            bad.append(f"{stem}: channel {ch} differs from Pillow's split ({got.mode})")
    for ch in ("g", "b"):
        if os.path.exists(os.path.join(root, "out", ch)):
            bad.append(f"channel {ch} was written but not asked for")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("channels.split: r and a of 2 pictures equal Pillow's split")
PY
echo "sdk plugin test passed"
