#!/usr/bin/env bash
# A throwaway nginx that serves a Bazel-style HTTP remote cache for tests, on a free loopback port.
#   nginx-cache.sh start DIR   writes DIR/nginx.conf, starts nginx, prints the base URL (http://127.0.0.1:PORT)
#   nginx-cache.sh stop DIR    stops the nginx started for DIR
# Locations (all on the same port; files live in DIR/cache, so a test can plant bad entries there):
#   /          the cache: GET, HEAD and WebDAV PUT (creating ac/ and cas/ as needed)
#   /err500/   always answers 500
#   /slow/     the same files at 1 byte/s, for timeout tests
#   /auth/     the cache, but only with "Authorization: Bearer af-test-token" (else 401)
#   /basic/    the cache, but only with basic auth af-user:af-pass (else 401)
# DIR/logs/access.log has one line per request: method, URI, status, connection number, request number on that
# connection, and the Authorization header (tests check what credentials were sent).
# nginx runs with daemon off under `timeout`, so an nginx that a crashed test never stopped still goes
# away by itself.
set -euo pipefail

readonly AUTH_TOKEN="af-test-token"
readonly BASIC_CREDENTIALS="YWYtdXNlcjphZi1wYXNz" # base64 of af-user:af-pass
readonly MAX_LIFETIME_S=600

die() {
    echo "nginx-cache.sh: $*" >&2
    exit 1
}

find_nginx() {
    # /usr/sbin is not on every user's PATH.
    command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } ||
        die "nginx is not installed (scripts/test.sh installs it)"
}

write_conf() { # DIR PORT NONCE
    local dir=$1 port=$2 nonce=$3
    {
        # Workers would otherwise drop to 'nobody', who cannot write the root-owned DIR.
        [ "$(id -u)" -eq 0 ] && echo "user root;"
        cat <<CONF
worker_processes 1;
daemon off;
pid "$dir/nginx.pid";
error_log "$dir/logs/error.log" warn;
events { worker_connections 1024; }
http {
    log_format cache '\$request_method \$request_uri \$status \$connection \$connection_requests "\$http_authorization"';
    access_log "$dir/logs/access.log" cache;
    default_type application/octet-stream;
    log_not_found off; # a miss is normal for a cache
    client_max_body_size 0;
    client_body_temp_path "$dir/tmp/body";
    proxy_temp_path "$dir/tmp/proxy";
    fastcgi_temp_path "$dir/tmp/fastcgi";
    uwsgi_temp_path "$dir/tmp/uwsgi";
    scgi_temp_path "$dir/tmp/scgi";
    server {
        listen 127.0.0.1:$port;
        root "$dir/cache";
        dav_methods PUT;
        create_full_put_path on;
        dav_access user:rw group:r all:r;
        location = /__probe { return 200 "$nonce"; }
        location / { }
        location /err500/ { return 500; }
        location /slow/ {
            alias "$dir/cache/";
            dav_methods off;
            limit_rate 1;
        }
        location /auth/ {
            if (\$http_authorization != "Bearer $AUTH_TOKEN") { return 401; }
            alias "$dir/cache/";
        }
        location /basic/ {
            if (\$http_authorization != "Basic $BASIC_CREDENTIALS") { return 401; }
            alias "$dir/cache/";
        }
    }
}
CONF
    } >"$dir/nginx.conf"
}

# True once the nginx on PORT is ours (answers with NONCE), not some other server that owned the port.
probe() { # PORT NONCE
    local reply
    { exec 3<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 1
    printf 'GET /__probe HTTP/1.0\r\n\r\n' >&3
    reply=$(timeout 2 cat <&3 || true)
    exec 3>&-
    [[ $reply == *"$2"* ]]
}

start() {
    local dir nginx
    mkdir -p "$1"
    dir=$(cd "$1" && pwd -P)
    nginx=$(find_nginx)
    mkdir -p "$dir/cache/ac" "$dir/cache/cas" "$dir/logs" "$dir/tmp"
    for _ in $(seq 20); do
        local port=$((20000 + RANDOM % 40000)) nonce="af-nginx-$RANDOM$RANDOM"
        write_conf "$dir" "$port" "$nonce"
        rm -f "$dir/nginx.pid"
        timeout "$MAX_LIFETIME_S" "$nginx" -p "$dir/" -c "$dir/nginx.conf" -e "$dir/logs/error.log" \
            </dev/null >>"$dir/logs/nginx.out" 2>&1 &
        local launcher=$!
        for _ in $(seq 100); do
            if probe "$port" "$nonce"; then
                echo "http://127.0.0.1:$port"
                return 0
            fi
            kill -0 "$launcher" 2>/dev/null || break # exited: most likely the port was taken
            sleep 0.05
        done
        kill "$launcher" 2>/dev/null || true
        wait "$launcher" 2>/dev/null || true
    done
    die "nginx did not start; see $dir/logs/error.log"
}

stop() {
    local dir pid
    dir=$(cd "$1" 2>/dev/null && pwd -P) || return 0
    [ -f "$dir/nginx.pid" ] || return 0
    pid=$(cat "$dir/nginx.pid")
    # Only the nginx started for DIR: the pid file may be stale and the number reused.
    if [[ $pid =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$dir/nginx.conf"; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.05
        done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/nginx.pid"
}

case "${1:-}" in
start) [ $# -eq 2 ] || die "usage: $0 start DIR"; start "$2" ;;
stop) [ $# -eq 2 ] || die "usage: $0 stop DIR"; stop "$2" ;;
*) die "usage: $0 start|stop DIR" ;;
esac
