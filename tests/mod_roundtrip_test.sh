#!/usr/bin/env bash
# A modder's round trip with the shipped configs, as the configs' comments tell it: the game's folder linked into
# the project (read because the link is given with -D), exported to PNG, one texture edited, re-exported; the
# folder holds every texture, the mod zip only the edited one.
#   mod_roundtrip_test.sh ASSETFORGE SOURCE_DIR
set -euo pipefail
af=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The "game": four DDS files of two formats, in folders, somewhere outside the project.
mkdir -p "$work/game/walls" "$work/game/plants" "$work/project"
n=0
for png in "$src"/examples/quickstart/textures/*/*.png; do
  n=$((n + 1))
  [ $n -gt 4 ] && break
  folder=walls
  fmt=bc1
  [ $((n % 2)) -eq 0 ] && folder=plants && fmt=bc3
  "$af" convert "$png" "$work/game/$folder/$(basename "${png%.png}").dds" --format $fmt > /dev/null
done
[ "$(find "$work/game" -name '*.dds' | wc -l)" -eq 4 ] || fail "expected 4 game textures"
ln -s "$work/game" "$work/project/game"
# The configs copied next to the mod, as configs/README.md suggests, and run from there.
cp "$src"/configs/*.yaml "$work/project/"
cd "$work/project"

# Named only by the pipeline file, the link is refused with the way out in the message.
cat > refuse.yaml <<'YAML'
assetforge: 1
jobs:
  x:
    inputs: "game/**/*.dds"
    steps: [ decode ]
    output: "png/{dir}/{stem}.png"
YAML
set +e
out=$("$af" build refuse.yaml 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] || fail "a link only the pipeline names: exit $rc, expected 2 (refused at load): $out"
grep -q -- "-D <variable>=" <<<"$out" || fail "the refusal does not say what to do: $out"

# Given on the command line, it is read.
"$af" build dds-tree-to-png.yaml -D src=game -D out=edit -q || fail "export through the link failed"
[ "$(find edit -name '*.png' | wc -l)" -eq 4 ] || fail "expected 4 exported PNGs"
edited=$(find edit -name '*.png' | sort | head -n 1)
/usr/bin/python3 - "$edited" <<'PY'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGBA")
im.paste((255, 0, 255, 255), (0, 0, im.width // 2, im.height // 2))
im.save(sys.argv[1])
PY
"$af" build png-to-game-dds.yaml -D src=edit -D original=game -D out=mod -D name=mymod -q ||
  fail "re-export failed"
[ "$(find mod -name '*.dds' | wc -l)" -eq 4 ] || fail "the mod folder should hold all 4 textures"
# The unedited three are the game's own bytes.
same=0
while IFS= read -r f; do cmp -s "game/$f" "mod/$f" && same=$((same + 1)); done < <(cd game && find . -name '*.dds')
[ $same -eq 3 ] || fail "expected 3 unedited textures to keep the game's bytes, got $same"
entries=$(/usr/bin/python3 -c 'import sys, zipfile; print("\n".join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))' mod/mymod.zip)
want=$(realpath --relative-to=edit "$edited")
want=${want%.png}.dds
[ "$entries" = "$(printf 'manifest.json\n%s' "$want")" ] || fail "the zip should hold only $want and the manifest: $entries"
echo "mod round trip: linked game folder read, 1 of 4 textures edited, the zip holds exactly that one"
