#!/usr/bin/env bash
# The libraries only some builds need (libcurl and its kin for a remote cache, libzip and OpenSSL for a zip) are in
# modules loaded on first use, not linked: checks that the executable does not link them, that a build without a
# zip or a remote cache does not load them, that a zip build and a remote-cache build do load their module and
# work, and that each module exports only its entry.
#   lazy_modules_test.sh ASSETFORGE MODULE_DIR
set -euo pipefail
af=$(realpath "$1") modules=$(realpath "$2")
heavy='libcurl|libzip|libcrypto|libssl|libprotobuf|libgnutls'
fail() { echo "FAIL: $*" >&2; exit 1; }

linked=$(readelf -d "$af" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
if grep -Eq "$heavy" <<<"$linked"; then fail "the executable links $(grep -E "$heavy" <<<"$linked" | tr '\n' ' ')"; fi
echo "links none of: $heavy"

for m in libassetforge-remote.so:assetforge_remote_client_v1 libassetforge-zip.so:assetforge_zip_archive_v2; do
  file=$modules/${m%%:*} entry=${m#*:}
  [ -f "$file" ] || fail "$file is missing"
  symbols=$(nm -D --defined-only "$file" | awk '{ sub(/@.*/, "", $NF); print $NF }')
  [ "$symbols" = "$entry" ] || fail "$file exports more than $entry: $(head -n 5 <<<"$symbols" | tr '\n' ' ')"
done
echo "each module exports only its entry"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
mkdir src
/usr/bin/python3 - <<'PY'
import struct, zlib
def png(seed):
    raw = b"".join(b"\0" + bytes((x * 7 + y + seed) & 255 for x in range(16)) for y in range(4))
    c = lambda k, d: struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d) & 0xffffffff)
    return b"\x89PNG\r\n\x1a\n" + c(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 6, 0, 0, 0)) + c(b"IDAT", zlib.compress(raw)) + c(b"IEND", b"")
for i in range(3):
    open("src/t%d.png" % i, "wb").write(png(i))
PY
cat > copy.yaml <<'Y'
assetforge: 1
jobs:
  copy:
    inputs: "src/*.png"
    steps: [ copy ]
    output: "out/{name}"
Y
cat > zip.yaml <<'Y'
assetforge: 1
jobs:
  pack:
    inputs: "src/*.png"
    gather: { zip: {} }
    output: "pack/mod.zip"
Y
loaded() { LD_DEBUG=files "$af" "$@" 2>&1 >/dev/null | sed -n 's/.*file=\([^ ]*\) \[0\];  needed by.*/\1/p; s/.*file=\([^ ]*\) \[0\];  dynamically loaded by.*/\1/p'; }

l=$(loaded build -q copy.yaml)
if grep -Eq "$heavy|libassetforge-" <<<"$l"; then fail "a copy build loaded $(grep -E "$heavy|libassetforge-" <<<"$l" | tr '\n' ' ')"; fi
[ -f out/t0.png ] || fail "the copy build wrote nothing"
echo "a copy build loads neither module"

l=$(loaded build -q zip.yaml)
grep -q 'libassetforge-zip.so' <<<"$l" || fail "the zip build did not load the zip module"
grep -q 'libassetforge-remote.so' <<<"$l" && fail "the zip build loaded the remote module"
/usr/bin/python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; assert sorted(z.namelist()) == ["t0.png", "t1.png", "t2.png"], z.namelist()' pack/mod.zip ||
  fail "the zip is not what was packed"
echo "a zip build loads the zip module and its archive reads back"

# A cache nobody listens on: the module loads, the build warns and builds locally.
rm -rf out .assetforge
out=$(LD_DEBUG=files "$af" build --remote-cache http://127.0.0.1:9/cache copy.yaml 2>&1 || true)
[ -f out/t0.png ] || fail "the remote-cache build did not build locally"
grep -q 'libassetforge-remote.so' <<<"$out" || fail "a remote-cache build did not load the remote module"
grep -q 'warning: remote cache' <<<"$out" || fail "no warning about the unreachable cache"
echo "a remote-cache build loads the remote module and warns about a cache that does not answer"
