#!/usr/bin/env bash
# `evr replace --overwrite` killed (SIGKILL) at random moments: the set in
# the output folder must afterwards be the old one or the new one, whole —
# never new parts beside the old manifest. The old set has many parts and
# the new one fewer, so a half-done switch is visible.
#
# usage: replace_kill_check.sh ASSETFORGE SET_DIR [KILLS]
set -euo pipefail
AF=$(realpath "$1"); SET=$(realpath "$2"); KILLS=${3:-40}
PY=/usr/bin/python3
T=$(mktemp -d); trap "[ -n \"${KEEP:-}\" ] || rm -rf $T" EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
NAME=$(basename "$SET"/manifests/*)
set_sums() { (cd "$1" && sha256sum manifests/"$NAME" $(ls packages | grep -E "^${NAME}_[0-9]+$" | sed 's|^|packages/|') | sort -k2); }

"$AF" evr extract "$SET" "$NAME" --out "$T/x" > /dev/null 2>&1
# Edit A: every opaque file grows; edit B: the same files grow otherwise.
mkdir -p "$T/a" "$T/b"
for f in $(cd "$T/x" && find . -name '*.bin' | sort); do
  mkdir -p "$T/a/$(dirname "$f")" "$T/b/$(dirname "$f")"
  { cat "$T/x/$f"; printf 'edit-a'; } > "$T/a/$f"
  { cat "$T/x/$f"; head -c 3000 /dev/urandom; } > "$T/b/$f"
done
"$AF" evr replace "$SET" "$NAME" --from "$T/a" --out "$T/old" --part-size 1500 > /dev/null
"$AF" evr replace "$SET" "$NAME" --from "$T/b" --out "$T/new" > /dev/null
OLD=$(set_sums "$T/old"); NEW=$(set_sums "$T/new")
[ "$(ls "$T/old/packages" | wc -l)" -gt "$(ls "$T/new/packages" | wc -l)" ] || fail "the old set should have more parts"

start=$(date +%s%N)
cp -r "$T/old" "$T/out"
"$AF" evr replace "$SET" "$NAME" --from "$T/b" --out "$T/out" --overwrite > /dev/null
run_ns=$(( $(date +%s%N) - start ))
[ "$(set_sums "$T/out")" = "$NEW" ] || fail "an uninterrupted --overwrite did not give the new set"

old_seen=0; new_seen=0
for i in $(seq 1 "$KILLS"); do
  rm -rf "$T/out" "$T"/.af-tmp-*
  cp -r "$T/old" "$T/out"
  delay=$("$PY" -c "import random; print(random.uniform(0, 1.3 * $run_ns / 1e9))")
  "$AF" evr replace "$SET" "$NAME" --from "$T/b" --out "$T/out" --overwrite > /dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -KILL "$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
  got=$(set_sums "$T/out" 2> /dev/null || true)
  if [ "$got" = "$OLD" ]; then old_seen=$((old_seen + 1))
  elif [ "$got" = "$NEW" ]; then new_seen=$((new_seen + 1))
  else
    echo "$got" >&2
    fail "kill $i after ${delay}s left a set that is neither the old nor the new one"
  fi
done
echo "ok: $KILLS kills: $old_seen left the old set, $new_seen the new one, none a mix"
