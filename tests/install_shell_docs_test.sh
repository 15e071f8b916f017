#!/usr/bin/env bash
# `cmake --install` puts the man page, the bash completion and the bundled
# configs in place, and they work: the completion completes commands and a
# command's options, the man page renders and names every command.
#   install_shell_docs_test.sh BUILD_DIR ASSETFORGE
set -euo pipefail
build=$1
af=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
man=$prefix/share/man/man1/assetforge.1
comp=$prefix/share/bash-completion/completions/assetforge
[ -f "$man" ] || fail "no man page"
[ -f "$comp" ] || fail "no bash completion"
[ -f "$prefix/share/assetforge/configs/png-to-game-dds.yaml" ] || fail "configs not installed"

# Completion: commands, then a command's options (from its --help).
got=$(bash -c "source '$comp'; COMP_WORDS=(assetforge bu); COMP_CWORD=1; _assetforge; echo \"\${COMPREPLY[*]}\"")
[ "$got" = "build" ] || fail "completing 'bu' gave '$got'"
got=$(bash -c "source '$comp'; COMP_WORDS=(assetforge build --remote-u); COMP_CWORD=2; _assetforge; echo \"\${COMPREPLY[*]}\"")
[ "$got" = "--remote-upload" ] || fail "completing 'build --remote-u' gave '$got'"
got=$(bash -c "source '$comp'; COMP_WORDS=(assetforge convert x.png y.dds --png-l); COMP_CWORD=4; _assetforge; echo \"\${COMPREPLY[*]}\"")
[ "$got" = "--png-level" ] || fail "completing 'convert --png-l' gave '$got'"

# The man page renders, and every command of --help has its section.
text=$(MANWIDTH=100 man -l "$man" 2>/dev/null || groff -man -Tutf8 "$man")
for cmd in $("$af" --help | awk '/^  [a-z]/ {print $1}'); do
    grep -q "^   $cmd\$" <<<"$text" || grep -q "^ *$cmd$" <<<"$text" || fail "man page has no section for $cmd"
done
grep -q -- "--remote-cache" <<<"$text" || fail "man page lacks build's options"
# It points to the installed documentation, which is there: the plugin guide and the docs folder.
grep -q "share/doc/AssetForge/examples/plugin-sdk/README.md" <<<"$text" || fail "man page does not point to the plugin guide"
grep -q "share/doc/AssetForge/docs" <<<"$text" || fail "man page does not point to the docs"
[ -f "$prefix/share/doc/AssetForge/examples/plugin-sdk/README.md" ] || fail "the plugin guide named by the man page is not installed"
echo "install: man page, bash completion and configs in place and working"
