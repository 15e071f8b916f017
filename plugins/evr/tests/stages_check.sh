#!/usr/bin/env bash
# The evr.* stages through real pipelines: evr.build from a tree, evr.extract
# (--groups, types), that the action key covers every part file the stage
# reads, and every corruption kind refused by evr.extract and evr.replace
# with a message naming the set, no crash, the rest of the batch going on.
#
# usage: stages_check.sh ASSETFORGE DATA_DIR
set -euo pipefail
AF=$(realpath "$1"); DATA=$(realpath "$2")
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
tree_sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
S1=91b7584a2265b1f5

# 1. evr.extract with groups and a type filter; evr.build back from the grouped tree.
cp -r "$DATA/s1" "$T/s1"
cat > "$T/p1.yaml" <<YAML
assetforge: 1
jobs:
  x:
    inputs: "s1/manifests/$S1"
    steps:
      - evr.extract: { packages: s1/packages, groups: true }
    output: "out/tree/{path}"
  tex:
    inputs: "s1/manifests/$S1"
    steps:
      - evr.extract: { packages: s1/packages, types: "beac1969cb7b8861, 0x7f5bc1cf8ce51ffd" }
    output: "out/tex/{type_name}/{file}.{kind}"
  pack:
    needs: [ x ]
    inputs: "out/tree/**/*"
    gather:
      evr.build: { name: 00000000000000aa, groups: true }
    output: "out/new/{path}"
YAML
(cd "$T" && "$AF" build p1.yaml > log1 2>&1) || { cat "$T/log1"; fail "stage pipeline"; }
"$AF" evr extract "$T/s1" "$S1" --out "$T/ref" --groups > /dev/null 2>&1
diff <(tree_sums "$T/ref") <(tree_sums "$T/out/tree") > /dev/null || fail "evr.extract groups: not the tree evr extract --groups writes"
[ "$(find "$T/out/tex" -type f | wc -l)" = 8 ] || fail "evr.extract types: $(find "$T/out/tex" -type f | wc -l) files, expected 8"
[ -d "$T/out/tex/texture_bc_raw" ] && [ -d "$T/out/tex/texture_dds" ] || fail "type_name metadata in the template"
"$AF" evr verify "$T/out/new" 00000000000000aa --strict > /dev/null || fail "evr.build set fails verify"
"$AF" evr extract "$T/out/new" 00000000000000aa --out "$T/back" > /dev/null 2>&1
"$AF" evr extract "$T/s1" "$S1" --out "$T/ref-flat" > /dev/null 2>&1
diff <(tree_sums "$T/ref-flat") <(tree_sums "$T/back") > /dev/null || fail "evr.build: the new set does not extract to the same files"

# 2. The key covers the parts: a changed part file reruns the extraction; nothing else does.
(cd "$T" && "$AF" build p1.yaml > log2 2>&1)
grep -q "^0 built" "$T/log2" || { cat "$T/log2"; fail "a second build ran actions"; }
printf 'x' >> "$T/s1/packages/${S1}_0" # bytes after the last frame: a warning, still readable
(cd "$T" && "$AF" build p1.yaml > log3 2>&1) || { cat "$T/log3"; fail "build after a part changed"; }
grep -q "^2 built, 1 up to date" "$T/log3" || { cat "$T/log3"; fail "a changed part file did not rerun both extractions (and only them: their outputs are the same)"; }

# 3. Every corruption kind: evr.extract and evr.replace fail with a message, the batch goes on.
{
  echo "assetforge: 1"
  echo "jobs:"
  for d in "$DATA"/c-*; do
    k=$(basename "$d"); name=$(basename "$d"/manifests/*)
    cp -r "$d" "$T/$k"
    echo "  x-$k:"
    echo "    inputs: \"$k/manifests/$name\""
    echo "    steps: [ { evr.extract: { packages: $k/packages } } ]"
    echo "    output: \"out-c/$k/{path}\""
    echo "  r-$k:"
    echo "    inputs: \"repl/*/*\""
    echo "    gather: { evr.replace: { set: \"$k/manifests/$name\", packages: $k/packages } }"
    echo "    output: \"out-r/$k/{path}\""
  done
  echo "  fine:"
  echo "    inputs: \"s1/manifests/$S1\""
  echo "    steps: [ { evr.extract: { packages: s1/packages } } ]"
  echo "    output: \"out-fine/{path}\""
} > "$T/p2.yaml"
mkdir -p "$T/repl/00000000000000ee"; printf 'new' > "$T/repl/00000000000000ee/0000000000000001.bin"
set +e
(cd "$T" && "$AF" build p2.yaml -j2 > log4 2>&1); rc=$?
set -e
[ "$rc" = 1 ] || { cat "$T/log4"; fail "exit $rc with corrupt sets (expected 1)"; }
kinds=$(ls -d "$DATA"/c-* | wc -l)
[ "$(grep -c "FAILED x-c-" "$T/log4")" = "$kinds" ] || { cat "$T/log4"; fail "not every corrupt set failed evr.extract"; }
[ "$(grep -c "FAILED r-c-" "$T/log4")" = "$kinds" ] || { cat "$T/log4"; fail "not every corrupt set failed evr.replace"; }
[ -f "$T/out-fine/beac1969cb7b8861/c381e88f38c0c8fd.dds" ] || fail "the good set was not extracted beside the failures"
[ ! -e "$T/out-r" ] || fail "a corrupt set produced a repacked set"
grep -q "c-zstd-garbage/packages/.*frame" "$T/log4" || { cat "$T/log4"; fail "the zstd-garbage message does not name the part and frame"; }
grep -q "c-bad-magic/manifests/" "$T/log4" || fail "the bad-magic message does not name the manifest"
echo "ok: evr stages"
