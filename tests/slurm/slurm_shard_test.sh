#!/usr/bin/env bash
# The README's Slurm recipe, for real: a one-node Slurm cluster
# (slurm-cluster.sh) and an nginx remote cache (../support/nginx-cache.sh) on
# this machine; a 2-task job array runs `build --shard i/2 --remote-cache`, a
# job depending on it runs the gather build, each in its own copy of the
# project (no shared build folder: only the cache is shared). The gather must
# build only the zip, and its outputs must be byte-identical to a one-machine
# build's.
#   slurm_shard_test.sh ASSETFORGE
set -euo pipefail
af=$(realpath "${1:?usage: slurm_shard_test.sh ASSETFORGE}")
here=$(cd "$(dirname "$0")" && pwd)
files=200

work=$(mktemp -d /tmp/af-slurm-XXXXXX) # short: Slurm's socket paths live below it
cleanup() {
    bash "$here/slurm-cluster.sh" stop "$work/slurm" >/dev/null 2>&1 || true
    bash "$here/../support/nginx-cache.sh" stop "$work/cache" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*" >&2
    for f in "$work"/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }; done
    exit 1
}

mkdir -p "$work/cache" "$work/slurm" "$work/seed/src"
url=$(bash "$here/../support/nginx-cache.sh" start "$work/cache")
# Not eval "$(…)": that would go on after a failed start (eval of nothing succeeds).
conf=$(bash "$here/slurm-cluster.sh" start "$work/slurm")
eval "$conf"

# 200 distinct small textures and the pipeline: mips + BC1 per file, then a zip of all.
/usr/bin/python3 - "$work/seed/src" "$files" <<'PY'
import sys, zlib, struct
out, n = sys.argv[1], int(sys.argv[2])
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
for i in range(n):
    w = h = 32
    raw = b"".join(b"\0" + bytes(((x * 7 + y * 13 + i * 31 + c * 50) & 0xFF) if c < 3 else 255
                                 for x in range(w) for c in range(4)) for y in range(h))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) +
           chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    with open("%s/t%03d.png" % (out, i), "wb") as f:
        f.write(png)
PY
cp "$here/../support/cached_pipeline.yaml" "$work/seed/pipeline.yaml" # remote_cache_build_test.cpp builds it too

# The one-machine build to compare with (no cache).
cp -r "$work/seed" "$work/one"
(cd "$work/one" && "$af" build -q pipeline.yaml) || fail "one-machine build"

# The recipe: an array of shards, then the gather job once all succeeded.
array=$(sbatch --parsable --chdir="$work" --output="$work/shard-%a.log" --array=0-1 --wrap \
    "cp -r '$work/seed' \"$work/node-\$SLURM_ARRAY_TASK_ID\" && cd \"$work/node-\$SLURM_ARRAY_TASK_ID\" &&
     '$af' build pipeline.yaml -j 1 --shard \$SLURM_ARRAY_TASK_ID/2 --remote-cache '$url'")
array=${array%%;*}
gather=$(sbatch --parsable --chdir="$work" --output="$work/gather.log" --dependency="afterok:$array" --wrap \
    "cp -r '$work/seed' '$work/gatherer' && cd '$work/gatherer' && '$af' build pipeline.yaml --remote-cache '$url'")
gather=${gather%%;*}
bash "$here/slurm-cluster.sh" wait-job "$work/slurm" "$array" 300 || fail "the shard array did not succeed"
bash "$here/slurm-cluster.sh" wait-job "$work/slurm" "$gather" 300 || fail "the gather job did not succeed"

# Each shard built part of the tree, together all of it, none of it twice.
built=0
for i in 0 1; do
    line=$(grep -E "^[0-9]+ built" "$work/shard-$i.log" | tail -1) || fail "shard $i printed no summary"
    n=${line%% built*}
    [ "$n" -gt 0 ] || fail "shard $i built nothing: $line"
    grep -q "left to other shards (shard $i/2)" <<<"$line" || fail "shard $i: $line"
    built=$((built + n))
done
[ "$built" -eq "$files" ] || fail "the shards built $built actions, expected $files"
grep -q "^1 built, $files from cache" "$work/gather.log" || fail "the gather job did not take everything from the cache"
for i in 0 1; do
    [ -d "$work/node-$i/out" ] || fail "task $i did not build in its own copy"
    [ ! -e "$work/node-$i/out/mod.zip" ] || fail "shard $i ran the gather"
done

# Byte-identical to the one-machine build.
diff -r -x .assetforge "$work/one/out" "$work/gatherer/out" >/dev/null || fail "outputs differ from a one-machine build"
[ "$(find "$work/gatherer/out" -name '*.dds' | wc -l)" -eq "$files" ] || fail "missing outputs"
echo "slurm shard test: 2 shards built $built actions, the gather job fetched $files and built the zip;" \
    "outputs byte-identical to a one-machine build"
