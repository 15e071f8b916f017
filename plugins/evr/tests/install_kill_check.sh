#!/usr/bin/env bash
# `evr install` killed (SIGKILL) at random moments: the game folder is either
# untouched (and no backup claims otherwise), or holds a backup from which
# `evr restore` gives every file back byte for byte; running `install` again
# finishes the job. The new set is laid out in one part (--part-size), fewer
# than the game's, so stale parts are removed too, and so are the temporaries
# the killed run left.
#
# usage: install_kill_check.sh ASSETFORGE SET_DIR [KILLS]
set -euo pipefail
AF=$(realpath "$1"); SET=$(realpath "$2"); KILLS=${3:-20}
PY=/usr/bin/python3
T=$(mktemp -d); trap "[ -n \"${KEEP:-}\" ] || rm -rf $T" EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
NAME=$(basename "$SET"/manifests/*)
# The game's files, leftover temporaries and the backup aside.
# The killed run's temporaries (install and restore remove them).
temporaries() { find "$1/manifests" "$1/packages" -maxdepth 1 -name '.af-tmp-*' | wc -l; }
game_sums() { (cd "$1" && find manifests packages -type f ! -name '.af-tmp-*' -print0 | sort -z | xargs -0 sha256sum); }

mkdir -p "$T/orig"
cp -r "$SET/manifests" "$SET/packages" "$T/orig/"
printf 'another set' > "$T/orig/packages/0123456789abcdef_0"
"$AF" evr extract "$SET" "$NAME" --out "$T/x" > /dev/null 2>&1
mkdir -p "$T/edit"
for f in $(cd "$T/x" && find . -name '*.bin' | sort); do
  mkdir -p "$T/edit/$(dirname "$f")"
  { cat "$T/x/$f"; head -c 2000 /dev/urandom; } > "$T/edit/$f"
done
"$AF" evr replace "$SET" "$NAME" --from "$T/edit" --out "$T/mod" --part-size 2147483647 > /dev/null
[ "$(ls "$T/orig/packages" | grep -c "^${NAME}_")" -gt "$(ls "$T/mod/packages" | wc -l)" ] || fail "the new set should have fewer parts"
ORIG=$(game_sums "$T/orig")

start=$(date +%s%N)
cp -r "$T/orig" "$T/game"
"$AF" evr install "$T/mod" "$T/game" "$NAME" > /dev/null
run_ns=$(( $(date +%s%N) - start ))
NEW=$(game_sums "$T/game")

untouched=0; interrupted=0; done_=0; left=0
for i in $(seq 1 "$KILLS"); do
  rm -rf "$T/game"
  cp -r "$T/orig" "$T/game"
  delay=$("$PY" -c "import random; print(random.uniform(0, 1.3 * $run_ns / 1e9))")
  "$AF" evr install "$T/mod" "$T/game" "$NAME" > /dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -KILL "$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
  got=$(game_sums "$T/game")
  [ "$(temporaries "$T/game")" = 0 ] || left=$((left + 1))
  if [ ! -f "$T/game/.assetforge-backup/$NAME/backup.json" ]; then
    [ "$got" = "$ORIG" ] || fail "kill $i after ${delay}s: the game folder changed with no backup record"
    untouched=$((untouched + 1))
  elif [ "$got" = "$NEW" ]; then done_=$((done_ + 1))
  else interrupted=$((interrupted + 1))
  fi
  # Either way out: restore gives the original back ...
  if [ -f "$T/game/.assetforge-backup/$NAME/backup.json" ]; then
    cp -r "$T/game" "$T/game2"
    "$AF" evr restore "$T/game2" "$NAME" > /dev/null || fail "kill $i: restore failed"
    [ "$(game_sums "$T/game2")" = "$ORIG" ] || fail "kill $i after ${delay}s: restore did not give the original back"
    [ "$(temporaries "$T/game2")" = 0 ] || fail "kill $i after ${delay}s: restore left the killed install's temporaries"
    rm -rf "$T/game2"
  fi
  # ... and installing again finishes the job.
  "$AF" evr install "$T/mod" "$T/game" "$NAME" > /dev/null || fail "kill $i: install again failed"
  [ "$(game_sums "$T/game")" = "$NEW" ] || fail "kill $i: install again did not give the new set"
  [ "$(temporaries "$T/game")" = 0 ] || fail "kill $i after ${delay}s: install again left the killed install's temporaries"
  "$AF" evr restore "$T/game" "$NAME" > /dev/null || fail "kill $i: restore after the second install failed"
  [ "$(game_sums "$T/game")" = "$ORIG" ] || fail "kill $i: restore after the second install"
done
echo "ok: $KILLS kills: $untouched before any change, $interrupted midway, $done_ after, $left leaving temporaries; restore and install again recover each"
