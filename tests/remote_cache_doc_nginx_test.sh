#!/usr/bin/env bash
# The nginx server block of docs/remote-cache.md works as pasted: taken from the page (only `listen` and `root`
# changed, to a free loopback port and a temporary folder), wrapped in the http{} that Debian's nginx.conf
# provides, it takes a build's uploads — including a blob over nginx's 1 MiB default body limit, into ac/ and cas/
# that do not exist yet — and serves a clean build from the cache.
#   remote_cache_doc_nginx_test.sh ASSETFORGE SOURCE_DIR
set -euo pipefail
af=$1
src=$2
work=$(mktemp -d)
nginx_pid=
cleanup() {
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*" >&2
    [ -f "$work/logs/error.log" ] && tail -n 20 "$work/logs/error.log" >&2
    exit 1
}
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] || fail "nginx is not installed (scripts/test.sh installs it)"

# The first ```nginx block of the page.
block=$(awk '/^```nginx$/ {on=1; next} on && /^```$/ {exit} on {print}' "$src/docs/remote-cache.md")
[ -n "$block" ] || fail "docs/remote-cache.md has no nginx block"
grep -q '^    listen 8080;' <<<"$block" || fail "the block's listen line changed; update this test"
grep -q '^    root /var/cache/assetforge;' <<<"$block" || fail "the block's root line changed; update this test"

mkdir -p "$work/cache" "$work/logs" "$work/tmp" "$work/project/src"
port=
for _ in $(seq 20); do
    port=$((20000 + RANDOM % 40000))
    server=$(sed -e "s|^    listen 8080;|    listen 127.0.0.1:$port;|" \
        -e "s|^    root /var/cache/assetforge;|    root $work/cache;|" <<<"$block")
    {
        # What Debian's /etc/nginx/nginx.conf gives a conf.d file, pointed at the temporary folder.
        [ "$(id -u)" -eq 0 ] && echo "user root;"
        cat <<CONF
worker_processes 1;
daemon off;
pid "$work/nginx.pid";
error_log "$work/logs/error.log" warn;
events { worker_connections 64; }
http {
    access_log "$work/logs/access.log";
    client_body_temp_path "$work/tmp/body";
    proxy_temp_path "$work/tmp/proxy";
    fastcgi_temp_path "$work/tmp/fastcgi";
    uwsgi_temp_path "$work/tmp/uwsgi";
    scgi_temp_path "$work/tmp/scgi";
$server
}
CONF
    } >"$work/nginx.conf"
    "$nginx" -t -p "$work/" -c "$work/nginx.conf" -e "$work/logs/error.log" >/dev/null 2>&1 ||
        fail "nginx -t refuses the block: $("$nginx" -t -p "$work/" -c "$work/nginx.conf" 2>&1 | tail -n 3)"
    timeout 300 "$nginx" -p "$work/" -c "$work/nginx.conf" -e "$work/logs/error.log" </dev/null >/dev/null 2>&1 &
    nginx_pid=$!
    for _ in $(seq 50); do
        if { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null; then
            exec 3>&-
            break 2
        fi
        kill -0 "$nginx_pid" 2>/dev/null || break
        sleep 0.1
    done
    kill "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
    nginx_pid=
done
[ -n "$nginx_pid" ] || fail "nginx did not start"

# Two textures: a small one and 1024x1024 noise, whose uncompressed output is 4 MiB.
/usr/bin/python3 - "$work/project/src" <<'PY'
import os, sys
from PIL import Image
d = sys.argv[1]
Image.new("RGBA", (64, 64), (200, 80, 40, 255)).save(os.path.join(d, "small.png"))
Image.frombytes("RGBA", (1024, 1024), os.urandom(1024 * 1024 * 4)).save(os.path.join(d, "noise.png"))
PY
cat >"$work/project/pipeline.yaml" <<'YAML'
assetforge: 1
jobs:
  textures:
    inputs: "src/*.png"
    steps: [ { encode: { format: rgba8 } } ]
    output: "out/{stem}.dds"
YAML
url="http://127.0.0.1:$port/"
cd "$work/project"
first=$("$af" build --remote-cache "$url" --remote-cache-required 2>&1) || fail "first build failed: $first"
grep -q "warning" <<<"$first" && fail "the first build warned (uploads refused?): $first"
ls "$work/cache/ac" >/dev/null 2>&1 || fail "no ac/ folder was created by the uploads"
[ "$(find "$work/cache/cas" -type f -size +1M | wc -l)" -ge 1 ] || fail "the 4 MiB blob was not stored"
cp out/noise.dds "$work/noise.first"
rm -rf out .assetforge
second=$("$af" build --remote-cache "$url" --remote-cache-required 2>&1) || fail "second build failed: $second"
grep -q "0 built, 2 from cache" <<<"$second" || fail "the clean build was not served from the cache: $second"
cmp -s out/noise.dds "$work/noise.first" || fail "the cached output differs from the built one"
echo "remote: the documented nginx block took the uploads and served a clean build"
