#!/usr/bin/env bash
# Benchmark (not a test): `assetforge pages selftest` and `stats` on a 2–3 GB synthetic .pages
# file against `dd` reading the same file, with peak memory.
#
#   bench/vtpages_selftest.sh [FILE]      (default /tmp/vtbench/big.pages; generated when missing)
#
# Cold runs: the file's pages are evicted from the page cache with posix_fadvise(DONTNEED) (works
# without root once the file is clean), so "cold" means read from the disk; "warm" runs follow
# immediately and read from the page cache. Memory: peak RSS from /usr/bin/time -v counts the
# file-backed pages of the mapping (reclaimable page cache) as well, so a sampler also reports the
# peak anonymous (private heap) memory from /proc/PID/status.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
AF=${AF:-$here/build/bin/assetforge}
F=${1:-/tmp/vtbench/big.pages}
PY=/usr/bin/python3
if [ ! -f "$F" ]; then
    mkdir -p "$(dirname "$F")"
    $PY "$here/tests/tools/make_pages.py" "$F" --levels 10 --occupancy 0.25 --seed 1 --slack-every 9
fi
sync
size=$(stat -c %s "$F")
mb=$(awk -v s="$size" 'BEGIN{printf "%.1f", s/1048576}')
echo "file: $F ($size bytes, $mb MiB)"

evict() { $PY -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED); os.close(fd)" "$F"; }
cached() { $PY - "$F" <<'PY'
# Fraction of the file resident in the page cache (mincore over a private mapping).
import ctypes, ctypes.util, mmap, os, sys
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
m = mmap.mmap(fd, size, access=mmap.ACCESS_COPY)
n = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
vec = (ctypes.c_ubyte * n)()
anchor = ctypes.c_char.from_buffer(m)
libc.mincore(ctypes.c_void_p(ctypes.addressof(anchor)), ctypes.c_size_t(size), vec)
print(f"{100.0 * sum(v & 1 for v in vec) / n:.1f}%")
del anchor
m.close()
os.close(fd)
PY
}

# Runs a command, prints wall seconds, MiB/s over the file size, peak RSS and peak anonymous memory.
measure() {
    local label=$1; shift
    local tv; tv=$(mktemp)
    local t0 t1 pid peak_anon=0
    t0=$(date +%s.%N)
    /usr/bin/time -v "$@" >/dev/null 2>"$tv" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        for c in $(pgrep -P "$pid" 2>/dev/null); do
            a=$(awk '/RssAnon/{print $2}' /proc/$c/status 2>/dev/null || echo 0)
            [ -n "$a" ] && [ "$a" -gt "$peak_anon" ] && peak_anon=$a
        done
        sleep 0.05
    done
    wait "$pid" || { echo "$label: FAILED"; cat "$tv"; return 1; }
    t1=$(date +%s.%N)
    local rss; rss=$(awk '/Maximum resident/{print $6}' "$tv")
    awk -v l="$label" -v a="$t0" -v b="$t1" -v s="$size" -v r="$rss" -v an="$peak_anon" \
        'BEGIN{t=b-a; printf "%-34s %7.2f s  %8.1f MiB/s  peak RSS %7.1f MiB  peak anon %6.1f MiB\n", l, t, s/1048576/t, r/1024, an/1024}'
    rm -f "$tv"
}

"$AF" pages selftest "$F"
echo
echo "-- cold (evicted from the page cache) --"
evict; echo "cached before dd: $(cached)"
measure "dd bs=1M (buffered)" dd if="$F" of=/dev/null bs=1M
evict
measure "dd bs=1M iflag=direct (disk)" dd if="$F" of=/dev/null bs=1M iflag=direct
evict
measure "pages selftest" "$AF" pages selftest "$F"
echo "cached after selftest: $(cached)"
evict
measure "pages stats" "$AF" pages stats "$F"
echo
echo "-- warm (file in the page cache) --"
cat "$F" >/dev/null
measure "dd bs=1M (buffered)" dd if="$F" of=/dev/null bs=1M
measure "pages selftest" "$AF" pages selftest "$F"
measure "pages selftest" "$AF" pages selftest "$F"
measure "pages stats" "$AF" pages stats "$F"
measure "pages walk > /dev/null" "$AF" pages walk "$F"
